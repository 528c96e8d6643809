/**
 * scripts/setup.sh installs and builds one at a time in a checkout: clients started at once on a
 * fresh clone each run it, and two npm ci at once remove each other's packages. The script runs
 * for real in a folder laid out as a checkout; `npm` is a stand-in on the PATH (a real npm ci
 * takes a minute and the network), which records each call and installs once the test lets it
 * (the file `release` exists), so that the set-ups started together are all under way first,
 * however busy the machine.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/zoekt.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-setup-lock-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A checkout with no npm packages installed, and an `npm` that installs them once `release()` is called. */
function checkout(name: string): { dir: string; calls: () => string[]; env: NodeJS.ProcessEnv; release: () => void } {
  const dir = join(work, name);
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  copyFileSync(join(ROOT, 'scripts/setup.sh'), join(dir, 'scripts/setup.sh'));
  writeFileSync(join(dir, 'package-lock.json'), '{}\n');
  const bin = join(dir, 'fake-bin');
  mkdirSync(bin);
  const log = join(dir, 'npm-calls');
  writeFileSync(
    join(bin, 'npm'),
    `#!/bin/sh\necho "$*" >> '${log}'\nwhile [ ! -e '${join(dir, 'release')}' ]; do sleep 0.05; done\nmkdir -p node_modules\necho '{"packages":{"":{}}}' > node_modules/.package-lock.json\n`,
  );
  chmodSync(join(bin, 'npm'), 0o755);
  return {
    dir,
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []),
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    release: () => writeFileSync(join(dir, 'release'), ''),
  };
}

/** A run of scripts/setup.sh: what it has said so far, and its end. */
function setup(dir: string, env: NodeJS.ProcessEnv, step: string): { said: () => string; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn('bash', [join(dir, 'scripts/setup.sh'), step], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { said: () => stderr, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr }))) };
}

async function waitFor(ok: () => boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error('timed out waiting for the set-ups to wait');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('scripts/setup.sh run several times at once in one checkout', () => {
  it('installs the npm packages once; the others wait for it, then find them installed', async () => {
    const c = checkout('at-once');
    const started = [1, 2, 3].map(() => setup(c.dir, c.env, 'node'));
    // The install goes on until the other two are seen waiting for it.
    await waitFor(() => started.filter((r) => r.said().includes('setup: waiting for another set-up')).length === 2);
    c.release();
    const runs = await Promise.all(started.map((r) => r.done));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(c.calls()).toEqual(['ci --no-audit --no-fund --loglevel=error']);
    expect(runs.filter((r) => r.stderr.includes('setup: installing npm packages'))).toHaveLength(1);
    expect(runs.filter((r) => /setup: waiting for another set-up of this checkout \(pid \d+\) to finish/.test(r.stderr))).toHaveLength(2);
    expect(existsSync(join(c.dir, '.setup.lock')), 'the lock is gone once all are done').toBe(false);
  });

  it('takes over a lock left by a set-up that died', async () => {
    const c = checkout('left-behind');
    // A pid no process has: past the largest pid the kernel gives.
    const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
    mkdirSync(join(c.dir, '.setup.lock'));
    writeFileSync(join(c.dir, '.setup.lock/pid'), `${pidMax + 1}\n`);
    c.release();
    const r = await setup(c.dir, c.env, 'node').done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('waiting for another set-up');
    expect(c.calls()).toHaveLength(1);
    expect(existsSync(join(c.dir, '.setup.lock'))).toBe(false);
  });
});
