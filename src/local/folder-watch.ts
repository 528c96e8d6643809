/**
 * Which listed folders may have changed: each is watched, one (inotify) watch per directory, and
 * a change marks it for a check, soon. Checking one means reading the metadata of every file, so
 * a watched folder that reported nothing is checked only once a minute, in case the watch missed
 * something; one that cannot be watched (too many directories for inotify, …) is checked on every
 * pass.
 *
 * Not Node's `fs.watch(dir, { recursive: true })`: on Linux (Node 20) it stats every file
 * synchronously, keeps a Stats object and a watch handle per file, and walks `.git`,
 * `node_modules` and the data folder too: 200 MiB and seconds of a blocked event loop for a few
 * large trees. Here only directories are watched, and neither `.git` nor what git ignores (listed
 * once per folder by `git ls-files --ignored --directory`): an ignored file written (a build, the
 * supervisor's own log when the data folder is inside a listed checkout) is no change.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** A watched folder that reported nothing is checked this often all the same. */
const RECHECK_MS = 60_000;
/** Directories one folder may watch: beyond, it is polled instead (inotify's per-user limit is shared). */
const MAX_WATCHED_DIRS = 20_000;

/** One listed folder: a watch per directory, and what git ignores in it. */
class TreeWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Ignored paths, relative, directories with a trailing slash. */
  private readonly ignored: string[];
  failed = false;

  constructor(
    private readonly root: string,
    private readonly changed: () => void,
    /** The repository whose ignore rules apply: the folder's own ('self'), another (a plain folder's shadow), or none. */
    ignoredFrom: string | undefined,
    /** Watches that do not keep the process alive. */
    private readonly unref = false,
  ) {
    this.ignored = ignoredFrom ? ignoredPaths(root, ignoredFrom === 'self' ? undefined : ignoredFrom) : [];
    this.walk(root);
  }

  get size(): number {
    return this.watchers.size;
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /** Whether `rel` (relative to the root) is git's own or ignored. */
  private skipped(rel: string, isDir: boolean): boolean {
    if (rel === '.git' || rel.startsWith('.git/') || rel.endsWith('/.git') || rel.includes('/.git/')) return true;
    const r = isDir ? `${rel}/` : rel;
    return this.ignored.some((i) => (i.endsWith('/') ? r.startsWith(i) : r === i));
  }

  private walk(dir: string): void {
    if (this.failed || this.watchers.has(dir)) return;
    if (this.watchers.size >= MAX_WATCHED_DIRS) return this.fail();
    try {
      const w = watch(dir, (_event, file) => this.event(dir, typeof file === 'string' ? file : undefined));
      w.on('error', () => {
        w.close();
        this.watchers.delete(dir);
        if (dir === this.root) this.fail();
      });
      if (this.unref) w.unref();
      this.watchers.set(dir, w);
    } catch {
      return this.fail();
    }
    let entries: import('node:fs').Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      if (!d.isDirectory()) continue;
      const full = join(dir, d.name);
      if (!this.skipped(relative(this.root, full).split(sep).join('/'), true)) this.walk(full);
    }
  }

  private event(dir: string, file: string | undefined): void {
    if (this.failed) return;
    if (file === undefined) return this.changed();
    const full = join(dir, file);
    const rel = relative(this.root, full).split(sep).join('/');
    let isDir = false;
    try {
      isDir = statSync(full).isDirectory();
    } catch {
      // gone: a deleted file or directory; a deleted directory's watches go with it
      for (const [d, w] of [...this.watchers]) {
        if (d === full || d.startsWith(full + sep)) {
          w.close();
          this.watchers.delete(d);
        }
      }
    }
    if (this.skipped(rel, isDir)) return;
    if (isDir && !this.watchers.has(full)) this.walk(full);
    this.changed();
  }

  private fail(): void {
    this.failed = true;
    this.close();
  }
}

/** What git ignores in `root`, directories collapsed: `git ls-files --others --ignored --directory`. */
function ignoredPaths(root: string, gitDir?: string): string[] {
  try {
    const args = gitDir ? [`--git-dir=${gitDir}`, `--work-tree=${root}`] : ['-C', root];
    const out = execFileSync('git', [...args, 'ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return out.split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

export class FolderWatch {
  private readonly trees = new Map<string, TreeWatch>();
  private readonly dirty = new Set<string>();
  private readonly lastCheck = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  /** When any watched folder last changed (ms). */
  lastChange = 0;

  /**
   * `changed`: a folder changed (at once); `settled`: changes have come, after a short pause to
   * gather them. `gitDirOf`: the repository whose ignore rules apply to a plain folder (its shadow).
   */
  constructor(
    private readonly events: { changed(dir: string): void; settled(): void; gitDirOf?(dir: string): string | undefined },
    /** Watches that do not keep the process alive (a server that ends with its client). */
    private readonly unref = false,
  ) {}

  /** Watches exactly these folders (`git`: those that are git work trees). */
  follow(dirs: Iterable<string>, git: (dir: string) => boolean = () => true): void {
    const wanted = new Set(dirs);
    for (const dir of wanted) if (!this.trees.has(dir)) this.add(dir, git(dir));
    for (const [dir, t] of [...this.trees]) {
      if (wanted.has(dir)) continue;
      t.close();
      this.trees.delete(dir);
      this.dirty.delete(dir);
    }
  }

  /** Whether `dir` needs a check now; `current`: its index was up to date at the last check. */
  due(dir: string, current: boolean): boolean {
    const t = this.trees.get(dir);
    if (!t || t.failed || this.dirty.has(dir) || !current) return true;
    return Date.now() - (this.lastCheck.get(dir) ?? 0) >= RECHECK_MS;
  }

  /** Whether a change of `dir` is seen as it happens (else only by the checks of every pass). */
  watched(dir: string): boolean {
    const t = this.trees.get(dir);
    return !!t && !t.failed;
  }

  /** A check of `dir` begins: changes from now on mark it again. */
  checking(dir: string): void {
    this.dirty.delete(dir);
    this.lastCheck.set(dir, Date.now());
  }

  /** Some folder changed and was not checked since. */
  get pending(): boolean {
    return this.dirty.size > 0;
  }

  /** Some folder changed and was not checked since, other than those `busy` says are being indexed. */
  pendingBeside(busy: (dir: string) => boolean): boolean {
    for (const dir of this.dirty) if (!busy(dir)) return true;
    return false;
  }

  /** Directories watched, over every folder. */
  get size(): number {
    let n = 0;
    for (const t of this.trees.values()) n += t.size;
    return n;
  }

  close(): void {
    for (const t of this.trees.values()) t.close();
    this.trees.clear();
    if (this.timer) clearTimeout(this.timer);
  }

  private add(dir: string, git: boolean): void {
    const t = new TreeWatch(
      dir,
      () => {
        this.dirty.add(dir);
        this.lastChange = Date.now();
        this.events.changed(dir);
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.events.settled();
        }, 50);
        if (this.unref) this.timer.unref();
      },
      git ? 'self' : this.events.gitDirOf?.(dir),
      this.unref,
    );
    this.trees.set(dir, t);
  }
}
