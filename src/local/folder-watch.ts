/**
 * Which listed folders may have changed: each is watched (inotify, FSEvents), and a change marks
 * it for a check, soon. Checking one means reading the metadata of every file, so a watched folder
 * that reported nothing is checked only once a minute, in case the watch missed something; one
 * that cannot be watched (too many folders for inotify, …) is checked on every pass.
 */
import { watch, type FSWatcher } from 'node:fs';

/** A watched folder that reported nothing is checked this often all the same. */
const RECHECK_MS = 60_000;

export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly dirty = new Set<string>();
  private readonly lastCheck = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  /** When any watched folder last changed (ms). */
  lastChange = 0;

  /** `changed`: a folder changed (at once); `settled`: changes have come, after a short pause to gather them. */
  constructor(private readonly events: { changed(dir: string): void; settled(): void }) {}

  /** Watches exactly these folders. */
  follow(dirs: Iterable<string>): void {
    const wanted = new Set(dirs);
    for (const dir of wanted) if (!this.watchers.has(dir)) this.add(dir);
    for (const [dir, w] of [...this.watchers]) {
      if (wanted.has(dir)) continue;
      w.close();
      this.watchers.delete(dir);
      this.dirty.delete(dir);
    }
  }

  /** Whether `dir` needs a check now; `current`: its index was up to date at the last check. */
  due(dir: string, current: boolean): boolean {
    if (!this.watchers.has(dir) || this.dirty.has(dir) || !current) return true;
    return Date.now() - (this.lastCheck.get(dir) ?? 0) >= RECHECK_MS;
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

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    if (this.timer) clearTimeout(this.timer);
  }

  private add(dir: string): void {
    try {
      const w = watch(dir, { recursive: true }, (_event, file) => {
        // Git's own bookkeeping is not a change of the files (a commit changes none of them).
        if (typeof file === 'string' && (file === '.git' || file.startsWith('.git/'))) return;
        this.dirty.add(dir);
        this.lastChange = Date.now();
        this.events.changed(dir);
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.events.settled();
        }, 200);
      });
      w.on('error', () => {
        w.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, w);
    } catch {
      // Not watchable: checked on every pass instead.
    }
  }
}
