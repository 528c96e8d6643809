/**
 * MCP over HTTP: the built CLI started with --http against the real Zoekt, reached by the SDK's
 * Streamable HTTP and SSE clients and by raw HTTP requests for what a client library would hide
 * (status codes, headers, refused connections).
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { grepCorpus } from '../support/fixtures.js';
import { connectSse, connectStreamable, INITIALIZE, MCP_HEADERS, mcpRefusal, raw, startAdapter, TOKEN, type Adapter } from '../support/http.js';
import { call, CLI, ok, textOf, type Connected } from '../support/mcp.js';
import { freePort, REPO_PREFIX, startWebserver, type RunningZoekt } from '../support/zoekt.js';

const AUTH = { authorization: `Bearer ${TOKEN}` };

/**
 * One sample call per tool. Every tool that tools/list returns must have a row (the test fails
 * otherwise), so a tool added later runs over both HTTP transports as soon as its row is here.
 * Rows for tools this build does not list are not run.
 */
const TOOL_SAMPLES: Record<string, Record<string, unknown>> = {
  search_code: { query: 'paginate_marker', repos: [`${REPO_PREFIX}manyhits`], limit: 2 },
  search_symbols: { name: 'UserService', kinds: ['class'] },
  search_files: { pattern: '**/*.test.ts' },
  find_references: { symbol: 'getUser' },
  list_repos: { limit: 5 },
  get_file: { repo: `${REPO_PREFIX}gosvc`, path: 'go.mod' },
  get_file_outline: { repo: `${REPO_PREFIX}gosvc`, path: 'internal/server/server.go' },
  get_health: {},
};

let adapter: Adapter;
beforeAll(async () => {
  adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_AUTH_TOKEN: TOKEN } });
});
afterAll(() => adapter?.stop());

describe.each([
  ['Streamable HTTP', connectStreamable],
  ['SSE', connectSse],
] as const)('over %s, with the bearer token', (_name, connect) => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connect(adapter.url, AUTH);
  });
  afterAll(() => mcp?.close());

  it('lists the tools and runs search_code against Zoekt', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toContain('search_code');
    const page = `src/pages/page07.ts`;
    const out = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'paginate_marker', paths: [`/${page}`], context_lines: 0 }));
    const expected = grepCorpus('paginate_marker').filter((h) => h.repo === `${REPO_PREFIX}manyhits` && h.path === page);
    expect(expected.length).toBe(4);
    expect(out.results).toHaveLength(1);
    expect(out.results[0]!.repo).toBe(`${REPO_PREFIX}manyhits`);
    expect(out.results[0]!.matches.map((m) => [m.line, m.text])).toEqual(expected.map((h) => [h.line, h.text]));
  });

  it('runs every listed tool with its sample arguments', async () => {
    const { tools } = await mcp.client.listTools();
    const missing = tools.map((t) => t.name).filter((name) => !(name in TOOL_SAMPLES));
    expect(missing, `add a row to TOOL_SAMPLES for: ${missing.join(', ')}`).toEqual([]);
    for (const tool of tools) {
      const result = await call(mcp.client, tool.name, TOOL_SAMPLES[tool.name]!);
      expect(result.isError, `${tool.name}: ${textOf(result).slice(0, 300)}`).toBeFalsy();
      expect(typeof result.structuredContent, tool.name).toBe('object');
      expect(textOf(result).length, tool.name).toBeGreaterThan(0);
    }
  });
});

describe('bearer token', () => {
  it('answers 401 with a Bearer challenge and a JSON error when the token is missing or wrong', async () => {
    const missing = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="zoekt-mcp"');
    expect(missing.json()).toEqual(mcpRefusal('UNAUTHORIZED', 'Authorization: Bearer <token>'));

    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN]) {
      const wrong = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization }, body: INITIALIZE });
      expect(wrong.status, authorization).toBe(401);
      expect(wrong.headers['www-authenticate']).toBe('Bearer realm="zoekt-mcp", error="invalid_token", error_description="not the token this server was given"');
      expect(wrong.json()).toEqual(mcpRefusal('UNAUTHORIZED', 'not the one this server was given'));
    }
  });

  it('guards /sse and /messages too, but not the probes', async () => {
    expect((await raw(`${adapter.url}/sse`, { headers: { accept: 'text/event-stream' } })).status).toBe(401);
    expect((await raw(`${adapter.url}/messages?sessionId=x`, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE })).status).toBe(401);
    expect((await raw(`${adapter.url}/healthz`)).status).toBe(200);
    expect((await raw(`${adapter.url}/readyz`)).status).toBe(200);
  });

  it('lets the right token through on a raw request', async () => {
    const res = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...AUTH }, body: INITIALIZE });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'zoekt-mcp' } } });
    // Stateless: no session to keep.
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  it('makes an SDK client without the token fail to connect', async () => {
    await expect(connectStreamable(adapter.url)).rejects.toThrow(/401|Unauthorized|Authorization/i);
    await expect(connectSse(adapter.url)).rejects.toThrow(/401|Unauthorized/i);
  });
});

describe('Origin', () => {
  it('refuses a foreign Origin with 403, even with the right token', async () => {
    const headers = { ...MCP_HEADERS, ...AUTH, origin: 'http://evil.example' };
    const res = await raw(`${adapter.url}/mcp`, { method: 'POST', headers, body: INITIALIZE });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual(mcpRefusal('ORIGIN_NOT_ALLOWED', 'http://evil.example'));
    expect((await raw(`${adapter.url}/sse`, { headers: { ...AUTH, origin: 'http://evil.example' } })).status).toBe(403);
    // A rebinding page that resolved to 127.0.0.1 still sends its own origin.
    expect((await raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...headers, origin: 'http://127.0.0.1.evil.example:8080' }, body: INITIALIZE })).status).toBe(403);
  });

  it('on a loopback bind, allows loopback origins by default and answers their CORS preflight', async () => {
    const origin = 'http://localhost:6274';
    const res = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...AUTH, origin }, body: INITIALIZE });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    const preflight = await raw(`${adapter.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/Authorization/);
    expect(String(preflight.headers['access-control-allow-methods'])).toMatch(/POST/);
  });

  it('with --allowed-origins, allows exactly those', async () => {
    const other = await startAdapter({ zoektUrl: inject('zoektUrl'), args: ['--allowed-origins', 'https://app.example.com'] });
    try {
      const post = (origin: string) => raw(`${other.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, origin }, body: INITIALIZE });
      expect((await post('https://app.example.com')).status).toBe(200);
      expect((await post('http://localhost:6274')).status).toBe(403);
      expect((await post('http://app.example.com')).status).toBe(403);
      // No Origin at all: not a browser, nothing to check.
      expect((await raw(`${other.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE })).status).toBe(200);
    } finally {
      await other.stop();
    }
  });
});

describe('routes and limits', () => {
  const post = (path: string, body: string | Buffer, extra: Record<string, string> = {}) =>
    raw(`${adapter.url}${path}`, { method: 'POST', headers: { ...MCP_HEADERS, ...AUTH, ...extra }, body });
  // A JSON-RPC message padded past 1 MiB.
  const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(1024 * 1024) } });

  it('answers 413 to a body over 1 MiB on /mcp and /messages', async () => {
    for (const path of ['/mcp', '/messages?sessionId=whatever']) {
      const res = await post(path, huge);
      expect(res.status, path).toBe(413);
      expect(res.json()).toEqual(mcpRefusal('PAYLOAD_TOO_LARGE'));
    }
  });

  it('answers 413 to a chunked body that grows past 1 MiB', async () => {
    const res = await fetch(`${adapter.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...AUTH },
      body: new Blob([huge]).stream(),
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    expect(res.status).toBe(413);
  });

  it('takes a body just under the limit', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...JSON.parse(INITIALIZE).params, pad: 'x'.repeat(1000 * 1024) } });
    expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    expect((await post('/mcp', body)).status).toBe(200);
  });

  it('answers 400 with a JSON-RPC parse error to a body that is not JSON', async () => {
    const res = await post('/mcp', '{"jsonrpc":');
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('not valid JSON') } });
  });

  it('answers 404 to unknown paths and unknown SSE sessions, 405 to wrong methods, all in JSON', async () => {
    const nope = await raw(`${adapter.url}/nope`);
    expect(nope.status).toBe(404);
    expect(nope.json()).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.stringContaining('/nope') } });
    const session = await post('/messages?sessionId=00000000-0000-0000-0000-000000000000', INITIALIZE);
    expect(session.status).toBe(404);
    expect(session.json()).toEqual(mcpRefusal('SESSION_NOT_FOUND'));
    for (const [method, path] of [
      ['GET', '/mcp'],
      ['DELETE', '/mcp'],
      ['POST', '/sse'],
      ['GET', '/messages'],
      ['PUT', '/healthz'],
      ['POST', '/readyz'],
    ] as const) {
      const res = await raw(`${adapter.url}${path}`, { method, headers: AUTH });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow, `${method} ${path}`).toBeDefined();
      // On MCP paths a JSON-RPC error, elsewhere the plain one.
      expect(res.json(), `${method} ${path}`).toEqual(['/healthz', '/readyz'].includes(path) ? { error: { code: 'METHOD_NOT_ALLOWED', message: expect.any(String) } } : mcpRefusal('METHOD_NOT_ALLOWED'));
    }
  });

  it('writes nothing to stdout: logs go to stderr', () => {
    expect(adapter.stdout()).toBe('');
    expect(adapter.logs().some((l) => l.msg === 'serving MCP over HTTP')).toBe(true);
  });
});

describe('probes', () => {
  // Zoekt stopped and started again on the same port while one adapter keeps running.
  it('/readyz follows Zoekt (503 with a reason while down, 200 when up); /healthz is 200 throughout', async () => {
    const indexDir = inject('indexDir');
    const port = await freePort();
    const probes = await startAdapter({ zoektUrl: `http://127.0.0.1:${port}`, env: { ZOEKT_MCP_TIMEOUT_MS: '2000' } });
    let zoekt: RunningZoekt | undefined;
    const expectDown = async () => {
      const ready = await raw(`${probes.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('ECONNREFUSED') });
      expect((await raw(`${probes.url}/healthz`)).status).toBe(200);
    };
    const expectUp = async () => {
      const ready = await raw(`${probes.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ready', zoekt: `http://127.0.0.1:${port}` });
      const health = await raw(`${probes.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.json()).toMatchObject({ status: 'ok', version: expect.any(String) });
    };
    try {
      await expectDown();
      zoekt = await startWebserver({ indexDir, port, expectRepos: 1 });
      await expectUp();
      await zoekt.stop();
      await expectDown();
      zoekt = await startWebserver({ indexDir, port, expectRepos: 1 });
      await expectUp();
      expect(probes.process.exitCode).toBeNull();
    } finally {
      await probes.stop();
      await zoekt?.stop();
    }
  });
});

describe('binding', () => {
  it('refuses a non-loopback address without a token: exit 2 and the reason', () => {
    const r = spawnSync(process.execPath, [CLI, '--http', '--host', '0.0.0.0', '--port', '0'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
      timeout: 10_000,
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/refusing to serve 0\.0\.0\.0 \(not a loopback address\) without --auth-token or ZOEKT_MCP_AUTH_TOKEN.*--insecure-no-auth/);
  });

  // Binds every interface for the moment the test takes; the port is one the system picked.
  it('starts on a non-loopback address with --insecure-no-auth', async () => {
    const open = await startAdapter({ zoektUrl: inject('zoektUrl'), args: ['--host', '0.0.0.0', '--insecure-no-auth', '--allowed-hosts', '127.0.0.1'] });
    try {
      const port = new URL(open.url).port;
      expect(open.url).toBe(`http://0.0.0.0:${port}`);
      expect((await raw(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE })).status).toBe(200);
    } finally {
      await open.stop();
    }
  });

  it('exits 1 naming the address when the port is taken', async () => {
    const port = new URL(adapter.url).port;
    const r = spawnSync(process.execPath, [CLI, '--http', '--port', port], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 10_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
  });
});
