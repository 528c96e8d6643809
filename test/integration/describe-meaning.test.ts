/**
 * search_symbols by description with a definitions index, against real Zoekt, the real model and
 * the real builder (`zoekt-mcp definitions build`), through a real MCP client. The repository is
 * written here with names that share no word with the descriptions: only the doc comments do, so
 * a hit comes from the documentation or from meaning, never from the name. Checked:
 * - each description finds its definition first, and results carry score and related_symbols;
 * - filters apply before ranking (a kinds filter gives only those kinds, however many rank above);
 * - a definition the definitions index holds but Zoekt's index no longer does never shows, and
 *   the page says why; after the definitions index is rebuilt, an added definition is found, an
 *   edited one is found by its new documentation, a deleted one is gone;
 * - get_health says how many definitions are held of those found, and whether the definitions
 *   index is of the commit Zoekt serves;
 * - without a definitions index the answer says it matched names only.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, CLI, connectStdio, ok, type Connected } from '../support/mcp.js';
import { countingProxy, pageSearches } from '../support/counting-proxy.js';
import { freePort, git, runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';

interface Sym {
  name: string;
  kind: string;
  repo: string;
  path: string;
  line: number;
  score?: number;
  documentation?: string;
  related?: { parent?: string; siblings: string[] };
}
interface Page {
  symbols: Sym[];
  stats: { complete: boolean };
  partial?: { reason: string };
  hint?: string;
  next_cursor?: string;
}

const FILES: Record<string, string> = {
  'text/case.go': `package text

// Shout returns the text with every letter turned into its capital form.
func Shout(s string) string { return s }

// Whisper returns the text with every letter made small.
func Whisper(s string) string { return s }
`,
  'money/ledger.go': `package money

// Ledger keeps what each customer owes.
type Ledger struct{ owed map[string]int }

// Settle pays off the debt of a customer and drops the entry.
func (l *Ledger) Settle(customer string) { delete(l.owed, customer) }

// Charge adds an amount to the debt of a customer.
func (l *Ledger) Charge(customer string, amount int) { l.owed[customer] += amount }
`,
  'net/pacing.py': `def backoff(attempt):
    """Wait a little longer after each failed try before sending the request again."""
    return 2 ** attempt


class Throttle:
    """Keeps callers from making more than a fixed number of calls each second."""

    def admit(self):
        """Lets one caller through when the budget of this second allows it."""
        return True
`,
  'web/memo.ts': `/** Forgets the entries nobody has read for the longest time when memory runs short. */
export function evictStale(): void {}

/** Remembers the result of a slow computation for the next caller with the same input. */
export class Memo {
  /** Drops everything remembered so far. */
  clear(): void {}
}
`,
};

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

describe('search_symbols by description, ranked by a definitions index', { timeout: 240_000 }, () => {
  let work: string;
  let repo: string;
  let index: string;
  let defs: string;
  let zoekt: RunningZoekt | undefined;
  let mcp: Connected;
  let name: string;
  let otherName: string;

  const commit = (message: string) => {
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', message);
  };
  const indexZoekt = () => runIndexer('git', ['-index', index, '-branches', 'main', repo]);
  const buildDefinitions = () =>
    execFileSync(process.execPath, [CLI, 'definitions', 'build', '--repo', repo, '--name', name, '--out', defs, '--quiet'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const describe_ = async (args: Record<string, unknown>) => ok<Page>(await call(mcp.client, 'search_symbols', { limit: 5, ...args }));

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'describe-meaning-'));
    repo = join(work, 'shop');
    index = join(work, 'index');
    defs = join(work, 'definitions');
    mkdirSync(repo);
    mkdirSync(index);
    git(repo, 'init', '-q', '-b', 'main');
    write(repo, FILES);
    commit('first');
    indexZoekt();
    // A second repository Zoekt serves and the definitions index never gets.
    const other = join(work, 'other');
    mkdirSync(other);
    git(other, 'init', '-q', '-b', 'main');
    write(other, { 'lib.go': 'package lib\n\n// Hello greets.\nfunc Hello() {}\n' });
    git(other, 'add', '-A');
    git(other, 'commit', '-q', '-m', 'first');
    runIndexer('git', ['-index', index, '-branches', 'main', other]);
    zoekt = await startWebserver({ indexDir: index, expectRepos: 2 });
    const plain = await connectStdio({ ZOEKT_URL: zoekt.url });
    const listed = ok<{ repos: { name: string }[] }>(await call(plain.client, 'list_repos', {}));
    name = listed.repos.find((r) => r.name.endsWith('shop'))!.name;
    otherName = listed.repos.find((r) => r.name.endsWith('other'))!.name;
    // Without a definitions index: names only, and the answer says so.
    const lexical = ok<Page>(await call(plain.client, 'search_symbols', { description: 'pay off what a customer owes' }));
    expect(lexical.hint ?? '').toMatch(/names only/);
    await plain.close();
    buildDefinitions();
    mcp = await connectStdio({ ZOEKT_URL: zoekt.url, ZOEKT_MCP_DEFINITIONS: defs });
  });
  afterAll(async () => {
    await mcp?.close();
    await zoekt?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('finds each definition by what its documentation says, first, with a score and related symbols', async () => {
    const cases: [string, string][] = [
      ['turn every letter into a capital', 'Shout'],
      ['pay off what a customer owes', 'Settle'],
      ['wait longer after each failed try before sending again', 'backoff'],
      ['forget entries nobody read for a long time when memory runs short', 'evictStale'],
      ['limit how many calls callers make each second', 'Throttle'],
    ];
    for (const [description, wanted] of cases) {
      const page = await describe_({ description });
      expect(page.symbols[0]?.name, description).toBe(wanted);
      expect(page.symbols[0]!.score).toBeGreaterThan(0);
    }
    const settle = (await describe_({ description: 'pay off what a customer owes' })).symbols[0]!;
    expect(settle.related?.parent).toBe('Ledger');
    expect(settle.related?.siblings).toContain('Charge');
    expect(settle.documentation).toMatch(/pays off the debt/);
    expect(settle.path).toBe('money/ledger.go');
    expect(settle.line).toBe(7);
  });

  it('names a repository in scope the definitions index has nothing of, and says the answer is partial', async () => {
    const all = await describe_({ description: 'pay off what a customer owes' });
    expect(all.stats.complete).toBe(false);
    expect(all.partial?.reason).toContain(`nothing in the definitions index yet (${otherName})`);
    const own = await describe_({ description: 'pay off what a customer owes', repos: [name] });
    expect(own.partial?.reason ?? '').not.toContain('nothing in the definitions index');
    expect(own.symbols[0]?.name).toBe('Settle');
    // The walk's last page says where it ended: at the definitions either list ranks.
    let page = own;
    while (page.next_cursor) page = await describe_({ description: 'pay off what a customer owes', repos: [name], cursor: page.next_cursor });
    if (!page.stats.complete) expect(page.partial?.reason).toMatch(/the walk ends after the \d+ definitions ranked by meaning or by words, of the \d+ that pass the filters/);
  });

  it('asks Zoekt one search for a first page: the confirmation of the definitions it shows', async () => {
    const proxy = await countingProxy(zoekt!.url);
    const counted = await connectStdio({ ZOEKT_URL: proxy.url, ZOEKT_MCP_DEFINITIONS: defs });
    try {
      // The first call of a server also scans for the files the indexer skipped.
      await call(counted.client, 'search_symbols', { description: 'warm up' });
      for (const description of ['pay off what a customer owes', 'wait longer after each failed try']) {
        proxy.searches.length = 0;
        const page = ok<Page>(await call(counted.client, 'search_symbols', { description, limit: 5 }));
        expect(page.symbols.length).toBeGreaterThan(0);
        expect(pageSearches(proxy.searches).length).toBeLessThanOrEqual(1);
      }
    } finally {
      await counted.close();
      await proxy.close();
    }
  });

  it('applies filters before ranking: a kinds filter never yields other kinds', async () => {
    for (const kinds of [['class'], ['method'], ['struct'], ['function']]) {
      const page = await describe_({ description: 'limit how many calls callers make each second', kinds, limit: 10 });
      expect(page.symbols.length, JSON.stringify(kinds)).toBeGreaterThan(0);
      for (const s of page.symbols) expect(s.kind, JSON.stringify(kinds)).toBe(kinds[0]);
    }
    const go = await describe_({ description: 'limit how many calls callers make each second', languages: ['go'], limit: 20 });
    expect(go.symbols.length).toBeGreaterThan(0);
    for (const s of go.symbols) expect(s.path).toMatch(/\.go$/);
    const paths = await describe_({ description: 'turn every letter into a capital', paths: ['web/**'], limit: 20 });
    for (const s of paths.symbols) expect(s.path).toMatch(/^web\//);
  });

  it('ranks nothing for a description with no word or token it knows, and says so', async () => {
    const page = await describe_({ description: '🔥🔥🔥' });
    expect(page.symbols).toEqual([]);
    expect(page.hint).toMatch(/matches these words or their meaning/);
  });

  it('answers by names, saying why, when the definitions index cannot answer', async () => {
    const down = await connectStdio({ ZOEKT_URL: zoekt!.url, ZOEKT_MCP_DEFINITIONS_URL: `http://127.0.0.1:${await freePort()}` });
    try {
      const page = ok<Page>(await call(down.client, 'search_symbols', { description: 'pay off what a customer owes' }));
      expect(page.hint).toMatch(/names only: the definitions index at http:\/\/127\.0\.0\.1:\d+ cannot answer/);
    } finally {
      await down.close();
    }
  });

  it("never names another scope's repositories in get_health", async () => {
    // A failed build of the other repository, as the builder records it.
    const manifest = JSON.parse(readFileSync(join(defs, 'manifest.json'), 'utf8')) as { failed?: Record<string, string> };
    writeFileSync(join(defs, 'manifest.json'), JSON.stringify({ ...manifest, failed: { [otherName]: 'the extractor failed' } }));
    const confined = await connectStdio({ ZOEKT_URL: zoekt!.url, ZOEKT_MCP_DEFINITIONS: defs, ZOEKT_MCP_ALLOW_REPOS: name });
    const open = await connectStdio({ ZOEKT_URL: zoekt!.url, ZOEKT_MCP_DEFINITIONS: defs });
    try {
      const mine = JSON.stringify(ok(await call(confined.client, 'get_health', {})));
      expect(mine).not.toContain(otherName.split('/').pop()!);
      const all = ok<{ definitions?: { state: string; error?: string } }>(await call(open.client, 'get_health', {}));
      expect(all.definitions?.state).toBe('failed');
      expect(all.definitions?.error).toContain(`${otherName}: the last build failed: the extractor failed`);
    } finally {
      await confined.close();
      await open.close();
      writeFileSync(join(defs, 'manifest.json'), JSON.stringify(manifest));
    }
  });

  it('takes a description of any number of words', async () => {
    const long = 'I am looking for the function that will turn each and every single letter of some text into its capital form please';
    expect((await describe_({ description: long })).symbols[0]?.name).toBe('Shout');
  });

  it('never shows a definition Zoekt no longer has; after a rebuild finds the added and edited ones, not the deleted', async () => {
    // Zoekt gets the new commit first; the definitions index is still of the old one.
    write(repo, {
      'text/case.go': `package text

// Yell returns the text with every letter turned into its capital form.
func Yell(s string) string { return s }

// Whisper returns the text with every letter made small.
func Whisper(s string) string { return s }
`,
      'money/ledger.go': FILES['money/ledger.go']!.replace('// Charge adds an amount to the debt of a customer.', '// Charge puts a sum on the tab of a client.'),
      'geo/route.go': `package geo

// Dijkstra finds the shortest way between two places on a map.
func Dijkstra(from, to string) []string { return nil }
`,
    });
    unlinkSync(join(repo, 'web/memo.ts'));
    commit('second');
    indexZoekt();
    const health = async () => ok<{ definitions?: { state: string; repos: { repo: string; state: string; definitions: number; extracted: number; documented: number }[]; repos_missing?: string[] } }>(await call(mcp.client, 'get_health', {}));
    // Zoekt reloads the shard on its own; wait until it serves the new commit.
    const deadline = Date.now() + 30_000;
    while ((await health()).definitions?.repos[0]?.state !== 'behind' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect((await health()).definitions?.state).toBe('behind');

    const stale = await describe_({ description: 'turn every letter into a capital', repos: [name] });
    expect(stale.symbols.map((s) => s.name)).not.toContain('Shout');
    expect(stale.symbols.map((s) => s.name)).not.toContain('evictStale');
    expect(stale.stats.complete).toBe(false);
    expect(stale.partial?.reason).toMatch(/no longer in Zoekt's index/);

    buildDefinitions();
    expect((await describe_({ description: 'turn every letter into a capital' })).symbols[0]?.name).toBe('Yell');
    expect((await describe_({ description: 'the shortest way between two places on a map' })).symbols[0]?.name).toBe('Dijkstra');
    expect((await describe_({ description: 'put a sum on the tab of a client' })).symbols[0]?.name).toBe('Charge');
    const gone = await describe_({ description: 'forget entries nobody read for a long time when memory runs short', limit: 20 });
    expect(gone.symbols.map((s) => s.name)).not.toContain('evictStale');
    expect(gone.symbols.map((s) => s.path)).not.toContain('web/memo.ts');

    const after = await health();
    expect(after.definitions?.state).toBe('current');
    expect(after.definitions?.repos_missing).toEqual([otherName]);
    const r = after.definitions!.repos[0]!;
    expect(r.repo).toBe(name);
    expect(r.state).toBe('current');
    // Every definition of the tree, by reading it: Yell, Whisper, Ledger, owed, Settle, Charge, backoff, Throttle, admit, Dijkstra.
    expect(r.definitions).toBeGreaterThanOrEqual(10);
    expect(r.definitions).toBe(r.extracted);
    expect(r.documented).toBeGreaterThanOrEqual(9);
  });
});
