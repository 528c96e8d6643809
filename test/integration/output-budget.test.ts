/**
 * The output budget (docs/pagination.md, "Output budget"), through the built CLI over stdio against real
 * Zoekts: Go's own source tree (test/support/goroot.ts) and the fixture index.
 *
 * For every tool: an answer that would pass max_output_chars comes back within it (text ≤ the
 * bound, structuredContent ≤ twice it) and says what it cut; walking every page under a small
 * bound (2,000) or the default one reaches exactly the results a walk under 1,000,000 reaches,
 * each once, and (where practical) exactly what the files on disk say; and every cut page turns
 * its settings down in the documented order, each to its floor before the next is touched.
 * Expected answers come from the files (test/support/truth.ts), never from Zoekt or the adapter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, connectStdio, ok, textOf, type Connected } from '../support/mcp.js';
import { filesMatching, fileLines, GO_FILES, goFuncDefinitions, linesMatching, scanCorpus, type Corpus } from '../support/truth.js';

/** The smallest bound a call may ask for, the server's default, and the largest. */
const SMALL = 2_000;
const DEFAULT = 24_000;
const HUGE = 1_000_000;

/** Walks of a few hundred pages on two cores shared with other test files. Nothing asserts a time. */
const WALK_TIMEOUT_MS = 120_000;
/** No walk here comes near this many pages; reaching it fails the test. */
const MAX_PAGES = 600;

type Rec = Record<string, unknown>;
interface Cut {
  setting: string;
  from: number;
  to: number;
}
interface Truncation {
  reason: string;
  max_output_chars: number;
  cut: Cut[];
}
type Page = Rec & { next_cursor?: string; truncated?: Truncation | boolean; budget?: Truncation; hint?: string };

/**
 * A step of a tool's documented order: the setting it turns down, its floor on this page, and the
 * setting's value before any cut (what was asked, or what the page shows when it was not cut). A
 * setting may have two steps, the first with a higher floor.
 */
interface Dial {
  name: string;
  floor: (page: Page) => number;
  start: (page: Page) => number;
}

const list = (page: Page, key: string) => page[key] as Rec[];

const DIALS: Record<string, (args: Rec) => Dial[]> = {
  // One context line is kept until the files are cut; the last one goes after them.
  search_code: (args) => [
    { name: 'context_lines', floor: () => 1, start: () => (args.context_lines as number | undefined) ?? 1 },
    { name: 'matches_per_file', floor: () => 1, start: () => (args.max_matches_per_file as number | undefined) ?? 5 },
    { name: 'results', floor: () => 1, start: (p) => list(p, 'results').length },
    { name: 'context_lines', floor: () => 0, start: () => (args.context_lines as number | undefined) ?? 1 },
    { name: 'line_chars', floor: () => 80, start: () => 400 },
  ],
  find_references: (args) => [
    { name: 'context_lines', floor: () => 0, start: () => (args.context_lines as number | undefined) ?? 0 },
    // With definitions on the page, usages go first, down to none.
    { name: 'results', floor: (p) => (list(p, 'definitions').length ? 0 : 1), start: (p) => list(p, 'usages').length },
    { name: 'definitions', floor: (p) => (list(p, 'definitions').length ? 1 : 0), start: (p) => list(p, 'definitions').length },
    { name: 'line_chars', floor: () => 80, start: () => 400 },
  ],
  search_symbols: () => [
    { name: 'results', floor: () => 1, start: (p) => list(p, 'symbols').length },
    { name: 'line_chars', floor: () => 80, start: () => 400 },
  ],
  search_files: () => [{ name: 'results', floor: () => 1, start: (p) => list(p, 'files').length }],
  list_repos: () => [{ name: 'results', floor: () => 1, start: (p) => list(p, 'repos').length }],
  get_file: () => [
    { name: 'lines', floor: () => 1, start: (p) => (p.end_line as number) - (p.start_line as number) + 1 },
    { name: 'line_chars', floor: () => 80, start: () => Number.POSITIVE_INFINITY },
  ],
  get_health: () => [{ name: 'list_items', floor: () => 1, start: () => Number.POSITIVE_INFINITY }],
};

/** What the budget cut: `budget` in get_file (whose `truncated` says more lines follow), `truncated` elsewhere. */
function cutOf(tool: string, page: Page): Truncation | undefined {
  const t = tool === 'get_file' ? page.budget : page.truncated;
  return typeof t === 'object' ? t : undefined;
}

/**
 * The contract of one page under `max`: the text within the bound, structuredContent within twice
 * it; a cut page says so in both (a `truncated:` line, and what it cut from what to what), and its
 * settings were turned down in the documented order, each earlier one to its floor first.
 */
function checkPage(tool: string, args: Rec, max: number, page: Page, text: string, label: string): Truncation | undefined {
  expect(text.length, `${label}: text length`).toBeLessThanOrEqual(max);
  expect(JSON.stringify(page).length, `${label}: structuredContent length`).toBeLessThanOrEqual(2 * max);
  const t = cutOf(tool, page);
  const truncatedLines = text.split('\n').filter((l) => l.startsWith('truncated:'));
  expect(truncatedLines, `${label}: a truncated: line exactly when the page was cut`).toHaveLength(t ? 1 : 0);
  if (!t) return undefined;
  expect(t.max_output_chars, label).toBe(max);
  expect(t.reason, label).toMatch(/max_output_chars/);
  expect(t.cut.length, `${label}: says what it cut`).toBeGreaterThan(0);
  for (const c of t.cut) expect(truncatedLines[0], label).toContain(`${c.setting.replace(/_/g, ' ')} ${c.from} → ${c.to}`);

  const dials = DIALS[tool]!(args);
  const names = dials.map((d) => d.name);
  const order = t.cut.map((c) => names.indexOf(c.setting));
  expect(order.every((i) => i >= 0), `${label}: only documented settings are cut: ${JSON.stringify(t.cut)}`).toBe(true);
  expect(order, `${label}: cut in the documented order, each once: ${JSON.stringify(t.cut)}`).toEqual([...new Set(order)].sort((a, b) => a - b));
  // A step's floor, or the setting's value when it was asked below it.
  const floorOf = (d: Dial) => Math.min(d.floor(page), d.start(page));
  const nowOf = (d: Dial) => t.cut.find((c) => c.setting === d.name)?.to ?? d.start(page);
  for (const c of t.cut) {
    expect(c.to, `${label}: ${c.setting} turned down`).toBeLessThan(c.from);
    const lowest = Math.min(...dials.filter((d) => d.name === c.setting).map(floorOf));
    expect(c.to, `${label}: ${c.setting} not below its floor`).toBeGreaterThanOrEqual(lowest);
  }
  // The step the page was cut at: of each setting cut, the first of its steps whose floor it has not gone below.
  const last = Math.max(...t.cut.map((c) => dials.findIndex((d) => d.name === c.setting && nowOf(d) >= floorOf(d))));
  // Every step before it is at its floor (or below it, when a later step of the same setting went on).
  dials.slice(0, last).forEach((d, i) => {
    const again = dials.slice(i + 1, last + 1).some((e) => e.name === d.name);
    const why = `${label}: ${d.name} at its floor (${floorOf(d)}) before ${names[last]} is cut: ${JSON.stringify(t.cut)}`;
    if (again) expect(nowOf(d), why).toBeLessThanOrEqual(floorOf(d));
    else expect(nowOf(d), why).toBe(floorOf(d));
  });
  return t;
}

interface Walk {
  pages: Page[];
  texts: string[];
  /** The pages the budget cut. */
  cut: Truncation[];
}

/** The lists a tool's page shows its results in. */
const LISTS: Record<string, string[]> = {
  search_code: ['results'],
  search_symbols: ['symbols'],
  search_files: ['files'],
  find_references: ['definitions', 'usages'],
  list_repos: ['repos'],
};

/**
 * Follows next_cursor to the end, checking every page: under `max` (undefined: the server's
 * default; a function: the bound for each page, which a cursor does not bind).
 */
async function walk(client: Connected['client'], tool: string, args: Rec, bound: number | undefined | ((page: number) => number | undefined)): Promise<Walk> {
  const pages: Page[] = [];
  const texts: string[] = [];
  const cut: Truncation[] = [];
  let cursor: string | undefined;
  for (;;) {
    if (pages.length >= MAX_PAGES) throw new Error(`${tool} walk did not end within ${MAX_PAGES} pages`);
    const max = typeof bound === 'function' ? bound(pages.length) : bound;
    const result = await call(client, tool, { ...args, ...(max === undefined ? {} : { max_output_chars: max }), ...(cursor ? { cursor } : {}) });
    const text = textOf(result);
    const page = ok<Page>(result);
    const t = checkPage(tool, args, max ?? DEFAULT, page, text, `${tool} page ${pages.length + 1}`);
    if (t) cut.push(t);
    pages.push(page);
    texts.push(text);
    // A page with a next page shows at least one result: the walk moves on.
    if (page.next_cursor) expect(LISTS[tool]!.reduce((n, k) => n + list(page, k).length, 0), `${tool} page ${pages.length}`).toBeGreaterThan(0);
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return { pages, texts, cut };
}

const items = (w: Walk, key: string) => w.pages.flatMap((p) => list(p, key));
const str = (v: unknown) => (v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v as string | number));
const keyOf =
  (...fields: string[]) =>
  (r: Rec) =>
    fields.map((f) => str(r[f])).join('\u0000');
const site = (r: { path?: unknown; line?: unknown }) => `${r.path as string}:${r.line as number}`;

/** Whether a page would pass `max`: its text over it, or its structuredContent over twice it. */
const passes = (page: Page, text: string, max: number) => text.length > max || JSON.stringify(page).length > 2 * max;

/** Each key once, and the same keys in the same order as the reference walk. */
function expectSameOnce(got: string[], reference: string[], what: string): void {
  expect(new Set(got).size, `${what}: each once`).toBe(got.length);
  expect(new Set(reference).size, `${what}: each once (reference)`).toBe(reference.length);
  expect(got, what).toEqual(reference);
}

let srcRoot: string;
let goRepo: string;
let corpus: Corpus;
let go: Connected;
let fixtures: Connected;

beforeAll(async () => {
  srcRoot = inject('goSrcRoot');
  goRepo = inject('goRepo');
  corpus = scanCorpus(srcRoot);
  [go, fixtures] = await Promise.all([
    connectStdio({ ZOEKT_URL: inject('goZoektUrl'), ZOEKT_MCP_TIMEOUT_MS: '60000' }),
    connectStdio({ ZOEKT_URL: inject('zoektUrl') }),
  ]);
});
afterAll(async () => {
  await Promise.all([go?.close(), fixtures?.close()]);
});

describe('search_code', { timeout: WALK_TIMEOUT_MS }, () => {
  const fileKey = keyOf('repo', 'path', 'branches', 'version');

  it('under 2,000 characters: every page within the bound and cut in order; the walk reaches every file once, as under 1,000,000 and as the files have it', async () => {
    const args = { query: 'sync.Once', literal: true, limit: 25, context_lines: 2 };
    const expected = filesMatching(srcRoot, corpus.indexed, /sync\.Once/, undefined, 'sync.Once');
    expect(expected.size).toBeGreaterThan(100);
    const huge = await walk(go.client, 'search_code', args, HUGE);
    const small = await walk(go.client, 'search_code', args, SMALL);
    // The full first page would pass the bound; cut, it fits and says what it cut.
    expect(passes(huge.pages[0]!, huge.texts[0]!, SMALL)).toBe(true);
    expect(huge.cut).toHaveLength(0);
    expect(cutOf('search_code', small.pages[0]!)).toBeDefined();
    expect(small.pages.length).toBeGreaterThan(huge.pages.length);
    // Cuts reach past context lines and matched lines: results are cut, and the cursor goes on.
    expect(small.cut.some((t) => t.cut.some((c) => c.setting === 'results'))).toBe(true);
    for (const p of small.pages.slice(0, -1)) expect(p.next_cursor).toBeDefined();
    // A line of context around each match outlasts the extra matched lines and the later files:
    // pages cut to fewer files still show it, and what they cut of it says so.
    const withContext = small.pages.filter((p) => {
      const t = cutOf('search_code', p);
      return t?.cut.some((c) => c.setting === 'results') && t.cut.find((c) => c.setting === 'context_lines')?.to === 1;
    });
    expect(withContext.length).toBeGreaterThan(0);
    for (const p of withContext) {
      const matches = list(p, 'results').flatMap((r) => r.matches as { before?: string[]; after?: string[] }[]);
      for (const m of matches) expect((m.before?.length ?? 0) + (m.after?.length ?? 0)).toBeLessThanOrEqual(2);
      expect(matches.some((m) => m.before?.length === 1 || m.after?.length === 1)).toBe(true);
    }

    const got = items(small, 'results');
    const all = items(huge, 'results');
    expectSameOnce(got.map(fileKey), all.map(fileKey), 'search_code files under 2,000 vs 1,000,000');
    expect(new Set(got.map((r) => r.path as string))).toEqual(expected);
    for (const r of got) expect(r.repo).toBe(goRepo);
    // A cut file shows the first of the lines the full page shows, and counts the rest.
    const full = new Map(all.map((r) => [fileKey(r), r]));
    for (const r of got) {
      const whole = full.get(fileKey(r))!;
      const lines = (r.matches as Rec[]).map((m) => m.line);
      const wholeLines = (whole.matches as Rec[]).map((m) => m.line);
      expect(lines.length, site(r)).toBeGreaterThan(0);
      expect(wholeLines.slice(0, lines.length), r.path as string).toEqual(lines);
      expect(lines.length + (r.omitted_matches as number), r.path as string).toBe(wholeLines.length + (whole.omitted_matches as number));
    }
  });

  it('under the default bound, a broad query with wide pages: every page within 24,000 characters, and the walk reaches every file once', async () => {
    const args = { query: 'bytes.Equal', literal: true, limit: 50, context_lines: 3, max_matches_per_file: 10 };
    const expected = filesMatching(srcRoot, corpus.indexed, /bytes\.Equal/, undefined, 'bytes.Equal');
    expect(expected.size).toBeGreaterThan(200);
    const huge = await walk(go.client, 'search_code', args, HUGE);
    const byDefault = await walk(go.client, 'search_code', args, undefined);
    expect(passes(huge.pages[0]!, huge.texts[0]!, DEFAULT)).toBe(true);
    expect(byDefault.cut.length).toBeGreaterThan(0);
    const got = items(byDefault, 'results').map(fileKey);
    expectSameOnce(got, items(huge, 'results').map(fileKey), 'search_code files under the default vs 1,000,000');
    expect(new Set(items(byDefault, 'results').map((r) => r.path as string))).toEqual(expected);
  });

  it('a cursor does not bind max_output_chars: a walk that changes the bound from page to page still reaches every file once', async () => {
    const args = { query: 'sync.Once', literal: true, limit: 25, context_lines: 2 };
    const huge = await walk(go.client, 'search_code', args, HUGE);
    // 2,000, then 1,000,000 for the rest of the cut page, then the default, and again.
    const mixed = await walk(go.client, 'search_code', args, (n) => [SMALL, HUGE, undefined][n % 3]);
    expect(mixed.cut.length).toBeGreaterThan(0);
    // The page after a cut one, under 1,000,000, goes on from the first file left out: a full page of 25 from there.
    const shown = list(mixed.pages[0]!, 'results').length;
    expect(shown).toBeLessThan(25);
    const all = items(huge, 'results').map(fileKey);
    expect(list(mixed.pages[1]!, 'results').map(fileKey)).toEqual(all.slice(shown, shown + 25));
    expect(cutOf('search_code', mixed.pages[1]!)).toBeUndefined();
    expectSameOnce(items(mixed, 'results').map(fileKey), items(huge, 'results').map(fileKey), 'search_code files under changing bounds vs 1,000,000');
  });
});

describe('search_symbols', { timeout: WALK_TIMEOUT_MS }, () => {
  it('under 2,000 characters: every symbol once, as under 1,000,000 and as the files have it', async () => {
    const args = { name: 'Parse*', case_sensitive: true, kinds: ['function', 'method'], languages: ['go'], include_vendored: true, limit: 100 };
    const huge = await walk(go.client, 'search_symbols', args, HUGE);
    const small = await walk(go.client, 'search_symbols', args, SMALL);
    expect(passes(huge.pages[0]!, huge.texts[0]!, SMALL)).toBe(true);
    expect(cutOf('search_symbols', small.pages[0]!)).toBeDefined();
    const symbolKey = keyOf('repo', 'path', 'line', 'column', 'name');
    const got = items(small, 'symbols');
    expectSameOnce(got.map(symbolKey), items(huge, 'symbols').map(symbolKey), 'search_symbols under 2,000 vs 1,000,000');
    // Methods of interfaces are methods too; the rest are the func declarations in the files.
    const expected = linesMatching(srcRoot, corpus.indexed, /^func (\([^)]*\) )?Parse\w*[[(]/, GO_FILES, 'Parse').map(site);
    expect(expected.length).toBeGreaterThan(100);
    expect(got.filter((s) => s.parent_kind !== 'Interface').map(site).sort()).toEqual(expected.sort());
  });
});

describe('search_files', { timeout: WALK_TIMEOUT_MS }, () => {
  it('under 2,000 characters: every path once, as under 1,000,000 and as the tree has it', async () => {
    const args = { pattern: '^(net|crypto)/.*_test\\.go$', regex: true, limit: 200 };
    const expected = corpus.all.filter((p) => /^(net|crypto)\/.*_test\.go$/.test(p));
    expect(expected.length).toBeGreaterThan(200);
    const huge = await walk(go.client, 'search_files', args, HUGE);
    const small = await walk(go.client, 'search_files', args, SMALL);
    expect(passes(huge.pages[0]!, huge.texts[0]!, SMALL)).toBe(true);
    expect(cutOf('search_files', small.pages[0]!)).toBeDefined();
    const fileKey = keyOf('repo', 'path', 'branches');
    const got = items(small, 'files');
    expectSameOnce(got.map(fileKey), items(huge, 'files').map(fileKey), 'search_files under 2,000 vs 1,000,000');
    expect(got.map((f) => f.path as string).sort()).toEqual(expected);
  });
});

describe('find_references', { timeout: WALK_TIMEOUT_MS }, () => {
  const defKey = keyOf('repo', 'path', 'line');
  const useKey = keyOf('repo', 'path', 'line');

  /** Lines where the name stands as a whole identifier (the adapter's documented rule), less the definition lines. */
  function expectedUsages(name: string, definitions: Rec[], goOnly: boolean): string[] {
    const sites = new Set(definitions.map(site));
    const whole = new RegExp(`(?<![\\p{L}\\p{N}_$])${name}(?![\\p{L}\\p{N}_$])`, 'u');
    return linesMatching(srcRoot, corpus.indexed, whole, goOnly ? GO_FILES : undefined, name)
      .map(site)
      .filter((s) => !sites.has(s));
  }

  it('under 2,000 characters: 60+ definitions cut across pages arrive once each, then every usage line once, as under 1,000,000 and as the files have it', async () => {
    const args = { symbol: 'Unwrap' };
    const huge = await walk(go.client, 'find_references', args, HUGE);
    const small = await walk(go.client, 'find_references', args, SMALL);
    expect(passes(huge.pages[0]!, huge.texts[0]!, SMALL)).toBe(true);
    const hugeDefs = items(huge, 'definitions');
    const smallDefs = items(small, 'definitions');
    // Under 1,000,000 they all come on the first page; under 2,000 on several.
    expect(list(huge.pages[0]!, 'definitions')).toHaveLength(hugeDefs.length);
    const pagesWithDefinitions = small.pages.filter((p) => list(p, 'definitions').length > 0);
    expect(pagesWithDefinitions.length).toBeGreaterThan(2);
    expect(small.cut.some((t) => t.cut.some((c) => c.setting === 'definitions'))).toBe(true);
    // A page cut inside the definitions shows no usages, and goes on with them.
    for (const p of small.pages) {
      const t = cutOf('find_references', p);
      if (t?.cut.some((c) => c.setting === 'definitions')) {
        expect(list(p, 'usages')).toHaveLength(0);
        expect(p.next_cursor).toBeDefined();
      }
    }
    expectSameOnce(smallDefs.map(defKey), hugeDefs.map(defKey), 'find_references definitions under 2,000 vs 1,000,000');
    expect(hugeDefs.length).toBe((huge.pages[0]!.stats as Rec).definition_count);
    // Every func and method declaration in the files is among them; the others are methods of interfaces.
    const funcs = goFuncDefinitions(srcRoot, corpus.indexed, 'Unwrap').map(site);
    expect(funcs.length).toBeGreaterThan(60);
    const defSites = smallDefs.map(site);
    for (const f of funcs) expect(defSites, f).toContain(f);
    for (const d of smallDefs.filter((d) => !funcs.includes(site(d)))) expect(d.text, site(d)).toMatch(/^\s*Unwrap\(/);

    expectSameOnce(items(small, 'usages').map(useKey), items(huge, 'usages').map(useKey), 'find_references usages under 2,000 vs 1,000,000');
    const goOnly = /Go language family/.test(String(huge.pages[0]!.scope));
    const expected = expectedUsages('Unwrap', hugeDefs, goOnly);
    expect(expected.length).toBeGreaterThan(50);
    expect(items(small, 'usages').map(site).sort()).toEqual(expected.sort());
  });

  it('under the default bound, wide pages with context: every definition and usage line once, as under 1,000,000 and as the files have it', async () => {
    const args = { symbol: 'Seek', limit: 200, context_lines: 2 };
    const huge = await walk(go.client, 'find_references', args, HUGE);
    const byDefault = await walk(go.client, 'find_references', args, undefined);
    expect(passes(huge.pages[0]!, huge.texts[0]!, DEFAULT)).toBe(true);
    expect(byDefault.cut.length).toBeGreaterThan(0);
    expectSameOnce(items(byDefault, 'definitions').map(defKey), items(huge, 'definitions').map(defKey), 'definitions under the default vs 1,000,000');
    expectSameOnce(items(byDefault, 'usages').map(useKey), items(huge, 'usages').map(useKey), 'usages under the default vs 1,000,000');
    const goOnly = /Go language family/.test(String(huge.pages[0]!.scope));
    const expected = expectedUsages('Seek', items(huge, 'definitions'), goOnly);
    expect(expected.length).toBeGreaterThan(200);
    expect(items(byDefault, 'usages').map(site).sort()).toEqual(expected.sort());
  });

  it('a cursor does not bind max_output_chars: definitions cut under 2,000 go on in full under 1,000,000, and every usage comes once', async () => {
    const args = { symbol: 'Unwrap' };
    const huge = await walk(go.client, 'find_references', args, HUGE);
    const mixed = await walk(go.client, 'find_references', args, (n) => (n % 2 === 0 ? SMALL : HUGE));
    const first = list(mixed.pages[0]!, 'definitions');
    const all = items(huge, 'definitions');
    expect(first.length).toBeLessThan(all.length);
    // The second page, under 1,000,000, has the definitions the first left out, then the first usages.
    expect(list(mixed.pages[1]!, 'definitions').map(defKey)).toEqual(all.slice(first.length).map(defKey));
    expect(list(mixed.pages[1]!, 'usages').map(useKey)).toEqual(list(huge.pages[0]!, 'usages').map(useKey));
    expectSameOnce(items(mixed, 'definitions').map(defKey), all.map(defKey), 'definitions under changing bounds vs 1,000,000');
    expectSameOnce(items(mixed, 'usages').map(useKey), items(huge, 'usages').map(useKey), 'usages under changing bounds vs 1,000,000');
  });
});

describe('list_repos', () => {
  it('under 2,000 characters: the 9 fixture repositories, each once, as under 1,000,000', async () => {
    const args = { limit: 500 };
    // Symbol coverage is read on the first call; later calls have it at once.
    ok(await call(fixtures.client, 'list_repos', args));
    const huge = await walk(fixtures.client, 'list_repos', args, HUGE);
    const small = await walk(fixtures.client, 'list_repos', args, SMALL);
    expect(huge.pages).toHaveLength(1);
    expect(passes(huge.pages[0]!, huge.texts[0]!, SMALL)).toBe(true);
    expect(cutOf('list_repos', small.pages[0]!)).toBeDefined();
    expect(small.pages.length).toBeGreaterThan(1);
    const names = items(small, 'repos').map((r) => r.name as string);
    expectSameOnce(names, items(huge, 'repos').map((r) => r.name as string), 'list_repos under 2,000 vs 1,000,000');
    expect(names).toEqual([...inject('repos')].sort());
    expect(names).toHaveLength(9);
  });
});

describe('get_file', { timeout: WALK_TIMEOUT_MS }, () => {
  /** Reads the file page by page, from start_line = end_line + 1 while `truncated` says more lines follow. */
  async function read(path: string, max: number | undefined): Promise<Walk & { content: string }> {
    const pages: Page[] = [];
    const texts: string[] = [];
    const cut: Truncation[] = [];
    let start = 1;
    for (;;) {
      if (pages.length >= MAX_PAGES) throw new Error(`reading ${path} did not end within ${MAX_PAGES} pages`);
      const args = { repo: goRepo, path, start_line: start };
      const result = await call(go.client, 'get_file', { ...args, ...(max === undefined ? {} : { max_output_chars: max }) });
      const text = textOf(result);
      const page = ok<Page>(result);
      const t = checkPage('get_file', args, max ?? DEFAULT, page, text, `get_file ${path} from line ${start}`);
      if (t) cut.push(t);
      expect(page.start_line).toBe(start);
      expect(page.end_line as number).toBeGreaterThanOrEqual(start);
      pages.push(page);
      texts.push(text);
      if (!page.truncated) break;
      start = (page.end_line as number) + 1;
    }
    return { pages, texts, cut, content: pages.map((p) => p.content as string).join('') };
  }

  it('a file of 8,000 lines read page by page, under 2,000 characters, the default and 1,000,000, is the file on disk byte for byte', async () => {
    const path = 'runtime/proc.go';
    const lines = fileLines(srcRoot, path);
    expect(lines.length).toBeGreaterThan(5000);
    // No line is long enough for the line length to be cut, even under 2,000.
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(400);
    const disk = readFileSync(join(srcRoot, path));
    for (const max of [HUGE, undefined, SMALL]) {
      const got = await read(path, max);
      expect(Buffer.from(got.content, 'utf8').equals(disk), `${path} under ${max ?? 'the default'}`).toBe(true);
      expect(got.pages.at(-1)!.end_line).toBe(lines.length);
      if (max === SMALL) {
        // Every page but the last is cut to fit.
        for (const p of got.pages.slice(0, -1)) expect(cutOf('get_file', p)).toBeDefined();
        for (const t of got.cut) expect(t.cut.map((c) => c.setting)).toEqual(['lines']);
      }
      if (max === HUGE) expect(got.cut).toHaveLength(0);
    }
  });

  it('asked for 2,000 lines: the page would pass the default bound, and is cut to fit it', async () => {
    const path = 'runtime/proc.go';
    const whole = await call(go.client, 'get_file', { repo: goRepo, path, start_line: 1, end_line: 2000, max_output_chars: HUGE });
    expect(textOf(whole).length).toBeGreaterThan(DEFAULT);
    expect(ok<Page>(whole).end_line).toBe(2000);
    const result = await call(go.client, 'get_file', { repo: goRepo, path, start_line: 1, end_line: 2000 });
    const page = ok<Page>(result);
    const t = checkPage('get_file', {}, DEFAULT, page, textOf(result), 'get_file 1-2000');
    expect(t?.cut).toEqual([{ setting: 'lines', from: 2000, to: page.end_line }]);
    expect(page.truncated).toBe(true);
    expect(page.content).toBe(fileLines(srcRoot, path).slice(0, page.end_line as number).map((l) => `${l}\n`).join(''));
  });

  it('a line longer than the bound: lines go to one first, and only then is the line shortened', async () => {
    // crypto/x509/x509_test.go has a line of several thousand characters.
    const path = 'crypto/x509/x509_test.go';
    const lines = fileLines(srcRoot, path);
    const longest = lines.reduce((best, l, i) => (l.length > lines[best]!.length ? i : best), 0);
    expect(lines[longest]!.length).toBeGreaterThan(2 * SMALL);
    expect(lines[longest - 1]!.length).toBeLessThan(400);
    // From the line before it: the page ends before the long line, which is left whole for the next page.
    const before = await call(go.client, 'get_file', { repo: goRepo, path, start_line: longest, end_line: longest + 5, max_output_chars: SMALL });
    const page = ok<Page>(before);
    expect(checkPage('get_file', {}, SMALL, page, textOf(before), 'get_file before the long line')?.cut).toEqual([{ setting: 'lines', from: 6, to: 1 }]);
    expect(page).toMatchObject({ start_line: longest, end_line: longest, truncated: true, content: `${lines[longest - 1]!}\n` });
    // From the long line: one line, and then it is shortened, marked with what it left out.
    const from = await call(go.client, 'get_file', { repo: goRepo, path, start_line: longest + 1, end_line: longest + 6, max_output_chars: SMALL });
    const one = ok<Page>(from);
    const t = checkPage('get_file', {}, SMALL, one, textOf(from), 'get_file from the long line');
    expect(t!.cut.map((c) => c.setting)).toEqual(['lines', 'line_chars']);
    expect(t!.cut[0]).toEqual({ setting: 'lines', from: 6, to: 1 });
    expect(one.end_line).toBe(longest + 1);
    const m = /^([^\n]*)\[… (\d+) more characters\]\n$/.exec(one.content as string);
    expect(m, one.content as string).not.toBeNull();
    expect(lines[longest]!.startsWith(m![1]!)).toBe(true);
    expect(m![1]!.length + Number(m![2])).toBe(lines[longest]!.length);
  });
});

describe('get_health', () => {
  it.each([
    { index: 'the Go tree', conn: () => go },
    { index: 'the fixtures', conn: () => fixtures },
  ])('under 2,000 characters on $index: within the bound', async ({ conn }) => {
    const result = await call(conn().client, 'get_health', { max_output_chars: SMALL });
    const page = ok<Page>(result);
    const text = textOf(result);
    const t = checkPage('get_health', {}, SMALL, page, text, 'get_health');
    if (!t) {
      expect(page.truncated).toBeUndefined();
      expect(text).not.toMatch(/^truncated:/m);
    }
    expect(page.status).toBe('ok');
  });
});
