/**
 * Files with tens of thousands of matching lines, beside ordinary ones: a one-letter query and `.`
 * answer a full first page with a cursor, walking on reaches every file once, a dense file shows
 * its first matching lines with a count of the rest that holds, and totals are exact or said to be
 * lower bounds. Expected answers are read from the files written here, not from Zoekt.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { connectStdio, walkPages, type Connected } from '../support/mcp.js';
import { runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';

const DENSE_LINES = 25_000;
let work: string;
let zoekt: RunningZoekt;
let mcp: Connected;
/** Every file written, with its lines. */
const files = new Map<string, string[]>();

function write(path: string, lines: string[]): void {
  files.set(path, lines);
  mkdirSync(dirname(join(work, 'dense', path)), { recursive: true });
  writeFileSync(join(work, 'dense', path), `${lines.join('\n')}\n`);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-dense-'));
  // Two files where every line holds an `e`, and forty ordinary ones with a few such lines each.
  write('data/dense.txt', Array.from({ length: DENSE_LINES }, (_, i) => `entry ${i}`));
  write('data/denser.txt', Array.from({ length: DENSE_LINES }, (_, i) => `key ${i} value`));
  for (let i = 0; i < 40; i++) {
    write(`src/m${String(i).padStart(2, '0')}/mod.go`, ['package m', '', ...Array.from({ length: 1 + (i % 7) }, (_, j) => `var x${j} = "line ${j}"`), `func f${i}() {}`]);
  }
  const index = join(work, 'index');
  mkdirSync(index);
  runIndexer('dir', ['-index', index, join(work, 'dense')]);
  zoekt = await startWebserver({ indexDir: index, expectRepos: 1 });
  mcp = await connectStdio({ ZOEKT_URL: zoekt.url });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await zoekt?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

type Result = CodeSearchOutput['results'][number];

const walk = (args: Record<string, unknown>) => walkPages<CodeSearchOutput>(mcp.client, 'search_code', args, 200);

function matchingLines(path: string, re: RegExp): number[] {
  return files.get(path)!.flatMap((l, i) => (re.test(l) ? [i + 1] : []));
}

/** A file's shown lines are its first matching lines; its count of the rest is exact, or a lower bound said to be one. */
function expectTrueToFile(r: Result, re: RegExp, text: string): void {
  const lines = matchingLines(r.path, re);
  const shown = r.matches.map((m) => m.line);
  expect(shown, r.path).toEqual(lines.slice(0, shown.length));
  for (const m of r.matches) expect(files.get(r.path)![m.line - 1], r.path).toContain(m.text.replace(/…$/, ''));
  if (r.omitted_at_least) {
    expect(shown.length + r.omitted_matches, r.path).toBeLessThanOrEqual(lines.length);
    expect(text).toMatch(r.omitted_matches > 0 ? new RegExp(`at least ${r.omitted_matches} more matching line`) : /more matching lines may follow/);
  } else {
    expect(shown.length + r.omitted_matches, r.path).toBe(lines.length);
  }
}

describe('files with 25,000 matching lines among ordinary ones', { timeout: 120_000 }, () => {
  it.each([
    ['e', /e/],
    ['.', /./],
  ])('search_code %j: a full first page with a cursor, every file once over the walk, dense files true to their lines', async (query, re) => {
    const expected = [...files.keys()].filter((p) => matchingLines(p, re).length > 0).sort();
    expect(expected.length).toBe(42);
    const { pages, texts } = await walk({ query, limit: 10, context_lines: 0 });
    const first = pages[0]!;
    // Full, unless the page took its rounds of dense files, which it then says.
    if (first.results.length < 10) expect(first.hint).toMatch(/This page has \d+ of the 10 files asked for/);
    else expect(first.results).toHaveLength(10);
    expect(first.next_cursor).toBeDefined();
    expect(pages.length).toBeGreaterThan(1);
    const seen = pages.flatMap((p) => p.results.map((r) => r.path));
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(expected);
    pages.forEach((p, i) => {
      expect(p.partial, `page ${i + 1}`).toBeUndefined();
      for (const r of p.results) expectTrueToFile(r, re, texts[i]!);
      // Exact counts, or lower bounds said to be ones.
      if (p.stats.complete) expect(p.stats.files).toBe(expected.length);
      else {
        expect(p.stats.files).toBeLessThanOrEqual(expected.length);
        expect(texts[i]).toContain(`at least ${p.stats.files} file(s)`);
      }
    });
    // The dense files are among the results, shown by their first lines.
    for (const dense of ['data/dense.txt', 'data/denser.txt']) expect(seen).toContain(dense);
  });
});
