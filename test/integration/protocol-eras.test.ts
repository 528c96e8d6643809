/**
 * Both protocol eras, through clients written by others, against the real Zoekt: the SDK's v2
 * client pinned to 2026-07-28, in `auto` and in legacy mode; the 2025-era v1 client; the Python
 * SDK in its three modes. Over stdio, Streamable HTTP with and without a token, and legacy SSE;
 * the server run by Node 20, 22 and 24. Each client lists the tools, runs search_code and
 * search_symbols, and gets a structured error for a bad regex. Then raw requests for what the
 * 2026-07-28 wire promises, and what a client of it should never pay (a second process, a
 * fallback round trip).
 */
import { execFile } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { grepCorpus, locate } from '../support/fixtures.js';
import { gate, type Gate } from '../support/gate.js';
import { connectSse, raw, startAdapter, TOKEN, type Adapter } from '../support/http.js';
import { CLI } from '../support/mcp.js';
import { PROTOCOL_TOOLS } from '../support/zoekt.js';

/** The Python client's modes, and the revision each must end up speaking. */
const PY_MODES = [
  ['auto', '2026-07-28'],
  ['legacy', '2025-11-25'],
  ['2026-07-28', '2026-07-28'],
] as const;
const NODES = { 20: process.execPath, 22: PROTOCOL_TOOLS.node[22], 24: PROTOCOL_TOOLS.node[24] } as const;
const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Result {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/** What every client must get, worked out from the fixture files. */
function expectAnswers(tools: string[], code: Result, symbols: Result, bad: Result, who: string): void {
  expect(tools, who).toEqual(['search_code', 'search_symbols', 'search_files', 'find_references', 'get_file', 'get_file_outline', 'list_repos', 'get_health']);
  const files = [...new Set(grepCorpus('MaxRetries').map((h) => `${h.repo}/${h.path}`))].sort();
  const got = (code.structuredContent?.results as { repo: string; path: string }[]).map((r) => `${r.repo}/${r.path}`).sort();
  expect(code.isError ?? false, who).toBe(false);
  expect(got, who).toEqual(files);
  const where = locate('webapp', 'src/services/UserService.ts', /class UserService/);
  const found = (symbols.structuredContent?.symbols as { repo: string; path: string; line: number; kind: string }[])[0];
  expect(found, who).toMatchObject({ repo: where.repo, path: where.path, line: where.line, kind: 'class' });
  expect(bad.isError, who).toBe(true);
  expect((bad.structuredContent?.error as { code: string }).code, who).toBe('QUERY_ERROR');
}

const SEARCH = { name: 'search_code', arguments: { query: 'MaxRetries', case_sensitive: 'yes', context_lines: 0, limit: 50 } };
const SYMBOLS = { name: 'search_symbols', arguments: { name: 'UserService', kinds: ['class'], repos: ['webapp'] } };
const BAD = { name: 'search_code', arguments: { query: 'a(b' } };

type AnyClient = {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(req: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
};

async function exercise(client: AnyClient, who: string): Promise<void> {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const [code, symbols, bad] = [(await client.callTool(SEARCH)) as Result, (await client.callTool(SYMBOLS)) as Result, (await client.callTool(BAD)) as Result];
  expectAnswers(tools, code, symbols, bad, who);
}

type Mode = 'pin' | 'auto' | 'legacy';
const negotiation = (mode: Mode) => (mode === 'pin' ? { versionNegotiation: { mode: { pin: MODERN } } } : mode === 'auto' ? { versionNegotiation: { mode: 'auto' as const } } : {});

type PyScenario = { mode: string } & ({ stdio: string[]; zoekt: string } | { http: string; token?: string });
type PyOut = Record<string, unknown> & { error?: string };

/** Runs the Python SDK's client through each scenario, in one process (the SDK is imported once). */
function python(scenarios: PyScenario[]): Promise<PyOut[]> {
  return new Promise((resolve, reject) => {
    execFile(PROTOCOL_TOOLS.python, [join(import.meta.dirname, '../support/py_client.py'), ...scenarios.map((s) => JSON.stringify(s))], { timeout: 120_000, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr}`));
      try {
        const outs = stdout.trim().split('\n').slice(-scenarios.length).map((l) => JSON.parse(l) as PyOut);
        if (outs.length !== scenarios.length) throw new Error(`py_client.py answered ${outs.length} of ${scenarios.length} scenarios`);
        resolve(outs);
      } catch (e) {
        reject(new Error(`${(e as Error).message}\n${stdout.slice(-2000)}\n${stderr}`));
      }
    });
  });
}

/** A scenario's answers; fails with the client's traceback when it failed. */
function answered(out: PyOut | undefined): PyOut {
  if (!out) throw new Error('py_client.py gave no answer');
  if (out.error) throw new Error(out.error);
  return out;
}

function expectPython(out: PyOut | undefined, version: string, who: string): void {
  out = answered(out);
  expect(out.protocol_version, who).toBe(version);
  const wrap = (r: unknown): Result => ({ isError: (r as { is_error: boolean }).is_error, structuredContent: (r as { structured: Record<string, unknown> }).structured });
  expectAnswers(out.tools as string[], wrap(out.search_code), wrap(out.search_symbols), wrap(out.bad_regex), who);
}

describe.each(Object.entries(NODES))('served by Node %s', (major, node) => {
  const env = () => ({ PATH: process.env.PATH ?? '', ZOEKT_URL: inject('zoektUrl'), ZOEKT_MCP_LOG_LEVEL: 'warn' });
  let open: Adapter;
  let locked: Adapter;
  /** The Python client's runs, started once the servers are up: the refused one, then stdio and HTTP for each of PY_MODES. */
  let py: Promise<PyOut[]>;
  beforeAll(async () => {
    [open, locked] = await Promise.all([
      startAdapter({ zoektUrl: inject('zoektUrl'), node }),
      startAdapter({ zoektUrl: inject('zoektUrl'), node, env: { ZOEKT_MCP_AUTH_TOKEN: TOKEN } }),
    ]);
    py = python([
      { mode: 'auto', http: `${locked.url}/mcp` },
      ...PY_MODES.flatMap(([mode]) => [
        { mode, stdio: [node, CLI], zoekt: inject('zoektUrl') },
        { mode, http: `${locked.url}/mcp`, token: TOKEN },
      ]),
    ]);
    // Each test that reads it reports a failure; this keeps it from being unhandled meanwhile.
    py.catch(() => undefined);
  });
  afterAll(async () => {
    await Promise.all([open?.stop(), locked?.stop()]);
  });

  it('runs on that Node', async () => {
    const version = await new Promise<string>((resolve) => execFile(node, ['--version'], (_e, out) => resolve(out.trim())));
    expect(version).toMatch(new RegExp(`^v${major}\\.`));
  });

  it.each(['pin', 'auto', 'legacy'] as const)('stdio: the v2 client in %s mode', async (mode) => {
    const client = new ClientV2({ name: 'v2', version: '1.0.0' }, negotiation(mode));
    await client.connect(new StdioV2({ command: node, args: [CLI], env: env(), stderr: 'ignore' }));
    try {
      expect(client.getProtocolEra()).toBe(mode === 'legacy' ? 'legacy' : 'modern');
      await exercise(client, `v2 ${mode} stdio`);
    } finally {
      await client.close();
    }
  });

  it.each(['pin', 'auto', 'legacy'] as const)('Streamable HTTP with a token: the v2 client in %s mode', async (mode) => {
    const client = new ClientV2({ name: 'v2', version: '1.0.0' }, negotiation(mode));
    await client.connect(new HttpV2(new URL(`${locked.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'legacy' ? '2025-11-25' : MODERN);
      await exercise(client, `v2 ${mode} http+token`);
    } finally {
      await client.close();
    }
  });

  it('Streamable HTTP without a token: the v2 client pinned, and the v1 client', async () => {
    const v2 = new ClientV2({ name: 'v2', version: '1.0.0' }, negotiation('pin'));
    await v2.connect(new HttpV2(new URL(`${open.url}/mcp`)));
    await exercise(v2, 'v2 pin http');
    await v2.close();
    const v1 = new ClientV1({ name: 'v1', version: '1.0.0' });
    await v1.connect(new HttpV1(new URL(`${open.url}/mcp`)));
    await exercise(v1, 'v1 http');
    await v1.close();
  });

  it('the v1 client over stdio, Streamable HTTP with a token, and legacy SSE', async () => {
    const stdio = new ClientV1({ name: 'v1', version: '1.0.0' });
    await stdio.connect(new StdioV1({ command: node, args: [CLI], env: env(), stderr: 'ignore' }));
    await exercise(stdio, 'v1 stdio');
    await stdio.close();
    const headers = { Authorization: `Bearer ${TOKEN}` };
    const http = new ClientV1({ name: 'v1', version: '1.0.0' });
    await http.connect(new HttpV1(new URL(`${locked.url}/mcp`), { requestInit: { headers } }));
    await exercise(http, 'v1 http+token');
    await http.close();
    const sse = await connectSse(locked.url, headers);
    await exercise(sse.client, 'v1 sse+token');
    await sse.close();
  });

  // These wait for all seven Python sessions, hence the longer time allowed.
  it('a client without the token is told what to send, in the message clients show', async () => {
    const failure = (await py)[0]?.error ?? '';
    expect(failure).toMatch(/MCPError: UNAUTHORIZED: this server needs the header Authorization: Bearer <token>/);
    const client = new ClientV2({ name: 'v2', version: '1.0.0' }, negotiation('pin'));
    const refused = await client.connect(new HttpV2(new URL(`${locked.url}/mcp`))).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(refused).toMatch(/401/);
  }, 90_000);

  it.each(PY_MODES.map(([mode, version], i) => [mode, version, i] as const))('the Python SDK in %s mode, over stdio and Streamable HTTP with a token', async (mode, version, i) => {
    const outs = await py;
    expectPython(outs[1 + 2 * i], version, `python ${mode} stdio`);
    expectPython(outs[2 + 2 * i], version, `python ${mode} http`);
  }, 90_000);
});

describe('the 2026-07-28 wire, raw', () => {
  let adapter: Adapter;
  beforeAll(async () => {
    adapter = await startAdapter({ zoektUrl: inject('zoektUrl') });
  });
  afterAll(() => adapter?.stop());

  const post = (body: unknown, headers: Record<string, string>) =>
    raw(`${adapter.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  const modern = (method: string, name?: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });

  it('server/discover names the revision, what the server offers, and how long that holds', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } }, modern('server/discover'));
    expect(res.status).toBe(200);
    const { result } = res.json() as { result: Record<string, unknown> };
    expect(result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: {}, logging: {} },
      resultType: 'complete',
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'zoekt-mcp' } },
    });
    expect(result.instructions).toMatch(/search_code/);
  });

  it('tools/list and tools/call carry resultType and the server; the list its cache fields, in a fixed order', async () => {
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: ENVELOPE } }, modern('tools/list'));
    const listed = (list.json() as { result: { tools: { name: string }[]; resultType: string; ttlMs: number; cacheScope: string } }).result;
    expect(listed).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect(listed.tools.map((t) => t.name)).toEqual(['search_code', 'search_symbols', 'search_files', 'find_references', 'get_file', 'get_file_outline', 'list_repos', 'get_health']);
    const call = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { ...SEARCH, _meta: ENVELOPE } }, modern('tools/call', 'search_code'));
    const result = (call.json() as { result: Record<string, unknown> }).result;
    expect(result).toMatchObject({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'zoekt-mcp' } } });
    expect((result.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
  });

  it('an unsupported revision is -32022 with the supported list', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } } },
      { ...modern('tools/list'), 'mcp-protocol-version': '2027-01-01' },
    );
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: -32022, data: { supported: [MODERN], requested: '2027-01-01' } } });
  });

  it.each([
    ['Mcp-Method', { 'mcp-method': 'tools/list' }],
    ['Mcp-Name', { 'mcp-name': 'search_files' }],
    ['MCP-Protocol-Version', { 'mcp-protocol-version': '2025-11-25' }],
  ])('a %s header that contradicts the body is -32020', async (_name, override) => {
    const res = await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { ...SEARCH, _meta: ENVELOPE } }, { ...modern('tools/call', 'search_code'), ...override });
    expect(res.status).toBe(400);
    expect((res.json() as { error: { code: number } }).error.code).toBe(-32020);
  });

  it('ping and logging/setLevel are not methods of 2026-07-28', async () => {
    for (const method of ['ping', 'logging/setLevel']) {
      const res = await post({ jsonrpc: '2.0', id: 6, method, params: { _meta: ENVELOPE, ...(method === 'ping' ? {} : { level: 'info' }) } }, modern(method));
      expect(res.status, method).toBe(404);
      expect((res.json() as { error: { code: number } }).error.code, method).toBe(-32601);
    }
  });

  it('a 2025 initialize on the same endpoint is answered as before, with JSON', async () => {
    const res = await post({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }, {});
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ result: { protocolVersion: '2025-11-25', capabilities: { tools: {}, logging: {} } } });
  });
});

/** A command that counts its starts in a file, then runs the server: how many processes a client spawned. */
function countingServer(dir: string, node: string): { command: string; count: () => number } {
  const counter = join(dir, 'starts');
  const script = join(dir, 'server.sh');
  writeFileSync(script, `#!/bin/sh\necho start >> '${counter}'\nexec '${node}' '${CLI}'\n`);
  chmodSync(script, 0o755);
  return { command: script, count: () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length };
}

describe('what a 2026 client never pays', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'zoekt-mcp-spawns-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The v2 TypeScript client probes a stdio server on a sibling process it spawns from the same
  // command, whatever the server (its design: the session's process never sees the probe); the
  // Python client probes in place. Either way the server answers the probe, so no client falls
  // back to initialize.
  it.each([
    ['the v2 TypeScript client pinned', 'pin', 2],
    ['the v2 TypeScript client in auto mode', 'auto', 2],
    ['the v2 TypeScript client in legacy mode', 'legacy', 1],
  ] as const)('stdio: %s starts the server %i time(s) and speaks the era it asked for', async (_who, mode, spawns) => {
    const server = countingServer(mkdtempSync(join(dir, `${mode}-`)), process.execPath);
    const client = new ClientV2({ name: 'v2', version: '1.0.0' }, negotiation(mode));
    await client.connect(new StdioV2({ command: server.command, env: { PATH: process.env.PATH ?? '', ZOEKT_URL: inject('zoektUrl'), ZOEKT_MCP_LOG_LEVEL: 'warn' }, stderr: 'ignore' }));
    await client.listTools();
    expect(client.getProtocolEra()).toBe(mode === 'legacy' ? 'legacy' : 'modern');
    await client.close();
    expect(server.count()).toBe(spawns);
  });

  it('stdio: the Python client starts the server once in each mode', async () => {
    const servers = PY_MODES.map(() => countingServer(mkdtempSync(join(dir, 'py-')), process.execPath));
    const outs = await python(PY_MODES.map(([mode], i) => ({ mode, stdio: [servers[i]!.command], zoekt: inject('zoektUrl') })));
    PY_MODES.forEach(([mode, version], i) => {
      expect(answered(outs[i]).protocol_version, mode).toBe(version);
      expect(servers[i]!.count(), mode).toBe(1);
    });
  });

  it('Streamable HTTP: auto probes once with server/discover and never falls back to initialize', async () => {
    const adapter = await startAdapter({ zoektUrl: inject('zoektUrl') });
    const methods: string[] = [];
    // A counting proxy on loopback in front of the server: every JSON-RPC method the client sends.
    const proxy: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        try {
          const m = JSON.parse(body) as { method?: string } | { method?: string }[];
          for (const x of Array.isArray(m) ? m : [m]) if (x.method) methods.push(x.method);
        } catch {
          // not JSON: nothing to count
        }
        const up = httpRequest(`${adapter.url}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.end(body);
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const client = new ClientV2({ name: 'v2', version: '1.0.0' }, negotiation('auto'));
      await client.connect(new HttpV2(new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`)));
      await client.listTools();
      await client.close();
      expect(methods).toEqual(['server/discover', 'tools/list']);
    } finally {
      proxy.close();
      await adapter.stop();
    }
  });
});

describe('progress, log messages and trace context of a long call', () => {
  let held: Gate;
  let adapter: Adapter;
  beforeAll(async () => {
    held = await gate(inject('zoektUrl'));
    adapter = await startAdapter({ zoektUrl: held.url });
  });
  afterAll(async () => {
    await adapter?.stop();
    held?.server.close();
  });

  it('a 2026 client that asks gets progress each second, one log message, and its traceparent in the server log', async () => {
    const client = new ClientV2({ name: 'v2', version: '1.0.0' }, negotiation('pin'));
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params.data);
    });
    await client.connect(new HttpV2(new URL(`${adapter.url}/mcp`)));
    const progress: number[] = [];
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const call = client.callTool(
      { name: 'search_code', arguments: { query: 'MaxRetries', case_sensitive: 'yes' }, _meta: { traceparent, 'io.modelcontextprotocol/logLevel': 'info' } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    await held.arrived;
    // Held for 2.5 s: two beats at least.
    await new Promise((r) => setTimeout(r, 2500));
    held.release();
    const result = (await call) as Result;
    expect(result.isError ?? false).toBe(false);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(logs).toEqual([expect.objectContaining({ tool: 'search_code' })]);
    const line = await adapter.waitForLog('tool call');
    expect(line).toMatchObject({ tool: 'search_code', traceparent });
    // Without a log level in `_meta`, no log message (the 2026-07-28 rule).
    await client.callTool({ name: 'search_code', arguments: { query: 'MaxRetries', case_sensitive: 'yes' } });
    expect(logs).toHaveLength(1);
    await client.close();
  });
});
