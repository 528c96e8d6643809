/**
 * Files the indexer kept by name only, on Go's own tree: how many, and why, worked out from the
 * files by test/support/truth.ts (Zoekt's rules at its pinned version), against what list_repos,
 * get_health and the searches report. The placeholders are read once per generation of the
 * index, and a search's scope is worked out from that list: Zoekt requests are counted through
 * the client's onRequest hook, answers compared with Zoekt's own within each call's filters, and
 * a repository indexed again shows its new set of skipped files.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { filterParts, type SharedFilters } from '../../src/search/vocab/filters.js';
import { pathGlobToRegex } from '../../src/patterns/globs.js';
import type { HealthOutput } from '../../src/search/health.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { RepoScope } from '../../src/search/engine/scope.js';
import { Searcher } from '../../src/search/engine/searcher.js';
import { skippedAskingZoekt, skippedInScope, type NotIndexedInScope } from '../../src/search/engine/skipped.js';
import type { SymbolSearchOutput } from '../../src/search/symbols.js';
import { WindowCache } from '../../src/search/engine/window-cache.js';
import { ZoektClient, type ZoektClientOptions } from '../../src/zoekt/client.js';
import { asFleet } from '../../src/zoekt/fleet.js';
import * as q from '../../src/zoekt/query.js';
import { call, connectInProcess, connectStdio, ok, textOf, type Connected } from '../support/mcp.js';
import { scanCorpus, type Corpus, type SkipReason } from '../support/truth.js';
import { git, REPO_PREFIX, runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';

/** truth.ts's names for the reasons, as the tools name them. */
const NAMES: Record<SkipReason, string> = { 'too-large': 'too_large', 'too-small': 'too_small', binary: 'binary', 'too-many-trigrams': 'too_many_trigrams' };

let corpus: Corpus;
let mcp: Connected;

beforeAll(async () => {
  corpus = scanCorpus(inject('goSrcRoot'));
  mcp = await connectStdio({ ZOEKT_URL: inject('goZoektUrl') });
});
afterAll(() => mcp.close());

/** The package folder holding the most files of those with a file skipped for its trigrams (test data), and those files. */
function trigramFolder(): { dir: string; inDir: string[] } {
  const trigramFiles = [...corpus.skipped].filter(([, r]) => r === 'too-many-trigrams').map(([p]) => p).sort();
  const folders = trigramFiles.filter((p) => p.includes('/testdata/')).map((p) => p.slice(0, p.indexOf('testdata/')));
  const size = (d: string) => corpus.indexed.filter((p) => p.startsWith(d)).length;
  const dir = folders.sort((a, b) => size(b) - size(a))[0]!;
  expect(size(dir)).toBeGreaterThan(1);
  return { dir, inDir: trigramFiles.filter((p) => p.startsWith(dir)) };
}

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
    const { dir, inDir } = trigramFolder();
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

/** Zoekt requests made through one client: placeholder scans (NOT-INDEXED searches), listings, all. */
function counting(): { scans: number; lists: number; all: number; onRequest: NonNullable<ZoektClientOptions['onRequest']> } {
  const c = {
    scans: 0,
    lists: 0,
    all: 0,
    onRequest: (e: { path: string; phase: 'start' | 'end'; query?: string }) => {
      if (e.phase !== 'start') return;
      c.all++;
      if (e.path === 'api/list') c.lists++;
      else if (e.query?.includes('NOT-INDEXED')) c.scans++;
    },
  };
  return c;
}

/** A searcher of its own on `url`, without the window cache (so nothing but the kept scan saves a request). */
function searcherOn(url: string, onRequest?: ZoektClientOptions['onRequest'], scope?: RepoScope): Searcher {
  return new Searcher(asFleet(new ZoektClient({ url, timeoutMs: 20_000, ...(onRequest ? { onRequest } : {}) })), new WindowCache({ maxBytes: 0, ttlMs: 1000 }), scope);
}

/** A search_files pattern as the tool sends it: a glob, or a regex. */
const filesPart = (pattern: string, regex = false) => q.file(regex ? pattern : pathGlobToRegex(pattern));

describe('the placeholders are read once per generation of the index (Go tree)', () => {
  it('every filter combination gives what Zoekt answers within it, from one scan', async () => {
    const { dir } = trigramFolder();
    const f = (filters: SharedFilters, ...more: q.QueryPart[]) => [...filterParts(filters), ...more];
    const inMemory: [string, q.QueryPart[]][] = [
      ['no filter', []],
      ['paths: the folder', f({ paths: [dir] })],
      ['paths testdata/', f({ paths: ['testdata/'] })],
      ['exclude_paths testdata/', f({ exclude_paths: ['testdata/'] })],
      ['paths *.txt, *.json', f({ paths: ['*.txt', '*.json'] })],
      ['paths anchored', f({ paths: ['/cmd/', 'internal/**/testdata/*'] })],
      ['exclude_paths *.txt and the folder', f({ exclude_paths: ['*.txt', dir] })],
      ['languages text', f({ languages: ['text'] })],
      ['languages go', f({ languages: ['go'] })],
      ['exclude_languages text', f({ exclude_languages: ['text'] })],
      ['source_code_only', f({ source_code_only: true })],
      ['source_code_only + paths', f({ source_code_only: true, paths: [dir] })],
      ['repos src', f({ repos: ['src'] })],
      ['repos s*', f({ repos: ['s*'] })],
      ['repos elsewhere', f({ repos: ['github.com/acme/*'] })],
      ['search_files glob', f({}, filesPart('*.txt'))],
      ['search_files regex', f({ paths: [dir] }, filesPart('testdata/.*\\.(?:txt|json)$', true))],
      ['branch HEAD', f({}, q.branch('HEAD'))],
      ['branch main + paths', f({ paths: [dir] }, q.branch('main'))],
    ];
    // Regexes outside what is translated exactly: asked of Zoekt, once each per generation.
    const askingZoekt: [string, q.QueryPart[]][] = [
      ['search_files regex (?i)', f({}, filesPart('(?i)TESTDATA/', true))],
      ['search_files regex [[:alpha:]]', f({}, filesPart('[[:alpha:]]+\\.txt$', true))],
    ];
    const all = [...inMemory, ...askingZoekt];
    const reference = searcherOn(inject('goZoektUrl'));
    const expected = await Promise.all(all.map(([, parts]) => skippedAskingZoekt(reference, parts)));
    // Answers that can tell a wrong filter from a right one.
    expect(expected.filter((e) => e !== undefined).length).toBeGreaterThan(8);
    expect(expected.filter((e) => e === undefined).length).toBeGreaterThan(3);

    const counted = counting();
    const searcher = searcherOn(inject('goZoektUrl'), counted.onRequest);
    // All at once on a new searcher: one listing (the generation) and one scan are shared by all.
    const first = await Promise.all(all.map(([, parts]) => skippedInScope(searcher, parts)));
    all.forEach(([name], i) => expect(first[i], name).toEqual(expected[i]));
    expect(counted.lists).toBe(1);
    expect(counted.scans).toBe(1 + askingZoekt.length);
    // One after another: answered from what is kept (a listing at most once a second).
    for (const [i, [name, parts]] of all.entries()) expect(await skippedInScope(searcher, parts), name).toEqual(expected[i]);
    expect(counted.scans).toBe(1 + askingZoekt.length);
    expect(counted.lists).toBeLessThan(all.length);

    // Within a repo scope the scan is confined as every query is.
    const confined = searcherOn(inject('goZoektUrl'), undefined, new RepoScope(['github.com/acme/*']));
    expect(await skippedInScope(confined, [])).toBeUndefined();
    expect(await skippedInScope(searcherOn(inject('goZoektUrl'), undefined, new RepoScope([inject('goRepo')])), [])).toEqual(expected[0]);
  });

  it('first pages of every search tool, with different filters, make one scan between them', async () => {
    const { dir, inDir } = trigramFolder();
    const counted = counting();
    const conn = await connectInProcess({ url: inject('goZoektUrl'), onRequest: counted.onRequest });
    const reference = searcherOn(inject('goZoektUrl'));
    try {
      const calls: [string, Record<string, unknown>, q.QueryPart[]][] = [
        ['search_code', { query: 'e', paths: [dir], limit: 1 }, filterParts({ paths: [dir] })],
        ['search_code', { query: 'e', exclude_paths: ['testdata/'], limit: 1 }, filterParts({ exclude_paths: ['testdata/'] })],
        ['search_code', { query: 'e', languages: ['go'], paths: [dir], limit: 1 }, filterParts({ languages: ['go'], paths: [dir] })],
        ['search_symbols', { name: 'Test*', paths: [dir], limit: 1 }, filterParts({ paths: [dir] })],
        ['search_symbols', { name: 'Test*', source_code_only: true, limit: 1 }, filterParts({ source_code_only: true })],
        ['search_files', { pattern: '*.txt', paths: [dir], limit: 1 }, [filesPart('*.txt'), ...filterParts({ paths: [dir] })]],
        ['search_files', { pattern: 'testdata/', limit: 1 }, [filesPart('testdata/')]],
        ['find_references', { symbol: 'Reader', paths: [dir], limit: 1 }, filterParts({ paths: [dir] })],
        ['find_references', { symbol: 'Reader', repos: ['src'], limit: 1 }, filterParts({ repos: ['src'] })],
      ];
      for (const [tool, args, parts] of calls) {
        const out = ok<{ not_indexed?: NotIndexedInScope }>(await call(conn.client, tool, args));
        expect(out.not_indexed, `${tool} ${JSON.stringify(args)}`).toEqual(await skippedAskingZoekt(reference, parts));
      }
      expect(ok<CodeSearchOutput>(await call(conn.client, 'search_code', { query: 'e', paths: [dir], limit: 1 })).not_indexed?.examples.map((e) => e.path)).toEqual(inDir.slice(0, 3));
      // Each first page used to scan within its filters (7 scans here, one per distinct filter
      // set). Now one scan for all of them, and a listing (the index's generation) at most once a second.
      expect(counted.scans).toBe(1);
      expect(counted.lists).toBeLessThanOrEqual(calls.length + 1);
      process.stderr.write(`skipped-files: ${calls.length + 1} first pages on the Go tree: ${counted.scans} placeholder scan(s), ${counted.lists} listing(s), ${counted.all} Zoekt request(s) in all\n`);
    } finally {
      await conn.close();
    }
  });
});

/** A fixed pseudo-random sequence: the same files on every machine. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Random base64 lines: far more than 50,000 distinct trigrams (zoekt-config/index's -max_trigram_count). */
function noise(seed: number): string {
  const next = random(seed);
  return Array.from({ length: 2000 }, () => `${Array.from({ length: 86 }, () => B64[Math.floor(next() * 64)]).join('')}\n`).join('');
}
/** Past zoekt-config/index's -file_limit (4 MiB). */
const TOO_LARGE = 'a log line that repeats itself\n'.repeat(150_000);

describe('a repository indexed again', () => {
  const CHURN = `${REPO_PREFIX}churn`;
  let work: string;
  let repoDir: string;
  let zoekt: RunningZoekt | undefined;

  function commit(files: Record<string, string | Buffer | null>, message: string): string {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) git(repoDir, 'rm', '-q', path);
      else {
        mkdirSync(dirname(join(repoDir, path)), { recursive: true });
        writeFileSync(join(repoDir, path), content);
      }
    }
    git(repoDir, 'add', '-A');
    git(repoDir, 'commit', '-q', '-m', message);
    return git(repoDir, 'rev-parse', 'HEAD').trim();
  }
  const index = () => runIndexer('git', ['-branches', 'main,dev', '-index', join(work, 'index'), repoDir]);

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-skipped-'));
    repoDir = join(work, 'churn');
    mkdirSync(repoDir);
    git(repoDir, 'init', '-q', '-b', 'main');
    git(repoDir, 'config', 'zoekt.name', CHURN);
    commit(
      {
        'src/app.ts': 'export function churnApp(): string {\n  return "churn marker";\n}\n',
        'big.log': TOO_LARGE,
        'lock.yaml': noise(7),
        'img/logo.bin': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02, 0x03]),
      },
      'main',
    );
    git(repoDir, 'checkout', '-q', '-b', 'dev');
    commit({ 'logs/dev.log': TOO_LARGE.replace(/itself/g, 'on dev') }, 'dev');
    git(repoDir, 'checkout', '-q', 'main');
    index();
  });
  afterAll(async () => {
    await zoekt?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('is scanned again on the next call after the index changes, and only then', { timeout: 120_000 }, async () => {
    zoekt = await startWebserver({ indexDir: join(work, 'index'), expectRepos: 1 });
    const counted = counting();
    const conn = await connectInProcess({ url: zoekt.url, onRequest: counted.onRequest });
    const reference = searcherOn(zoekt.url);
    const calls: [string, Record<string, unknown>, q.QueryPart[]][] = [
      ['search_code', { query: 'churn' }, []],
      ['search_code', { query: 'churn', branch: 'main' }, [q.branch('main')]],
      ['search_code', { query: 'churn', branch: 'dev', paths: ['*.log'] }, [...filterParts({ paths: ['*.log'] }), q.branch('dev')]],
      ['search_files', { pattern: '*.yaml' }, [filesPart('*.yaml')]],
      ['search_symbols', { name: 'churn*', exclude_paths: ['logs/'] }, filterParts({ exclude_paths: ['logs/'] })],
      ['find_references', { symbol: 'churnApp', languages: ['text'] }, filterParts({ languages: ['text'] })],
    ];
    const paths = (n: NotIndexedInScope | undefined) => n?.examples.map((e) => e.path) ?? [];
    const round = async () => {
      const out: (NotIndexedInScope | undefined)[] = [];
      for (const [tool, args, parts] of calls) {
        const answer = ok<{ not_indexed?: NotIndexedInScope }>(await call(conn.client, tool, args)).not_indexed;
        expect(answer, `${tool} ${JSON.stringify(args)}`).toEqual(await skippedAskingZoekt(reference, parts));
        out.push(answer);
      }
      const listed = ok<ListReposOutput>(await call(conn.client, 'list_repos', {}));
      const health = ok<HealthOutput>(await call(conn.client, 'get_health', {}));
      return { out, listed: listed.repos[0]!.not_indexed, health: health.index?.not_indexed };
    };
    try {
      const before = await round();
      expect(paths(before.out[0])).toEqual(['big.log', 'lock.yaml', 'logs/dev.log']);
      expect(paths(before.out[1])).toEqual(['big.log', 'lock.yaml']);
      expect(before.listed).toEqual({ files: 4, reasons: { too_large: 2, too_many_trigrams: 1, binary: 1 } });
      expect(before.health).toMatchObject({ files: 4, repos: 1, complete: true });
      expect(counted.scans).toBe(1);
      const listsBefore = counted.lists;

      // main loses big.log and gains data/huge.txt; dev keeps big.log.
      const main = commit({ 'big.log': null, 'data/huge.txt': TOO_LARGE.replace(/log line/g, 'text line') }, 'churn');
      index();
      // Zoekt loads the new shard on its own; wait for it outside the counted client.
      for (let i = 0; i < 300; i++) {
        const body = (await (await fetch(`${zoekt.url}/api/list`, { method: 'POST', body: JSON.stringify({ Q: '' }) })).json()) as { List: { Repos: { Repository: { Branches: { Name: string; Version: string }[] } }[] } };
        if (body.List.Repos[0]?.Repository.Branches.some((b) => b.Name === 'main' && b.Version === main)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(counted.scans).toBe(1);
      // A search reads the generation at most once a second: call until it has (no time is asserted).
      let changed: NotIndexedInScope | undefined;
      for (let i = 0; i < 100 && !paths(changed).includes('data/huge.txt'); i++) {
        changed = ok<CodeSearchOutput>(await call(conn.client, 'search_code', { query: 'churn' })).not_indexed;
        if (!paths(changed).includes('data/huge.txt')) await new Promise((r) => setTimeout(r, 100));
      }
      expect(paths(changed)).toEqual(['big.log', 'data/huge.txt', 'lock.yaml']);
      expect(counted.scans).toBe(2);

      const after = await round();
      expect(after.out[0]).toEqual(changed);
      expect(changed!.files).toBe(4);
      expect(paths(after.out[1])).toEqual(['data/huge.txt', 'lock.yaml']);
      expect(after.listed).toEqual({ files: 5, reasons: { too_large: 3, too_many_trigrams: 1, binary: 1 } });
      expect(counted.scans).toBe(2);
      process.stderr.write(`skipped-files: 2 rounds of ${calls.length + 2} calls around a re-index: ${counted.scans} placeholder scan(s), ${counted.lists} listing(s) (${listsBefore} before the re-index), ${counted.all} Zoekt request(s) in all\n`);
    } finally {
      await conn.close();
    }
  });
});
