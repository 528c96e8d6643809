/**
 * Admission control: at most `maxInFlight` tool calls run at once in this process and at most
 * `maxQueue` wait for a turn. Past that a call is refused at once with OVERLOADED and a
 * retry_after_ms worked out from how fast calls have been finishing, instead of joining a queue
 * that only grows. A queued call whose deadline or client goes away leaves the queue with
 * TIMEOUT: the deadline is what ran out, and retry_after_ms still says when a turn is likely.
 */
import { ToolError } from '../errors.js';

export interface AdmissionLimits {
  maxInFlight: number;
  maxQueue: number;
}

interface Waiter {
  admit: () => void;
}

/** A smoothed call duration to start from, before any call has finished. */
const INITIAL_CALL_MS = 200;
const MIN_RETRY_AFTER_MS = 100;
const MAX_RETRY_AFTER_MS = 30_000;

export class Admission {
  private running = 0;
  private readonly queue: Waiter[] = [];
  private averageMs = INITIAL_CALL_MS;

  constructor(readonly limits: AdmissionLimits) {}

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.queue.length;
  }

  /**
   * Waits for a turn; resolves with the function that gives it back (call it exactly once).
   * Rejects with OVERLOADED when the queue is full, with TIMEOUT when `signal` aborts while waiting.
   */
  async enter(signal: AbortSignal): Promise<() => void> {
    if (this.running < this.limits.maxInFlight) return this.take();
    if (this.queue.length >= this.limits.maxQueue) throw this.overloaded('the queue of waiting calls is full');
    if (signal.aborted) throw this.expired(0);
    const queuedAt = Date.now();
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        reject(this.expired(Date.now() - queuedAt));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
    // The slot was handed over by release(): `running` already counts it.
    return this.releaser(Date.now());
  }

  private take(): () => void {
    this.running++;
    return this.releaser(Date.now());
  }

  private releaser(started: number): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      // A slow average makes retry hints long; one call weighs a tenth.
      this.averageMs = this.averageMs * 0.9 + (Date.now() - started) * 0.1;
      const next = this.queue.shift();
      if (next) next.admit();
      else this.running--;
    };
  }

  /** How long until a call sent now would likely get a turn. */
  retryAfterMs(): number {
    const ahead = this.queue.length + 1;
    const estimate = Math.ceil((ahead * this.averageMs) / Math.max(1, this.limits.maxInFlight));
    return Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, estimate));
  }

  private expired(waitedMs: number): ToolError {
    const retryAfterMs = this.retryAfterMs();
    return new ToolError(
      'TIMEOUT',
      `the call's deadline ran out after ${waitedMs} ms waiting for a turn: the server is busy (${this.running} calls running, ${this.queue.length} waiting)`,
      `Retry after ${retryAfterMs} ms, or narrow the call so it finishes sooner.`,
      { retryAfterMs },
    );
  }

  private overloaded(why: string): ToolError {
    const retryAfterMs = this.retryAfterMs();
    return new ToolError(
      'OVERLOADED',
      `server busy: ${why} (${this.running} calls running, ${this.queue.length} waiting)`,
      `Retry after ${retryAfterMs} ms. Calls that are narrower (a repo or lang filter, a smaller limit) finish sooner and free the server faster.`,
      { retryAfterMs },
    );
  }
}
