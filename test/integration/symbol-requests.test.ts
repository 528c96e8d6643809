/**
 * What a search_symbols call by exact name asks Zoekt, counted by a proxy on loopback in front
 * of the real zoekt-webserver: one request for the page and the documentation of its
 * definitions (every definition, with the lines around it), a second only when a doc comment
 * runs past those lines; a bare name in any case whose own spelling does not fill the page also
 * asks for the other spellings. And the answers are those of the plan that asked for the
 * definitions and for their documentation apart: the same symbols in the same order (the whole
 * ranking of every candidate file, rankByName, as symbol-plan.test.ts checks a walk by), each
 * with the signature and the documentation its file on disk gives.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { documentationOf } from '../../src/search/definitions/documentation.js';
import { nameQueries, rankByName, type SymbolSearchArgs, type SymbolSearchOutput } from '../../src/search/symbols.js';
import { ZoektClient } from '../../src/zoekt/client.js';
import { call, connectInProcess, ok, type Connected } from '../support/mcp.js';
import { countingProxy } from '../support/counting-proxy.js';

/** The searches for definitions (not the first page's look for files the indexer skipped). */
const symbolSearches = (searches: string[]) => searches.filter((q) => q.includes('sym:') && !q.includes('NOT-INDEXED'));

interface Tree {
  proxy: Awaited<ReturnType<typeof countingProxy>>;
  mcp: Connected;
  zoekt: ZoektClient;
  /** Where a repository's files are on disk. */
  rootOf: (repo: string) => string;
}

async function openTree(url: string, rootOf: (repo: string) => string): Promise<Tree> {
  const proxy = await countingProxy(url);
  const mcp = await connectInProcess({ url: proxy.url, timeoutMs: 60_000 });
  return { proxy, mcp, zoekt: new ZoektClient({ url, timeoutMs: 60_000 }), rootOf };
}

async function closeTree(t: Partial<Tree>): Promise<void> {
  await t.mcp?.close();
  await t.zoekt?.close();
  await t.proxy?.close();
}

const key = (s: { repo: string; path: string; line: number; column: number; name: string }) => `${s.repo}/${s.path}:${s.line}:${s.column}:${s.name}`;

/**
 * The page the plan of separate requests gave: the whole ranking of every candidate file (in its
 * own case from the case:yes query, the rest from the query in any case), each definition with
 * its line and the documentation read from its file.
 */
async function expectedPage(t: Tree, args: SymbolSearchArgs): Promise<{ key: string; signature: string; documentation?: string }[]> {
  const every = async (query: string) => {
    const found = await t.zoekt.search({ query, maxDocs: 10_000 });
    expect(found.truncated).toBe(false);
    return found.files;
  };
  const { query, exactCase } = nameQueries(args);
  const ranked = rankByName(args, await every(query), exactCase === undefined ? undefined : await every(exactCase));
  const files = new Map<string, string[]>();
  return ranked.slice(0, args.limit ?? 20).map((s) => {
    const path = join(t.rootOf(s.repo), s.path);
    if (!files.has(path)) files.set(path, readFileSync(path, 'utf8').split('\n'));
    const lines = files.get(path)!;
    const documentation = documentationOf((n) => lines[n - 1], s.line, s.language);
    return { key: key(s), signature: lines[s.line - 1]!.trim(), ...(documentation ? { documentation } : {}) };
  });
}

async function searchCounted(t: Tree, args: SymbolSearchArgs): Promise<{ page: SymbolSearchOutput; requests: string[] }> {
  t.proxy.searches.length = 0;
  const page = ok<SymbolSearchOutput>(await call(t.mcp.client, 'search_symbols', { ...args }));
  return { page, requests: symbolSearches(t.proxy.searches) };
}

const shown = (page: SymbolSearchOutput) => page.symbols.map((s) => ({ key: key(s), signature: s.signature, ...(s.documentation ? { documentation: s.documentation } : {}) }));

describe("search_symbols by exact name over Go's source tree: Zoekt requests per call", { timeout: 300_000 }, () => {
  let t: Tree;
  beforeAll(async () => {
    t = await openTree(inject('goZoektUrl'), () => inject('goSrcRoot'));
    // The first call of a server also reads what the index skipped, once per index generation.
    await call(t.mcp.client, 'search_symbols', { name: 'TrimSpace' });
  });
  afterAll(() => closeTree(t));

  // Names defined a few times or hundreds, bare (their own spelling fills the page), qualified
  // and global, with kinds and in their own case only: their definitions' comments fit in the
  // 12 lines read around them.
  it.each<[SymbolSearchArgs]>([
    [{ name: 'String' }],
    [{ name: 'Encode' }],
    [{ name: 'Error', limit: 5 }],
    [{ name: 'init' }],
    [{ name: 'Reader.Read' }],
    [{ name: 'Buffer.Write' }],
    [{ name: '::main', limit: 10 }],
    [{ name: 'String', kinds: ['method'] }],
    [{ name: 'Close', case_sensitive: true }],
    [{ name: 'TrimSpace', case_sensitive: true }],
  ])('%o: one request, and the answer of the plan of separate requests', async (args) => {
    const { page, requests } = await searchCounted(t, args);
    expect(requests).toHaveLength(1);
    const { query, exactCase } = nameQueries(args);
    expect(requests[0]).toBe(exactCase ?? query);
    expect(page.symbols.length).toBeGreaterThan(0);
    expect(shown(page)).toEqual(await expectedPage(t, args));
  });

  it.each<[SymbolSearchArgs, string, string]>([
    [{ name: 'ParseFloat', case_sensitive: true }, 'strconv/number.go', 'ParseFloat converts the string s to a floating-point number'],
    [{ name: 'len' }, 'builtin/builtin.go', 'The len built-in function returns the length of v'],
  ])('%o: two when a doc comment runs past the lines read around it', async (args, path, doc) => {
    const { page, requests } = await searchCounted(t, args);
    expect(requests).toHaveLength(2);
    const { query, exactCase } = nameQueries(args);
    expect(requests[0]).toBe(exactCase ?? query);
    expect(page.symbols.find((s) => s.path === path)?.documentation).toMatch(new RegExp(`^${doc}`));
    expect(shown(page)).toEqual(await expectedPage(t, args));
  });

  it("a bare name whose own spelling does not fill the page: the own case, then every case (and a comment past the lines: ParseFloat's 27)", async () => {
    for (const [args, calls] of [[{ name: 'TrimSpace' }, 2], [{ name: 'ParseFloat' }, 3]] as const) {
      const { page, requests } = await searchCounted(t, args);
      expect(requests).toHaveLength(calls);
      const { query, exactCase } = nameQueries(args);
      expect(requests.slice(0, 2)).toEqual([exactCase, query]);
      expect(shown(page)).toEqual(await expectedPage(t, args));
    }
  });

  it('later pages of a walk come from the first pages\' answers, in the same order', async () => {
    const args: SymbolSearchArgs = { name: 'Close', limit: 50 };
    const { query, exactCase } = nameQueries(args);
    const every = async (q: string) => (await t.zoekt.search({ query: q, maxDocs: 10_000 })).files;
    const expected = rankByName(args, await every(query), await every(exactCase!)).map(key);
    const seen: string[] = [];
    let cursor: string | undefined;
    t.proxy.searches.length = 0;
    do {
      const page = ok<SymbolSearchOutput>(await call(t.mcp.client, 'search_symbols', { ...args, ...(cursor ? { cursor } : {}) }));
      seen.push(...page.symbols.map(key));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(expected);
    // The own case once, every case once (for the pages past the own case).
    const searches = symbolSearches(t.proxy.searches);
    expect(searches.filter((q) => q === exactCase)).toHaveLength(1);
    expect(searches.filter((q) => q === query)).toHaveLength(1);
  });
});

describe('search_symbols by exact name over the corpora (Python, TypeScript, JavaScript)', { timeout: 300_000 }, () => {
  let t: Tree;
  beforeAll(async () => {
    const roots = new Map(inject('corpora').map((c) => [c.repo, c.root]));
    t = await openTree(inject('corporaZoektUrl'), (repo) => roots.get(repo)!);
    await call(t.mcp.client, 'search_symbols', { name: 'dedent' });
  });
  afterAll(() => closeTree(t));

  it.each<[SymbolSearchArgs]>([[{ name: 'dedent' }], [{ name: '__init__' }], [{ name: 'pipe' }], [{ name: 'request' }], [{ name: 'Agent' }], [{ name: 'get', limit: 10 }]])(
    '%o: the own case, every case only past it, a comment\'s read only past the lines; the answer of the plan of separate requests',
    async (args) => {
      const { page, requests } = await searchCounted(t, args);
      const { query, exactCase } = nameQueries(args);
      // The own case; every case when the own case does not fill the page; a comment's read.
      expect(requests[0]).toBe(exactCase ?? query);
      const rest = requests.slice(1);
      expect(rest.filter((q) => q === query).length + rest.filter((q) => q.includes(' ( repo:')).length).toBe(rest.length);
      expect(rest.filter((q) => q === query).length).toBeLessThanOrEqual(1);
      expect(rest.filter((q) => q.includes(' ( repo:')).length).toBeLessThanOrEqual(1);
      expect(page.symbols.length).toBeGreaterThan(0);
      expect(shown(page)).toEqual(await expectedPage(t, args));
    },
  );
});
