/**
 * The supervisor's indexing: the only writer of the shared index folder. Two lanes:
 *
 * - the foreground brings a repository up to date: snapshot, compare with what is indexed, index
 *   the change as a delta, with progress; beside it a second, quick lane takes small jobs, so that
 *   a large first index holds up neither a small repository nor an edit (the supervisor decides);
 * - the background builds one repository whole, beside the index, once it has gathered a few
 *   deltas and nothing has changed for a while. It never holds an edit up: deltas go on in the
 *   foreground meanwhile. When it is done, the foreground adds to it, as one more delta, what
 *   changed since it began, and swaps it in; shard and document counts then fall back to those
 *   of the files.
 *
 * Only when a repository gathers DELTAS_MAX deltas with no background build under way is a
 * change built whole in the foreground.
 */
import { readFileSync, rmSync } from 'node:fs';
import {
  DELTAS_MAX,
  fingerprint,
  hasShards,
  indexerLogFile,
  indexerPidFile,
  LANES,
  type Lane,
  measure,
  pruneShadow,
  shardCount,
  startIndex,
  swapIn,
  wholeBuildDir,
  type IndexerPaths,
} from './indexer.js';
import { IndexerProgress, refreshEstimate } from './indexer-progress.js';
import { QUICK_MS } from './job-lanes.js';
import { describeProcess, stopProcess } from './process-table.js';
import type { RepoEntry } from './repos.js';
import type { RepoProgress } from './status.js';

/** What the state file keeps of one indexed repository. */
export interface Saved {
  fingerprint: string;
  indexed_at: string;
  duration_ms: number;
  bytes: number;
  files?: number;
  /** How long its last delta took: the estimate of the next. */
  delta_ms?: number;
  name: string;
  kind: 'git' | 'dir';
  dir: string;
  /** Shards right after its last whole build: those beyond are deltas. */
  base_shards?: number;
  /** Since when (ISO time) no live client lists it. */
  unlisted_since?: string;
}

/** Deltas after which a repository is built whole in the background once nothing has changed for a while. */
export const WHOLE_AFTER_DELTAS = 3;

/** Indexing speed: the time of a whole index is START_MS + files / files_per_s + bytes / bytes_per_s. */
export interface Speed {
  files_per_s: number;
  bytes_per_s: number;
}

/**
 * Until one is measured: about what a 2-core machine does with its shards built two at a time
 * (Go's source tree, 11,478 files and 133 MB, in 19–22 s when quiet, 25–33 s beside other work;
 * in one shard it took 29–31 s): 27 s for Go's tree.
 */
export const DEFAULT_SPEED: Speed = { files_per_s: 1000, bytes_per_s: 9e6 };
/** zoekt-git-index's own start: opening the repository, the symbol extractor. */
const START_MS = 1000;

export type Check = { kind: 'current'; fp: string } | { kind: 'stale'; fp: string; size: { files: number; bytes: number } } | { kind: 'failed'; error: string };

export type Outcome =
  | { kind: 'indexed'; saved: Saved; duration: number; estimated: number }
  | { kind: 'failed'; error: string }
  | { kind: 'stopped' };

interface Background {
  e: RepoEntry;
  started: number;
  job: ReturnType<typeof startIndex>;
  /** Set when the build has ended. */
  result?: 'built' | 'failed';
}

/** The supervisor's lanes: at most two large jobs and a small one at once (job-lanes.ts). */
const JOB_LANES = ['foreground', 'second', 'quick'] as const;

interface Running {
  job: ReturnType<typeof startIndex>;
  /** No other index ran while it did: its time says how fast this machine indexes. */
  alone: boolean;
}

export class IndexRunner {
  /** The supervisor's jobs under way, by lane (job-lanes.ts says which may run at once). */
  private readonly running = new Map<Exclude<Lane, 'background'>, Running>();
  private background?: Background;
  private stopping = false;
  /** This machine's indexing speed, measured by the whole indexes so far. */
  speed?: Speed;

  constructor(
    private readonly paths: IndexerPaths,
    private readonly say: (msg: string) => void,
    /** Called when a background build ends: the supervisor's loop takes it from there. */
    private readonly backgroundEnded: () => void = () => undefined,
  ) {}

  /**
   * Indexers whose supervisor died (killed outright) may still be writing the index: they are
   * stopped before this supervisor writes there, so that two never write one index.
   */
  async stopLeftovers(): Promise<void> {
    for (const lane of LANES) {
      const file = indexerPidFile(this.paths, lane);
      let pid = NaN;
      try {
        pid = Number(readFileSync(file, 'utf8').trim());
      } catch {
        continue;
      }
      const p = describeProcess(pid);
      if (p && p.args.includes(this.paths.index.replace(/\/index$/, ''))) {
        this.say(`stopping zoekt-git-index ${pid}, left by an earlier supervisor`);
        await stopProcess(pid);
      }
      rmSync(file, { force: true });
    }
  }

  /**
   * Whether `e`'s index holds its files as they are on disk now: the snapshot's fingerprint
   * compared with the one indexed (and, when it does not, how much there is to index).
   */
  async check(e: RepoEntry, saved: Saved | undefined): Promise<Check> {
    let fp: string;
    try {
      fp = await fingerprint(this.paths, e);
    } catch (err) {
      return { kind: 'failed', error: (err as Error).message };
    }
    if (saved && saved.fingerprint === fp && saved.name === e.name && hasShards(this.paths.index, e.name)) return { kind: 'current', fp };
    const size = await measure(this.paths, e, fp).catch(() => ({ files: 0, bytes: 0 }));
    return { kind: 'stale', fp, size };
  }

  /**
   * Milliseconds a first (or whole) index of this many files and bytes takes on this machine, from
   * the speed measured by the whole indexes run so far (a default until the first one).
   */
  estimate(size: { files: number; bytes: number }): number {
    const s = this.speed ?? DEFAULT_SPEED;
    return Math.round(START_MS + (1000 * size.files) / s.files_per_s + (1000 * size.bytes) / s.bytes_per_s);
  }

  /** What indexing `e` at `fp` is expected to take: a delta about as long as its last one, a first index from the measured speed. */
  expected(e: RepoEntry, size: { files: number; bytes: number }, saved: Saved | undefined): number {
    const base = saved?.name === e.name ? (saved.base_shards ?? 1) : 0;
    if (base > 0 && hasShards(this.paths.index, e.name)) return Math.max(500, saved?.delta_ms ?? Math.min(this.estimate(size), 5000));
    return this.estimate(size);
  }

  /** Indexes `e` at the snapshot `fp` (found stale by `check`); `report` hears its progress. */
  async index(e: RepoEntry, fp: string, size: { files: number; bytes: number }, saved: Saved | undefined, report: (p: RepoProgress) => void): Promise<Outcome> {
    const estimated = this.expected(e, size, saved);
    const base = saved?.name === e.name && hasShards(this.paths.index, e.name) ? (saved.base_shards ?? 1) : 0;
    // A whole build in the background will take the deltas in: none in the foreground meanwhile.
    const whole = base > 0 && this.background?.e.dir !== e.dir && shardCount(this.paths.index, e.name) - base >= DELTAS_MAX;
    this.say(`indexing ${e.name} (${e.dir}): ${size.files} files, ${(size.bytes / 1e6).toFixed(1)} MB${whole ? ', built whole' : base ? ', a delta' : ''}, expected ${(estimated / 1000).toFixed(1)} s`);
    const started = Date.now();
    const lane = JOB_LANES.find((l) => !this.running.has(l));
    if (!lane) throw new Error(`${JOB_LANES.length} jobs at once already: ${e.name} must wait`);
    // The indexer's log, read as it grows: its shards finished so far refresh the estimate.
    const log = indexerLogFile(this.paths, lane);
    rmSync(log, { force: true });
    const counted = new IndexerProgress(log);
    const progress = (): RepoProgress => {
      const elapsed = Date.now() - started;
      const refreshed = refreshEstimate(estimated, elapsed, counted.read());
      // Past the estimate: a tenth more of what it took so far, at least a second.
      const expect = elapsed < refreshed ? refreshed : elapsed + Math.max(1000, elapsed / 10);
      return { ...size, elapsed_ms: elapsed, estimated_ms: expect, percent: Math.min(99, Math.floor((100 * elapsed) / Math.max(expect, 1))) };
    };
    report(progress());
    const ticker = setInterval(() => report(progress()), 1000);
    // A first index is whole anyway (nothing to add a delta to): built in place.
    const run: Running = { job: startIndex(this.paths, e, fp, { whole, lane }), alone: this.running.size === 0 };
    for (const other of this.running.values()) other.alone = false;
    this.running.set(lane, run);
    try {
      await run.job.done;
    } catch (err) {
      if (this.stopping) return { kind: 'stopped' };
      this.say(`indexing ${e.name} failed: ${(err as Error).message}`);
      return { kind: 'failed', error: (err as Error).message };
    } finally {
      clearInterval(ticker);
      this.running.delete(lane);
    }
    const duration = Date.now() - started;
    const first = base === 0 || whole;
    // The machine's speed, from whole indexes only (a delta reads the changed files alone).
    // (Not from a small one: its time is mostly the start, which says nothing of the speed; nor
    // from one that shared the machine with another.)
    if (first && run.alone && size.files >= 200 && duration > 2 * START_MS) this.learn(size, duration);
    this.say(`indexed ${e.name} in ${(duration / 1000).toFixed(1)} s (expected ${(estimated / 1000).toFixed(1)} s)`);
    await this.prune(e, size.bytes);
    return {
      kind: 'indexed',
      duration,
      estimated,
      saved: {
        fingerprint: fp,
        indexed_at: new Date().toISOString(),
        // What a whole build of it takes: the estimate of the next first index.
        duration_ms: first || !saved ? duration : saved.duration_ms,
        ...(first ? {} : { delta_ms: duration }),
        bytes: size.bytes,
        files: size.files,
        name: e.name,
        kind: e.kind,
        dir: e.dir,
        base_shards: first ? shardCount(this.paths.index, e.name) : base,
      },
    };
  }

  /**
   * Takes one whole index's figures into the measured speed: files per second and bytes per
   * second, each the share of the time beyond the start-up cost that the default speeds give it,
   * averaged with what was measured before (the newest counting half).
   */
  learn(size: { files: number; bytes: number }, ms: number): void {
    const s = this.speed ?? DEFAULT_SPEED;
    const work = Math.max(100, ms - START_MS);
    const fileMs = (1000 * size.files) / s.files_per_s;
    const byteMs = (1000 * size.bytes) / s.bytes_per_s;
    const k = work / Math.max(1, fileMs + byteMs);
    const measured = { files_per_s: s.files_per_s / k, bytes_per_s: s.bytes_per_s / k };
    this.speed = this.speed
      ? { files_per_s: (this.speed.files_per_s + measured.files_per_s) / 2, bytes_per_s: (this.speed.bytes_per_s + measured.bytes_per_s) / 2 }
      : measured;
    this.say(`indexing speed: ${Math.round(this.speed.files_per_s)} files/s, ${(this.speed.bytes_per_s / 1e6).toFixed(1)} MB/s`);
  }

  /**
   * Whether `e` has gathered deltas enough to be built whole in the background (and none is under
   * way): three, or any when its whole build is a quick job (a small repository), so that once the
   * folders are quiet its shards and counts are those of its files again.
   */
  wantsWholeBuild(e: RepoEntry, saved: Saved | undefined): boolean {
    if (this.background || !saved || saved.name !== e.name) return false;
    const deltas = shardCount(this.paths.index, e.name) - (saved.base_shards ?? 1);
    if (deltas <= 0) return false;
    // duration_ms: what its last whole build took.
    return saved.duration_ms <= QUICK_MS || deltas >= WHOLE_AFTER_DELTAS;
  }

  /** Starts building `e` whole in the background, at the snapshot it is indexed at. */
  startWholeBuild(e: RepoEntry, saved: Saved): void {
    this.say(`building ${e.name} whole in the background (${shardCount(this.paths.index, e.name)} shards)`);
    const bg: Background = { e, started: Date.now(), job: startIndex(this.paths, e, saved.fingerprint, { whole: true, swap: false, lane: 'background' }) };
    this.background = bg;
    bg.job.done.then(
      () => (bg.result = 'built'),
      (err: Error) => {
        bg.result = 'failed';
        if (!this.stopping) this.say(`building ${e.name} whole failed: ${err.message}`);
      },
    ).finally(() => this.backgroundEnded());
  }

  /** The repository of a background build that has ended, if one has. */
  get backgroundDone(): RepoEntry | undefined {
    return this.background?.result ? this.background.e : undefined;
  }

  /**
   * Takes in an ended background build: what changed since it began is added to it as a delta
   * (at `saved`, the snapshot the index holds now), and it is swapped in. Undefined when the
   * build failed or its repository left the list; the build is dropped then.
   */
  async finishWholeBuild(e: RepoEntry | undefined, saved: Saved | undefined): Promise<Saved | undefined> {
    const bg = this.background;
    if (!bg?.result) return undefined;
    this.background = undefined;
    const dir = wholeBuildDir(this.paths, bg.e);
    if (bg.result === 'failed' || !e || !saved || e.dir !== bg.e.dir || e.name !== bg.e.name) {
      rmSync(dir, { recursive: true, force: true });
      return undefined;
    }
    const wholeShards = shardCount(dir, e.name);
    // Called while no job runs (the supervisor's loop, between jobs).
    const run: Running = { job: startIndex(this.paths, e, saved.fingerprint, { whole: false, into: dir }), alone: false };
    this.running.set('foreground', run);
    try {
      await run.job.done;
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      if (!this.stopping) this.say(`bringing the whole build of ${e.name} up to date failed: ${(err as Error).message}`);
      return undefined;
    } finally {
      this.running.delete('foreground');
    }
    swapIn(dir, this.paths.index, e.name);
    const duration = Date.now() - bg.started;
    this.say(`built ${e.name} whole in ${(duration / 1000).toFixed(1)} s, swapped in (${shardCount(this.paths.index, e.name)} shards)`);
    await this.prune(e, saved.bytes);
    return { ...saved, duration_ms: duration, base_shards: wholeShards };
  }

  /** Stops whatever indexer runs (the supervisor is stopping). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const job of [...[...this.running.values()].map((r) => r.job), this.background?.job]) {
      const pid = job?.child?.pid;
      if (pid) await stopProcess(pid);
    }
  }

  /** Old snapshots go, once they take more room than the code; never while a whole build reads them. */
  private async prune(e: RepoEntry, bytes: number): Promise<void> {
    if (this.background?.e.dir === e.dir) return;
    try {
      if (await pruneShadow(this.paths, e, bytes)) this.say(`pruned the snapshots of ${e.name} older than the one indexed`);
    } catch (err) {
      this.say(`pruning the snapshots of ${e.name} failed: ${(err as Error).message}`);
    }
  }
}
