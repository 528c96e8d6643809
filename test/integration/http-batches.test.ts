/**
 * What a POST to /mcp or /messages may carry: one JSON-RPC message, or a batch of at most
 * --max-batch of them. Empty, oversized and malformed bodies get a JSON-RPC error that says what
 * was wrong (never 202, a 500, a stack or a hang), over both HTTP transports.
 */
import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MCP_HEADERS, raw, startAdapter, type Adapter, type RawResponse } from '../support/http.js';

const MAX_BATCH = 3;
const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const listRepos = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_repos', arguments: { limit: 1 } } });

/**
 * Bodies of the wrong shape, each with what the error message must say and the id its answer must
 * carry, as JSON text: the request's own, digit for digit, when it could be read (JSON-RPC 2.0:
 * null only when the id could not be told, and for a refusal of a batch as a whole).
 */
const MALFORMED: [string, string, RegExp, string][] = [
  ['not JSON', '{"jsonrpc":', /-32700|not valid JSON/, 'null'],
  ['a number', '42', /expected an object/, 'null'],
  ['a string', '"ping"', /expected an object/, 'null'],
  ['null', 'null', /got null/, 'null'],
  ['an empty object', '{}', /"jsonrpc": "2.0"/, 'null'],
  ['JSON-RPC 1.0', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'ping' }), /"jsonrpc": "2.0"/, '1'],
  ['a null id', JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }), /"id" must be a string or a whole number/, 'null'],
  ['a fractional id', JSON.stringify({ jsonrpc: '2.0', id: 1.5, method: 'ping' }), /"id" must be a string or a whole number/, 'null'],
  // 9007199254740993 reads as 9007199254740992 in JSON.parse: the answer keeps the digits sent.
  ['an id past 2^53 - 1', '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', /"id" 9007199254740993 is past 2\^53 - 1/, '9007199254740993'],
  ['a _meta that is not an object', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: 'x' } }), /"params\._meta" must be an object/, '1'],
  ['a fractional progress token', JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping', params: { _meta: { progressToken: 1.5 } } }), /"params\._meta\.progressToken" must be a string or a whole number/, '"p"'],
  ['a progress token that is an object', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: {} } } }), /"params\._meta\.progressToken" must be a string or a whole number/, '1'],
  ['params that are not an object', JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: 5 }), /"params" must be an object/, '2'],
  ['a method that is not a string', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 7 }), /"method" must be a string/, '1'],
  ['an unknown member', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', extra: 1 }), /request has "jsonrpc", "id", "method" and "params" only/, '1'],
  ['an id repeated, the last one read', '{"jsonrpc":"2.0","id":"a","method":"ping","params":5,"id":"b"}', /"params" must be an object/, '"b"'],
  ['a response without a result', JSON.stringify({ jsonrpc: '2.0', id: 4 }), /expected a request/, 'null'],
  ['a batch holding a number', JSON.stringify([ping(1), 5]), /message 1 of the batch/, 'null'],
  ['a nested batch', JSON.stringify([[ping(1)]]), /message 0 of the batch.*got an array/, 'null'],
  ['a batch reusing an id', JSON.stringify([ping(1), ping(2), ping(1)]), /message 2 of the batch reuses the id 1/, 'null'],
  ['an empty batch', '[]', /batch is empty/, 'null'],
  // Nested deeper than a recursive walk of the text can go: JSON.parse takes both.
  ['params nested 50,000 deep', `{"jsonrpc":"2.0","id":2,"method":"ping","params":${'['.repeat(50_000)}${']'.repeat(50_000)}}`, /"params" must be an object/, '2'],
  ['a batch nested 50,000 deep', `${'['.repeat(50_000)}${']'.repeat(50_000)}`, /message 0 of the batch.*got an array/, 'null'],
  ['a batch over the limit', JSON.stringify([ping(1), ping(2), ping(3), ping(4)]), new RegExp(`4 messages .* at most ${MAX_BATCH}`), 'null'],
];

function expectJsonRpcError(res: RawResponse, message: RegExp, idText: string): void {
  expect(res.status).toBe(400);
  const body = res.json();
  expect(body).toEqual({ jsonrpc: '2.0', id: JSON.parse(idText), error: { code: expect.any(Number), message: expect.any(String) } });
  // The id as sent, in the answer's own text (JSON.parse above rounds one past 2^53 - 1).
  expect(res.text).toContain(`"id":${idText},`);
  const error = body.error as { code: number; message: string };
  expect([-32700, -32600]).toContain(error.code);
  expect(`${error.code} ${error.message}`).toMatch(message);
  expect(res.text).not.toMatch(/\bat \S+:\d+|TypeError|SyntaxError|ZodError/);
}

let adapter: Adapter;
beforeAll(async () => {
  adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), args: ['--max-batch', String(MAX_BATCH)] });
});
afterAll(() => adapter?.stop());

describe('POST /mcp', () => {
  const post = (body: string) => raw(`${adapter.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body });

  it.each(MALFORMED)('answers %s with a JSON-RPC error', async (_what, body, message, idText) => {
    expectJsonRpcError(await post(body), message, idText);
  });

  it('answers a request after a body nested 50,000 deep', async () => {
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    expect((await post(`{"jsonrpc":"2.0","id":2,"method":"ping","params":${deep}}`)).status).toBe(400);
    const res = await post(JSON.stringify(ping(3)));
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('answers a batch of tools/call up to the limit, one answer per request', async () => {
    const res = await post(JSON.stringify([listRepos(1), listRepos(2), listRepos(3)]));
    expect(res.status).toBe(200);
    const answers = JSON.parse(res.text) as { id: number; result: { isError?: boolean; structuredContent: { repos: unknown[] } } }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    for (const a of answers) {
      expect(a.result.isError).toBeFalsy();
      expect(a.result.structuredContent.repos).toHaveLength(1);
    }
  });

  it('leaves an unknown method to JSON-RPC: -32601', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'no/such' }));
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32601 } });
  });
});

describe('admission', () => {
  let strict: Adapter;
  beforeAll(async () => {
    strict = await startAdapter({ zoektUrl: inject('zoektUrl'), args: ['--max-in-flight', '1', '--max-queue', '0'] });
  });
  afterAll(() => strict?.stop());

  it('counts each tools/call of a batch as one call: a batch cannot carry more work than the limits let in', async () => {
    const res = await raw(`${strict.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify([listRepos(1), listRepos(2), listRepos(3)]) });
    expect(res.status).toBe(200);
    const answers = JSON.parse(res.text) as { id: number; result: { isError?: boolean; structuredContent: { error?: { code: string; retry_after_ms?: number } } } }[];
    expect(answers).toHaveLength(3);
    // One slot and no queue: the first call runs, the two sent with it are refused at once.
    const codes = answers.map((a) => a.result.structuredContent.error?.code ?? 'ok').sort();
    expect(codes).toEqual(['OVERLOADED', 'OVERLOADED', 'ok']);
    for (const a of answers.filter((x) => x.result.isError)) expect(a.result.structuredContent.error?.retry_after_ms).toBeGreaterThan(0);
  });
});

/** A legacy SSE session opened by hand, to POST raw bodies to its endpoint and read the stream. */
async function openSse(url: string): Promise<{ endpoint: string; until: (done: (text: string) => boolean) => Promise<void>; close: () => void; reset: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/sse`, { headers: { accept: 'text/event-stream' }, agent: false }, (res: IncomingMessage) => {
      let text = '';
      let resolved = false;
      res.setEncoding('utf8');
      /** Resolves once the stream so far satisfies `done`. */
      const until = (done: (t: string) => boolean) =>
        new Promise<void>((ok) => {
          const check = () => {
            if (!done(text)) return;
            res.off('data', check);
            ok();
          };
          res.on('data', check);
          check();
        });
      res.on('data', (d: string) => {
        text += d;
        const m = /event: endpoint\ndata: (\S+)\n/.exec(text);
        if (m && !resolved) {
          resolved = true;
          resolve({ endpoint: m[1]!, until, close: () => req.destroy(), reset: () => req.socket?.resetAndDestroy() });
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a client that resets its SSE stream', () => {
  const metric = async (pattern: RegExp) => Number(pattern.exec((await raw(`${adapter.url}/metrics`)).text)?.[1] ?? 0);
  const active = () => metric(/zoekt_mcp_http_connections\{state="active"\} (\d+)/);
  const badRequests = () => metric(/zoekt_mcp_http_connections_shed_total\{reason="bad_request"\} (\d+)/);

  it('has left; it sent no bad request', async () => {
    const before = await badRequests();
    const idle = await active();
    const sse = await openSse(adapter.url);
    expect(await active()).toBe(idle + 1);
    sse.reset();
    // The server has seen the reset once the stream's connection is gone.
    for (let i = 0; i < 200 && (await active()) > idle; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await active()).toBe(idle);
    expect(await badRequests()).toBe(before);
  });
});

describe('POST /messages', () => {
  it('answers malformed bodies with a JSON-RPC error and takes a batch, whose answers come on the stream', async () => {
    const sse = await openSse(adapter.url);
    try {
      const post = (body: string) => raw(`${adapter.url}${sse.endpoint}`, { method: 'POST', headers: MCP_HEADERS, body });
      for (const [what, body, message, idText] of MALFORMED) {
        const res = await post(body);
        expect(res.status, what).toBe(400);
        expectJsonRpcError(res, message, idText);
      }
      expect((await post(JSON.stringify([ping('a'), ping('b')]))).status).toBe(202);
      // The answers arrive on the stream (the wait is bounded by the test's timeout).
      await sse.until((text) => text.includes('"id":"a"') && text.includes('"id":"b"'));
    } finally {
      sse.close();
    }
  });
});
