"""A client written by others for the protocol tests: the Python MCP SDK, in one of its modes.

usage: python py_client.py SCENARIO...

Each SCENARIO is a JSON object: {"mode": M, "stdio": [COMMAND, ARG...], "zoekt": URL} or
{"mode": M, "http": URL, "token": TOKEN (optional)}, with M auto, legacy or 2026-07-28. For each, in
turn: lists the tools, runs search_code and search_symbols, and a search_code with a bad regex.
Prints one JSON line per scenario: what came back, or {"error": the traceback} if the client failed.
One process runs them all, so the SDK is imported once.
"""
import asyncio
import json
import sys
import traceback
import warnings

warnings.simplefilter("ignore")

from mcp import Client, StdioServerParameters  # noqa: E402


def server_of(s):
    if "stdio" in s:
        command, *args = s["stdio"]
        return StdioServerParameters(command=command, args=args, env={"ZOEKT_URL": s["zoekt"], "ZOEKT_MCP_LOG_LEVEL": "warn", "PATH": "/usr/bin:/bin"})
    if not s.get("token"):
        return s["http"]
    import httpx2  # the SDK's HTTP client
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(s["http"], http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {s['token']}"}))


def result_of(r):
    return {"is_error": bool(r.is_error), "structured": r.structured_content}


async def run(s):
    out = {}
    async with Client(server_of(s), mode=s["mode"]) as c:
        out["protocol_version"] = c.protocol_version
        tools = await c.list_tools()
        out["tools"] = [t.name for t in tools.tools]
        out["ttl_ms"] = getattr(tools, "ttl_ms", None)
        out["cache_scope"] = getattr(tools, "cache_scope", None)
        out["search_code"] = result_of(await c.call_tool("search_code", {"query": "MaxRetries", "case_sensitive": "yes", "context_lines": 0}))
        out["search_symbols"] = result_of(await c.call_tool("search_symbols", {"name": "UserService", "kinds": ["class"], "repos": ["webapp"]}))
        out["bad_regex"] = result_of(await c.call_tool("search_code", {"query": "a(b"}))
    return out


async def main():
    for arg in sys.argv[1:]:
        try:
            out = await run(json.loads(arg))
        except BaseException as e:  # an ExceptionGroup from the client's task group, too
            out = {"error": "".join(traceback.format_exception(e))}
        print(json.dumps(out), flush=True)


asyncio.run(main())
