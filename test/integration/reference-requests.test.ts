/**
 * What a first page of find_references asks Zoekt, counted by a proxy on loopback in front of the
 * real zoekt-webserver over Go's source tree: the definitions and the usages, asked at once, two
 * searches in all, whether the name has a dozen usages or a hundred thousand; and a page of
 * every usage the walk reaches when there are fewer than a page, with their count exact.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, connectInProcess, ok, type Connected } from '../support/mcp.js';
import { countingProxy, pageSearches, type CountingProxy } from '../support/counting-proxy.js';
import { GO_FILES, indexedFiles, linesMatching } from '../support/truth.js';

interface Out {
  definitions: { path: string; line: number }[];
  usages: { path: string; line: number }[];
  stats: { usage_count: number; complete: boolean };
  truncated?: unknown;
  next_cursor?: string;
}

let proxy: CountingProxy;
let mcp: Connected;
let srcRoot: string;

beforeAll(async () => {
  srcRoot = inject('goSrcRoot');
  proxy = await countingProxy(inject('goZoektUrl'));
  mcp = await connectInProcess({ url: proxy.url, timeoutMs: 60_000 });
  // The first call of a server also scans for the files the indexer skipped: done here.
  await call(mcp.client, 'find_references', { symbol: 'Warmup' });
});
afterAll(async () => {
  await mcp?.close();
  await proxy?.close();
});

describe('find_references asks Zoekt twice for a first page', { timeout: 120_000 }, () => {
  it.each([
    ['ParseFloat', 50],
    ['TrimSpace', 50],
    ['Close', 50],
    ['err', 50],
    ['err', 200],
    ['SetDeadline', 1],
  ])('%s (limit %d): the definitions and the usages, one search each', async (symbol, limit) => {
    proxy.searches.length = 0;
    const out = ok<Out>(await call(mcp.client, 'find_references', { symbol, limit, include_definitions: false }));
    expect(pageSearches(proxy.searches)).toHaveLength(2);
    // A full page, unless the output budget cut it (then it says so, and the cursor goes on).
    if (out.truncated) expect(out.usages.length).toBeGreaterThan(0);
    else expect(out.usages).toHaveLength(limit);
    expect(out.next_cursor).toBeDefined();
  });

  it('a name with fewer usages than a page: all of them, counted exactly, from those two searches', async () => {
    proxy.searches.length = 0;
    const out = ok<Out>(await call(mcp.client, 'find_references', { symbol: 'SetDeadline', limit: 200 }));
    expect(pageSearches(proxy.searches)).toHaveLength(2);
    const sites = new Set(out.definitions.map((d) => `${d.path}:${d.line}`));
    const want = linesMatching(srcRoot, indexedFiles(srcRoot), /(?<![\p{L}\p{N}_$])SetDeadline(?![\p{L}\p{N}_$])/u, GO_FILES, 'SetDeadline')
      .map((m) => `${m.path}:${m.line}`)
      .filter((s) => !sites.has(s));
    expect(out.usages.map((u) => `${u.path}:${u.line}`).sort()).toEqual(want.sort());
    expect(out.stats).toMatchObject({ usage_count: want.length, complete: true });
    expect(out.next_cursor).toBeUndefined();
  });
});
