/**
 * The server's heap margin (src/heap.ts): with tens of MiB kept alive and large answers read and
 * dropped, V8 keeps the heap near what is live instead of letting it grow to several times that;
 * a margin given on node's own command line is left alone. Measured in child processes.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/zoekt.js';

const run = promisify(execFile);

async function maxHeapMiB(nodeArgs: string[], mode: 'on' | 'off'): Promise<number> {
  const { stdout } = await run(process.execPath, [...nodeArgs, join(ROOT, 'test/support/heap-growth.mjs'), mode], { timeout: 60_000 });
  return (JSON.parse(stdout) as { maxTotalMiB: number }).maxTotalMiB;
}

describe('heap margin', () => {
  it('keeps the heap near the live set under large short-lived answers, unless node was given its own margin', async () => {
    const without = await maxHeapMiB([], 'off');
    const withMargin = await maxHeapMiB([], 'on');
    const own = await maxHeapMiB(['--heap-growing-percent=300'], 'on');
    console.log(`largest heap: ${without.toFixed(0)} MiB by default, ${withMargin.toFixed(0)} MiB with the margin, ${own.toFixed(0)} MiB with node's own --heap-growing-percent=300; about 60 MiB live`);
    expect(withMargin).toBeLessThan(0.6 * without);
    // About 60 MiB live, the answer held, a 50% margin, and the young generation (up to 48 MiB).
    expect(withMargin).toBeLessThan(180);
    expect(own).toBeGreaterThan(1.5 * withMargin);
  }, 120_000);
});
