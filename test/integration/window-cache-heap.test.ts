/**
 * `--cache-mb` is a bound on heap bytes: a long run of distinct windows over the Go tree fills the
 * cache, and the heap grows by what the cache counted, never by more than the budget. Measured in
 * a child process with `--expose-gc`, so that the heap figures are live objects only.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { ROOT } from '../support/zoekt.js';

const run = promisify(execFile);
const BUDGET_MB = 8;
// The cache fills within about 150 calls over Go's tree; the rest turn it over several times.
const CALLS = 1000;

describe('window cache budget in heap bytes', () => {
  it('keeps the heap within the budget while a thousand distinct windows turn the cache over, counting what the heap really holds', async () => {
    const { stdout } = await run(process.execPath, ['--expose-gc', join(ROOT, 'test/support/window-heap.mjs')], {
      env: { ...process.env, ZOEKT_URL: inject('goZoektUrl'), SRC_ROOT: inject('goSrcRoot'), BUDGET_MB: String(BUDGET_MB), CALLS: String(CALLS) },
      timeout: 600_000,
      maxBuffer: 1 << 20,
    });
    const r = JSON.parse(stdout) as { budget: number; calls: number; filledAt: number; grown: number; held: number; counted: number; left: Record<string, number> };
    const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
    console.log(`window cache: ${r.calls} calls (full after ${r.filledAt}), counted ${mib(r.counted)}, holding ${mib(r.held)}, heap grew ${mib(r.grown)} over the run (${mib(r.grown - r.held)} outside the cache: ${JSON.stringify(r.left)}), budget ${mib(r.budget)}`);
    expect(r.calls).toBeGreaterThanOrEqual(CALLS);
    // The run fills the cache early and then evicts for the rest of it, several times over, so
    // the bound is what keeps the heap in check.
    expect(r.filledAt).toBeGreaterThan(0);
    expect(r.calls).toBeGreaterThanOrEqual(5 * r.filledAt);
    expect(r.counted).toBeGreaterThan(0.8 * r.budget);
    expect(r.counted).toBeLessThanOrEqual(r.budget);
    // What the cache counts is what the heap holds, within 20%.
    expect(r.held).toBeGreaterThan(0.8 * r.counted);
    expect(r.held).toBeLessThan(1.2 * r.counted);
    // The run as a whole: the heap ends within the budget of where it started, with the same 20%
    // allowed for what the cache holds over what it counts (the bound above); nothing else of the
    // run stays behind (the cache's own bookkeeping keeps the room it grew to).
    expect(r.grown).toBeLessThan(r.budget * 1.2);
    expect(r.grown - r.held).toBeLessThan(r.budget * 0.25);
  }, 660_000);
});
