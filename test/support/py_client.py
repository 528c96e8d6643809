"""A client written by others for the protocol tests: the Python MCP SDK, in one of its modes.

usage: python py_client.py MODE stdio COMMAND ARG ZOEKT_URL   (ARG '-' for none)
       python py_client.py MODE http URL [TOKEN]

MODE is auto, legacy or 2026-07-28. Lists the tools, runs search_code and search_symbols, and a
search_code with a bad regex; prints one JSON object with what came back.
"""
import asyncio
import json
import sys
import warnings

warnings.simplefilter("ignore")

from mcp import Client, StdioServerParameters  # noqa: E402


def server_of(args):
    kind = args[0]
    if kind == "stdio":
        command, arg, zoekt = args[1], args[2], args[3]
        return StdioServerParameters(command=command, args=[] if arg == "-" else [arg], env={"ZOEKT_URL": zoekt, "ZOEKT_MCP_LOG_LEVEL": "warn", "PATH": "/usr/bin:/bin"})
    url = args[1]
    token = args[2] if len(args) > 2 else None
    if not token:
        return url
    import httpx2  # the SDK's HTTP client
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}))


def result_of(r):
    return {"is_error": bool(r.is_error), "structured": r.structured_content}


async def main():
    mode = sys.argv[1]
    out = {}
    async with Client(server_of(sys.argv[2:]), mode=mode) as c:
        out["protocol_version"] = c.protocol_version
        tools = await c.list_tools()
        out["tools"] = [t.name for t in tools.tools]
        out["ttl_ms"] = getattr(tools, "ttl_ms", None)
        out["cache_scope"] = getattr(tools, "cache_scope", None)
        out["search_code"] = result_of(await c.call_tool("search_code", {"query": "MaxRetries", "case_sensitive": "yes", "context_lines": 0}))
        out["search_symbols"] = result_of(await c.call_tool("search_symbols", {"name": "UserService", "kinds": ["class"], "repos": ["webapp"]}))
        out["bad_regex"] = result_of(await c.call_tool("search_code", {"query": "a(b"}))
    print(json.dumps(out))


asyncio.run(main())
