/**
 * Complete answers on a real tree: Go's own source ($(go env GOROOT)/src, ~11.5k files) served by
 * a real zoekt-webserver, reached through the MCP SDK's Client. Every expected answer is computed
 * from the files (test/support/truth.ts), never from Zoekt or the adapter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * Walks of thousands of files take seconds on a quiet machine; the bound is for a busy one (two
 * cores shared with the other test files and both Zoekts). Nothing here asserts a time.
 */
const WALK_TIMEOUT_MS = 300_000;
import { call, connectInProcess, connectStdio, ok, walkPages, type Connected } from '../support/mcp.js';
import { filesMatching, GO_FILES, goFuncDefinitions, goTypeDefinitions, linesMatching, scanCorpus, type Corpus } from '../support/truth.js';

type Out = Record<string, unknown> & {
  stats: Record<string, number | boolean>;
  partial?: { reason: string; hint: string };
  next_cursor?: string;
  hint?: string;
};

interface Walk {
  pages: Out[];
  items: Record<string, unknown>[];
  texts: string[];
}

/** Follows next_cursor to the end, keeping every page. */
async function walk(client: Connected['client'], tool: string, args: Record<string, unknown>, listKey: string): Promise<Walk> {
  const { pages, texts } = await walkPages<Out>(client, tool, args);
  return { pages, texts, items: pages.flatMap((p) => p[listKey] as Record<string, unknown>[]) };
}

const pathOf = (r: Record<string, unknown>) => r.path as string;
const siteOf = (r: Record<string, unknown>) => `${r.path as string}:${r.line as number}`;

let srcRoot: string;
let corpus: Corpus;
let mcp: Connected;

beforeAll(async () => {
  srcRoot = inject('goSrcRoot');
  corpus = scanCorpus(srcRoot);
  // A generous deadline: a broad search over the whole tree shares two cores with other tests.
  mcp = await connectStdio({ ZOEKT_URL: inject('goZoektUrl'), ZOEKT_MCP_TIMEOUT_MS: '60000' });
});
afterAll(() => mcp.close());

/** Files a bare term matches: by content (text files) or by path (every file Zoekt holds). */
function bareTermFiles(re: RegExp): Set<string> {
  const byContent = filesMatching(srcRoot, corpus.indexed, re);
  for (const path of corpus.all) if (re.test(path)) byContent.add(path);
  return byContent;
}

describe('search_code walks every matching file of a broad query', { timeout: WALK_TIMEOUT_MS }, () => {
  it("'err' (every case): 5,900 files over 119 pages, each once, with honest totals and each file's first matched lines", async () => {
    const re = /err/i;
    const expected = bareTermFiles(re);
    expect(expected.size).toBeGreaterThan(5000);
    const { pages, items, texts } = await walk(mcp.client, 'search_code', { query: 'err', limit: 50, context_lines: 0 }, 'results');
    const paths = items.map(pathOf);
    expect(new Set(paths).size).toBe(paths.length);
    expect(new Set(paths)).toEqual(expected);
    // Pages are full unless the output budget cut them, or files of many matches each took the
    // call's rounds (search/engine/file-walk.ts), which they then say.
    for (const p of pages.slice(0, -1)) if (!p.truncated && !/This page has \d+ of the 50 files/.test(String(p.hint))) expect((p.results as unknown[]).length).toBe(50);
    // The ranked part is cut from what Zoekt evaluated within its own budget (search/engine/
    // file-walk.ts): the first pages count what it found, as lower bounds; the pages of the
    // path-ordered part count every file, from the listing.
    let seen = 0;
    for (const p of pages) {
      seen += (p.results as unknown[]).length;
      expect(p.partial).toBeUndefined();
      if (p.stats.complete) expect(p.stats.files).toBe(expected.size);
      else expect(p.stats.files).toBeGreaterThanOrEqual(Math.min(seen, expected.size));
      expect(p.stats.files).toBeLessThanOrEqual(expected.size);
    }
    expect(pages[0]!.stats.complete).toBe(false);
    expect(pages[0]!.stats.files).toBeLessThan(expected.size);
    expect(texts[0]).toMatch(/at least [\d,]+ file\(s\), at least [\d,]+ match\(es\)/);
    expect(pages[pages.length - 1]!.stats.files).toBe(expected.size);
    // Every file shows its first five matched lines, in order, and counts the rest.
    for (const r of items) {
      const lines = linesMatching(srcRoot, [pathOf(r)], re).map((m) => m.line);
      const shown = (r.matches as { line: number }[]).map((m) => m.line);
      if (r.path_match && lines.length === 0) continue;
      // Binary files (Zoekt indexes those that start with a NUL byte) are named, never shown.
      if (r.binary) {
        expect(readFileSync(join(srcRoot, pathOf(r))).includes(0), pathOf(r)).toBe(true);
        expect(r.matches).toEqual([]);
        expect(r.omitted_matches, pathOf(r)).toBe(lines.length);
        continue;
      }
      expect(JSON.stringify(r.matches)).not.toContain('\\u0000');
      if (r.omitted_at_least) {
        // Zoekt was asked for the file's best matches only (its own order): they are the file's
        // matching lines, in order, and the rest is a lower bound.
        expect(shown, pathOf(r)).toEqual([...shown].sort((a, b) => a - b));
        for (const l of shown) expect(lines, pathOf(r)).toContain(l);
        expect(shown.length + (r.omitted_matches as number), pathOf(r)).toBeLessThanOrEqual(lines.length);
      } else {
        expect(shown, pathOf(r)).toEqual(lines.slice(0, 5));
        expect(r.omitted_matches, pathOf(r)).toBe(Math.max(0, lines.length - 5));
      }
    }
    // The best files by Zoekt's score (at most 200, at least a page), then every other file in path order.
    const sortedFrom = (i: number) => paths.slice(i).every((p, j, rest) => j === 0 || rest[j - 1]! <= p);
    let ranked = 0;
    while (!sortedFrom(ranked)) ranked++;
    expect(ranked).toBeGreaterThanOrEqual(50);
    expect(ranked).toBeLessThanOrEqual(200);
    const scores = items.slice(0, ranked).map((r) => r.score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it.each([
    { name: 'a case-sensitive regex', args: { query: 'Set\\w*Deadline', case_sensitive: 'yes' }, re: /Set\w*Deadline/, bare: true },
    { name: "'Deadline' (uppercase: case-sensitive under auto)", args: { query: 'Deadline' }, re: /Deadline/, bare: true },
    { name: 'literal text with a space inside', args: { query: 'deadline exceeded', literal: true, case_sensitive: 'no' }, re: /deadline exceeded/i, bare: true },
    { name: 'literal text with spaces at both ends, kept', args: { query: ' err != nil ', literal: true }, re: / err != nil /i, bare: true },
    { name: 'a content-only regex', args: { query: 'content:"^func \\\\(\\\\w+ \\\\*Server\\\\)"' }, re: /^func \(\w+ \*Server\)/, bare: false },
  ])('$name: every file and total, as the files have it', async ({ args, re, bare }) => {
    const expected = bare ? bareTermFiles(re) : filesMatching(srcRoot, corpus.indexed, re);
    expect(expected.size).toBeGreaterThan(0);
    const { pages, items, texts } = await walk(mcp.client, 'search_code', { ...args, limit: 10 }, 'results');
    const paths = items.map(pathOf);
    expect(new Set(paths).size).toBe(paths.length);
    expect(new Set(paths)).toEqual(expected);
    // Exact when Zoekt evaluated every candidate; a lower bound, said so, when the ranked
    // window's own budget stopped it first.
    const first = pages[0]!;
    if (first.stats.complete) expect(first.stats.files).toBe(expected.size);
    else {
      expect(first.stats.files).toBeLessThanOrEqual(expected.size);
      expect(texts[0]).toContain(`at least ${(first.stats.files as number).toLocaleString('en-US')} file(s)`);
    }
    expect(first.partial).toBeUndefined();
  });

  it('says where a regex was split at spaces, and the one-regex form it suggests finds exactly the lines', async () => {
    const split = ok<Out>(await call(mcp.client, 'search_code', { query: 'func \\(\\w+ \\*Server\\) Serve' }));
    expect(split.hint).toContain('split at spaces into 4 terms');
    const oneRegex = 'func\\s+\\(\\w+\\s+\\*Server\\)\\s+Serve';
    expect(split.hint).toContain(oneRegex);
    const { items } = await walk(mcp.client, 'search_code', { query: oneRegex, limit: 50, max_matches_per_file: 100, context_lines: 0 }, 'results');
    const expected = linesMatching(srcRoot, corpus.indexed, /func\s+\(\w+\s+\*Server\)\s+Serve/);
    expect(expected.length).toBeGreaterThan(5);
    const got = items.flatMap((r) => (r.matches as { line: number }[]).map((m) => `${pathOf(r)}:${m.line}`));
    expect(got.sort()).toEqual(expected.map((m) => `${m.path}:${m.line}`).sort());
  });
});

describe('when a walk cannot reach everything, every page says so', { timeout: WALK_TIMEOUT_MS }, () => {
  it("Zoekt's match budget: complete false, totals 'at least', partial with a narrowing hint, and the walk ends without repeats", async () => {
    // A budget below a shard's file count stops the listing of files too, not only the ranked part.
    const conn = await connectInProcess({ url: inject('goZoektUrl'), timeoutMs: 60_000, matchLimits: { shard: 1_000, total: 4_000 } });
    try {
      const expected = bareTermFiles(/err/i);
      const { pages, items, texts } = await walk(conn.client, 'search_code', { query: 'err', limit: 50, context_lines: 0 }, 'results');
      for (const p of pages) {
        expect(p.stats.complete).toBe(false);
        expect(p.partial?.reason).toMatch(/1,000 matches \(its match budget\)/);
        expect(p.partial?.hint).toMatch(/paths.*languages.*repos/);
      }
      expect(texts[0]).toMatch(/at least [\d,]+ file\(s\), at least [\d,]+ match\(es\)/);
      expect(texts[0]).toContain('partial:');
      const paths = items.map(pathOf);
      expect(new Set(paths).size).toBe(paths.length);
      expect(paths.length).toBeGreaterThan(0);
      // Later rounds of a capped window exclude the files already held, so Zoekt's budget reaches
      // further than one search's: the walk may reach every file, each once, still said partial.
      expect(paths.length).toBeLessThanOrEqual(expected.size);
      for (const p of paths) expect(expected.has(p), p).toBe(true);
      expect(pages[pages.length - 1]!.next_cursor).toBeUndefined();
    } finally {
      await conn.close();
    }
  });

  it('the walk bound: every page says how far paging reaches, and the walk reaches exactly that many files', async () => {
    const conn = await connectInProcess({ url: inject('goZoektUrl'), timeoutMs: 60_000 }, undefined, { rankedFiles: 20, walkFiles: 300 });
    try {
      const expected = bareTermFiles(/err/i);
      const { pages, items } = await walk(conn.client, 'search_code', { query: 'err', limit: 50, context_lines: 0 }, 'results');
      for (const p of pages) {
        // Every file is counted (the listing); the matches only up to the ranked window's budget.
        expect(p.stats).toMatchObject({ files: expected.size, complete: false });
        expect(p.partial?.reason).toContain(`${expected.size.toLocaleString('en-US')} files match; paging reaches the first 300`);
      }
      const paths = items.map(pathOf);
      expect(paths.length).toBe(300);
      expect(new Set(paths).size).toBe(300);
      for (const p of paths) expect(expected.has(p), p).toBe(true);
      const rest = paths.slice(20);
      expect(rest).toEqual([...rest].sort());
    } finally {
      await conn.close();
    }
  });
});

describe('search_files walks every file', { timeout: WALK_TIMEOUT_MS }, () => {
  it.each([
    { args: { pattern: '*_test.go' }, match: (p: string) => /(^|\/)[^/]*_test\.go$/.test(p) },
    { args: { pattern: '^net/http/.*\\.go$', regex: true }, match: (p: string) => /^net\/http\/.*\.go$/.test(p) },
    { args: { pattern: 'testdata/', languages: ['go'] }, match: (p: string) => /(^|\/)testdata\//.test(p) && p.endsWith('.go') },
  ])('$args.pattern: exactly the files the tree has', async ({ args, match }) => {
    const expected = corpus.all.filter(match);
    expect(expected.length).toBeGreaterThan(100);
    const { pages, items } = await walk(mcp.client, 'search_files', { ...args, limit: 200 }, 'files');
    const paths = items.map(pathOf);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths.sort()).toEqual(expected);
    expect(pages[0]!.stats).toMatchObject({ files: expected.length, complete: true });
  });
});

describe('search_symbols on the Go tree', { timeout: WALK_TIMEOUT_MS }, () => {
  it('every Go func and method named NewReader, by exact name', async () => {
    const expected = goFuncDefinitions(srcRoot, corpus.indexed, 'NewReader').map((m) => `${m.path}:${m.line}`);
    expect(expected.length).toBeGreaterThan(10);
    const { pages, items } = await walk(
      mcp.client,
      'search_symbols',
      { name: 'NewReader', case_sensitive: true, kinds: ['function', 'method'], include_vendored: true, limit: 7 },
      'symbols',
    );
    expect(items.map(siteOf).sort()).toEqual(expected.sort());
    expect(pages[0]!.stats).toMatchObject({ symbols: expected.length, complete: true });
    // Without include_vendored, vendor/ trees are left out.
    const own = ok<Out>(await call(mcp.client, 'search_symbols', { name: 'NewReader', case_sensitive: true, kinds: ['function', 'method'], limit: 100 }));
    expect((own.symbols as Record<string, unknown>[]).map(siteOf).sort()).toEqual(expected.filter((s) => !/(^|\/)vendor\//.test(s)).sort());
  });

  it('puts, among exact names, the exported ones outside tests and in shallower folders first', async () => {
    // `Reader`: exported types and unexported locals in tests, in folders of every depth.
    const { items } = await walk(mcp.client, 'search_symbols', { name: 'reader', include_vendored: true, limit: 100 }, 'symbols');
    const exact = items.filter((s) => (s.name as string).toLowerCase() === 'reader');
    expect(exact.length).toBeGreaterThan(20);
    // Written from the rule, not from the adapter: an upper-case Go name is exported; _test.go
    // files and testdata/ folders are tests; depth counts folders.
    const rank = (s: Record<string, unknown>) => {
      const path = s.path as string;
      return [/^[A-Z]/.test(s.name as string) ? 0 : 1, /_test\.go$|(^|\/)testdata\//.test(path) ? 1 : 0, path.split('/').length - 1];
    };
    // Exact case first (`reader`), then other case (`Reader`), each in the order of the rule.
    const tiers = [exact.filter((s) => s.name === 'reader'), exact.filter((s) => s.name !== 'reader')];
    expect(exact.slice(0, tiers[0]!.length)).toEqual(tiers[0]);
    for (const tier of tiers) {
      const ranks = tier.map(rank);
      for (let i = 1; i < ranks.length; i++) {
        const [a, b] = [ranks[i - 1]!, ranks[i]!];
        expect(a[0]! < b[0]! || (a[0] === b[0] && (a[1]! < b[1]! || (a[1] === b[1] && a[2]! <= b[2]!))), `${siteOf(tier[i - 1]!)} before ${siteOf(tier[i]!)}`).toBe(true);
      }
    }
  });

  it("every Go func and method whose name starts with Read, across pages (glob 'Read*')", async () => {
    const expected = linesMatching(srcRoot, corpus.indexed, /^func (\([^)]*\) )?Read\w*[[(]/, GO_FILES, 'Read').map((m) => `${m.path}:${m.line}`);
    expect(expected.length).toBeGreaterThan(100);
    const { pages, items } = await walk(
      mcp.client,
      'search_symbols',
      { name: 'Read*', case_sensitive: true, kinds: ['function', 'method'], languages: ['go'], include_vendored: true, limit: 100 },
      'symbols',
    );
    const sites = items.map(siteOf);
    expect(new Set(sites).size).toBe(sites.length);
    // Methods of interfaces are methods too; the rest are the func declarations.
    const funcs = items.filter((s) => s.parent_kind !== 'Interface').map(siteOf);
    expect(funcs.sort()).toEqual(expected.sort());
    for (const spec of items.filter((s) => s.parent_kind === 'Interface')) expect(spec.raw_kind, siteOf(spec)).toBe('Method');
    // A glob's first page reads the files that decide it: its counts are lower bounds then; the
    // last page has read every file.
    const first = pages[0]!.stats as { symbols: number; complete: boolean };
    if (first.complete) expect(first.symbols).toBe(items.length);
    else expect(first.symbols).toBeLessThanOrEqual(items.length);
    expect(pages.at(-1)!.stats).toMatchObject({ symbols: items.length, complete: true });
  });

  it('a Go type alias (type A = B) is a type', async () => {
    const expected = goTypeDefinitions(srcRoot, corpus.indexed, 'FuncMap').map((m) => `${m.path}:${m.line}`);
    const out = ok<Out>(await call(mcp.client, 'search_symbols', { name: 'FuncMap', case_sensitive: true, kinds: ['type'] }));
    const symbols = out.symbols as { path: string; line: number; kind: string; raw_kind: string; signature: string }[];
    expect(symbols.map(siteOf).sort()).toEqual(expected.sort());
    const alias = symbols.find((s) => s.path === 'html/template/template.go');
    expect(alias).toMatchObject({ kind: 'type', raw_kind: 'TypeAlias', signature: 'type FuncMap = template.FuncMap' });
  });
});

describe('find_references on the Go tree', { timeout: WALK_TIMEOUT_MS }, () => {
  /**
   * Usage lines as the files have them: lines where the name stands as a whole identifier (no
   * letter, digit, _ or $ on either side, the adapter's documented rule), less the lines that
   * define it.
   */
  function expectedUsages(name: string, definitions: Record<string, unknown>[], goOnly: boolean): string[] {
    const sites = new Set(definitions.map(siteOf));
    const whole = new RegExp(`(?<![\\p{L}\\p{N}_$])${name}(?![\\p{L}\\p{N}_$])`, 'u');
    return linesMatching(srcRoot, corpus.indexed, whole, goOnly ? GO_FILES : undefined, name)
      .map((m) => `${m.path}:${m.line}`)
      .filter((s) => !sites.has(s));
  }

  it('SetDeadline: every usage line once, an exact count on every page, whatever the page size', async () => {
    const { pages, items } = await walk(mcp.client, 'find_references', { symbol: 'SetDeadline', limit: 10 }, 'usages');
    const first = pages[0]!;
    const definitions = first.definitions as { path: string; line: number; text: string }[];
    // Every func and method declaration, and the methods of interfaces (`SetDeadline(t time.Time) error`).
    const funcs = goFuncDefinitions(srcRoot, corpus.indexed, 'SetDeadline').map((m) => `${m.path}:${m.line}`);
    expect(definitions.map(siteOf).filter((s) => funcs.includes(s)).sort()).toEqual(funcs.sort());
    for (const d of definitions.filter((d) => !funcs.includes(siteOf(d)))) expect(d.text, siteOf(d)).toMatch(/^SetDeadline\(/);
    expect(first.scope).toMatch(/Go language family/);
    const expected = expectedUsages('SetDeadline', definitions, true);
    expect(expected.length).toBeGreaterThan(50);
    expect(items.map(siteOf).sort()).toEqual(expected.sort());
    for (const p of pages) expect(p.stats).toMatchObject({ usage_count: expected.length, complete: true });
    const one = ok<Out>(await call(mcp.client, 'find_references', { symbol: 'SetDeadline', limit: 1 }));
    expect(one.stats).toMatchObject({ usage_count: expected.length, definition_count: definitions.length, complete: true });
  });

  it("err: 99,000 usage lines in 3,000 files over 500 pages, each once; the count is labelled 'at least'", async () => {
    const { pages, items, texts } = await walk(mcp.client, 'find_references', { symbol: 'err', limit: 200 }, 'usages');
    const definitions = pages[0]!.definitions as Record<string, unknown>[];
    // Definitions in several languages: usages are not narrowed to one family.
    expect(pages[0]!.scope).toBeUndefined();
    const expected = expectedUsages('err', definitions, false);
    expect(expected.length).toBeGreaterThan(90_000);
    const got = items.map(siteOf);
    expect(new Set(got).size).toBe(got.length);
    expect(got.sort()).toEqual(expected.sort());
    expect(pages[0]!.stats.complete).toBe(false);
    expect(pages[0]!.stats.usage_count as number).toBeLessThanOrEqual(expected.length);
    expect(texts[0]).toMatch(/at least [\d,]+ usage line\(s\)/);
  });
});
