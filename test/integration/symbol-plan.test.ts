/**
 * search_symbols reads about what a page shows, and still gives the order of the whole candidate
 * set (symbols.ts, planNames). Over Go's source tree, through a real MCP client and a proxy that
 * counts what Zoekt sends back:
 *   - walking every page gives exactly the list that ranking every candidate file gives (all files
 *     fetched with one plain request, ranked with rankByName, the order the fixed windows gave);
 *   - a first page of an exact name evaluates the name once; of a glob, it reads a fraction of
 *     the bytes the fixed window read (the ratio, not a time);
 *   - find_references and search_symbols read a member's definitions, all of them, without every
 *     mention of its type.
 * Then, on a corpus written for it, paths that differ only in case and a path with another version
 * on a second branch: files left out by name that were not read must not be lost.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ReferenceOutput } from '../../src/search/references.js';
import { buildSymbolQuery, parseName, wordRegex } from '../../src/search/definitions/by-name.js';
import { symbolsOf, type SymbolResult } from '../../src/search/definitions/symbol.js';
import { nameQueries, rankByName, type SymbolSearchArgs, type SymbolSearchOutput } from '../../src/search/symbols.js';
import * as q from '../../src/zoekt/query.js';
import { ZoektClient } from '../../src/zoekt/client.js';
import type { FileHit } from '../../src/zoekt/wire.js';
import { call, connectInProcess, ok, type Connected } from '../support/mcp.js';
import { runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';

interface Sent {
  query: string;
  contextLines: number;
  maxDocs: number;
  bytes: number;
}

/** A proxy in front of Zoekt that notes each search and the bytes of its answer. */
async function countingProxy(target: string): Promise<{ url: string; sent: Sent[]; close: () => Promise<void> }> {
  const sent: Sent[] = [];
  const server: Server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        let bytes = 0;
        answer.on('data', (c: Buffer) => {
          bytes += c.length;
          res.write(c);
        });
        answer.on('end', () => {
          if (req.url === '/api/search') {
            const { Q, Opts } = JSON.parse(Buffer.concat(body).toString()) as { Q: string; Opts: { MaxDocDisplayCount: number; NumContextLines?: number } };
            sent.push({ query: Q, contextLines: Opts.NumContextLines ?? 0, maxDocs: Opts.MaxDocDisplayCount, bytes });
          }
          res.end();
        });
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent, close: () => new Promise((r) => server.close(() => r())) };
}

/** The searches that look for the name's definitions (not the documentation read, not the skipped files). */
const candidates = (sent: Sent[]) => sent.filter((s) => s.contextLines === 0 && s.query.includes('sym:') && !s.query.includes('NOT-INDEXED'));
const bytesOf = (sent: Sent[]) => sent.reduce((n, s) => n + s.bytes, 0);
const key = (s: SymbolResult) => `${s.repo}/${s.path}:${s.line}:${s.column}:${s.name}`;

/**
 * Every symbol of the search in order: every candidate file in one request, ranked whole (and,
 * for a bare name in any case, every file with the name in its own case in another).
 */
async function expectedOrder(zoekt: ZoektClient, args: SymbolSearchArgs): Promise<SymbolResult[]> {
  const every = async (query: string) => {
    const found = await zoekt.search({ query, maxDocs: 10_000 });
    expect(found.truncated).toBe(false);
    expect(found.stats.stopped).toBeUndefined();
    return found.files;
  };
  const { exactCase } = nameQueries(args);
  expect(buildSymbolQuery(args, parseName(args.name!, args.regex ?? false))).toBe(nameQueries(args).query);
  return rankByName(args, await every(nameQueries(args).query), exactCase === undefined ? undefined : await every(exactCase));
}

async function walk(mcp: Connected, args: SymbolSearchArgs): Promise<{ symbols: SymbolResult[]; pages: SymbolSearchOutput[] }> {
  const pages: SymbolSearchOutput[] = [];
  let cursor: string | undefined;
  do {
    const page = ok<SymbolSearchOutput>(await call(mcp.client, 'search_symbols', { ...args, ...(cursor ? { cursor } : {}) }));
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor && pages.length < 200);
  expect(cursor).toBeUndefined();
  return { symbols: pages.flatMap((p) => p.symbols), pages };
}

/** Over Go's tree: the MCP client, through a proxy that counts what it sends Zoekt, and Zoekt itself. */
interface GoTree {
  proxy: Awaited<ReturnType<typeof countingProxy>>;
  mcp: Connected;
  zoekt: ZoektClient;
}

async function openGoTree(): Promise<GoTree> {
  const proxy = await countingProxy(inject('goZoektUrl'));
  const mcp = await connectInProcess({ url: proxy.url, timeoutMs: 60_000 });
  return { proxy, mcp, zoekt: new ZoektClient({ url: inject('goZoektUrl'), timeoutMs: 60_000 }) };
}

async function closeGoTree(t: Partial<GoTree>): Promise<void> {
  await t.mcp?.close();
  await t.zoekt?.close();
  await t.proxy?.close();
}

describe("search_symbols over Go's source tree", { timeout: 600_000 }, () => {
  let proxy: GoTree['proxy'];
  let mcp: GoTree['mcp'];
  let zoekt: GoTree['zoekt'];
  beforeAll(async () => ({ proxy, mcp, zoekt } = await openGoTree()));
  afterAll(() => closeGoTree({ proxy, mcp, zoekt }));

  // Common names, a prefix glob, a qualified name, kinds, case, a lowercase Go name (never public
  // in Go), a name whose exact case is rare (the other case fills the page), a global name.
  it.each<[SymbolSearchArgs]>([
    [{ name: 'String', limit: 50 }],
    [{ name: 'Close', limit: 50 }],
    [{ name: 'New', limit: 20 }],
    [{ name: 'Read', limit: 50 }],
    [{ name: 'New*', limit: 100 }],
    [{ name: 'Reader.Read', limit: 5 }],
    [{ name: 'String', kinds: ['method'], limit: 50 }],
    [{ name: 'Write', kinds: ['function'], limit: 5 }],
    [{ name: 'String', case_sensitive: true, limit: 50 }],
    [{ name: 'init', limit: 50 }],
    [{ name: 'reader', limit: 10 }],
    [{ name: '::main', limit: 100 }],
  ])('%o: every page, in order, is the whole ranking cut in pages', async (args) => {
    const expected = await expectedOrder(zoekt, args);
    expect(expected.length).toBeGreaterThan(args.limit!);
    const { symbols, pages } = await walk(mcp, args);
    expect(symbols.map(key)).toEqual(expected.map(key));
    expect(pages.slice(0, -1).every((p) => p.symbols.length === args.limit)).toBe(true);
    // Only the page that reached the end read every candidate: its counts are exact.
    expect(pages.at(-1)!.stats).toMatchObject({ symbols: expected.length, complete: true });
  });

  // The exact spelling is read with case:yes, where Zoekt matches file: patterns in the pattern's
  // case unless told otherwise: paths given in another case must still find the same files.
  it('a bare name with path filters in another case: every definition of every spelling, the exact one first', async () => {
    const args: SymbolSearchArgs = { name: 'String', paths: ['NET/', 'Strings/'], exclude_paths: ['*_TEST.GO', 'net/HTTP/'], limit: 10 };
    const { symbols } = await walk(mcp, args);
    const all = await zoekt.search({ query: `case:no sym:"^String$" file:"(?:^|/)net/" -file:"(?:^|/)net/http/" -file:"_test\\.go$" -file:"(?:^|/)vendor/"`, maxDocs: 5000 });
    const strings = await zoekt.search({ query: `case:no sym:"^String$" file:"(?:^|/)strings/"`, maxDocs: 5000 });
    const expected = [...all.files, ...strings.files].flatMap(symbolsOf).map(({ symbol }) => key(symbol));
    expect(expected.length).toBeGreaterThan(args.limit!);
    expect(symbols.map(key).sort()).toEqual([...new Set(expected)].sort());
    const firstOther = symbols.findIndex((s) => s.name !== 'String');
    expect(symbols.slice(firstOther < 0 ? symbols.length : firstOther).every((s) => s.name !== 'String')).toBe(true);
  });

  // A qualified name is the member's name, its type checked in the ranking: a scored mention of
  // the type in the query would make Zoekt send every mention as a match and drop a definition
  // tagged inside one (`func (b *Reader) Read(` is tagged at the first "Read").
  it.each([['Reader.Read'], ['Writer.Write']])('%s: every definition of the member in a type of that name, from the name alone', async (name) => {
    const [parent, member] = name.split('.') as [string, string];
    const { symbols } = await walk(mcp, { name, limit: 100 });
    const all = await zoekt.search({ query: `case:no sym:"^${member}$" -file:"(?:^|/)vendor/"`, maxDocs: 5000 });
    expect(all.truncated).toBe(false);
    const expected = all.files
      .flatMap(symbolsOf)
      .filter(({ symbol: s, scope }) => s.name.toLowerCase() === member.toLowerCase() && scope.split(/::|\.|#|\//).filter(Boolean).at(-1)?.toLowerCase() === parent.toLowerCase())
      .map(({ symbol: s }) => key(s));
    expect(expected.length).toBeGreaterThan(5);
    expect(symbols.map(key).sort()).toEqual(expected.sort());
  });

  // An exact name: Zoekt's time for a sym: regex is that of evaluating every candidate file,
  // whatever the window and the context lines, so the plan reads every definition, and the lines
  // of its documentation, in one request rather than fewer files in several, and in its own case
  // first (fewer candidates). A glob's order is Zoekt's score: the page's own files decide it.
  // Flush and Encode: a page and one more in their exact spelling, not two pages (34 and 28 of them).
  it.each([['String'], ['Close'], ['Read'], ['Error'], ['Flush'], ['Encode'], ['New*'], ['get*'], ['init']])('%s: a first page evaluates the name once, and a glob reads a fraction of the fixed window', async (name) => {
    const args: SymbolSearchArgs = { name };
    proxy.sent.length = 0;
    const page = ok<SymbolSearchOutput>(await call(mcp.client, 'search_symbols', { ...args }));
    const exact = !name.endsWith('*');
    // An exact name's definitions come with the lines around them (their documentation).
    const planned = exact ? proxy.sent.filter((s) => s.query.includes('sym:') && !s.query.includes('NOT-INDEXED')) : candidates(proxy.sent);
    const read = bytesOf(planned);
    expect(page.symbols).toHaveLength(20);
    const expected = await expectedOrder(zoekt, args);
    expect(page.symbols.map(key)).toEqual(expected.slice(0, 20).map(key));

    // What the fixed windows read: 500 files, then 2,000 when there were more.
    const viaProxy = new ZoektClient({ url: proxy.url, timeoutMs: 60_000 });
    proxy.sent.length = 0;
    const query = buildSymbolQuery(args, parseName(name, false));
    for (const size of [500, 2000]) if (!(await viaProxy.search({ query, maxDocs: size })).truncated) break;
    const fixed = bytesOf(proxy.sent);

    // What Zoekt sends for the files the page shows, and nothing else.
    const shown = new Map<string, Set<string>>();
    for (const s of page.symbols) shown.set(s.repo, (shown.get(s.repo) ?? new Set()).add(s.path));
    const only = q.or(...[...shown].map(([repo, paths]) => q.and(q.repo(`^${q.escapeRegex(repo)}$`), q.file(`^(?:${[...paths].map(q.escapeRegex).join('|')})$`))));
    proxy.sent.length = 0;
    await viaProxy.search({ query: `${query} ${q.render(only)}`, maxDocs: 100 });
    const pageBytes = bytesOf(proxy.sent);
    await viaProxy.close();

    console.log(`search_symbols ${name} page 1: ${planned.length} request(s), ${read} bytes for its candidates; the fixed window: ${fixed} bytes (${(fixed / read).toFixed(1)}x); the page's own files: ${pageBytes} bytes (${(read / pageBytes).toFixed(1)}x)`);
    const overIndex = planned.filter((s) => s.query.startsWith(query));
    if (!exact) {
      // Prefix globs (some 800 files): the page's files and those that could outrank its last,
      // for this page alone (a first page read for the second too: 4.9x and 5.6x the page's files).
      expect(read).toBeLessThanOrEqual(4 * pageBytes);
      expect(read * 8).toBeLessThan(fixed);
    } else {
      // The name in its own case fills the page: one request for it, with the lines of its
      // definitions' documentation, none in any case.
      const { exactCase } = nameQueries(args);
      expect(exactCase).toBeDefined();
      expect(overIndex).toHaveLength(0);
      const own = planned.filter((s) => s.query.startsWith(exactCase!));
      expect(own).toHaveLength(1);
      expect(own[0]!.contextLines).toBe(12);
      expect(page.hint).toContain(`spelled exactly '${name}'`);
      expect(page.stats.complete).toBe(false);
      // The fixed window's files, with the documentation's lines (12 around each definition) instead of its reads.
      expect(read).toBeLessThanOrEqual(fixed * 3);
    }
  });
});

describe("find_references' definitions of a member over Go's source tree", { timeout: 120_000 }, () => {
  let proxy: GoTree['proxy'];
  let mcp: GoTree['mcp'];
  let zoekt: GoTree['zoekt'];
  beforeAll(async () => ({ proxy, mcp, zoekt } = await openGoTree()));
  afterAll(() => closeGoTree({ proxy, mcp, zoekt }));

  it.each([['Reader.Read'], ['Writer.Write'], ['Value.String']])('%s: every definition, without every mention of the type', async (symbol) => {
    proxy.sent.length = 0;
    const out = ok<ReferenceOutput>(await call(mcp.client, 'find_references', { symbol, limit: 1 }));
    const read = bytesOf(candidates(proxy.sent));
    expect(out.zoekt_queries.definitions).toContain(`-( -regex:`);
    const [parent, member] = symbol.split('.') as [string, string];
    const members = (files: FileHit[]) =>
      files
        .flatMap(symbolsOf)
        .filter(({ symbol: s, scope }) => s.name === member && scope.split(/::|\.|#|\//).filter(Boolean).at(-1) === parent)
        .map(({ symbol: s }) => `${s.path}:${s.line}:${s.column}`)
        .sort();
    // Every definition of the member, from its name alone.
    const all = await zoekt.search({ query: `case:yes sym:"^${member}$"`, maxDocs: 5000 });
    expect(all.truncated).toBe(false);
    const expected = members(all.files);
    expect(expected.length).toBeGreaterThan(1);
    expect(out.definitions.map((d) => `${d.path}:${d.line}:${d.column}`).sort()).toEqual(expected);
    // Before, the type's name was a scored term: Zoekt sent every mention of it as a match, and
    // dropped a symbol's match where the tag points inside such a mention (`func (b *Reader)
    // Read(` tagged at the first "Read"), so those definitions were missing.
    const scored = `${buildSymbolQuery({ case_sensitive: true, include_vendored: true }, parseName(symbol, false))} ${q.render(q.regex(wordRegex(parent)))}`;
    const viaProxy = new ZoektClient({ url: proxy.url, timeoutMs: 60_000 });
    proxy.sent.length = 0;
    const before = await viaProxy.search({ query: scored, maxDocs: 500 });
    const beforeBytes = bytesOf(proxy.sent);
    await viaProxy.close();
    const found = members(before.files);
    expect(expected).toEqual(expect.arrayContaining(found));
    console.log(`find_references ${symbol}: its definitions read ${read} bytes (${expected.length} definitions), ${beforeBytes} bytes before (${found.length})`);
    expect(read * 2).toBeLessThan(beforeBytes);
  });
});

describe('files that share a path in another case or on another branch', { timeout: 120_000 }, () => {
  let work: string;
  let zoekt: RunningZoekt;
  let mcp: Connected;
  let raw: ZoektClient;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'symbol-plan-'));
    const repo = join(work, 'twins');
    const write = (path: string, text: string) => {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), text);
    };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' }, stdio: 'pipe' });
    const thing = (pkg: string, extra = '') => `package ${pkg}\n\n// Thing is a thing.\ntype Thing struct{ n int }\n${extra}`;
    // Definitions at every depth, so that a page of one symbol leaves most files unread.
    for (const [i, dir] of ['a', 'a/b', 'a/b/c', 'd', 'd/e', 'f', 'f/g/h', 'i/j'].entries()) write(`${dir}/thing${i}.go`, thing(dir.split('/').pop()!));
    // Two paths that differ only in case, each with its own definition.
    write('k/Thing.go', thing('k'));
    write('k/thing.go', thing('k', '\nfunc other() {}\n'));
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'main');
    // A second version of a path on another branch.
    git('checkout', '-q', '-b', 'dev');
    write('d/thing3.go', thing('d', '\n// Changed on dev.\nfunc changed() {}\n'));
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-am', 'dev');
    git('checkout', '-q', 'main');
    const index = join(work, 'index');
    mkdirSync(index);
    runIndexer('git', ['-branches', 'main,dev', '-index', index, repo]);
    zoekt = await startWebserver({ indexDir: index, expectRepos: 1 });
    mcp = await connectInProcess({ url: zoekt.url });
    raw = new ZoektClient({ url: zoekt.url, timeoutMs: 10_000 });
  });
  afterAll(async () => {
    await mcp?.close();
    await raw?.close();
    await zoekt?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it.each<[SymbolSearchArgs]>([[{ name: 'Thing', limit: 1 }], [{ name: 'thing', limit: 2 }], [{ name: 'Thing', case_sensitive: true, limit: 3 }], [{ name: 'Thin*', limit: 1 }]])(
    '%o: every definition once, in the order of the whole',
    async (args) => {
      const expected = await expectedOrder(raw, args);
      // Both case twins and both versions of d/thing3.go define it.
      expect(expected.filter((s) => s.path.toLowerCase() === 'k/thing.go')).toHaveLength(2);
      expect(expected.filter((s) => s.path === 'd/thing3.go')).toHaveLength(2);
      const { symbols } = await walk(mcp, args);
      expect(symbols.map(key)).toEqual(expected.map(key));
    },
  );
});
