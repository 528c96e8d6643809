/**
 * A valid query is never refused for being broad. On Go's source tree (11.5k files) a query
 * such as `e` or `.` makes Zoekt's whole answer pass the memory bound one search may hold; the
 * adapter asks again for less and answers with what it got, `partial: too_large`, and a hint
 * that says how to narrow. Every line shown is checked against the file on disk.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, connectStdio, ok, textOf, walkPages, type Connected } from '../support/mcp.js';
import { fileLines, filesMatching, indexedFiles, scanCorpus } from '../support/truth.js';

interface Match {
  line: number;
  text: string;
}
interface CodeOut {
  results: { path: string; matches: Match[]; path_match?: boolean; omitted_matches: number; omitted_at_least?: true; not_indexed?: string }[];
  stats: { complete: boolean; files: number };
  partial?: { reason: string; hint: string };
  next_cursor?: string;
}

let mcp: Connected;
let srcRoot: string;

beforeAll(async () => {
  srcRoot = inject('goSrcRoot');
  // The default deadline: what a new user has.
  mcp = await connectStdio({ ZOEKT_URL: inject('goZoektUrl') });
});
afterAll(() => mcp.close());

/**
 * The answer is results, each line true to the file, counts said to be lower bounds, and either a
 * partial note with a narrowing hint or (ranked within the page's own match budget) a cursor that
 * walks on to every file.
 */
function expectPartialAndTrue(out: CodeOut & { next_cursor?: string }, text: string, re?: RegExp): void {
  expect(out.results.length).toBeGreaterThan(0);
  expect(out.stats.complete).toBe(false);
  expect(text).toMatch(/at least [\d,]+ file\(s\)/);
  if (out.partial) {
    expect(out.partial.hint).toMatch(/Narrow the search/);
    expect(text).toContain(out.partial.hint.slice(0, 40));
  } else {
    expect(out.next_cursor).toBeDefined();
  }
  for (const r of out.results) {
    const lines = fileLines(srcRoot, r.path);
    for (const m of r.matches) {
      expect(lines[m.line - 1]).toContain(m.text.replace(/…$/, '').slice(0, 40));
      if (re) expect(m.text).toMatch(re);
    }
  }
}

describe('broad queries on the Go tree answer partially, never fail', { timeout: 120_000 }, () => {
  it.each([
    ['e', {}],
    ['e', { context_lines: 5, limit: 50 }],
    ['.', { limit: 50 }],
    ['[a-z]', { limit: 50, max_matches_per_file: 50 }],
  ])('search_code %j %j', async (query, extra) => {
    const result = await call(mcp.client, 'search_code', { query, ...extra });
    const out = ok<CodeOut>(result);
    // Zoekt's `.` also matches at a line's end, so only `e` says what every line holds.
    expectPartialAndTrue(out, textOf(result), query === 'e' ? /e/i : undefined);
  });

  it('a query that matches nearly every character gives pages, a cursor, and more on the next page', async () => {
    const first = ok<CodeOut & { hint?: string }>(await call(mcp.client, 'search_code', { query: '.', limit: 10 }));
    // Zoekt's display cap keeps the answer to what the page needs: no answer past the size bound.
    expect(first.partial?.reason).not.toBe('too_large');
    expect(first.results.length).toBeGreaterThan(0);
    // Files of thousands of matches come a few per request: a page that took long comes short, and says so.
    if (first.results.length < 10) expect(first.hint).toMatch(/This page has \d+ of the 10 files asked for/);
    expect(first.next_cursor).toBeDefined();
    const second = ok<CodeOut>(await call(mcp.client, 'search_code', { query: '.', limit: 10, cursor: first.next_cursor }));
    expect(second.results.length).toBeGreaterThan(0);
    const seen = new Set(first.results.map((r) => r.path));
    for (const r of second.results) expect(seen.has(r.path), r.path).toBe(false);
  });

  it('files with hundreds of matching lines show their first ones, with a count of the rest that holds', async () => {
    const result = await call(mcp.client, 'search_code', { query: 'e', context_lines: 0 });
    const out = ok<CodeOut & { hint?: string }>(result);
    // A page of files with many matches each may come short on a busy machine, and says so.
    if (out.results.length < 10) expect(out.hint).toMatch(/This page has \d+ of the 10 files asked for/);
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.next_cursor).toBeDefined();
    let dense = 0;
    for (const r of out.results) {
      // The first matching lines of the file, in order, as the file has them.
      const lines = fileLines(srcRoot, r.path);
      const matching = lines.flatMap((l, i) => (/e/i.test(l) ? [i + 1] : []));
      if (matching.length > 100) dense++;
      // Exact, or, when Zoekt was asked for the file's best matches only, matching lines of the
      // file in order and a lower bound of the rest.
      if (r.omitted_at_least) {
        for (const m of r.matches) expect(matching, r.path).toContain(m.line);
        expect(r.matches.length + r.omitted_matches).toBeLessThanOrEqual(matching.length);
      } else {
        expect(r.matches.map((m) => m.line), r.path).toEqual(matching.slice(0, r.matches.length));
        expect(r.matches.length + r.omitted_matches, r.path).toBe(matching.length);
      }
    }
    expect(dense).toBeGreaterThan(0);
  });

  it('search_symbols * answers with symbols and a partial note', async () => {
    const result = await call(mcp.client, 'search_symbols', { name: '*', limit: 100 });
    const out = ok<{ symbols: { path: string; line: number; name: string }[]; partial?: { reason: string; hint: string } }>(result);
    expect(out.symbols.length).toBeGreaterThan(0);
    expect(out.partial?.hint).toMatch(/Narrow/);
    for (const s of out.symbols.slice(0, 20)) expect(fileLines(srcRoot, s.path)[s.line - 1]).toContain(s.name);
  });
});

/**
 * A query with thousands of matches in nearly every file is crowded: ranking it would evaluate
 * every match of every file, so it is walked by path, each page checking the files in scope from
 * where the last one stopped. The truth is the tree itself: the files Zoekt indexes with their
 * text, read from disk, that hold a match.
 */
describe('crowded queries walk every file in path order', { timeout: 240_000 }, () => {
  type Page = CodeOut & { hint?: string };
  const paths = (pages: Page[]) => pages.flatMap((p) => p.results.map((r) => r.path));

  it("search_code e: the first 150 files are the tree's first 150 holding an e, in path order, each with its first lines", async () => {
    // A bare term matches paths too; a file the indexer skipped is there by its name or by the
    // index's stand-in for its text ("NOT-INDEXED: contains binary content", which holds an e).
    const byContent = filesMatching(srcRoot, indexedFiles(srcRoot), /e/i);
    const corpus = scanCorpus(srcRoot);
    const want = corpus.all.filter((p) => /e/i.test(p) || byContent.has(p) || corpus.skipped.has(p));
    const indexed = new Set(corpus.indexed);
    const { pages, texts } = await walkPages<Page>(mcp.client, 'search_code', { query: 'e', limit: 10, context_lines: 0 }, 15);
    expect(pages).toHaveLength(15);
    expect(texts[0]).toMatch(/path order/);
    const got = paths(pages);
    // Short pages (a busy machine) only move where the next page starts, never what it holds.
    expect(got).toEqual(want.slice(0, got.length));
    expect(got.length).toBeGreaterThanOrEqual(100);
    for (const page of pages) {
      expect(page.stats.complete).toBe(false);
      for (const r of page.results) {
        if (!indexed.has(r.path)) {
          expect(r.not_indexed, r.path).toBeDefined();
          expect(r.matches).toEqual([]);
          continue;
        }
        const matching = fileLines(srcRoot, r.path).flatMap((l, i) => (/e/i.test(l) ? [i + 1] : []));
        // Its first five lines; or, when Zoekt was asked for a few of its matches only (a line may
        // hold many), matching lines in order and a count of the rest that is a lower bound.
        if (r.omitted_at_least) {
          expect(r.matches.length).toBeGreaterThan(0);
          for (const m of r.matches) expect(matching, r.path).toContain(m.line);
          expect(r.matches.length + r.omitted_matches).toBeLessThanOrEqual(matching.length);
        } else {
          expect(r.matches.map((m) => m.line), r.path).toEqual(matching.slice(0, Math.min(5, matching.length)));
        }
      }
    }
  });

  it('search_code . within paths: every file of the scope once, by path, to the last page', async () => {
    const scope = (p: string) => p.startsWith('strings/') || p.startsWith('bytes/');
    const want = indexedFiles(srcRoot).filter(scope);
    const { pages } = await walkPages<Page>(mcp.client, 'search_code', { query: '.', limit: 10, paths: ['strings/**', 'bytes/**'] }, 200);
    expect(pages.at(-1)!.next_cursor).toBeUndefined();
    expect(paths(pages)).toEqual(want);
    for (const page of pages) for (const r of page.results) for (const m of r.matches) expect(fileLines(srcRoot, r.path)[m.line - 1]).toContain(m.text.replace(/…$/, ''));
  });

  it('a crowded query that names files in its own text is ranked, within those files', async () => {
    const result = await call(mcp.client, 'search_code', { query: 'e file:^strings/', limit: 10 });
    const out = ok<CodeOut & { hint?: string }>(result);
    expect(out.results.length).toBe(10);
    for (const r of out.results) expect(r.path.startsWith('strings/'), r.path).toBe(true);
    expect(out.hint ?? '').not.toMatch(/path order/);
  });

  it("never shows the index's stand-in for a skipped file's text as a matching line", async () => {
    const corpus = scanCorpus(srcRoot);
    const binary = [...corpus.skipped].filter(([, why]) => why === 'binary').map(([p]) => p);
    expect(binary.length).toBeGreaterThan(0);
    const { pages, texts } = await walkPages<CodeOut>(mcp.client, 'search_code', { query: 'binary content', regex: true, limit: 50 });
    const results = pages.flatMap((p) => p.results);
    const want = [...filesMatching(srcRoot, corpus.indexed, /binary content/i), ...binary].sort();
    expect(results.map((r) => r.path).sort()).toEqual(want);
    for (const r of results) {
      for (const m of r.matches) expect(fileLines(srcRoot, r.path)[m.line - 1]).toContain(m.text);
      if (binary.includes(r.path)) expect(r).toMatchObject({ not_indexed: 'binary', matches: [] });
    }
    expect(texts[0]).toContain('text not indexed (binary)');
  });
});
