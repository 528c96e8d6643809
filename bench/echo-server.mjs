// The MCP floor for bench/perf.mjs: one `echo` tool on the same SDK and transports as zoekt-mcp,
// doing no work. What zoekt-mcp adds is measured against it.
//   node bench/echo-server.mjs            # stdio
//   node bench/echo-server.mjs --http     # Streamable HTTP on a free loopback port (printed on stderr)
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'echo', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its text.', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

if (process.argv.includes('--http')) {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const http = createServer(async (req, res) => {
    // No standalone stream and no sessions, as on zoekt-mcp's /mcp.
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    let body = '';
    for await (const chunk of req) body += chunk;
    // Stateless, JSON answers: the way zoekt-mcp serves /mcp.
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, JSON.parse(body));
  });
  http.listen(0, '127.0.0.1', () => process.stderr.write(`${JSON.stringify({ url: `http://127.0.0.1:${http.address().port}` })}\n`));
} else {
  await build().connect(new StdioServerTransport());
}
