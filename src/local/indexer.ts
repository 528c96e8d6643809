/**
 * Indexing one repository of the list into the shared index folder.
 *
 * Each entry has a private bare "shadow" repository under the data folder, named (zoekt.name) as
 * the entry is, holding snapshots of its files as they are on disk: a git work tree with its
 * uncommitted edits (linked work trees included, which Zoekt cannot open), or a plain directory
 * (`git add -A` only re-reads files whose size or time changed). zoekt-git-index -incremental
 * -delta indexes the shadow: only the files changed since the last index are read again. The
 * fingerprint (the snapshot's tree) says whether the index is current, so nothing is re-indexed
 * that has not changed. Only what is checked out is indexed, not other branches.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { writeFileAtomically } from './atomic-file.js';
import { availableParallelism } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { RepoEntry } from './repos.js';

export interface IndexerPaths {
  /** zoekt-git-index lives here. */
  bin: string;
  index: string;
  /** Shadow repositories of plain directories. */
  shadows: string;
  /** zoekt-config/index: runs zoekt-git-index with the symbol extractor, as every indexer of this project does. */
  indexCommand: string;
  /** The warm extractor's socket (extractor/service.ts), once it listens: the builds pass their files to it. */
  extractorSocket?: string;
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

export function shadowDir(paths: IndexerPaths, e: Pick<RepoEntry, 'dir'>): string {
  return join(paths.shadows, `${createHash('sha1').update(e.dir).digest('hex').slice(0, 16)}.git`);
}

/** Creates the shadow repository if needed (`created`: it was not there). Git's own gc stays off there: pruneShadow runs it, between indexes. */
async function initShadow(paths: IndexerPaths, e: RepoEntry): Promise<{ shadow: string; created: boolean }> {
  const shadow = shadowDir(paths, e);
  mkdirSync(paths.shadows, { recursive: true });
  if (existsSync(join(shadow, 'HEAD'))) return { shadow, created: false };
  await run('git', ['init', '-q', '--bare', '-b', 'main', shadow]);
  await run('git', [`--git-dir=${shadow}`, 'config', 'gc.auto', '0']);
  await run('git', [`--git-dir=${shadow}`, 'config', 'maintenance.auto', 'false']);
  return { shadow, created: true };
}

/**
 * Every index leaves the snapshot (or fetched commit) before it behind in the shadow repository.
 * Once they take more room than the code itself, everything but what was just indexed (and, for
 * a plain directory, what its staging index refers to) is dropped. Called only between indexes:
 * nothing else reads the shadow then.
 */
export async function pruneShadow(paths: IndexerPaths, e: RepoEntry, codeBytes: number, floorBytes = 16 * 1024 * 1024): Promise<boolean> {
  const gitDir = `--git-dir=${shadowDir(paths, e)}`;
  const counted = await run('git', [gitDir, 'count-objects', '-v']).catch(() => '');
  const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(counted)?.[1] ?? 0);
  const stored = (kib('size') + kib('size-pack')) * 1024;
  if (stored <= Math.max(codeBytes, floorBytes)) return false;
  // (gc also forgets the shallow fetches' cut points that it pruned.)
  await run('git', [gitDir, '-c', 'gc.reflogExpire=now', '-c', 'gc.reflogExpireUnreachable=now', 'gc', '-q', '--prune=now']);
  return true;
}

/**
 * The shadows and shards of repositories that are no longer listed, and what interrupted
 * indexers left: removed. `names` and `dirs` are the listed entries'. Called only while no
 * indexer runs (the supervisor is the index folder's only writer, and indexes one at a time).
 */
export function sweep(paths: IndexerPaths, listed: { name: string; dir: string }[], leftovers: boolean): string[] {
  const removed = removeIndexFiles(
    paths.index,
    (f) => (/\.zoekt(\.meta)?$/.test(f) && !listed.some((e) => isShardOf(f, e.name))) || (leftovers && f.endsWith('.tmp')),
  );
  const keep = new Set(listed.map((e) => basename(shadowDir(paths, e))));
  let shadows: string[] = [];
  try {
    shadows = readdirSync(paths.shadows);
  } catch {
    // none yet
  }
  for (const d of shadows) {
    if (keep.has(d)) continue;
    rmSync(join(paths.shadows, d), { recursive: true, force: true });
    removed.push(`shadow/${d}`);
  }
  return removed;
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

/**
 * What the index of `e` would be built from now: the tree of its files as they are on disk. A git
 * work tree counts with its uncommitted edits and new files (what `.gitignore` and the
 * repository's `info/exclude` leave out stays out): an agent edits without committing, and
 * searches what it just wrote. Snapshotting reads only the files whose size or time changed.
 */
export async function fingerprint(paths: IndexerPaths, e: RepoEntry): Promise<string> {
  const { shadow, created } = await initShadow(paths, e);
  const done = (!created && copied.get(shadow)) || {};
  copied.set(shadow, done);
  if (e.kind === 'git') {
    if (done.exclude === undefined) {
      const [exclude = '', config = ''] = (await run('git', ['-C', e.dir, 'rev-parse', '--git-path', 'info/exclude', '--git-path', 'config']).catch(() => '')).split('\n');
      const within = (p: string) => p && (isAbsolute(p) ? p : join(e.dir, p));
      done.exclude = within(exclude);
      done.config = within(config);
    }
    const stamp = fileStamp(done.config);
    if (stamp === undefined || stamp !== done.configStamp) {
      await copyConfig(e.dir, shadow);
      done.configStamp = stamp;
    }
    copyExcludes(done.exclude, shadow);
  }
  if (done.name !== e.name) {
    await run('git', [`--git-dir=${shadow}`, 'config', 'zoekt.name', e.name]);
    done.name = e.name;
  }
  await shadowGit(paths, e, 'add', '-A', '--ignore-errors', '.');
  await dropIgnored(paths, e);
  return `tree:${await shadowGit(paths, e, 'write-tree')}`;
}

/**
 * `git add -A` keeps every file the shadow already holds, so one ignored after a snapshot took it
 * in (a .gitignore or exclude line added later, over build output) would stay searchable: such
 * files are dropped here, but those the work tree's own repository tracks, which git keeps
 * although they match.
 */
async function dropIgnored(paths: IndexerPaths, e: RepoEntry): Promise<void> {
  const held = nulList(await shadowGit(paths, e, 'ls-files', '-z', '--cached', '--ignored', '--exclude-standard'));
  if (!held.length) return;
  const tracked = new Set(e.kind === 'git' ? nulList(await run('git', ['-C', e.dir, 'ls-files', '-z', '--cached', '--ignored', '--exclude-standard'])) : []);
  const ignored = held.filter((f) => !tracked.has(f));
  for (let i = 0; i < ignored.length; i += 1000) {
    await shadowGit(paths, e, '--literal-pathspecs', 'rm', '-q', '--cached', '--ignore-unmatch', '--', ...ignored.slice(i, i + 1000));
  }
}

function nulList(out: string): string[] {
  return out.split('\0').filter(Boolean);
}

/**
 * What this process has already copied into each shadow: a snapshot after an edit then runs three
 * git commands (add, ls-files, write-tree) instead of six. The work tree's config is copied again
 * when its file changes (git rewrites it whole, so its inode, size or time changes); settings from
 * the user's own config are read once per process.
 */
const copied = new Map<string, { name?: string; exclude?: string; config?: string; configStamp?: string }>();

function fileStamp(file: string | undefined): string | undefined {
  if (!file) return undefined;
  try {
    const st = statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/** The repository's own exclude patterns (`.git/info/exclude`), which a shadow does not read. */
function copyExcludes(from: string, shadow: string): void {
  const text = from && existsSync(from) ? readFileSync(from, 'utf8') : '';
  mkdirSync(join(shadow, 'info'), { recursive: true });
  const to = join(shadow, 'info', 'exclude');
  if (!existsSync(to) || readFileSync(to, 'utf8') !== text) writeFileAtomically(to, text);
}

/** Files and bytes that will be indexed: what progress is measured against. */
export async function measure(paths: IndexerPaths, e: RepoEntry, fp: string): Promise<{ files: number; bytes: number }> {
  const listing = await shadowGit(paths, e, 'ls-tree', '-r', '-l', fp.slice('tree:'.length));
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

export interface IndexOptions {
  /** Build it whole (default: a delta). */
  whole?: boolean;
  /** Where to build: by default the index (a delta) or a folder of its own (whole). */
  into?: string;
  /** Swap a whole build into the index when done (default true). */
  swap?: boolean;
  /** Which of the supervisor's indexers this is (each keeps a pid file and a log of its own). */
  lane?: Lane;
}

/**
 * 'foreground', 'second' and 'quick': the jobs the queue gives the indexer, up to three at once
 * (job-lanes.ts); 'background': a whole build beside the foreground's deltas, which indexes the
 * snapshot last committed to the shadow as it is (it commits nothing, so the two never contend
 * for its branch).
 */
export type Lane = 'foreground' | 'second' | 'quick' | 'background';
export const LANES: readonly Lane[] = ['foreground', 'second', 'quick', 'background'];
const LANE_FILE: Record<Lane, string> = { foreground: 'indexer', second: 'indexer-2', quick: 'indexer-quick', background: 'indexer-whole' };

/** Where a whole build of `e` is made before it is swapped in. */
export function wholeBuildDir(paths: IndexerPaths, e: Pick<RepoEntry, 'dir'>): string {
  return join(paths.index, '..', 'whole-build', basename(shadowDir(paths, e), '.git'));
}

/**
 * Starts indexing `e` at fingerprint `fp`; `done` resolves with the fingerprint indexed (for the
 * background lane, the snapshot last committed, whichever it is).
 */
export function startIndex(paths: IndexerPaths, e: RepoEntry, fp: string, opts: IndexOptions = {}): { child?: ChildProcess; done: Promise<string> } {
  let child: ChildProcess | undefined;
  const lane = opts.lane ?? 'foreground';
  const done = (async (): Promise<string> => {
    // Zoekt indexes a git repository by name (and cannot open a linked work tree): the snapshot
    // is committed in the shadow repository, named as the entry is, and that is indexed. No
    // parent: a snapshot's history is never needed (a delta build diffs the indexed commit with
    // this one), and without one the snapshots before it can be pruned.
    if (lane !== 'background') {
      const tree = fp.slice('tree:'.length);
      const commit = await shadowGit(paths, e, 'commit-tree', tree, '-m', `snapshot of ${e.dir}`);
      await shadowGit(paths, e, 'update-ref', 'refs/heads/main', commit);
    }
    const repoDir = shadowDir(paths, e);
    // -delta indexes only the files that changed since the indexed commit, in a shard of their
    // own, and marks their old copies deleted (in .meta files beside the older shards); shards
    // and deleted copies add up (counts creep), so the repository is built whole again now and
    // then, in a folder of its own, and swapped in (see swapIn). Zoekt's own fallback
    // (-delta_threshold) and a whole build in place both left the .meta of a shard number the
    // new build reused: on Go's tree the last edit was then never found.
    // Delta builds need submodules off; a shadow has none.
    const whole = opts.whole ?? false;
    const target = opts.into ?? (whole ? wholeBuildDir(paths, e) : paths.index);
    if (whole) {
      rmSync(target, { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
    }
    const args = [...(whole ? [] : ['-incremental', '-delta']), ...USE_CORES, '-submodules=false', '-index', target, repoDir];
    // Its output goes to a file, not through this process: should this process die, the indexer
    // must not die of a broken pipe on its next line of output, but stay until the successor
    // (which finds it by its pid file) stops it in an orderly way.
    const errPath = indexerLogFile(paths, lane);
    const pidFile = indexerPidFile(paths, lane);
    const errFd = openSync(errPath, 'w');
    await new Promise<void>((resolve, reject) => {
      try {
        child = spawn(paths.indexCommand, ['git', ...args], {
          stdio: ['ignore', 'ignore', errFd],
          env: { ...process.env, ZOEKT_BIN: paths.bin, ZOEKT_MCP_NODE: process.execPath, ...(paths.extractorSocket ? { ZOEKT_MCP_EXTRACTOR_SOCKET: paths.extractorSocket } : {}) },
        });
      } finally {
        closeSync(errFd);
      }
      if (child.pid) writeFileAtomically(pidFile, String(child.pid));
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        rmSync(pidFile, { force: true });
        let err = '';
        try {
          err = readFileSync(errPath, 'utf8');
        } catch {
          // gone with the data folder
        }
        if (err) paths.log(err.endsWith('\n') ? err : `${err}\n`);
        if (code === 0) resolve();
        else reject(new Error(`zoekt-git-index ${signal ? `was stopped by ${signal}` : `exited ${code}`}: ${err.trim().split('\n').slice(-2).join(' ')}`));
      });
    });
    if (whole && opts.swap !== false) swapIn(target, paths.index, e.name);
    return fp;
  })();
  return {
    get child() {
      return child;
    },
    done,
  };
}

/** Where the running indexer's pid is kept, beside the index it writes. */
export function indexerPidFile(paths: IndexerPaths, lane: Lane = 'foreground'): string {
  return join(paths.index, '..', `${LANE_FILE[lane]}.pid`);
}

/** The running (or last) indexer's output; copied into the supervisor's log when it ends. */
export function indexerLogFile(paths: IndexerPaths, lane: Lane): string {
  return join(paths.index, '..', `${LANE_FILE[lane]}.log`);
}

/** Go's url.QueryEscape, which Zoekt applies to a repository name to name its shards. */
export function shardPrefix(name: string): string {
  let p = encodeURIComponent(name)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
  if (p.length > 200) p = p.slice(0, 200); // Zoekt appends 8 hex digits of a hash (isShardOf allows them)
  return p;
}

/** Whether the file `f` of the index folder is a shard of repository `name` (or a shard's metadata, with `meta`). */
export function isShardOf(f: string, name: string, meta = true): boolean {
  const p = shardPrefix(name);
  if (!f.startsWith(p)) return false;
  // `_v16.00000.zoekt`: exactly, so that repository "a" never claims the shards of "a_v2". A
  // prefix cut at 200 characters is followed by 8 hex digits of a hash, with no separator.
  const hash = p.length === 200 ? '([0-9a-f]{8})?' : '';
  return new RegExp(`^${hash}_v\\d+\\.\\d+\\.zoekt${meta ? '(\\.meta)?' : ''}$`).test(f.slice(p.length));
}

/** Deletes the shards of a repository (it left the list); Zoekt drops them from its answers. */
export function removeShards(indexDir: string, name: string): string[] {
  return removeIndexFiles(indexDir, (f) => isShardOf(f, name));
}

/** Removes the files of the index folder that `remove` picks; returns their names. */
function removeIndexFiles(indexDir: string, remove: (file: string) => boolean): string[] {
  let files: string[] = [];
  try {
    files = readdirSync(indexDir);
  } catch {
    return []; // no index yet
  }
  const removed = files.filter(remove);
  for (const f of removed) rmSync(join(indexDir, f), { force: true });
  return removed;
}

/**
 * Replaces the shards of `name` in `index` by the whole build in `built`: first the old .meta
 * files (their marks of deleted copies must not apply to a new shard of the same number), then
 * each new shard renamed in (atomically, over an old one of the same name), then the old shards
 * left over. Searches meanwhile see the old shards, briefly without their marks, then the new.
 */
export function swapIn(built: string, index: string, name: string): void {
  const old = readdirSync(index).filter((f) => isShardOf(f, name));
  for (const f of old.filter((f) => f.endsWith('.meta'))) rmSync(join(index, f), { force: true });
  const fresh = readdirSync(built).filter((f) => isShardOf(f, name));
  for (const f of fresh) renameSync(join(built, f), join(index, f));
  for (const f of old) if (!f.endsWith('.meta') && !fresh.includes(f)) rmSync(join(index, f), { force: true });
  rmSync(built, { recursive: true, force: true });
  // The folder of whole builds goes too once none is left in it.
  if (readdirSync(dirname(built)).length === 0) rmSync(dirname(built), { recursive: true, force: true });
}

/** Deltas a repository may gather on top of its whole build's shards before it is built whole again. */
export const DELTAS_MAX = 9;

/**
 * A first or whole index uses the machine's cores: Zoekt builds shards in parallel, each with its
 * own symbol extractor, but one shard is one process's work, and its default shard (100 MB of
 * text) put all of Go's source tree in one. 32 MB shards let two build at once: on 2 cores Go's
 * tree (133 MB) was indexed in 20 s instead of 31 s (bench/README.md, "Local
 * mode: two builds at a time"). A delta is one small shard either way.
 */
const USE_CORES = ['-shard_limit', String(32 << 20), '-parallelism', String(Math.max(1, Math.min(4, availableParallelism())))];

/** How many shards `name` has in the index folder. */
export function shardCount(indexDir: string, name: string): number {
  try {
    return readdirSync(indexDir).filter((f) => isShardOf(f, name, false)).length;
  } catch {
    return 0;
  }
}

export function hasShards(indexDir: string, name: string): boolean {
  try {
    return readdirSync(indexDir).some((f) => isShardOf(f, name, false));
  } catch {
    return false;
  }
}
