/**
 * The deadline of the tool call being served. One call has one deadline that covers its time in
 * the queue, every Zoekt request it makes and the reply; code that sends a request reads how much
 * of it is left here rather than starting a fresh timeout of its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<number>();

/** Runs `fn` with `deadline` (epoch ms) as the current call's deadline. */
export function withDeadline<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
  return current.run(deadline, fn);
}

/** The earlier of `fallback` and the current call's deadline. */
export function deadlineWithin(fallback: number): number {
  const d = current.getStore();
  return d === undefined ? fallback : Math.min(d, fallback);
}
