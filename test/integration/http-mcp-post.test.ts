/**
 * POST /mcp as raw HTTP sees it, against the built CLI and the real Zoekt: the answers this
 * server writes itself (initialize, ping, tools/list, tools/call, logging/setLevel, unknown
 * methods, notifications, batches) and the header checks it keeps from the SDK's transport.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { serverFactory } from '../../src/server/factory.js';
import { ZoektClient } from '../../src/zoekt/client.js';
import { INITIALIZE, MCP_HEADERS, raw, startAdapter, type Adapter, type RawResponse } from '../support/http.js';

const clientInfo = { name: 'mcp-post-tests', version: '1.0.0' };
const initialize = (protocolVersion: unknown, id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo } });
const request = (id: number | string, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const notification = (method: string) => ({ jsonrpc: '2.0', method });

interface Answer {
  jsonrpc: '2.0';
  id: number | string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** Shared with the SDK's answers below, so that both sign cursors alike. */
const CURSOR_SECRET = 'mcp-post-tests-cursor-secret-0123456789';
let adapter: Adapter;
beforeAll(async () => {
  adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_CURSOR_SECRET: CURSOR_SECRET } });
});
afterAll(() => adapter?.stop());

const post = (body: unknown, headers: Record<string, string> = MCP_HEADERS) =>
  raw(`${adapter.url}/mcp`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

function answerOf(res: RawResponse): Answer {
  expect(res.status).toBe(200);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  return JSON.parse(res.text) as Answer;
}

/** An HTTP refusal in the SDK transport's shape: the status and a JSON-RPC error with id null. */
function expectRefusal(res: RawResponse, status: number, code: number, message: RegExp): void {
  expect(res.status).toBe(status);
  const body = res.json();
  expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } });
  expect((body.error as { message: string }).message).toMatch(message);
}

describe('initialize', () => {
  it.each(SUPPORTED_PROTOCOL_VERSIONS)('agrees to protocol version %s, which the SDK supports', async (version) => {
    const { id, result } = answerOf(await post(initialize(version, 'init')));
    expect(id).toBe('init');
    expect(result).toMatchObject({ protocolVersion: version, capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'zoekt-mcp' } });
    // A level set on one stateless POST reaches no other: the client is told no log messages come.
    expect((result as { instructions: string }).instructions).toMatch(/each request stands alone: logging\/setLevel is accepted but no log messages are sent/);
    expect(result?.instructions).toMatch(/search_code/);
  });

  it('answers a version it does not speak with the latest one, as the SDK server does', async () => {
    const { result } = answerOf(await post(initialize('1999-01-01')));
    expect(result?.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('is not refused for an Mcp-Protocol-Version header: the version is negotiated in its params', async () => {
    const { result } = answerOf(await post(INITIALIZE, { ...MCP_HEADERS, 'mcp-protocol-version': '1999-01-01' }));
    expect(result?.protocolVersion).toBe('2025-06-18');
  });

  it('answers params that are not an initialize request with Invalid params', async () => {
    for (const params of [{}, { protocolVersion: 7, capabilities: {}, clientInfo }, { protocolVersion: '2025-06-18', capabilities: {} }]) {
      const { error } = answerOf(await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params }));
      expect(error?.code).toBe(-32602);
      expect(error?.message).toMatch(/protocolVersion.*clientInfo/);
    }
  });

  it('must come alone, as the SDK transport requires', async () => {
    expectRefusal(await post([initialize('2025-06-18', 1), request(2, 'ping')]), 400, -32600, /Only one initialization request/);
  });
});

describe('requests', () => {
  it('answers ping, tools/list and logging/setLevel', async () => {
    expect(answerOf(await post(request(1, 'ping'))).result).toEqual({});
    const tools = answerOf(await post(request(2, 'tools/list'))).result?.tools as { name: string }[];
    expect(tools.map((t) => t.name)).toContain('search_code');
    expect(answerOf(await post(request(3, 'logging/setLevel', { level: 'warning' }))).result).toEqual({});
    const bad = answerOf(await post(request(4, 'logging/setLevel', { level: 'loud' })));
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toMatch(/debug, info/);
  });

  it('answers an unknown method with Method not found, under the request id', async () => {
    const { id, error } = answerOf(await post(request('x', 'resources/list')));
    expect(id).toBe('x');
    expect(error).toEqual({ code: -32601, message: 'Method not found' });
  });

  it('runs tools/call against Zoekt, and answers malformed arguments as a tool error with a code and a hint', async () => {
    const good = answerOf(await post(request(1, 'tools/call', { name: 'list_repos', arguments: { limit: 50 } })));
    const repos = (good.result?.structuredContent as { repos: { name: string }[] }).repos;
    expect(repos.length).toBeGreaterThan(0);
    const { result } = answerOf(await post(request(2, 'tools/call', { name: 'list_repos', arguments: [1] })));
    expect(result?.isError).toBe(true);
    const error = (result?.structuredContent as { error: { code: string; hint: string } }).error;
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.hint.length).toBeGreaterThan(0);
  });

  it('answers a name that is no tool with -32602 and the hint in data, as the SDK does', async () => {
    for (const params of [{ name: 7 }, {}, { name: 'search_cod' }]) {
      const { id, error } = answerOf(await post(request(3, 'tools/call', params)));
      expect(id).toBe(3);
      expect(error?.code).toBe(-32602);
      const data = (error as { data?: { hint: string; tools: string[] } } | undefined)?.data;
      expect(data?.tools).toContain('search_code');
      expect(data?.hint.length).toBeGreaterThan(0);
    }
  });
});

describe('notifications and batches', () => {
  it('answers notifications and client responses with 202 and no body', async () => {
    for (const body of [notification('notifications/initialized'), [notification('notifications/cancelled'), { jsonrpc: '2.0', id: 9, result: {} }]]) {
      const res = await post(body);
      expect(res.status).toBe(202);
      expect(res.text).toBe('');
    }
  });

  it('answers a mixed batch with one answer per request, in order, as an array', async () => {
    const res = await post([
      request('a', 'ping'),
      notification('notifications/initialized'),
      request('b', 'tools/call', { name: 'list_repos', arguments: { limit: 1 } }),
      request('c', 'no/such/method'),
      { jsonrpc: '2.0', id: 'from-client', result: {} },
      request('d', 'tools/list'),
    ]);
    const answers = answerOf(res) as unknown as Answer[];
    expect(answers.map((a) => a.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(answers[0]!.result).toEqual({});
    expect(answers[1]!.result?.structuredContent).toHaveProperty('repos');
    expect(answers[2]!.error?.code).toBe(-32601);
    expect(answers[3]!.result).toHaveProperty('tools');
  });

  it('answers a batch of one request as an array of one', async () => {
    expect(JSON.parse((await post([request(1, 'ping')])).text)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });
});

describe('headers, checked as the SDK transport checks them', () => {
  const ping = request(1, 'ping');

  it('needs Accept to name application/json and text/event-stream (406)', async () => {
    for (const accept of [undefined, 'application/json', 'text/event-stream', '*/*']) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(accept ? { accept } : {}) };
      expectRefusal(await post(ping, headers), 406, -32000, /^Not Acceptable: Client must accept both application\/json and text\/event-stream$/);
    }
  });

  it('needs a JSON body by media type, parameters allowed (415)', async () => {
    for (const type of ['text/plain', 'text/plain; a=application/json', 'application/jsonx']) {
      expectRefusal(await post(ping, { ...MCP_HEADERS, 'content-type': type }), 415, -32000, /^Unsupported Media Type: Content-Type must be application\/json$/);
    }
    const withoutType: Record<string, string> = { accept: MCP_HEADERS.accept };
    expectRefusal(await post(ping, withoutType), 415, -32000, /Unsupported Media Type/);
    expect(answerOf(await post(ping, { ...MCP_HEADERS, 'content-type': 'Application/JSON; charset=utf-8' })).result).toEqual({});
  });

  it('refuses an Mcp-Protocol-Version it does not speak (400) and takes the ones it does', async () => {
    const res = await post(ping, { ...MCP_HEADERS, 'mcp-protocol-version': '1999-01-01' });
    expectRefusal(res, 400, -32000, new RegExp(`^Bad Request: Unsupported protocol version: 1999-01-01 \\(supported versions: 2026-07-28, ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}\\)$`));
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      expect(answerOf(await post(ping, { ...MCP_HEADERS, 'mcp-protocol-version': version })).result).toEqual({});
    }
  });
});

describe('a client that goes away', () => {
  it('cancels its call: the Zoekt request is dropped and the call ends as cancelled by the client', async () => {
    // A Zoekt that holds every search until its caller gives up: a real one cannot be made to
    // take forever on demand. Anything else (readiness, repo lists) gets an empty answer.
    let searchArrived: () => void = () => undefined;
    let searchDropped: () => void = () => undefined;
    const arrived = new Promise<void>((r) => (searchArrived = r));
    const dropped = new Promise<void>((r) => (searchDropped = r));
    const stub = createServer((req, res) => {
      if (!req.url?.startsWith('/api/search')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      searchArrived();
      res.on('close', () => searchDropped());
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    const port = (stub.address() as AddressInfo).port;
    const slow = await startAdapter({ zoektUrl: `http://127.0.0.1:${port}`, args: ['--timeout-ms', '120000'] });
    try {
      const req = httpRequest(`${slow.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, agent: false });
      req.on('error', () => undefined);
      req.end(JSON.stringify(request(1, 'tools/call', { name: 'search_code', arguments: { query: 'anything' } })));
      await arrived;
      req.destroy();
      await dropped;
      const line = await slow.waitForLog('tool error');
      expect(line).toMatchObject({ tool: 'search_code', code: 'TIMEOUT' });
      expect(String(line.message)).toMatch(/cancelled by the client/);
    } finally {
      await slow.stop();
      stub.closeAllConnections();
      await new Promise<void>((r) => stub.close(() => r()));
    }
  });
});

describe('the deadline of a call over HTTP', () => {
  it('counts from the request, so a body that took the whole deadline to arrive is TIMEOUT, not more work', async () => {
    const slow = await startAdapter({ zoektUrl: inject('zoektUrl'), args: ['--timeout-ms', '500'] });
    try {
      const body = JSON.stringify(request(7, 'tools/call', { name: 'search_code', arguments: { query: 'func' } }));
      const url = new URL(`${slow.url}/mcp`);
      const answer = await new Promise<RawResponse>((resolve, reject) => {
        const req = httpRequest(url, { method: 'POST', headers: { ...MCP_HEADERS, 'content-length': String(Buffer.byteLength(body)) }, agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> }));
        });
        req.on('error', reject);
        // Half the body now, the rest after more than the whole deadline (pacing, not a wait for an event).
        req.write(body.slice(0, 10));
        setTimeout(() => req.end(body.slice(10)), 900);
      });
      const { result } = answerOf(answer);
      const error = (result?.structuredContent as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('TIMEOUT');
      expect(error.message).toContain('500 ms');
    } finally {
      await slow.stop();
    }
  });
});

describe("the SDK's own stateless answer", () => {
  /**
   * The 2025 answers this server writes itself must be what the SDK's stateless legacy leg
   * (createMcpHandler with legacy: 'stateless', over the same tools) answers to the same
   * requests, but for the one difference on purpose: initialize's instructions say that no log
   * messages are sent over stateless HTTP.
   */
  const bodies: [string, unknown][] = [
    ['initialize 2025-06-18', initialize('2025-06-18', 'i')],
    ['initialize 2025-03-26', initialize('2025-03-26', 'i')],
    ['initialize 2025-11-25', initialize('2025-11-25', 'i')],
    ['initialize, an unknown version', initialize('1999-01-01', 'i')],
    ['ping', request(1, 'ping')],
    ['tools/list', request(2, 'tools/list')],
    ['logging/setLevel', request(3, 'logging/setLevel', { level: 'warning' })],
    ['an unknown method', request(4, 'resources/list')],
    ['tools/call', request(5, 'tools/call', { name: 'list_repos', arguments: { limit: 3 } })],
    ['tools/call, a file', request(6, 'tools/call', { name: 'get_file', arguments: { repo: 'github.com/acme/gosvc', path: 'go.mod' } })],
    ['tools/call, bad arguments', request(7, 'tools/call', { name: 'search_code', arguments: { query: '' } })],
    ['tools/call, arguments not an object', request(8, 'tools/call', { name: 'list_repos', arguments: [1] })],
    ['tools/call, no such tool', request(9, 'tools/call', { name: 'search_cod', arguments: {} })],
    ['tools/call, a name that is no string', request(10, 'tools/call', { name: 7 })],
    ['a batch', [request(11, 'ping'), request(12, 'tools/call', { name: 'list_repos', arguments: { limit: 1 } })]],
  ];
  let sdk: ReturnType<typeof createMcpHandler>;
  let zoekt: ZoektClient;
  beforeAll(() => {
    zoekt = new ZoektClient({ url: inject('zoektUrl'), timeoutMs: 10_000 });
    sdk = createMcpHandler(serverFactory(createRuntime({ zoekt, log: silentLogger, cursorSecret: CURSOR_SECRET })), { legacy: 'stateless' });
  });
  afterAll(async () => {
    await sdk?.close();
    await zoekt?.close();
  });

  /** The SDK's answer: JSON, or the data of its SSE events. */
  async function sdkAnswer(body: unknown): Promise<unknown> {
    const res = await sdk.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(body) }));
    expect(res.status).toBe(200);
    const text = await res.text();
    if (!String(res.headers.get('content-type')).startsWith('text/event-stream')) return JSON.parse(text);
    const events = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as unknown);
    return Array.isArray(body) ? events : events[0];
  }

  /** Timings differ from call to call; everything else must not. */
  const untimed = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value, (k, v: unknown) => (k === 'duration_ms' ? 0 : typeof v === 'string' ? v.replace(/\b\d+ ms\b/g, 'N ms') : v)));

  it.each(bodies)('%s', async (_name, body) => {
    const ours = untimed(JSON.parse((await post(body)).text)) as { result?: { instructions?: string } };
    const theirs = untimed(await sdkAnswer(body)) as { result?: { instructions?: string } };
    if (ours.result?.instructions !== undefined) {
      expect(ours.result.instructions).toBe(`${theirs.result?.instructions} Over this HTTP endpoint each request stands alone: logging/setLevel is accepted but no log messages are sent; use stdio or the legacy SSE transport (/sse) to receive log messages.`);
      ours.result.instructions = theirs.result!.instructions!;
    }
    expect(ours).toEqual(theirs);
  });
});
