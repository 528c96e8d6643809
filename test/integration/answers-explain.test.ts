/**
 * Answers that never mislead, on files made to produce each case, indexed apart from the fixtures
 * the way this project indexes (zoekt-config/index): a minified bundle, an SVG of long lines, a
 * WebAssembly module (it starts with a NUL byte, so Zoekt indexes it as text), a lockfile past
 * the trigram limit, a file past the size limit, a binary Zoekt skips; one repository indexed as
 * HEAD (zoekt-git-index's default) and one as main. Expected answers come from the files written.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import type { GetFileOutput } from '../../src/search/file.js';
import type { HealthOutput } from '../../src/search/health.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { call, connectStdio, failed, ok, textOf, type Connected } from '../support/mcp.js';
import { git, REPO_PREFIX, runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';

const EDGE = `${REPO_PREFIX}edge`;
const MAIN = `${REPO_PREFIX}mainrepo`;

/** A fixed pseudo-random sequence: the same files on every machine. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const next = random(23);
const integrity = () => Array.from({ length: 86 }, () => B64[Math.floor(next() * 64)]).join('');

/** A pnpm lockfile of random integrity hashes: about 180,000 distinct trigrams, well past 50,000. */
const LOCKFILE = `lockfileVersion: '9.0'\n\npackages:\n${Array.from({ length: 2000 }, (_, i) => `  /pkg-${i}@1.0.${i}:\n    resolution: {integrity: sha512-${integrity()}==}\n`).join('')}`;
/** One line of 48,000 characters with a call in the middle. */
const MINIFIED = `${'var a=1;'.repeat(3000)}createServer(opts)${';var b=2'.repeat(3000)}\n`;
const SVG_LINE = (n: number) => `<path id="p${n}" d="${Array.from({ length: 2000 }, (_, i) => `L${i} ${n}`).join(' ')}"/>`;
const SVG = `${[1, 2, 3, 4, 5].map(SVG_LINE).join('\n')}\n`;
const WASM = Buffer.concat([Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]), Buffer.from(' needle_in_binary \x00\x01\x02 more bytes\n')]);
const SERVER_TS = 'export function createServer(opts: object) {\n  return opts;\n}\n\nexport const server = createServer({});\n';
const MAIN_GO = 'package main\n\nfunc createServer() {}\n\nfunc main() { createServer() }\n';

let work: string;
let zoekt: RunningZoekt;
let mcp: Connected;

function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

function repo(name: string, files: Record<string, string | Buffer>): string {
  const dir = join(work, name);
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'zoekt.name', `${REPO_PREFIX}${name}`);
  for (const [path, content] of Object.entries(files)) write(dir, path, content);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', name);
  return dir;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-explain-'));
  const edge = repo('edge', {
    'src/server.ts': SERVER_TS,
    'dist/app.min.js': MINIFIED,
    'assets/logo.svg': SVG,
    'pkg/module.wasm': WASM,
    'pnpm-lock.yaml': LOCKFILE,
    'logs/big.log': 'a log line that repeats itself\n'.repeat(150_000),
    'img/data.bin': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02, 0x03]),
  });
  // One file each in a hundred languages: a repository whose list_repos entry and get_health
  // coverage are long by themselves.
  const EXTENSIONS = ['ada', 'asm', 'awk', 'bat', 'bib', 'c', 'cbl', 'cc', 'cl', 'clj', 'cmake', 'coffee', 'cpp', 'cr', 'cs', 'css', 'cu', 'd', 'dart', 'dockerfile', 'el', 'elm', 'erl', 'ex', 'f90', 'fs', 'fish', 'gd', 'glsl', 'go', 'gradle', 'groovy', 'hs', 'hx', 'html', 'idr', 'ini', 'java', 'jl', 'js', 'json', 'jsx', 'kt', 'less', 'lisp', 'lua', 'm', 'md', 'ml', 'mm', 'nim', 'nix', 'php', 'pl', 'pony', 'proto', 'ps1', 'pug', 'purs', 'py', 'r', 'rb', 'rkt', 'rs', 'rst', 'sass', 'scala', 'scm', 'scss', 'sh', 'sol', 'sql', 'st', 'styl', 'sv', 'swift', 'tcl', 'tex', 'tf', 'thrift', 'toml', 'ts', 'tsx', 'v', 'vala', 'vb', 'vhd', 'vim', 'vue', 'wat', 'xml', 'xsl', 'yaml', 'zig', 'hcl', 'graphql', 'haml', 'lean', 'mustache', 'twig'];
  const poly = repo('polyglot', Object.fromEntries(EXTENSIONS.map((e) => [`f/sample.${e}`, `sample text for ${e}\n`])));
  const main = repo('mainrepo', { 'main.go': MAIN_GO, 'pkg/util/strings.go': 'package util\n\nfunc Reverse(s string) string { return s }\n' });
  const index = join(work, 'index');
  mkdirSync(index);
  // zoekt-git-index's default branch list is HEAD: the branch is then called HEAD in the index.
  runIndexer('git', ['-index', index, edge]);
  runIndexer('git', ['-branches', 'main', '-index', index, main]);
  runIndexer('git', ['-branches', 'main', '-index', index, poly]);
  // A plain folder (zoekt-index): a repository with no branches at all.
  const plain = join(work, 'plainfolder');
  mkdirSync(plain);
  writeFileSync(join(plain, 'notes.txt'), 'PLAIN_FOLDER_MARKER lives here\n');
  runIndexer('dir', ['-index', index, plain]);
  zoekt = await startWebserver({ indexDir: index, expectRepos: 4 });
  mcp = await connectStdio({ ZOEKT_URL: zoekt.url });
});

afterAll(async () => {
  await mcp?.close();
  await zoekt?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const search = async (args: Record<string, unknown>) => ok<CodeSearchOutput>(await call(mcp.client, 'search_code', args));
const files = (out: CodeSearchOutput) => out.results.map((r) => `${r.repo}/${r.path}`).sort();

describe('inline regex flags', () => {
  it('(?i) at the start of a term searches case-insensitively, as rg -i would', async () => {
    // createServer( in any case: the three text files that call or define it.
    const expected = [`${EDGE}/dist/app.min.js`, `${EDGE}/src/server.ts`, `${MAIN}/main.go`];
    for (const query of ['(?i)createserver\\(', '(?i)CREATESERVER\\(', '(?is)createserver\\(']) {
      const out = await search({ query });
      expect(files(out), query).toEqual(expected);
      expect(out.zoekt_query, query).toMatch(/^case:no /);
    }
    // Zoekt alone finds nothing for these (it ignores the flag); without (?i), case auto finds them too.
    expect(files(await search({ query: 'createserver\\(' }))).toEqual(expected);
  });

  it('refuses (?i) where Zoekt cannot honour it, with the forms that work', async () => {
    for (const query of ['create(?i)server', '(?i:createserver)']) {
      const err = failed(await call(mcp.client, 'search_code', { query }));
      expect(err.code, query).toBe('QUERY_ERROR');
      expect(err.hint, query).toMatch(/start of the term.*case_sensitive: 'no'/);
    }
    const both = failed(await call(mcp.client, 'search_code', { query: '(?i)createserver', case_sensitive: 'yes' }));
    expect(both.code).toBe('INVALID_ARGUMENT');
  });

  it('(?s) and (?m) reach Zoekt as they are', async () => {
    const dotAll = await search({ query: 'case:yes (?s)createServer.{0,20}return' });
    expect(files(dotAll)).toEqual([`${EDGE}/src/server.ts`]);
    const multi = await search({ query: '(?m)^export const server' });
    expect(files(multi)).toEqual([`${EDGE}/src/server.ts`]);
  });
});

describe('lookaround', () => {
  it.each([
    ['createServer(?= \\()', /RE2 has no lookahead/],
    ['(?<! export )createServer', /RE2 has no negative lookbehind/],
    ['createServer(?!x)', /RE2 has no negative lookahead/],
  ])('%s gets the lookaround hint, not a quantifier or parenthesis one', async (query, hint) => {
    const err = failed(await call(mcp.client, 'search_code', { query }));
    expect(err.code).toBe('QUERY_ERROR');
    expect(err.hint).toMatch(hint);
    expect(err.hint).not.toMatch(/quantifier|Unbalanced/);
  });
});

describe('branches', () => {
  it("a branch named in a repository indexed as HEAD reads HEAD and says so", async () => {
    const out = await search({ query: 'createServer', branch: 'main', repos: [EDGE] });
    expect(files(out)).toEqual([`${EDGE}/dist/app.min.js`, `${EDGE}/src/server.ts`]);
    expect(out.hint).toMatch(/no repository in scope has a branch 'main'.*indexed as 'HEAD'.*searched instead/i);
    const file = ok<GetFileOutput>(await call(mcp.client, 'get_file', { repo: EDGE, path: 'src/server.ts', branch: 'main' }));
    expect(file.content).toBe(SERVER_TS);
    expect(file.hint).toMatch(/indexed as 'HEAD'/);
  });

  it('over repositories indexed both ways, the answer names those the branch left out', async () => {
    const out = await search({ query: 'createServer', branch: 'main' });
    expect(files(out)).toEqual([`${MAIN}/main.go`]);
    expect(out.hint).toMatch(new RegExp(`1 repository is indexed only as 'HEAD' \\(${EDGE}\\).*branch 'HEAD'`));
  });

  it('a branch over a repository indexed from a plain folder: the hint says it has no branches, not that the filters exclude', async () => {
    const out = await search({ query: 'PLAIN_FOLDER_MARKER', branch: 'main', repos: ['plainfolder'] });
    expect(out.results).toEqual([]);
    expect(out.hint).toMatch(/indexed from plain folders and have no branches, so branch "main" matches nothing there: leave branch out \(without it the query finds 1 file/);
    expect(out.hint).not.toMatch(/the filters/);
    const without = await search({ query: 'PLAIN_FOLDER_MARKER', repos: ['plainfolder'] });
    expect(without.results).toHaveLength(1);
  });

  it('a branch no repository has: the hint names the indexed branches', async () => {
    const out = await search({ query: 'createServer', branch: 'release' });
    expect(out.results).toEqual([]);
    expect(out.hint).toMatch(/filters branch "release" \(indexed branches: HEAD, main\) exclude every match: without them the query finds 3 file/);
  });
});

describe('long lines and binary content', () => {
  it('a minified line is cut around its match, with markers', async () => {
    const out = await search({ query: 'createServer\\(opts\\)', repos: [EDGE], paths: ['dist/'] });
    const m = out.results[0]!.matches[0]!;
    expect(m.column).toBe(MINIFIED.indexOf('createServer(opts)') + 1);
    expect(m.text.length).toBeLessThanOrEqual(402);
    expect(m.text).toContain('createServer(opts)');
    expect(m.text.startsWith('…') && m.text.endsWith('…')).toBe(true);
  });

  it('a file that starts with a NUL byte is named as binary, never shown', async () => {
    const result = await call(mcp.client, 'search_code', { query: 'needle_in_binary' });
    const out = ok<CodeSearchOutput>(result);
    expect(out.results.map((r) => [r.path, r.binary, r.matches.length, r.omitted_matches])).toEqual([['pkg/module.wasm', true, 0, 1]]);
    expect(textOf(result)).toMatch(/binary content: 1 matching line\(s\) not shown/);
    expect(JSON.stringify(result)).not.toMatch(/\\u0000/);
    const file = ok<GetFileOutput>(await call(mcp.client, 'get_file', { repo: EDGE, path: 'pkg/module.wasm' }));
    expect(file).toMatchObject({ binary: true, content: '' });
  });

  it('get_file of an SVG of long lines stays in budget, and reading on reaches every byte', async () => {
    const first = await call(mcp.client, 'get_file', { repo: EDGE, path: 'assets/logo.svg' });
    expect(textOf(first).length).toBeLessThanOrEqual(24_000);
    const out = ok<GetFileOutput>(first);
    expect(out.budget?.cut.map((c) => c.setting)).toEqual(['lines']);
    expect(textOf(first)).toMatch(/^truncated: /m);
    let content = out.content;
    let at = out.end_line;
    for (let guard = 0; at < out.total_lines && guard < 10; guard++) {
      const page = ok<GetFileOutput>(await call(mcp.client, 'get_file', { repo: EDGE, path: 'assets/logo.svg', start_line: at + 1 }));
      content += page.content;
      at = page.end_line;
    }
    expect(content).toBe(SVG);
    // Under the smallest bound, one line cut short with a marker that says how much is left out.
    const tight = await call(mcp.client, 'get_file', { repo: EDGE, path: 'assets/logo.svg', max_output_chars: 2000 });
    expect(textOf(tight).length).toBeLessThanOrEqual(2000);
    const cut = ok<GetFileOutput>(tight);
    expect(cut.end_line).toBe(1);
    const [line1] = SVG.split('\n');
    expect(cut.content).toMatch(new RegExp(`\\[… ${line1!.length - (cut.budget!.cut.find((c) => c.setting === 'line_chars')!.to)} more characters\\]\\n$`));
    expect(cut.hint).toMatch(/larger max_output_chars/);
  });
});

describe('files the indexer skipped', () => {
  it('an empty answer names the skipped files in scope instead of blaming case', async () => {
    const result = await call(mcp.client, 'search_code', { query: 'lockfileVersion' });
    const out = ok<CodeSearchOutput>(result);
    expect(out.results).toEqual([]);
    expect(out.hint).not.toMatch(/case_sensitive: 'no' finds/);
    expect(out.not_indexed?.files).toBe(2);
    expect(out.not_indexed?.examples.map((e) => [e.path, e.reason]).sort()).toEqual([
      ['logs/big.log', 'too_large'],
      ['pnpm-lock.yaml', 'too_many_trigrams'],
    ]);
    expect(textOf(result)).toMatch(/not indexed: 2 file\(s\) in scope .*pnpm-lock\.yaml \(too many trigrams\)/);
    // search_files lists them by name, and says which of those it found have no text.
    const yaml = await call(mcp.client, 'search_files', { pattern: '*.yaml', repos: [EDGE] });
    expect(ok<{ files: { path: string }[]; not_indexed?: { files: number } }>(yaml)).toMatchObject({ files: [{ path: 'pnpm-lock.yaml' }], not_indexed: { files: 1 } });
    expect(textOf(yaml)).toMatch(/not indexed: 1 file\(s\) .*pnpm-lock\.yaml/);
    // Out of scope, not named.
    const elsewhere = await search({ query: 'lockfileVersion', paths: ['src/'] });
    expect(elsewhere.not_indexed).toBeUndefined();
  });

  it('list_repos and get_health count them per repository and reason', async () => {
    const listed = ok<ListReposOutput>(await call(mcp.client, 'list_repos', {}));
    const edge = listed.repos.find((r) => r.name === EDGE)!;
    expect(edge.not_indexed).toEqual({ files: 3, reasons: { binary: 1, too_large: 1, too_many_trigrams: 1 } });
    expect(listed.repos.find((r) => r.name === MAIN)!.not_indexed).toBeUndefined();
    const health = ok<HealthOutput>(await call(mcp.client, 'get_health', {}));
    expect(health.index?.not_indexed).toEqual({ files: 3, reasons: { binary: 1, too_large: 1, too_many_trigrams: 1 }, repos: 1, complete: true });
  });
});

describe('zero-result hints name a cause only when the index confirms it', () => {
  it('case', async () => {
    const out = await search({ query: 'CREATESERVER' });
    expect(out.results).toEqual([]);
    expect(out.hint).toMatch(/case_sensitive: 'no' finds 3 file/);
  });

  it('regex syntax', async () => {
    // As a regex, `({})` is a group matching "{}": the text createServer({}) is not matched.
    const out = await search({ query: 'createServer({})' });
    expect(out.results).toEqual([]);
    expect(out.hint).toMatch(/bare terms are RE2 regexes.*literal: true finds 1 file/);
    expect(out.hint).not.toMatch(/case_sensitive: 'no' finds/);
  });

  it('filters', async () => {
    const out = await search({ query: 'createServer', languages: ['python'] });
    expect(out.results).toEqual([]);
    expect(out.hint).toMatch(/filters languages \["python"\] exclude every match: without them the query finds 3 file/);
  });

  it('nothing to blame', async () => {
    const out = await search({ query: 'Zzq_Nowhere' });
    expect(out.results).toEqual([]);
    expect(out.hint).toMatch(/No indexed file matches, nor does one case-insensitively/);
    expect(out.hint).not.toMatch(/case_sensitive: 'no' finds/);
  });
});

describe('the other tools check their zero-result hints too', () => {
  const files = async (args: Record<string, unknown>) => ok<{ files: unknown[]; hint?: string }>(await call(mcp.client, 'search_files', args));
  const symbols = async (args: Record<string, unknown>) => ok<{ symbols: unknown[]; hint?: string }>(await call(mcp.client, 'search_symbols', args));
  const references = async (args: Record<string, unknown>) => ok<{ usages: unknown[]; definitions: unknown[]; hint?: string }>(await call(mcp.client, 'find_references', args));

  it('search_files', async () => {
    const anchored = await files({ pattern: 'util/strings.go' });
    expect(anchored.files).toEqual([]);
    expect(anchored.hint).toMatch(/'\*\*\/util\/strings\.go' finds 1 file\(s\) at any depth/);
    const cased = await files({ pattern: 'Main.go' });
    expect(cased.hint).toMatch(/in any case it finds 1 file\(s\)/);
    const filtered = await files({ pattern: '*.go', languages: ['python'] });
    expect(filtered.hint).toMatch(/filters languages \["python"\] exclude every match: without them 3 file\(s\) match/);
    const nowhere = await files({ pattern: 'Nowhere/x.go' });
    expect(nowhere.hint).toMatch(/No files matched, nor does one at any depth or in any case\./);
  });

  it('search_symbols', async () => {
    // No symbol has the name: the symbols whose names contain it, and a hint that says so.
    const inside = await symbols({ name: 'createserve' });
    expect(inside.symbols.map((s) => (s as { name: string }).name)).toEqual(['createServer', 'createServer']);
    expect(inside.hint).toMatch(/No symbol is named exactly 'createserve'; these are the symbols whose names contain it/);
    const exact = await symbols({ name: 'createServe', case_sensitive: true });
    expect(exact.symbols).toEqual([]);
    expect(exact.hint).toMatch(/no symbol is named exactly 'createServe', but 'createServe\*' finds symbols in 2 file\(s\)/);
    const cased = await symbols({ name: 'CREATESERVER', case_sensitive: true });
    expect(cased.hint).toMatch(/case-sensitive, and without case_sensitive 2 file\(s\) define such symbols/);
    const nowhere = await symbols({ name: 'zzNowhere' });
    expect(nowhere.hint).toMatch(/No symbol definitions found, nor any as a prefix \('zzNowhere\*'\), in vendored paths\. The word appears in no indexed file as text either\./);
  });

  it('find_references', async () => {
    const cased = await references({ symbol: 'createserver' });
    expect([...cased.definitions, ...cased.usages]).toEqual([]);
    expect(cased.hint).toMatch(/search_symbols with \{"name": "createserver"\} \(any case\) finds definitions in 2 file\(s\); the text 'createserver' appears in 3 file\(s\)/);
    const nowhere = await references({ symbol: 'zzNowhere' });
    expect(nowhere.hint).toMatch(/holds 'zzNowhere' nowhere/);
    const filtered = await references({ symbol: 'Reverse', languages: ['python'] });
    expect(filtered.hint).toMatch(/Without the filters languages \["python"\], 1 file\(s\) hold the whole word/);
  });
});

describe('answers long by themselves', () => {
  it('list_repos cuts the languages of a repository of a hundred languages, most files first', async () => {
    const result = await call(mcp.client, 'list_repos', { max_output_chars: 2000 });
    expect(textOf(result).length).toBeLessThanOrEqual(2000);
    expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(4000);
    const out = ok<ListReposOutput>(result);
    // Every repository is still reached by paging; the page of the hundred languages cuts them.
    const pages = [out];
    for (let guard = 0; pages[pages.length - 1]!.next_cursor && guard < 10; guard++) {
      const next = await call(mcp.client, 'list_repos', { max_output_chars: 2000, cursor: pages[pages.length - 1]!.next_cursor });
      expect(textOf(next).length).toBeLessThanOrEqual(2000);
      pages.push(ok<ListReposOutput>(next));
    }
    expect(pages.flatMap((p) => p.repos.map((r) => r.name)).sort()).toEqual([EDGE, MAIN, `${REPO_PREFIX}polyglot`, 'plainfolder'].sort());
    const poly = pages.find((p) => p.repos.some((r) => r.name === `${REPO_PREFIX}polyglot`))!;
    expect(poly.truncated?.cut.map((c) => c.setting)).toContain('languages');
    expect(poly.repos[0]!.symbols!.length).toBe(poly.truncated!.cut.find((c) => c.setting === 'languages')!.to);
  });

  it('get_health stays within the bound, hint included', async () => {
    const result = await call(mcp.client, 'get_health', { max_output_chars: 2000 });
    expect(textOf(result).length).toBeLessThanOrEqual(2000);
    expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(4000);
    const out = ok<HealthOutput & { truncated?: { cut: { setting: string }[] } }>(result);
    expect(out.truncated?.cut.map((c) => c.setting)).toEqual(['list_items']);
    expect(out.hint).toMatch(/more language\(s\)/);
  });
});
