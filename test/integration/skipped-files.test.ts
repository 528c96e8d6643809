/**
 * Files the indexer kept by name only, on Go's own tree: how many, and why, worked out from the
 * files by test/support/truth.ts (Zoekt's rules at its pinned version), against what list_repos,
 * get_health and the searches report.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import type { HealthOutput } from '../../src/search/health.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import type { SymbolSearchOutput } from '../../src/search/symbols.js';
import { call, connectStdio, ok, textOf, type Connected } from '../support/mcp.js';
import { scanCorpus, type Corpus, type SkipReason } from '../support/truth.js';

/** truth.ts's names for the reasons, as the tools name them. */
const NAMES: Record<SkipReason, string> = { 'too-large': 'too_large', 'too-small': 'too_small', binary: 'binary', 'too-many-trigrams': 'too_many_trigrams' };

let corpus: Corpus;
let mcp: Connected;

beforeAll(async () => {
  corpus = scanCorpus(inject('goSrcRoot'));
  mcp = await connectStdio({ ZOEKT_URL: inject('goZoektUrl') });
});
afterAll(() => mcp.close());

function expectedCounts(paths: string[]): { files: number; reasons: Record<string, number> } {
  const reasons: Record<string, number> = {};
  for (const p of paths) {
    const r = NAMES[corpus.skipped.get(p)!];
    reasons[r] = (reasons[r] ?? 0) + 1;
  }
  return { files: paths.length, reasons };
}

describe('files the indexer skipped, on the Go tree', () => {
  it('list_repos and get_health count every one, by reason', async () => {
    const expected = expectedCounts([...corpus.skipped.keys()]);
    expect(expected.files).toBeGreaterThan(100);
    expect(expected.reasons.too_many_trigrams).toBeGreaterThan(0);
    const listed = ok<ListReposOutput>(await call(mcp.client, 'list_repos', {}));
    expect(listed.repos).toHaveLength(1);
    expect(listed.repos[0]!.not_indexed).toEqual(expected);
    const text = textOf(await call(mcp.client, 'list_repos', {}));
    expect(text).toMatch(new RegExp(`not indexed: ${expected.files} file\\(s\\) kept by name only \\(`));
    const health = ok<HealthOutput>(await call(mcp.client, 'get_health', {}));
    expect(health.index?.not_indexed).toEqual({ ...expected, repos: 1, complete: true });
  });

  it('a content search whose scope holds skipped text files names them; binary ones are not named', async () => {
    // The package folder holding a file skipped for its trigrams (test data), searched whole.
    const trigramFiles = [...corpus.skipped].filter(([, r]) => r === 'too-many-trigrams').map(([p]) => p).sort();
    const folders = trigramFiles.filter((p) => p.includes('/testdata/')).map((p) => p.slice(0, p.indexOf('testdata/')));
    const size = (d: string) => corpus.indexed.filter((p) => p.startsWith(d)).length;
    const dir = folders.sort((a, b) => size(b) - size(a))[0]!;
    expect(size(dir)).toBeGreaterThan(1);
    const inDir = trigramFiles.filter((p) => p.startsWith(dir));
    const result = await call(mcp.client, 'search_code', { query: 'e', paths: [dir], limit: 1 });
    const out = ok<CodeSearchOutput>(result);
    expect(out.not_indexed?.files).toBe(inDir.length);
    expect(out.not_indexed?.examples.map((e) => e.path)).toEqual(inDir.slice(0, 3));
    expect(out.not_indexed?.examples.every((e) => e.reason === 'too_many_trigrams')).toBe(true);
    expect(textOf(result)).toMatch(/^not indexed: /m);
    // Symbols come from the same text: search_symbols says the same.
    const symbols = ok<SymbolSearchOutput>(await call(mcp.client, 'search_symbols', { name: 'Test*', paths: [dir], limit: 1 }));
    expect(symbols.not_indexed?.files).toBe(inDir.length);
    // A folder holding only binary placeholders: nothing that could have matched text, nothing named.
    const binaryOnly = [...corpus.skipped].filter(([, r]) => r === 'binary').map(([p]) => p.slice(0, p.lastIndexOf('/') + 1));
    const folder = binaryOnly.find((d) => ![...corpus.skipped].some(([p, r]) => r !== 'binary' && p.startsWith(d)))!;
    const quiet = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'a', paths: [folder], limit: 1 }));
    expect(quiet.not_indexed).toBeUndefined();
    // Later pages do not repeat it.
    expect(out.next_cursor).toBeDefined();
    const second = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'e', paths: [dir], limit: 1, cursor: out.next_cursor }));
    expect(second.not_indexed).toBeUndefined();
  });
});
