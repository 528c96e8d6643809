/**
 * Retries of transient failures. A real Zoekt cannot be made to answer 502/503 or reset a
 * connection on demand, so these tests put a small proxy in front of the real one that fails
 * the first N requests in a chosen way and forwards the rest. Everything else is real.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { MATCH_LIMITS, ZoektClient } from '../../src/zoekt/client.js';

type Fault = 'reset' | 'huge' | 502 | 503 | 504 | 500 | 400;

async function faultyProxy(target: string, faults: Fault[]): Promise<{ url: string; requests: () => number; bodies: string[]; server: Server }> {
  let count = 0;
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => bodies.push(body));
    const fault = faults[count++];
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault === 'huge') {
      // 65 MiB, chunked (no Content-Length), as Go streams a large JSON answer.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 65 && res.write(chunk)) sent++;
        if (sent < 65) res.once('drain', pump);
        else res.end();
      };
      res.on('error', () => undefined);
      pump();
      return;
    }
    if (typeof fault === 'number') {
      res.writeHead(fault, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Error: fault === 400 ? 'error parsing regexp: missing closing ): `(`' : `injected ${fault}` }));
      return;
    }
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, requests: () => count, bodies, server };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});

async function clientBehind(faults: Fault[]) {
  const proxy = await faultyProxy(inject('zoektUrl'), faults);
  const client = new ZoektClient({ url: proxy.url, timeoutMs: 5000, retries: 2 });
  cleanup.push(async () => {
    await client.close();
    await new Promise((r) => proxy.server.close(r));
  });
  return { client, proxy };
}

describe('retries', () => {
  it.each([[[503, 502] as Fault[]], [[504] as Fault[]], [['reset', 503] as Fault[]]])('retries %j and then answers from Zoekt', async (faults) => {
    const { client, proxy } = await clientBehind(faults);
    const result = await client.search({ query: 'paginate_marker', maxDocs: 5 });
    expect(result.files.length).toBeGreaterThan(0);
    expect(proxy.requests()).toBe(faults.length + 1);
  });

  it('gives up after the configured retries with UNAVAILABLE', async () => {
    const { client, proxy } = await clientBehind([503, 503, 503, 503]);
    const err = await client.search({ query: 'x', maxDocs: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).code).toBe('UNAVAILABLE');
    expect((err as ToolError).message).toContain('503');
    expect(proxy.requests()).toBe(3);
  });

  it.each([
    [500, 'UNAVAILABLE'],
    [400, 'QUERY_ERROR'],
  ] as const)('does not retry a %s', async (status, code) => {
    const { client, proxy } = await clientBehind([status]);
    const err = await client.search({ query: 'x', maxDocs: 1 }).catch((e: unknown) => e);
    expect((err as ToolError).code).toBe(code);
    expect(proxy.requests()).toBe(1);
  });
});

describe('what the client sends', () => {
  it('bounds every search: MaxWallTime a little under the deadline, MaxDocDisplayCount, ChunkMatches, and the match budget', async () => {
    const { client, proxy } = await clientBehind([]);
    await client.search({ query: 'paginate_marker', maxDocs: 7, contextLines: 2 });
    const sent = JSON.parse(proxy.bodies[0]!) as { Opts: { MaxWallTime: number } };
    // What is left of the 5 s deadline when the request goes out, less a 250 ms margin.
    expect(sent.Opts.MaxWallTime).toBeLessThanOrEqual(4750 * 1e6);
    expect(sent.Opts.MaxWallTime).toBeGreaterThan(4000 * 1e6);
    // The match budget is always sent: left at 0, Zoekt derives one from MaxDocDisplayCount
    // that stops a broad search after a few files on a large corpus.
    expect({ ...sent, Opts: { ...sent.Opts, MaxWallTime: 4750 * 1e6 } }).toEqual({
      Q: 'paginate_marker',
      Opts: {
        ChunkMatches: true,
        MaxDocDisplayCount: 7,
        MaxWallTime: 4750 * 1e6,
        NumContextLines: 2,
        ShardMaxMatchCount: MATCH_LIMITS.shard,
        TotalMaxMatchCount: MATCH_LIMITS.total,
      },
    });
  });
});

describe('oversized answers', () => {
  it('stops reading past the answer cap, asks again with a smaller match budget, and answers from that', async () => {
    const { client, proxy } = await clientBehind(['huge']);
    const result = await client.search({ query: 'func', maxDocs: 1 });
    expect(proxy.requests()).toBe(2);
    const second = JSON.parse(proxy.bodies[1]!) as { Opts: { ShardMaxMatchCount: number } };
    expect(second.Opts.ShardMaxMatchCount).toBeLessThan(MATCH_LIMITS.shard);
    expect(result.files.length).toBe(1);
  });

  it('asks again without context, with smaller budgets, then for fewer files, and says what it gave up', async () => {
    const { client, proxy } = await clientBehind(['huge', 'huge', 'huge', 'huge']);
    const result = await client.search({ query: 'func', maxDocs: 8, contextLines: 3 });
    const sent = proxy.bodies.map((b) => (JSON.parse(b) as { Opts: { NumContextLines?: number; ShardMaxMatchCount: number; MaxDocDisplayCount: number } }).Opts);
    expect(sent.map((o) => [o.NumContextLines ?? 0, o.ShardMaxMatchCount, o.MaxDocDisplayCount])).toEqual([
      [3, MATCH_LIMITS.shard, 8],
      [0, MATCH_LIMITS.shard, 8],
      [0, MATCH_LIMITS.shard / 20, 8],
      [0, MATCH_LIMITS.shard / 400, 8],
      [0, MATCH_LIMITS.shard / 400, 4],
    ]);
    expect(result.stats.stopped).toEqual({
      cause: 'too_large',
      capBytes: 16 * 1024 * 1024,
      steps: ['without context lines', `a match budget of ${MATCH_LIMITS.shard / 400} matches`, 'the best 4 of the 8 files asked for'],
      maxDocs: 4,
    });
    expect(result.files.length).toBeGreaterThan(0);
    expect(result.truncated).toBe(true);
  });

  it('when even one file is too large, fails as retryable UNAVAILABLE, never INVALID_ARGUMENT', async () => {
    const { client, proxy } = await clientBehind(['huge', 'huge', 'huge']);
    const err = await client.search({ query: 'x', maxDocs: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).code).toBe('UNAVAILABLE');
    expect((err as ToolError).retryable).toBe(true);
    expect((err as ToolError).hint).toMatch(/lower limit/);
    expect(proxy.requests()).toBe(3);
  });
});
