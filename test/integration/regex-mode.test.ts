/**
 * Regexes as agents write them: search_code with `regex: true` takes the query as one RE2 regex,
 * its spaces and groups its own, and every match is reported on the line of its first character
 * (never on a blank line before it). Through the built CLI over stdio against real Zoekts (Go's
 * own source tree, and the fixtures); the expected lines come from ripgrep over the same files
 * (test/support/rg.ts), never from Zoekt or the adapter.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { call, connectStdio, failed, ok, walkPages, type Connected } from '../support/mcp.js';
import { rgMatches, type RgMatch } from '../support/rg.js';
import { fileLines, scanCorpus } from '../support/truth.js';
import { REPO_PREFIX, ROOT } from '../support/zoekt.js';

/** A few pages of 50 files each, on two cores shared with other test files. Nothing asserts a time. */
const WALK_TIMEOUT_MS = 120_000;
/** Every matched line of a file on one page (the patterns below have fewer per file). */
const ALL = { limit: 50, max_matches_per_file: 100, context_lines: 0, case_sensitive: 'yes' };

let srcRoot: string;
let indexed: Set<string>;
let go: Connected;
let fixtures: Connected;

beforeAll(async () => {
  srcRoot = inject('goSrcRoot');
  indexed = new Set(scanCorpus(srcRoot).indexed);
  [go, fixtures] = await Promise.all([connectStdio({ ZOEKT_URL: inject('goZoektUrl'), ZOEKT_MCP_TIMEOUT_MS: '60000' }), connectStdio({ ZOEKT_URL: inject('zoektUrl') })]);
});
afterAll(async () => {
  await Promise.all([go?.close(), fixtures?.close()]);
});

type Match = CodeSearchOutput['results'][number]['matches'][number];

/** Every content match of a walk over all pages, keyed path:line. */
async function walkMatches(client: Connected['client'], args: Record<string, unknown>): Promise<{ lines: Map<string, Match>; pages: CodeSearchOutput[]; texts: string[] }> {
  const { pages, texts } = await walkPages<CodeSearchOutput>(client, 'search_code', { ...ALL, ...args }, 100);
  const lines = new Map<string, Match>();
  for (const r of pages.flatMap((p) => p.results)) {
    // Every matched line of the file is on the page: nothing is left to a count.
    expect(r.omitted_matches, r.path).toBe(0);
    for (const m of r.matches) {
      const key = `${r.repo === inject('goRepo') ? '' : `${r.repo}:`}${r.path}:${m.line}`;
      expect(lines.has(key), `${key} reported once`).toBe(false);
      lines.set(key, m);
    }
  }
  return { lines, pages, texts };
}

/** What rg finds in the indexed files of Go's tree (Zoekt keeps the others by name only). */
function truth(pattern: string, options: { multiline?: boolean } = {}): RgMatch[] {
  const found = rgMatches(srcRoot, pattern, options).filter((m) => indexed.has(m.path));
  // Every matched line of a file fits on one page (ALL).
  const perFile = new Map<string, number>();
  for (const m of found) perFile.set(m.path, (perFile.get(m.path) ?? 0) + 1);
  expect(Math.max(...perFile.values())).toBeLessThanOrEqual(ALL.max_matches_per_file);
  return found;
}

/** The lines are the same, and each reported text is the line on disk (cut only when longer than a page shows). */
function expectSameLines(got: Map<string, Match>, expected: RgMatch[]): void {
  const want = new Map(expected.map((m) => [`${m.path}:${m.line}`, m]));
  expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
  for (const [key, m] of got) {
    const line = want.get(key)!.text;
    if ([...line].length <= 400) expect(m.text, key).toBe(line);
    else expect(line, key).toContain(m.text.replace(/^…|…$/g, ''));
  }
}

describe('search_code regex: true, line by line against ripgrep on Go\'s tree', { timeout: WALK_TIMEOUT_MS }, () => {
  it('a regex with spaces and groups is one regex: every line rg finds, each once, with its text', async () => {
    const pattern = 'func \\((\\w+) \\*(Reader|Writer)\\) (Read|Write)\\(';
    const expected = truth(pattern);
    expect(expected.length).toBeGreaterThan(20);
    const { lines, pages } = await walkMatches(go.client, { query: pattern, regex: true });
    // Sent as one quoted regex atom: nothing in it is read as the query syntax.
    expect(pages[0]!.zoekt_query).toBe(`case:yes regex:"func \\\\((\\\\w+) \\\\*(Reader|Writer)\\\\) (Read|Write)\\\\("`);
    expect(pages[0]!.hint).toBeUndefined();
    expectSameLines(lines, expected);
  });

  it('a broader one over several pages: every line rg finds, each once', async () => {
    const pattern = 'if err := (\\w+)\\.Close\\(\\); err != nil';
    const expected = truth(pattern);
    expect(new Set(expected.map((m) => m.path)).size).toBeGreaterThan(100);
    const { lines, pages } = await walkMatches(go.client, { query: pattern, regex: true });
    expect(pages.length).toBeGreaterThan(2);
    expectSameLines(lines, expected);
  });

  it('^\\s* after a blank line: the match is on the line of its text, never on the blank line before, in every mode', async () => {
    const pattern = '^\\s*func \\(\\w+ \\*Server\\) \\w+\\(';
    const expected = truth(pattern);
    // Most of these funcs follow a blank line: a regex whose \s crosses line breaks starts there.
    const afterBlank = expected.filter((m) => m.line > 1 && fileLines(srcRoot, m.path)[m.line - 2]!.trim() === '');
    expect(afterBlank.length).toBeGreaterThan(20);
    const { lines } = await walkMatches(go.client, { query: pattern, regex: true });
    expectSameLines(lines, expected);
    for (const m of lines.values()) {
      expect(m.end_line).toBeUndefined();
      expect(m.column).toBe(1);
    }
    // The same regex in the query syntax, written without spaces (so one term): the same lines.
    const plain = '^\\s*func\\s\\(\\w+\\s\\*Server\\)\\s\\w+\\(';
    const inSyntax = await walkMatches(go.client, { query: plain });
    expectSameLines(inSyntax.lines, truth(plain));
  });

  it('a match over several lines: on its first line, end_line its last, its own lines shown, context after its end', async () => {
    const pattern = 'err != nil \\{\\s+return err\\s+\\}';
    const expected = rgMatches(srcRoot, pattern, { multiline: true, paths: ['archive/'] }).filter((m) => indexed.has(m.path));
    expect(expected.length).toBeGreaterThan(20);
    for (const m of expected) expect(m.endLine).toBe(m.line + 2);
    const { lines, texts } = await walkMatches(go.client, { query: pattern, regex: true, paths: ['/archive/'], context_lines: 1 });
    expectSameLines(lines, expected);
    // A match whose context lines are no other match's lines or context.
    const isolated = expected.filter((e, i) => {
      const prev = expected[i - 1]?.path === e.path ? expected[i - 1] : undefined;
      const next = expected[i + 1]?.path === e.path ? expected[i + 1] : undefined;
      return (!prev || prev.endLine + 1 < e.line - 1) && (!next || e.endLine + 1 < next.line) && e.line > 1;
    });
    expect(isolated.length).toBeGreaterThan(10);
    for (const e of expected) {
      const key = `${e.path}:${e.line}`;
      const m = lines.get(key)!;
      const file = fileLines(srcRoot, e.path);
      expect(m.end_line, key).toBe(e.endLine);
      expect(m.continued, key).toEqual(file.slice(e.line, e.endLine));
      if (!isolated.includes(e)) continue;
      expect(m.before, key).toEqual([file[e.line - 2]]);
      expect(m.after, key).toEqual([file[e.endLine]]);
    }
    // The text shows the match's lines under it, grep -U style, then the context after its end.
    const first = isolated[0]!;
    const file = fileLines(srcRoot, first.path);
    const text = texts.join('\n');
    expect(text).toContain(`${first.line + 1}: ${file[first.line]}\n${first.line + 2}: ${file[first.line + 1]}\n${first.line + 3}- ${file[first.line + 2]}`);
  });
});

describe('search_code regex: true on the fixtures, and its errors', () => {
  const issuePattern = 'export (async )?function \\w+';

  it("the issue's regex: refused in the query syntax with a hint to pass regex: true, found whole with it", async () => {
    const refused = failed(await call(fixtures.client, 'search_code', { query: `${issuePattern}User` }));
    expect(refused.code).toBe('QUERY_ERROR');
    expect(refused.hint).toMatch(/^Zoekt's query syntax splits a query at spaces.*call again with regex: true/);
    const out = await walkPages<CodeSearchOutput>(fixtures.client, 'search_code', { ...ALL, query: `${issuePattern}User`, regex: true });
    const got = out.pages.flatMap((p) => p.results.flatMap((r) => r.matches.map((m) => `${r.repo}:${r.path}:${m.line}:${m.text}`)));
    const fixturesRoot = join(ROOT, 'test/fixtures');
    // Each folder of test/fixtures is a repository; files beside them are not indexed.
    const expected = rgMatches(fixturesRoot, `${issuePattern}User`)
      .filter((m) => m.path.includes('/'))
      .map((m) => {
        const slash = m.path.indexOf('/');
        return `${REPO_PREFIX}${m.path.slice(0, slash)}:${m.path.slice(slash + 1)}:${m.line}:${m.text}`;
      });
    expect(expected.length).toBeGreaterThan(2);
    for (const e of expected) expect(got, e).toContain(e);
  });

  it('a plain query cut into several terms says so, and suggests regex: true', async () => {
    const out = ok<CodeSearchOutput>(await call(fixtures.client, 'search_code', { query: 'export (function|const) \\w+' }));
    expect(out.hint).toMatch(/split at spaces into \d terms.*call again with regex: true/);
  });

  it('regex and literal together: INVALID_ARGUMENT naming both', async () => {
    const e = failed(await call(fixtures.client, 'search_code', { query: 'foo (bar)', regex: true, literal: true }));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toMatch(/literal and regex/);
    expect(e.hint).toMatch(/regex: true.*literal: true/);
  });

  it('a bad regex: QUERY_ERROR with the RE2 rule, never the query-syntax tip', async () => {
    const unclosed = failed(await call(fixtures.client, 'search_code', { query: 'func (\\w+ error', regex: true }));
    expect(unclosed.code).toBe('QUERY_ERROR');
    expect(unclosed.hint).toMatch(/Unbalanced parenthesis: a '\(' is never closed/);
    expect(unclosed.hint).not.toMatch(/call again with regex: true/);
    const lookahead = failed(await call(fixtures.client, 'search_code', { query: 'foo(?= bar)', regex: true }));
    expect(lookahead.code).toBe('QUERY_ERROR');
    expect(lookahead.hint).toMatch(/RE2 has no lookahead/);
    const backref = failed(await call(fixtures.client, 'search_code', { query: '(\\w+) \\1', regex: true }));
    expect(backref.code).toBe('QUERY_ERROR');
    expect(backref.hint).toMatch(/no backreferences/);
  });

  it("(?i) at the start of the regex searches in any case; the regex's quotes and backslashes reach Zoekt as written", async () => {
    const folded = ok<CodeSearchOutput>(await call(fixtures.client, 'search_code', { query: '(?i)EXPORT (ASYNC )?FUNCTION getuser\\b', regex: true }));
    expect(folded.zoekt_query).toMatch(/^case:no regex:"EXPORT \(ASYNC \)\?FUNCTION getuser\\\\b"/);
    const expected = rgMatches(join(ROOT, 'test/fixtures'), '(?i)export (async )?function getuser\\b').filter((m) => m.path.includes('/'));
    expect(expected.length).toBeGreaterThan(0);
    expect(folded.results.reduce((n, r) => n + r.matches.length, 0)).toBeGreaterThanOrEqual(expected.length);
    const quoted = ok<CodeSearchOutput>(await call(fixtures.client, 'search_code', { query: '"[^"]*" or -file:x', regex: true }));
    expect(quoted.zoekt_query).toBe('regex:"\\"[^\\"]*\\" or -file:x"');
  });
});
