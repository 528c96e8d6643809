claude mcp add --transport stdio --env ZOEKT_URL=http://127.0.0.1:6070 zoekt -- zoekt-mcp
