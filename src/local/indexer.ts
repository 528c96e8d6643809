/**
 * Indexing one repository of the list into the shared index folder.
 *
 * Each entry has a private bare "shadow" repository under the data folder, named (zoekt.name) as
 * the entry is: for a git root it holds a shallow copy of HEAD (linked work trees included, which
 * Zoekt cannot open); for a plain directory, a snapshot of its files (`git add -A` only re-reads
 * files whose size or time changed). zoekt-git-index -incremental -delta indexes the shadow: only
 * the files changed since the last index are read again. Either way the fingerprint (a commit, a tree) says whether the index is current,
 * so nothing is re-indexed that has not changed.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RepoEntry } from './repos.js';

export interface IndexerPaths {
  /** zoekt-git-index lives here. */
  bin: string;
  index: string;
  /** Shadow repositories of plain directories. */
  shadows: string;
  ctags: string;
  log: (line: string) => void;
}

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv, maxBuffer = 256 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8', maxBuffer, env: env ?? process.env }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.slice(0, 3).join(' ')}…: ${(stderr || err.message).trim().split('\n').slice(-3).join(' ')}`));
      else resolve(stdout.trim());
    });
  });
}

/** The settings Zoekt reads from a repository (URL templates, origin), minus its name. */
async function copyConfig(from: string, to: string): Promise<void> {
  const listing = await run('git', ['-C', from, 'config', '--get-regexp', '^(zoekt\\.|remote\\.origin\\.url$)']).catch(() => '');
  for (const row of listing.split('\n')) {
    const m = /^(\S+) (.*)$/.exec(row);
    if (!m || m[1] === 'zoekt.name') continue;
    await run('git', [`--git-dir=${to}`, 'config', m[1]!, m[2]!]);
  }
}

export function shadowDir(paths: IndexerPaths, e: RepoEntry): string {
  return join(paths.shadows, `${createHash('sha1').update(e.dir).digest('hex').slice(0, 16)}.git`);
}

function shadowGit(paths: IndexerPaths, e: RepoEntry, ...args: string[]): Promise<string> {
  return run('git', [`--git-dir=${shadowDir(paths, e)}`, `--work-tree=${e.dir}`, ...args], {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'zoekt-mcp',
    GIT_AUTHOR_EMAIL: 'zoekt-mcp@localhost',
    GIT_COMMITTER_NAME: 'zoekt-mcp',
    GIT_COMMITTER_EMAIL: 'zoekt-mcp@localhost',
  });
}

/** What the index of `e` would be built from now: HEAD's commit, or the plain directory's tree. */
export async function fingerprint(paths: IndexerPaths, e: RepoEntry): Promise<string> {
  if (e.kind === 'git') {
    const head = await run('git', ['-C', e.dir, 'rev-parse', 'HEAD']);
    return `commit:${head}`;
  }
  const shadow = shadowDir(paths, e);
  mkdirSync(paths.shadows, { recursive: true });
  await run('git', ['init', '-q', '--bare', '-b', 'main', shadow]);
  await run('git', [`--git-dir=${shadow}`, 'config', 'zoekt.name', e.name]);
  await shadowGit(paths, e, 'add', '-A', '--ignore-errors', '.');
  return `tree:${await shadowGit(paths, e, 'write-tree')}`;
}

/** Files and bytes that will be indexed: what progress is measured against. */
export async function measure(paths: IndexerPaths, e: RepoEntry, fp: string): Promise<{ files: number; bytes: number }> {
  const listing =
    e.kind === 'git'
      ? await run('git', ['-C', e.dir, 'ls-tree', '-r', '-l', 'HEAD'])
      : await shadowGit(paths, e, 'ls-tree', '-r', '-l', fp.slice('tree:'.length));
  let files = 0;
  let bytes = 0;
  for (const row of listing.split('\n')) {
    const m = /^\S+ blob \S+\s+(\d+)\t/.exec(row);
    if (!m) continue;
    files++;
    bytes += Number(m[1]);
  }
  return { files, bytes };
}

/** Starts indexing `e` at fingerprint `fp`; `done` resolves with the fingerprint actually indexed. */
export function startIndex(paths: IndexerPaths, e: RepoEntry, fp: string): { child?: ChildProcess; done: Promise<string> } {
  let child: ChildProcess | undefined;
  let indexed = fp;
  const done = (async (): Promise<string> => {
    let repoDir: string;
    if (e.kind === 'git') {
      // Zoekt names a git repository itself (and cannot open a linked work tree): a shadow
      // repository holding a shallow copy of HEAD, with the entry's name, is indexed instead.
      const shadow = shadowDir(paths, e);
      mkdirSync(paths.shadows, { recursive: true });
      await run('git', ['init', '-q', '--bare', '-b', 'main', shadow]);
      await copyConfig(e.dir, shadow);
      await run('git', [`--git-dir=${shadow}`, 'config', 'zoekt.name', e.name]);
      await run('git', [`--git-dir=${shadow}`, 'fetch', '-q', '--depth', '1', '--no-tags', e.dir, 'HEAD']);
      const head = await run('git', [`--git-dir=${shadow}`, 'rev-parse', 'FETCH_HEAD']);
      await run('git', [`--git-dir=${shadow}`, 'update-ref', 'refs/heads/main', head]);
      indexed = `commit:${head}`;
      repoDir = shadow;
    } else {
      const tree = fp.slice('tree:'.length);
      const parent = await shadowGit(paths, e, 'rev-parse', '--verify', '-q', 'refs/heads/main').catch(() => '');
      const commit = await shadowGit(paths, e, 'commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', `snapshot of ${e.dir}`);
      await shadowGit(paths, e, 'update-ref', 'refs/heads/main', commit);
      repoDir = shadowDir(paths, e);
    }
    // -delta indexes only the files that changed since the indexed commit, in a shard of their
    // own; after 20 such shards Zoekt rebuilds the repository in one. (Delta builds need
    // submodules off; a shadow has none.)
    const args = ['-incremental', '-delta', '-delta_threshold', '20', '-submodules=false', '-index', paths.index, repoDir];
    await new Promise<void>((resolve, reject) => {
      child = spawn(join(paths.bin, 'zoekt-git-index'), args, {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, CTAGS_COMMAND: paths.ctags },
      });
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        const s = d.toString();
        err = (err + s).slice(-2000);
        paths.log(s);
      });
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        if (code === 0) resolve();
        else reject(new Error(`zoekt-git-index ${signal ? `was stopped by ${signal}` : `exited ${code}`}: ${err.trim().split('\n').slice(-2).join(' ')}`));
      });
    });
    return indexed;
  })();
  return {
    get child() {
      return child;
    },
    done,
  };
}

/** Go's url.QueryEscape, which Zoekt applies to a repository name to name its shards. */
export function shardPrefix(name: string): string {
  let p = encodeURIComponent(name)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
  if (p.length > 200) p = p.slice(0, 200); // followed by a hash in Zoekt; the prefix still matches
  return p;
}

/** Deletes the shards of a repository (it left the list); Zoekt drops them from its answers. */
export function removeShards(indexDir: string, name: string): string[] {
  const prefix = `${shardPrefix(name)}_v`;
  const removed: string[] = [];
  let files: string[] = [];
  try {
    files = readdirSync(indexDir);
  } catch {
    return removed;
  }
  for (const f of files) {
    if (f.startsWith(prefix) && /\.zoekt(\.meta)?$/.test(f)) {
      rmSync(join(indexDir, f), { force: true });
      removed.push(f);
    }
  }
  return removed;
}

export function hasShards(indexDir: string, name: string): boolean {
  const prefix = `${shardPrefix(name)}_v`;
  try {
    return readdirSync(indexDir).some((f) => f.startsWith(prefix) && f.endsWith('.zoekt'));
  } catch {
    return false;
  }
}
