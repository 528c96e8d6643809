/**
 * tools/call of the 2026-07-28 revision over POST /mcp: plain calls are answered by this server
 * (src/server/http/modern-call.ts), the rest by the SDK's handler. Against the built CLI and the
 * real Zoekt, every answer must be the one the SDK's handler (createMcpHandler over the same
 * tools) gives to the same request: status, content type and body, timings aside. Which requests
 * take the direct path is checked on the predicate itself.
 */
import type { IncomingMessage } from 'node:http';
import { classifyInboundRequest, createMcpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { serverFactory } from '../../src/server/factory.js';
import { directCall } from '../../src/server/http/modern-call.js';
import { ZoektClient } from '../../src/zoekt/client.js';
import { raw, startAdapter, type Adapter } from '../support/http.js';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'modern-call-tests', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true } },
};
const CURSOR_SECRET = 'modern-call-tests-cursor-secret-0123456789';
const TOOLS = new Set(['search_code', 'search_symbols', 'search_files', 'find_references', 'get_file', 'get_file_outline', 'list_repos', 'get_health']);

interface Case {
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** Answered by this server rather than the SDK's handler. */
  direct: boolean;
}

const call = (id: number | string, name: unknown, args?: unknown, meta: Record<string, unknown> = ENVELOPE, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args === undefined ? {} : { arguments: args }), _meta: meta, ...extra },
});
const headersFor = (name: unknown, more: Record<string, string> = {}): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
  ...more,
});
const plain = (id: number | string, name: string, args?: unknown): Case => ({ body: call(id, name, args), headers: headersFor(name), direct: true });

const cases: [string, Case][] = [
  ['list_repos', plain(1, 'list_repos', { limit: 3 })],
  ['search_code, a string id', plain('s', 'search_code', { query: 'MaxRetries', case_sensitive: 'yes', context_lines: 0 })],
  ['search_symbols', plain(3, 'search_symbols', { name: 'UserService', kinds: ['class'] })],
  ['get_file', plain(4, 'get_file', { repo: 'github.com/acme/gosvc', path: 'go.mod' })],
  ['no arguments', plain(5, 'list_repos')],
  ['bad arguments: a tool error', plain(6, 'search_code', { query: '' })],
  ['a bad regex: a tool error', plain(7, 'search_code', { query: 'a(b' })],
  ['a trace parent', { body: call(8, 'list_repos', { limit: 1 }, { ...ENVELOPE, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }), headers: headersFor('list_repos'), direct: true }],
  // The SDK decides these.
  ['a progress token', { body: call(20, 'list_repos', { limit: 1 }, { ...ENVELOPE, progressToken: 'p1' }), headers: headersFor('list_repos'), direct: false }],
  ['a log level', { body: call(21, 'list_repos', { limit: 1 }, { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'debug' }), headers: headersFor('list_repos'), direct: false }],
  ['no such tool', { body: call(22, 'search_cod', {}), headers: headersFor('search_cod'), direct: false }],
  ['a name that is no string', { body: call(23, 7, {}), headers: headersFor(7), direct: false }],
  ['arguments not an object', { body: call(24, 'list_repos', [1]), headers: headersFor('list_repos'), direct: false }],
  ['no Mcp-Name header', { body: call(25, 'list_repos', { limit: 1 }), headers: headersFor(undefined), direct: false }],
  ['an Mcp-Name header naming another tool', { body: call(26, 'list_repos', { limit: 1 }), headers: headersFor('get_health'), direct: false }],
  ['an Mcp-Name header in Base64', { body: call(27, 'list_repos', { limit: 1 }), headers: headersFor('=?base64?bGlzdF9yZXBvcw==?='), direct: false }],
  ['an Mcp-Method header naming another method', { body: call(28, 'list_repos', { limit: 1 }), headers: headersFor('list_repos', { 'mcp-method': 'tools/list' }), direct: false }],
  ['no Mcp-Method header', { body: call(29, 'list_repos', { limit: 1 }), headers: (({ 'mcp-method': _, ...rest }) => rest)(headersFor('list_repos')), direct: false }],
  ['a version header of another revision', { body: call(30, 'list_repos', { limit: 1 }), headers: headersFor('list_repos', { 'mcp-protocol-version': '2025-11-25' }), direct: false }],
  ['params beyond a call', { body: call(31, 'list_repos', { limit: 1 }, ENVELOPE, { task: { ttl: 1000 } }), headers: headersFor('list_repos'), direct: false }],
  // The SDK's envelope needs no client info: the call is dispatched the same way.
  ['an envelope without client info', { body: call(32, 'list_repos', { limit: 1 }, { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} }), headers: headersFor('list_repos'), direct: true }],
];

describe('the direct path takes plain calls only', () => {
  it.each(cases)('%s', (_name, c) => {
    const header = (name: string) => c.headers[name];
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      body: c.body,
      ...(header('mcp-protocol-version') === undefined ? {} : { protocolVersionHeader: header('mcp-protocol-version')! }),
      ...(header('mcp-method') === undefined ? {} : { mcpMethodHeader: header('mcp-method')! }),
      ...(header('mcp-name') === undefined ? {} : { mcpNameHeader: header('mcp-name')! }),
    });
    const taken = directCall(route, { headers: c.headers } as unknown as IncomingMessage, TOOLS);
    expect(taken !== undefined).toBe(c.direct);
  });
});

describe("the SDK's own answer", () => {
  let adapter: Adapter;
  let sdk: ReturnType<typeof createMcpHandler>;
  let zoekt: ZoektClient;
  beforeAll(async () => {
    adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_CURSOR_SECRET: CURSOR_SECRET } });
    zoekt = new ZoektClient({ url: inject('zoektUrl'), timeoutMs: 10_000 });
    sdk = createMcpHandler(serverFactory(createRuntime({ zoekt, log: silentLogger, cursorSecret: CURSOR_SECRET })), { legacy: 'reject' });
  });
  afterAll(async () => {
    await sdk?.close();
    await zoekt?.close();
    await adapter?.stop();
  });

  /** Timings differ from call to call; everything else must not. */
  const untimed = (text: string): unknown =>
    JSON.parse(text, (k, v: unknown) => (k === 'duration_ms' || k === 'ms' ? 0 : typeof v === 'string' ? v.replace(/\b\d+ ms\b/g, 'N ms') : v));

  it.each(cases)('%s', async (_name, c) => {
    const ours = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: c.headers, body: JSON.stringify(c.body) });
    const theirs = await sdk.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: c.headers, body: JSON.stringify(c.body) }));
    expect(ours.status).toBe(theirs.status);
    expect(String(ours.headers['content-type'])).toBe(theirs.headers.get('content-type'));
    const theirText = await theirs.text();
    if (!String(theirs.headers.get('content-type')).startsWith('application/json')) {
      // A stream (progress, log messages): the same events, timings aside.
      const events = (text: string) => text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => untimed(l.slice(6)));
      expect(events(ours.text)).toEqual(events(theirText));
      return;
    }
    expect(untimed(ours.text)).toEqual(untimed(theirText));
    if (c.direct) expect(untimed(ours.text)).toMatchObject({ result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'zoekt-mcp' } } } });
  });
});
