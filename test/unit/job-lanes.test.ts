import { describe, expect, it } from 'vitest';
import { QUICK_MS, schedule, startable } from '../../src/local/job-lanes.js';

const LARGE = 40_000;
const SMALL = 1_500;

describe('which job may start beside the running ones', () => {
  it('any job when the indexer is idle', () => {
    expect(startable(LARGE, [], 2)).toBe(true);
    expect(startable(SMALL, [], 1)).toBe(true);
  });

  it('a small one beside a large one with more than twice its time left', () => {
    expect(startable(SMALL, [LARGE], 2)).toBe(true);
    expect(startable(SMALL, [2 * SMALL], 2)).toBe(true);
    expect(startable(QUICK_MS, [LARGE], 2)).toBe(true);
  });

  it('not a large one, nor one alike the running one, nor a third, nor a second on one core', () => {
    expect(startable(LARGE, [LARGE], 2)).toBe(false);
    expect(startable(QUICK_MS + 1, [LARGE], 2)).toBe(false);
    expect(startable(LARGE, [SMALL], 2)).toBe(false);
    expect(startable(SMALL, [SMALL], 2)).toBe(false);
    expect(startable(SMALL, [2 * SMALL - 1], 2)).toBe(false);
    expect(startable(SMALL, [LARGE, LARGE], 2)).toBe(false);
    expect(startable(SMALL, [LARGE], 1)).toBe(false);
  });
});

describe('when each job is expected to end', () => {
  it('a small repository queued behind a running large index ends in its own time, not after it', () => {
    const ends = schedule([{ dir: 'go', rest: 30_000 }], [{ dir: 'small', cost: SMALL }], 2);
    expect(ends.get('go')).toBe(30_000);
    expect(ends.get('small')).toBe(SMALL);
  });

  it('a second large one waits for the first; small ones behind it go first, one at a time beside it', () => {
    const ends = schedule(
      [{ dir: 'a', rest: 20_000 }],
      [
        { dir: 'b', cost: LARGE },
        { dir: 's1', cost: SMALL },
        { dir: 's2', cost: SMALL },
      ],
      2,
    );
    expect(ends.get('s1')).toBe(SMALL);
    expect(ends.get('s2')).toBe(2 * SMALL);
    expect(ends.get('b')).toBe(20_000 + LARGE);
  });

  it('a small one waits when the running one is nearly done, and then goes first', () => {
    const ends = schedule([{ dir: 'a', rest: 2_000 }], [{ dir: 's', cost: SMALL }, { dir: 'b', cost: LARGE }], 2);
    expect(ends.get('s')).toBe(2_000 + SMALL);
    expect(ends.get('b')).toBe(2_000 + SMALL + LARGE);
  });

  it('on one core, one after the other in queue order', () => {
    const ends = schedule([{ dir: 'a', rest: 20_000 }], [{ dir: 's', cost: SMALL }, { dir: 'b', cost: LARGE }], 1);
    expect(ends.get('s')).toBe(20_000 + SMALL);
    expect(ends.get('b')).toBe(20_000 + SMALL + LARGE);
  });

  it('an idle indexer takes the queue head, then small ones beside it', () => {
    const ends = schedule([], [{ dir: 'b', cost: LARGE }, { dir: 's1', cost: SMALL }, { dir: 's2', cost: SMALL }], 2);
    expect(ends.get('b')).toBe(LARGE);
    expect(ends.get('s1')).toBe(SMALL);
    expect(ends.get('s2')).toBe(2 * SMALL);
  });
});
