/**
 * The server's heap margin (src/heap.ts): with tens of MiB kept alive and large answers read and
 * dropped, V8 keeps the heap near what is live instead of letting it grow to several times that;
 * a margin given on node's own command line, and a small heap limit, are left alone. Measured in
 * child processes with a fixed heap limit (NODE_OPTIONS from the environment left out).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/zoekt.js';

const run = promisify(execFile);

/** `rounds` 0: only whether the margin was applied, with no answers read. */
async function heap(nodeArgs: string[], mode: 'on' | 'off', rounds = 300): Promise<{ maxTotalMiB: number; applied: boolean }> {
  const { stdout } = await run(process.execPath, [...nodeArgs, join(ROOT, 'test/support/heap-growth.mjs'), mode, String(rounds)], {
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as { maxTotalMiB: number; applied: boolean };
}

describe('heap margin', () => {
  it('keeps the heap near the live set under large short-lived answers, unless node was given its own margin or a small heap', async () => {
    const big = ['--max-old-space-size=4096'];
    const without = await heap(big, 'off');
    const withMargin = await heap(big, 'on');
    const own = await heap([...big, '--heap-growing-percent=300'], 'on');
    const small = await heap(['--max-old-space-size=512'], 'on', 0);
    console.log(
      `largest heap, about 60 MiB live: ${without.maxTotalMiB.toFixed(0)} MiB by default, ${withMargin.maxTotalMiB.toFixed(0)} MiB with the margin, ` +
        `${own.maxTotalMiB.toFixed(0)} MiB with node's own --heap-growing-percent=300`,
    );
    expect(withMargin.applied).toBe(true);
    expect(withMargin.maxTotalMiB).toBeLessThan(0.6 * without.maxTotalMiB);
    expect(own.applied).toBe(false);
    expect(own.maxTotalMiB).toBeGreaterThan(1.5 * withMargin.maxTotalMiB);
    expect(small.applied).toBe(false);
  }, 120_000);
});
