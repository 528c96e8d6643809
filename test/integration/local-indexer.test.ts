/**
 * The local indexer's housekeeping, with the real zoekt-git-index: old snapshots are pruned from
 * a repository's shadow without losing incremental (delta) indexing, and what no listed
 * repository uses leaves the index and the shadow folder.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DELTAS_MAX, fingerprint, hasShards, isShardOf, pruneShadow, shadowDir, shardCount, shardPrefix, startIndex, sweep, type IndexerPaths } from '../../src/local/indexer.js';
import type { RepoEntry } from '../../src/local/repos.js';
import { gitIn } from '../support/local.js';
import { FIXTURES, INDEX_COMMAND, startWebserver, ZOEKT_BIN } from '../support/zoekt.js';

const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-indexer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function pathsIn(dir: string): IndexerPaths & { logged: () => string } {
  let log = '';
  return { bin: ZOEKT_BIN, index: join(dir, 'index'), shadows: join(dir, 'shadow'), indexCommand: INDEX_COMMAND, log: (l) => (log += l), logged: () => log };
}

/** Indexes `e` as a delta, or whole once it has gathered DELTAS_MAX deltas on its one whole shard (the fixtures are small). */
async function index(paths: IndexerPaths, e: RepoEntry): Promise<string> {
  return startIndex(paths, e, await fingerprint(paths, e), { whole: shardCount(paths.index, e.name) >= 1 + DELTAS_MAX }).done;
}

/** Commit objects a shadow repository holds, reachable or not. */
function commits(paths: IndexerPaths, e: RepoEntry): number {
  const out = execFileSync('git', [`--git-dir=${shadowDir(paths, e)}`, 'cat-file', '--batch-all-objects', '--batch-check=%(objecttype)'], { encoding: 'utf8' });
  return out.split('\n').filter((t) => t === 'commit').length;
}

/** A copy of the pytools fixture under `work`, committed once as a git work tree. */
function committedTree(name: string): string {
  const dir = join(work, name);
  cpSync(join(FIXTURES, 'pytools'), dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

/** The files of the snapshot `fp` of `e`. */
function snapshotFiles(paths: IndexerPaths, e: RepoEntry, fp: string): string[] {
  return execFileSync('git', [`--git-dir=${shadowDir(paths, e)}`, 'ls-tree', '-r', '--name-only', fp.slice('tree:'.length)], { encoding: 'utf8' }).split('\n');
}

describe('shadow repositories', () => {
  it.each(['dir', 'git'] as const)('a %s entry keeps only its last snapshot once pruned, and the next index is still a delta', async (kind) => {
    const data = join(work, `data-${kind}`);
    const paths = pathsIn(data);
    const dir = join(work, `code-${kind}`);
    cpSync(join(FIXTURES, 'pytools'), dir, { recursive: true });
    if (kind === 'git') {
      gitIn(dir, 'init', '-q', '-b', 'main');
      gitIn(dir, 'add', '-A');
      gitIn(dir, 'commit', '-q', '-m', 'first');
    }
    const e: RepoEntry = { dir, name: `prune-${kind}`, kind, source: 'test', text: dir };
    const file = join(dir, 'acme_tools/__init__.py');
    const change = (n: number) => {
      writeFileSync(file, `${readFileSync(file, 'utf8')}\nMARKER_${n} = ${n}\n`);
      if (kind === 'git') {
        gitIn(dir, 'commit', '-q', '-am', `change ${n}`);
      }
    };
    await index(paths, e);
    for (let n = 1; n <= 3; n++) {
      change(n);
      await index(paths, e);
    }
    expect(commits(paths, e)).toBeGreaterThan(1);
    // A floor of 0 bytes: the room the snapshots take is always too much here.
    expect(await pruneShadow(paths, e, 0, 0)).toBe(true);
    expect(commits(paths, e)).toBe(1);
    change(4);
    const before = paths.logged().length;
    await index(paths, e);
    // Only the changed file read again: the pruned shadow still holds the indexed commit to diff with.
    expect(paths.logged().slice(before)).toMatch(/attempting to index 1 total files/);
    expect(paths.logged().slice(before)).not.toMatch(/falling back/);
    expect(hasShards(paths.index, e.name)).toBe(true);
    // Nothing is pruned while the snapshots take less room than the code.
    expect(await pruneShadow(paths, e, 1e9, 0)).toBe(false);
  }, 120_000);
});

describe('snapshots of a git work tree', () => {
  it("follow its exclude file and its settings as they change, and start over in a shadow made again", async () => {
    const paths = pathsIn(join(work, 'data-follow'));
    const dir = committedTree('code-follow');
    const e: RepoEntry = { dir, name: 'follow/me', kind: 'git', source: 'test', text: dir };
    const shadow = shadowDir(paths, e);
    const files = (fp: string) => snapshotFiles(paths, e, fp);
    const setting = (key: string) => {
      try {
        return execFileSync('git', [`--git-dir=${shadow}`, 'config', '--get', key], { encoding: 'utf8' }).trim();
      } catch {
        return undefined;
      }
    };
    expect(files(await fingerprint(paths, e))).toContain('acme_tools/__init__.py');
    expect(setting('zoekt.name')).toBe('follow/me');
    expect(setting('remote.origin.url')).toBeUndefined();

    writeFileSync(join(dir, 'scratch.txt'), 'notes\n');
    expect(files(await fingerprint(paths, e))).toContain('scratch.txt');

    // Edited after the first snapshot: the next one reads them again. A file the snapshots took
    // in leaves once ignored; one the repository tracks stays although it matches.
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'scratch.txt\n*.py\n');
    gitIn(dir, 'remote', 'add', 'origin', 'https://example.com/follow/me.git');
    expect(files(await fingerprint(paths, e))).not.toContain('scratch.txt');
    expect(files(await fingerprint(paths, e))).toContain('acme_tools/__init__.py');
    expect(setting('remote.origin.url')).toBe('https://example.com/follow/me.git');
    gitIn(dir, 'remote', 'set-url', 'origin', 'https://example.com/follow/you.git');
    writeFileSync(join(dir, '.git', 'info', 'exclude'), '');
    expect(files(await fingerprint(paths, e))).toContain('scratch.txt');
    expect(setting('remote.origin.url')).toBe('https://example.com/follow/you.git');

    // The shadow swept away (its repository was unlisted) and the entry listed again.
    expect(sweep(paths, [], false)).toContain(`shadow/${shadow.split('/').pop()}`);
    await fingerprint(paths, e);
    expect(setting('zoekt.name')).toBe('follow/me');
    expect(setting('remote.origin.url')).toBe('https://example.com/follow/you.git');
  }, 60_000);

  it('of a plain directory drop the files a .gitignore added later ignores', async () => {
    const paths = pathsIn(join(work, 'data-ignore'));
    const dir = join(work, 'code-ignore');
    cpSync(join(FIXTURES, 'pytools'), dir, { recursive: true });
    mkdirSync(join(dir, 'build'), { recursive: true });
    writeFileSync(join(dir, 'build', 'out.txt'), 'generated\n');
    const e: RepoEntry = { dir, name: 'ignore/me', kind: 'dir', source: 'test', text: dir };
    const files = (fp: string) => snapshotFiles(paths, e, fp);
    expect(files(await fingerprint(paths, e))).toContain('build/out.txt');
    writeFileSync(join(dir, '.gitignore'), 'build/\n');
    const after = files(await fingerprint(paths, e));
    expect(after).not.toContain('build/out.txt');
    expect(after).toContain('.gitignore');
    expect(after).toContain('acme_tools/__init__.py');
  }, 60_000);
});

describe('counts that do not creep', () => {
  it(`after ${DELTAS_MAX + 4} uncommitted edits: every edit searchable, at most ${DELTAS_MAX + 1} shards, and as many documents as files once built whole`, async () => {
    const data = join(work, 'data-creep');
    const paths = pathsIn(data);
    const dir = committedTree('code-creep');
    const e: RepoEntry = { dir, name: 'creep', kind: 'git', source: 'test', text: dir };
    const files = execFileSync('git', ['-C', dir, 'ls-files'], { encoding: 'utf8' }).trim().split('\n').length;
    await index(paths, e);
    const file = join(dir, 'acme_tools/__init__.py');
    let wholeBuilds = 0;
    for (let n = 1; n <= DELTAS_MAX + 4; n++) {
      writeFileSync(file, `${readFileSync(file, 'utf8')}\nCREEP_MARKER_${n} = ${n}\n`);
      const before = paths.logged().length;
      await index(paths, e);
      if (!/attempting to index 1 total files/.test(paths.logged().slice(before))) wholeBuilds++;
      expect(shardCount(paths.index, e.name)).toBeLessThanOrEqual(DELTAS_MAX + 1);
    }
    expect(wholeBuilds).toBe(1);
    const zoekt = await startWebserver({ indexDir: paths.index, expectRepos: 1 });
    try {
      const post = async (path: string, body: unknown) => (await (await fetch(`${zoekt.url}${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<string, Record<string, unknown>>;
      const last = await post('/api/search', { Q: `CREEP_MARKER_${DELTAS_MAX + 4}\\b`, Opts: { MaxDocDisplayCount: 5 } });
      expect(last.Result!.FileCount).toBe(1);
      // The edit before the whole build, and the one it was built at, are found too.
      for (const n of [DELTAS_MAX, DELTAS_MAX + 1]) expect((await post('/api/search', { Q: `CREEP_MARKER_${n}\\b`, Opts: {} })).Result!.FileCount).toBe(1);
      // Three deltas since the whole build (edits 11 to 13): the copies they replaced are the only extra documents.
      const stats = (await post('/api/list', { Q: '' })).List!.Stats as { Documents: number };
      expect(stats.Documents).toBe(files + 3);
    } finally {
      await zoekt.stop();
    }
  }, 180_000);
});

describe('sweeping the index folder', () => {
  it("removes the shards and shadows of repositories no longer listed, and an interrupted build's temporary files at start", () => {
    const paths = pathsIn(join(work, 'data-sweep'));
    mkdirSync(paths.index, { recursive: true });
    const keep = { name: 'acme/a', dir: '/src/a' };
    const files = ['acme%2Fa_v16.00000.zoekt', 'acme%2Fa_v16.00001.zoekt', 'acme%2Fa_v16.00000.zoekt.meta', 'acme%2Fa_v2_v16.00000.zoekt', 'gone_v16.00000.zoekt', 'acme%2Fa_v16.00000.zoekt.123.tmp'];
    for (const f of files) writeFileSync(join(paths.index, f), '');
    mkdirSync(join(paths.shadows, 'ffffffffffffffff.git'), { recursive: true });
    mkdirSync(shadowDir(paths, keep), { recursive: true });
    expect(sweep(paths, [keep], false).sort()).toEqual(['acme%2Fa_v2_v16.00000.zoekt', 'gone_v16.00000.zoekt', 'shadow/ffffffffffffffff.git']);
    expect(readdirSync(paths.index)).toContain('acme%2Fa_v16.00000.zoekt.123.tmp');
    expect(sweep(paths, [keep], true)).toEqual(['acme%2Fa_v16.00000.zoekt.123.tmp']);
    expect(readdirSync(paths.index).sort()).toEqual(['acme%2Fa_v16.00000.zoekt', 'acme%2Fa_v16.00000.zoekt.meta', 'acme%2Fa_v16.00001.zoekt']);
    expect(readdirSync(paths.shadows)).toEqual([shadowDir(paths, keep).split('/').pop()]);
  });

  it('tells the shards of "a" from those of "a_v2"', () => {
    expect(isShardOf('a_v16.00000.zoekt', 'a')).toBe(true);
    expect(isShardOf('a_v16.00000.zoekt.meta', 'a')).toBe(true);
    expect(isShardOf('a_v16.00000.zoekt.meta', 'a', false)).toBe(false);
    expect(isShardOf('a_v2_v16.00000.zoekt', 'a')).toBe(false);
    expect(isShardOf('a_v2_v16.00000.zoekt', 'a_v2')).toBe(true);
  });

  it('knows the shards of a repository whose name Zoekt cuts at 200 characters and follows with a hash', () => {
    const name = `github.com/acme/${'x'.repeat(240)}`;
    const prefix = shardPrefix(name);
    expect(prefix.length).toBe(200);
    expect(isShardOf(`${prefix}0a1b2c3d_v16.00000.zoekt`, name)).toBe(true);
    expect(isShardOf(`${prefix}0a1b2c3d_v16.00000.zoekt.meta`, name)).toBe(true);
    expect(isShardOf(`${prefix}_v16.00000.zoekt`, name)).toBe(true);
    expect(isShardOf(`${prefix}0a1b2c3dz_v16.00000.zoekt`, name)).toBe(false);
  });
});
