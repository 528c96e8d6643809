/**
 * How far V8 lets the heap grow past what survived the last full collection.
 *
 * By default V8 sets the next collection at 1.1–4× the live heap, and returns little of it to
 * the system afterwards. This server keeps tens of MiB alive in its window cache and reads
 * answers of megabytes that die at once, so its RSS grew to several times what was live. A fixed
 * margin of 50% holds it much nearer, for a few percent more CPU time; 25% cost markedly more CPU
 * on runs of large symbol windows (bench/README.md, "Heap margin", has the figures). It is a
 * trigger, not a cap: a burst of large answers still gets the memory it needs.
 *
 * The flag replaces V8's own margins in every mode, the smaller ones too (near the heap limit,
 * and for small heap limits). So a heap limited by `--max-old-space-size` under 1 GiB keeps V8's
 * behaviour, and so does a process started with its own margin (`--heap-growing-percent=0` is
 * V8's default).
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;
const SMALL_HEAP_LIMIT = 1024 * 1024 * 1024;

/** Sets the margin; returns whether it did. */
export function keepHeapNearLive(execArgv: string[] = process.execArgv): boolean {
  if (execArgv.some((a) => a.startsWith('--heap-growing-percent') || a.startsWith('--heap_growing_percent'))) return false;
  if (getHeapStatistics().heap_size_limit < SMALL_HEAP_LIMIT) return false;
  // Read by V8 at every full collection, so setting it after start-up takes effect.
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
