import { describe, expect, it } from 'vitest';
import { pick, QUICK_MS, schedule, startable, type LaneJob } from '../../src/local/job-lanes.js';

const large = (...clients: string[]): LaneJob => ({ cost: 40_000, clients });
const small = (...clients: string[]): LaneJob => ({ cost: 1_500, clients });
const running = (j: LaneJob, rest: number) => ({ ...j, rest });

describe('which job may start beside the running ones', () => {
  it('any job when the indexer is idle', () => {
    expect(startable(large('a'), [])).toBe(true);
    expect(startable(small('b'), [], false)).toBe(true);
  });

  it('a small one beside a large one with more than twice its time left, one small at a time', () => {
    expect(startable(small('b'), [running(large('a'), 30_000)], true)).toBe(true);
    expect(startable({ cost: QUICK_MS, clients: ['b'] }, [running(large('a'), 30_000)], true)).toBe(true);
    expect(startable(small('b'), [running(large('a'), 30_000), running(large('a'), 30_000)], true)).toBe(true);
    expect(startable(small('b'), [running(large('a'), 30_000), running(small('c'), 1_000)], true)).toBe(false);
    expect(startable(small('b'), [running(large('a'), 2_000)], true)).toBe(false);
  });

  it('two large ones at once only for a client that lists both', () => {
    expect(startable(large('a'), [running(large('a', 'b'), 30_000)], true)).toBe(true);
    expect(startable(large('b'), [running(large('a'), 30_000)], true)).toBe(false);
    expect(startable(large('a'), [running(large('a'), 30_000), running(large('a'), 30_000)], true)).toBe(false);
    // A large one beside a small one that is running.
    expect(startable(large('b'), [running(small('a'), 1_000)], true)).toBe(true);
  });

  it('one at a time on one core', () => {
    expect(startable(small('b'), [running(large('a'), 30_000)], false)).toBe(false);
    expect(startable(large('a'), [running(large('a'), 30_000)], false)).toBe(false);
  });
});

describe('when each job is expected to end', () => {
  it('a small repository queued behind a running large index ends in its own time, not after it', () => {
    const ends = schedule([{ dir: 'go', ...running(large('a'), 30_000) }], [{ dir: 'small', ...small('b') }], true);
    expect(ends.get('go')).toBe(30_000);
    expect(ends.get('small')).toBe(1_500);
  });

  it("another client's large one waits for the first; small ones behind it go first, one at a time", () => {
    const ends = schedule(
      [{ dir: 'a', ...running(large('a'), 20_000) }],
      [
        { dir: 'b', ...large('b') },
        { dir: 's1', ...small('c') },
        { dir: 's2', ...small('d') },
      ],
      true,
    );
    expect(ends.get('s1')).toBe(1_500);
    expect(ends.get('s2')).toBe(3_000);
    expect(ends.get('b')).toBe(20_000 + 40_000);
  });

  it("the same client's second large one starts at once", () => {
    const ends = schedule([{ dir: 'a', ...running(large('x'), 20_000) }], [{ dir: 'b', ...large('x') }], true);
    expect(ends.get('b')).toBe(40_000);
  });

  it('on one core, one after the other in queue order', () => {
    const ends = schedule([{ dir: 'a', ...running(large('x'), 20_000) }], [{ dir: 's', ...small('y') }, { dir: 'b', ...large('x') }], false);
    expect(ends.get('s')).toBe(21_500);
    expect(ends.get('b')).toBe(61_500);
  });
});

describe('what the queue gives out', () => {
  it('its head, or a small one further on; a large one never overtakes the head', () => {
    const busy = [running(large('a'), 30_000)];
    expect(pick([large('b'), small('c')], busy, true)).toBe(1);
    expect(pick([small('c'), large('a')], busy, true)).toBe(0);
    // The same client's second large one may not overtake another client's head either.
    expect(pick([large('b'), large('a')], busy, true)).toBe(-1);
    expect(pick([large('a'), large('b')], busy, true)).toBe(0);
    expect(pick([large('b')], [], true)).toBe(0);
  });
});
