/**
 * Two clients started at once against a cold data folder, one listing two large trees (copies of
 * parts of Go's source) and one a small repository: each client's time to its first complete
 * answer is printed (no timed assertions), the small one never waits for a job that had not
 * begun when it was queued (which client's request reaches the supervisor first is a race: a
 * large job may be under way already, and the small one then runs beside it or right after it),
 * and
 * each `retry_after_s` an answer gave is compared with the time it actually took.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { gitIn, spawnServe, supervisorGone, supervisorStatus, waitFor, type LocalClient } from '../support/local.js';
import { call, failed } from '../support/mcp.js';
import { goEnv } from '../support/goroot.js';
import { FIXTURES } from '../support/zoekt.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-fair-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A copy of a tree of Go's source that costs no copying: hard links (nothing here writes to the
 * files, only reads them), or a copy where the two are on different file systems. Copying Go's
 * cmd tree took 3.5 s of CPU.
 */
function linkCopy(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    execFileSync('cp', ['-al', from, to], { stdio: 'ignore' });
  } catch {
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true });
  }
}

function gitRepo(from: string, dir: string, name: string): string {
  if (from !== dir) cpSync(from, dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'config', 'zoekt.name', name);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

interface Timeline {
  /** Milliseconds from the spawn to the first complete answer. */
  complete?: number;
  /** Each retry hint given on the way: when (ms from spawn) and how long it said. */
  hints: { at: number; retryS: number }[];
}

/** Searches until the answer is complete and every repository current; records the retry hints. */
async function untilComplete(c: LocalClient, query: string, t0: number): Promise<Timeline> {
  const line: Timeline = { hints: [] };
  for (;;) {
    const res = await call(c.client, 'search_code', { query, context_lines: 0, limit: 5 });
    const at = performance.now() - t0;
    if (res.isError) {
      const err = failed(res);
      expect(err.code).toBe('UNAVAILABLE');
      const m = /Retry the same call in about (\d+) (s|min)/.exec(err.hint ?? '');
      if (m) line.hints.push({ at, retryS: Number(m[1]) * (m[2] === 'min' ? 60 : 1) });
    } else {
      const out = res.structuredContent as unknown as CodeSearchOutput;
      const ages = out.index_age ?? [];
      for (const a of ages) if (a.retry_after_s !== undefined) line.hints.push({ at, retryS: a.retry_after_s });
      if (!out.partial && ages.every((a) => a.state === 'current')) {
        line.complete = at;
        return line;
      }
    }
    if (at > 600_000) throw new Error('no complete answer in 10 min');
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('two clients, a large list and a small one, on a cold data folder', () => {
  it('the small one waits for no large job queued after it; times to the first complete answer and estimate ratios printed', async () => {
    const goroot = goEnv('GOROOT');
    const large1 = join(work, 'large1');
    const large2 = join(work, 'large2');
    linkCopy(join(goroot, 'src/crypto'), join(large1, 'crypto'));
    linkCopy(join(goroot, 'src/net'), join(large2, 'net'));
    gitRepo(large1, large1, 'go/large1');
    gitRepo(large2, large2, 'go/large2');
    const small = gitRepo(join(FIXTURES, 'gosvc'), join(work, 'small'), 'acme/small');
    const data = join(work, 'data');
    const list = join(work, 'large-list');
    writeFileSync(list, `${large1}\n${large2}\n`);
    const t0 = performance.now();
    const [a, b] = await Promise.all([spawnServe({ data, repos: list }), spawnServe({ data, repos: small })]);
    try {
      const [la, lb] = await Promise.all([untilComplete(a, 'func', t0), untilComplete(b, 'package', t0)]);
      const log = readFileSync(join(data, 'supervisor.log'), 'utf8');
      process.stderr.write(`${log.split('\n').filter((l) => /indexing|indexed|speed|estimate ratio/.test(l)).join('\n')}\n`);
      for (const [who, l] of [['large (crypto, net of GOROOT)', la], ['small (gosvc)', lb]] as const) {
        process.stderr.write(`${who}: first complete answer ${(l.complete! / 1000).toFixed(1)} s after the spawn\n`);
        for (const h of l.hints) {
          const actual = (l.complete! - h.at) / 1000;
          process.stderr.write(`  at ${(h.at / 1000).toFixed(1)} s: retry in ${h.retryS} s; it took ${actual.toFixed(1)} s (ratio ${(h.retryS / Math.max(actual, 0.25)).toFixed(2)})\n`);
        }
      }
      // Once queued, the small repository waited for no large job that had not started yet (a
      // large one never overtakes the queue; it may run beside one that had, or start at once).
      const lines = log.split('\n');
      const queued = lines.findIndex((l) => /queued acme\/small:/.test(l));
      const started = lines.findIndex((l) => /indexing acme\/small /.test(l));
      expect(queued).toBeGreaterThan(-1);
      expect(started).toBeGreaterThan(queued);
      expect(lines.slice(queued, started).filter((l) => /indexing go\/large/.test(l))).toEqual([]);
      for (const name of ['acme/small', 'go/large1', 'go/large2']) expect(log).toContain(`indexed ${name} in`);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 900_000);
});

describe('a small repository listed while a large first index runs', () => {
  it('is indexed beside it, not after it', async () => {
    // Go's cmd tree: 4,355 files, 54 MB, expected to take well over the small one's time.
    linkCopy(join(goEnv('GOROOT'), 'src/cmd'), join(work, 'cmd'));
    const large = gitRepo(join(work, 'cmd'), join(work, 'cmd'), 'go/cmd');
    const small = gitRepo(join(FIXTURES, 'pytools'), join(work, 'small2'), 'acme/small2');
    const data = join(work, 'data-beside');
    const a = await spawnServe({ data, repos: large });
    let b: LocalClient | undefined;
    try {
      await waitFor('the large index under way', async () => (await supervisorStatus(data))?.repos.some((r) => r.name === 'go/cmd' && r.state === 'indexing'));
      b = await spawnServe({ data, repos: small });
      const lb = await untilComplete(b, 'def', performance.now());
      expect(lb.complete).toBeDefined();
      // Begun and ended while the large one ran: it is still indexing now. (That a large list's
      // clients get their complete answer is the test above; this one stops mid-build, which the
      // supervisor's shutdown must survive.)
      expect((await supervisorStatus(data))?.repos.find((r) => r.name === 'go/cmd')?.state).toBe('indexing');
      const log = readFileSync(join(data, 'supervisor.log'), 'utf8');
      process.stderr.write(`${log.split('\n').filter((l) => /indexing|indexed/.test(l)).join('\n')}\n`);
      const smallStart = log.search(/indexing acme\/small2 /);
      const smallDone = log.search(/indexed acme\/small2 in/);
      expect(smallStart).toBeGreaterThan(-1);
      expect(smallDone).toBeGreaterThan(smallStart);
    } finally {
      await Promise.all([a.close(), b?.close()]);
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 900_000);
});
