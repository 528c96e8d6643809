/**
 * The supervisor's indexing: one job at a time over the shared index folder (the supervisor is
 * its only writer). A job brings one repository up to date: snapshot, compare with what is
 * indexed, index the change as a delta (or build it whole), with progress. When nothing has
 * changed for a while, a repository with several deltas is built whole in the background and
 * swapped in, so that a later edit is not the one that waits for a whole build; a change that
 * comes meanwhile stops that build (it is done again later), so an edit never waits for it.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DELTA_SHARDS_MAX, fingerprint, hasShards, indexerPidFile, measure, pruneShadow, shardCount, startIndex, type IndexerPaths } from './indexer.js';
import { describeProcess, stopProcess } from './process-table.js';
import type { RepoEntry } from './repos.js';
import type { RepoProgress } from './status.js';

/** What the state file keeps of one indexed repository. */
export interface Saved {
  fingerprint: string;
  indexed_at: string;
  duration_ms: number;
  bytes: number;
  name: string;
  kind: 'git' | 'dir';
  dir: string;
  /** Shards right after its last whole build: those beyond are deltas. */
  base_shards?: number;
  /** Since when no live client lists it (ISO time). */
  unlisted_since?: string;
}

/** Deltas after which a repository is built whole once nothing has changed for a while (idleBuildMs). */
export const COMPACT_AFTER_DELTAS = 3;

export type Outcome =
  | { kind: 'current'; saved: Saved }
  | { kind: 'indexed'; saved: Saved; duration: number }
  | { kind: 'failed'; error: string }
  | { kind: 'stopped' };

export class IndexRunner {
  private job?: { started: ReturnType<typeof startIndex>; compaction: boolean; stopped?: boolean };
  /** Bytes indexed per millisecond, measured: the first estimate of an unknown repository. */
  rate?: number;

  constructor(
    private readonly paths: IndexerPaths,
    private readonly say: (msg: string) => void,
  ) {}

  /**
   * An indexer whose supervisor died (killed outright) may still be writing the index: it is
   * stopped before this supervisor writes there, so that two indexers never write one index.
   */
  async stopLeftover(): Promise<void> {
    const file = indexerPidFile(this.paths);
    let pid = NaN;
    try {
      pid = Number(readFileSync(file, 'utf8').trim());
    } catch {
      return;
    }
    const p = describeProcess(pid);
    if (p && p.args.includes(this.paths.index)) {
      this.say(`stopping zoekt-git-index ${pid}, left by an earlier supervisor`);
      await stopProcess(pid);
    }
    rmSync(file, { force: true });
  }

  /** Brings `e` up to date, if it is not; `report` hears its progress. */
  async refresh(e: RepoEntry, saved: Saved | undefined, report: (p: { progress?: RepoProgress; checked: true }) => void): Promise<Outcome> {
    let fp: string;
    try {
      fp = await fingerprint(this.paths, e);
    } catch (err) {
      return { kind: 'failed', error: (err as Error).message };
    }
    report({ checked: true });
    if (saved && saved.fingerprint === fp && saved.name === e.name && hasShards(this.paths.index, e.name)) return { kind: 'current', saved };
    const size = await measure(this.paths, e, fp).catch(() => ({ files: 0, bytes: 0 }));
    const estimated =
      saved && saved.bytes > 0 ? Math.round((saved.duration_ms * Math.max(size.bytes, 1)) / saved.bytes) : Math.round(size.bytes / (this.rate ?? 2000)) + 1000;
    const base = saved?.name === e.name ? (saved.base_shards ?? 1) : 0;
    const deltas = shardCount(this.paths.index, e.name) - base;
    // Past DELTA_SHARDS_MAX shards the change is built whole rather than added (see indexer.ts).
    const whole = base === 0 || base + deltas >= DELTA_SHARDS_MAX;
    this.say(`indexing ${e.name} (${e.dir}): ${size.files} files, ${(size.bytes / 1e6).toFixed(1)} MB${whole && base ? ', built whole' : ''}`);
    const started = Date.now();
    const progress = (): RepoProgress => {
      const elapsed = Date.now() - started;
      return { ...size, elapsed_ms: elapsed, estimated_ms: Math.max(estimated, elapsed), percent: Math.min(99, Math.floor((100 * elapsed) / Math.max(estimated, 1))) };
    };
    report({ progress: progress(), checked: true });
    const ticker = setInterval(() => report({ progress: progress(), checked: true }), 1000);
    try {
      // A first index is whole anyway (nothing to add a delta to): built in place.
      const done = await this.run(e, fp, base === 0 ? {} : { whole }, false);
      if (done === 'stopped') return { kind: 'stopped' };
    } catch (err) {
      this.say(`indexing ${e.name} failed: ${(err as Error).message}`);
      return { kind: 'failed', error: (err as Error).message };
    } finally {
      clearInterval(ticker);
    }
    const duration = Date.now() - started;
    if (size.bytes > 1e6) this.rate = size.bytes / duration;
    this.say(`indexed ${e.name} in ${(duration / 1000).toFixed(1)} s`);
    await this.prune(e, size.bytes);
    const next: Saved = {
      fingerprint: fp,
      indexed_at: new Date().toISOString(),
      duration_ms: whole || !saved ? duration : saved.duration_ms,
      bytes: size.bytes,
      name: e.name,
      kind: e.kind,
      dir: e.dir,
      base_shards: whole ? shardCount(this.paths.index, e.name) : base,
    };
    return { kind: 'indexed', saved: next, duration };
  }

  /** Whether `e` has deltas enough to be built whole while nothing changes. */
  wantsCompaction(e: RepoEntry, saved: Saved | undefined): boolean {
    if (!saved || saved.name !== e.name) return false;
    return shardCount(this.paths.index, e.name) - (saved.base_shards ?? 1) >= COMPACT_AFTER_DELTAS;
  }

  /**
   * Builds `e` whole at the snapshot it is indexed at, and swaps it in. Resolves with the new
   * saved state, or undefined when stopped by a change (see stopCompaction) or failed.
   */
  async compact(e: RepoEntry, saved: Saved): Promise<Saved | undefined> {
    const started = Date.now();
    this.say(`building ${e.name} whole while nothing changes (${shardCount(this.paths.index, e.name)} shards)`);
    try {
      if ((await this.run(e, saved.fingerprint, { whole: true }, true)) === 'stopped') {
        this.say(`building ${e.name} whole: stopped by a change, done again later`);
        return undefined;
      }
    } catch (err) {
      this.say(`building ${e.name} whole failed: ${(err as Error).message}`);
      return undefined;
    }
    const duration = Date.now() - started;
    this.say(`built ${e.name} whole in ${(duration / 1000).toFixed(1)} s`);
    return { ...saved, duration_ms: duration, base_shards: shardCount(this.paths.index, e.name) };
  }

  /** A change came: a whole build done only to tidy up stops (the change is indexed first). */
  stopCompaction(): void {
    const job = this.job;
    if (!job?.compaction || job.stopped) return;
    job.stopped = true;
    const pid = job.started.child?.pid;
    if (pid) void stopProcess(pid);
  }

  /** Stops whatever indexer runs (the supervisor is stopping). */
  async stop(): Promise<void> {
    const job = this.job;
    if (!job) return;
    job.stopped = true;
    const pid = job.started.child?.pid;
    if (pid) await stopProcess(pid);
  }

  private async run(e: RepoEntry, fp: string, opts: { whole?: boolean }, compaction: boolean): Promise<'done' | 'stopped'> {
    const job: NonNullable<IndexRunner['job']> = { started: startIndex(this.paths, e, fp, opts), compaction };
    this.job = job;
    try {
      await job.started.done;
      return 'done';
    } catch (err) {
      if (job.stopped) return 'stopped';
      throw err;
    } finally {
      if (this.job === job) this.job = undefined;
      // A whole build stopped half-way leaves its folder; the next one starts afresh anyway.
      if (job.stopped) rmSync(join(this.paths.index, '..', 'whole-build'), { recursive: true, force: true });
    }
  }

  private async prune(e: RepoEntry, bytes: number): Promise<void> {
    try {
      if (await pruneShadow(this.paths, e, bytes)) this.say(`pruned the snapshots of ${e.name} older than the one indexed`);
    } catch (err) {
      this.say(`pruning the snapshots of ${e.name} failed: ${(err as Error).message}`);
    }
  }
}
