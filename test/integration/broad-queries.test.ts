/**
 * A valid query is never refused for being broad. On Go's source tree (11.5k files) a query
 * such as `e` or `.` makes Zoekt's whole answer pass the memory bound one search may hold; the
 * adapter asks again for less and answers with what it got, `partial: too_large`, and a hint
 * that says how to narrow. Every line shown is checked against the file on disk.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, connectStdio, ok, textOf, type Connected } from '../support/mcp.js';
import { fileLines } from '../support/truth.js';

interface Match {
  line: number;
  text: string;
}
interface CodeOut {
  results: { path: string; matches: Match[]; path_match?: boolean; omitted_matches: number; omitted_at_least?: true }[];
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
