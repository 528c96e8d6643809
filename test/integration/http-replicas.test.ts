/**
 * Replicas share nothing: two adapter processes behind a round-robin proxy (what a load balancer
 * does), one Streamable HTTP client. Every POST goes to the other process than the one before, so
 * the client is initialized by one replica and each next page is served by the replica that did
 * not make its cursor.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { grepCorpus } from '../support/fixtures.js';
import { connectStreamable, startAdapter, type Adapter } from '../support/http.js';
import { call, failed, ok, type Connected } from '../support/mcp.js';
import { REPO_PREFIX } from '../support/zoekt.js';

interface Routed {
  backend: number;
  method?: string;
  cursor?: string;
}

/** Sends POSTs to the backends in turn; anything else (the client's optional GET) to the first. */
async function roundRobin(backends: string[]): Promise<{ url: string; routed: Routed[]; server: Server }> {
  const routed: Routed[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const backend = req.method === 'POST' ? next++ % backends.length : 0;
      if (req.method === 'POST') {
        const msg = JSON.parse(body.toString()) as { method?: string; params?: { arguments?: { cursor?: string } } };
        routed.push({ backend, method: msg.method, cursor: msg.params?.arguments?.cursor });
      }
      const upstream = httpRequest(`${backends[backend]}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return { url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, routed, server };
}

/** What every replica of one deployment is given (--cursor-secret / ZOEKT_MCP_CURSOR_SECRET). */
const SHARED_SECRET = 'replicas-share-this-secret-0123456789';

describe('two replicas behind a round-robin proxy', () => {
  let replicas: Adapter[] = [];
  let proxy: Awaited<ReturnType<typeof roundRobin>>;
  let mcp: Connected;

  beforeAll(async () => {
    const env = { ZOEKT_MCP_CURSOR_SECRET: SHARED_SECRET };
    replicas = await Promise.all([startAdapter({ zoektUrl: inject('zoektUrl'), env }), startAdapter({ zoektUrl: inject('zoektUrl'), env })]);
    proxy = await roundRobin(replicas.map((r) => r.url));
    mcp = await connectStreamable(proxy.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await new Promise((r) => proxy?.server.close(r));
    await Promise.all(replicas.map((r) => r.stop()));
  });

  it('walks every page of a search with cursors made by one replica and served by the other', async () => {
    const args = { query: 'paginate_marker', repos: [`${REPO_PREFIX}manyhits`], limit: 10, max_matches_per_file: 1, context_lines: 0 };
    const paths: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const out = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', cursor ? { ...args, cursor } : args));
      paths.push(...out.results.map((r) => r.path));
      cursor = out.next_cursor;
      pages++;
    } while (cursor && pages < 20);

    const expected = [...new Set(grepCorpus('paginate_marker').filter((h) => h.repo === `${REPO_PREFIX}manyhits`).map((h) => h.path))].sort();
    expect(expected.length).toBeGreaterThan(30);
    expect(pages).toBe(Math.ceil(expected.length / 10));
    expect(new Set(paths).size).toBe(paths.length);
    expect([...paths].sort()).toEqual(expected);

    const calls = proxy.routed.filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(pages);
    expect(calls.filter((c) => c.cursor !== undefined)).toHaveLength(pages - 1);
    for (let i = 1; i < calls.length; i++) {
      expect(calls[i]!.cursor).toBeDefined();
      expect(calls[i]!.backend, `page ${i + 1}`).not.toBe(calls[i - 1]!.backend);
    }
    // One replica initialized the client; both ran its tool calls.
    expect(proxy.routed[0]).toMatchObject({ method: 'initialize' });
    for (const replica of replicas) expect(replica.logs().filter((l) => l.msg === 'tool call').length).toBeGreaterThan(0);
  });
});

describe('replicas with different cursor secrets', () => {
  let replicas: Adapter[] = [];
  const clients: Connected[] = [];

  beforeAll(async () => {
    replicas = await Promise.all(
      [`${SHARED_SECRET}-a`, `${SHARED_SECRET}-b`].map((secret) => startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_CURSOR_SECRET: secret } })),
    );
    for (const r of replicas) clients.push(await connectStreamable(r.url));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(replicas.map((r) => r.stop()));
  });

  it("refuse each other's cursors, saying that replicas need one secret", async () => {
    const args = { query: 'paginate_marker', repos: [`${REPO_PREFIX}manyhits`], limit: 10 };
    const cursor = ok<CodeSearchOutput>(await call(clients[0]!.client, 'search_code', args)).next_cursor;
    expect(cursor).toBeDefined();
    const err = failed(await call(clients[1]!.client, 'search_code', { ...args, cursor }));
    expect(err.code).toBe('INVALID_CURSOR');
    expect(err.message).toMatch(/another cursor secret/);
    expect(err.hint).toMatch(/same --cursor-secret \(ZOEKT_MCP_CURSOR_SECRET\)/);
    // The replica that made it still reads it.
    ok(await call(clients[0]!.client, 'search_code', { ...args, cursor }));
  });
});
