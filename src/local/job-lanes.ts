/**
 * How many index jobs run at once, and which: a large first index uses every core by itself
 * (its shards are built in parallel, indexer.ts), and two large ones at once took as long in all
 * as one after the other (bench/README.md, "Local mode: two builds at a time"). What a second
 * lane buys is waiting: a small repository or an edit need not wait behind a large index. So a
 * job may start beside a running one when it is small, and small beside what that one has left
 * (at most half of it): two alike go one after the other, as the queue orders them.
 */
import { availableParallelism } from 'node:os';

/** A job expected to take at most this long is small: it may run beside a large one. */
export const QUICK_MS = 10_000;

/** Jobs at once: two where there are two cores or more. */
export const LANES_AT_ONCE = Math.min(2, availableParallelism());

/** Whether a job expected to take `cost` ms may start now, beside the running jobs (the ms each has left). */
export function startable(cost: number, running: readonly number[], lanes: number): boolean {
  if (running.length === 0) return true;
  if (running.length >= lanes) return false;
  return cost <= QUICK_MS && running.every((rest) => cost <= rest / 2);
}

/**
 * When each job ends, in ms from now: the running ones after their `rest`, the queued ones given
 * out in order as they would be (the first startable one whenever a lane is free).
 */
export function schedule(
  running: readonly { dir: string; rest: number }[],
  queued: readonly { dir: string; cost: number }[],
  lanes: number,
): Map<string, number> {
  const ends = new Map<string, number>();
  let busy = running.map((r) => r.rest);
  for (const r of running) ends.set(r.dir, r.rest);
  const pending = [...queued];
  let t = 0;
  while (pending.length) {
    busy = busy.filter((end) => end > t);
    const i = pending.findIndex((q) => startable(q.cost, busy.map((end) => end - t), lanes));
    if (i < 0) {
      // Nothing may start until the first running job ends.
      t = Math.min(...busy);
      continue;
    }
    const [q] = pending.splice(i, 1);
    busy.push(t + q!.cost);
    ends.set(q!.dir, t + q!.cost);
  }
  return ends;
}
