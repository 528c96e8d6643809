import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { Admission } from '../../src/server/admission.js';

const never = new AbortController().signal;

describe('Admission', () => {
  it('runs up to maxInFlight at once, queues up to maxQueue, refuses the rest with OVERLOADED and retry_after_ms', async () => {
    const a = new Admission({ maxInFlight: 2, maxQueue: 1 });
    const r1 = await a.enter(never);
    const r2 = await a.enter(never);
    expect(a.inFlight).toBe(2);
    let third: (() => void) | undefined;
    const waiting = a.enter(never).then((r) => (third = r));
    expect(a.queued).toBe(1);
    const refused = await a.enter(never).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ToolError);
    const err = refused as ToolError;
    expect(err.code).toBe('OVERLOADED');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBeGreaterThanOrEqual(100);
    expect(err.toJSON().retry_after_ms).toBe(err.retryAfterMs);
    expect(err.hint).toContain(`${err.retryAfterMs} ms`);

    expect(third).toBeUndefined();
    r1();
    await waiting;
    // The slot went to the waiting call: still two running, nobody waiting.
    expect(third).toBeTypeOf('function');
    expect(a.inFlight).toBe(2);
    expect(a.queued).toBe(0);
    r1(); // giving a slot back twice does nothing
    expect(a.inFlight).toBe(2);
    r2();
    third!();
    expect(a.inFlight).toBe(0);
  });

  it('a queued call whose deadline runs out leaves the queue with TIMEOUT (and retry_after_ms) and takes no slot', async () => {
    const a = new Admission({ maxInFlight: 1, maxQueue: 5 });
    const r1 = await a.enter(never);
    const ac = new AbortController();
    const queued = a.enter(ac.signal).catch((e: unknown) => e);
    expect(a.queued).toBe(1);
    ac.abort();
    const err = (await queued) as ToolError;
    expect(err.code).toBe('TIMEOUT');
    expect(err.message).toContain('waiting for a turn');
    expect(err.retryAfterMs).toBeGreaterThanOrEqual(100);
    expect(a.queued).toBe(0);
    r1();
    expect(a.inFlight).toBe(0);
  });

  it('with maxQueue 0 a call beyond the limit is refused at once', async () => {
    const a = new Admission({ maxInFlight: 1, maxQueue: 0 });
    const r = await a.enter(never);
    await expect(a.enter(never)).rejects.toMatchObject({ code: 'OVERLOADED' });
    r();
    const again = await a.enter(never);
    again();
  });
});
