/**
 * Which index jobs run at once. A first index uses the cores by itself (its shards are built in
 * parallel, indexer.ts), yet not all of them all the time: on 2 cores two copies of Go's tree took
 * 34 s at once against 39 s one after the other (bench/README.md, "Local mode: two builds at a
 * time"). At once, though, each ends later than alone (34 s, not 20 s). So:
 * - a small job (at most QUICK_MS, and at most half of what each running job has left) starts
 *   beside whatever runs, one at a time: a small repository or an edit never waits behind a large
 *   index;
 * - two large ones run at once only when one client lists both (it needs both before its first
 *   complete answer, and gets it sooner); for different clients they go one after the other, so
 *   that the first ends in its own time (the queue puts the client with the least left first);
 * - only a small job goes ahead of the queue's head: a large one never overtakes what was queued
 *   before it.
 * On one core, one job at a time.
 */
import { availableParallelism } from 'node:os';

/** A job expected to take at most this long is small: it may run beside a large one. */
export const QUICK_MS = 10_000;

/** Two cores or more: jobs may run side by side. */
export const SIDE_BY_SIDE = availableParallelism() >= 2;

export interface LaneJob {
  /** Expected length (ms). */
  cost: number;
  /** The clients whose lists hold its repository. */
  clients: readonly string[];
}

export interface RunningJob extends LaneJob {
  /** What it has left (ms). */
  rest: number;
}

const isSmall = (j: LaneJob) => j.cost <= QUICK_MS;

/** Whether `job` may start now, beside the running jobs. */
export function startable(job: LaneJob, running: readonly RunningJob[], sideBySide = SIDE_BY_SIDE): boolean {
  if (running.length === 0) return true;
  if (!sideBySide) return false;
  // A small one: beside anything, one at a time, when it ends well before each running job.
  if (isSmall(job) && !running.some(isSmall) && running.every((r) => job.cost <= r.rest / 2)) return true;
  // Otherwise as a large one: never a third, and beside a large one only of a client that lists both.
  if (running.length >= 2) return false;
  const large = running.filter((r) => !isSmall(r));
  return large.length === 0 || large[0]!.clients.some((c) => job.clients.includes(c));
}

/** Which of the queue (in its order) starts now: the head, or a small one further on; -1 for none. */
export function pick(queue: readonly LaneJob[], running: readonly RunningJob[], sideBySide = SIDE_BY_SIDE): number {
  return queue.findIndex((q, i) => (i === 0 || isSmall(q)) && startable(q, running, sideBySide));
}

/**
 * When each job ends, in ms from now: the running ones after their `rest`, the queued ones given
 * out in order as next() gives them (the first startable one, whenever one is).
 */
export function schedule(
  running: readonly (RunningJob & { dir: string })[],
  queued: readonly (LaneJob & { dir: string })[],
  sideBySide = SIDE_BY_SIDE,
): Map<string, number> {
  const ends = new Map<string, number>();
  let busy = running.map((r) => ({ ...r, end: r.rest }));
  for (const r of running) ends.set(r.dir, r.rest);
  const pending = [...queued];
  let t = 0;
  while (pending.length) {
    busy = busy.filter((b) => b.end > t);
    const now = busy.map((b) => ({ ...b, rest: b.end - t }));
    const i = pick(pending, now, sideBySide);
    if (i < 0) {
      // Nothing may start until the first running job ends.
      t = Math.min(...busy.map((b) => b.end));
      continue;
    }
    const [q] = pending.splice(i, 1);
    busy.push({ ...q!, rest: q!.cost, end: t + q!.cost });
    ends.set(q!.dir, t + q!.cost);
  }
  return ends;
}
