/**
 * Queries whose planning alone would keep Zoekt busy long after the call (deep grouping grows
 * Zoekt's simplification exponentially) are refused before they are sent: the answer names the
 * limit, and Zoekt's CPU time stays flat across the call and after it. Zoekt here is a
 * zoekt-webserver of this test's own over the fixture index, so its CPU time is the test's
 * calls and nothing else.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { QUERY_LIMITS } from '../../src/zoekt/query-bounds.js';
import { call, connectStdio, failed, ok, type Connected } from '../support/mcp.js';
import { startWebserver, type RunningZoekt } from '../support/zoekt.js';
import { nested } from '../support/refusals.js';

let zoekt: RunningZoekt;
let mcp: Connected;
beforeAll(async () => {
  zoekt = await startWebserver({ indexDir: inject('indexDir'), expectRepos: inject('repos').length });
  mcp = await connectStdio({ ZOEKT_URL: zoekt.url });
});
afterAll(async () => {
  await mcp?.close();
  await zoekt?.stop();
});

/** user + system CPU time of a process, in clock ticks (1/100 s), from /proc/<pid>/stat. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** How long Zoekt is watched after an answer, to see that nothing goes on running there. */
const WATCH_MS = 1500;
/** Ticks an idle zoekt-webserver may still spend (its Go runtime, a shard poll). */
const IDLE_MARGIN_TICKS = 5;

describe('queries too complex for Zoekt', () => {
  it.each([
    ['18 nested groups', nested(18, 'a', '( ', ' )')],
    ['18 nested or-groups', nested(18, 'a', '( a or ', ' )')],
    ['10 nested negated groups', nested(10, 'a', '-( ', ' )')],
    ['groups around regex groups', nested(12, '(a|b)+', '( (x|y) ', ' )')],
    ['18 nested groups with filters', nested(18, 'func', '( ', ' )')],
  ])('%s: refused with the limit named, and Zoekt stays idle', async (_what, query) => {
    const pid = zoekt.process.pid!;
    const before = cpuTicks(pid);
    const err = failed(await call(mcp.client, 'search_code', { query, paths: ['src/'], languages: ['go'] }));
    const answered = cpuTicks(pid);
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain(`more than the ${QUERY_LIMITS.groupDepth} accepted`);
    expect(err.hint).toMatch(/parentheses/);
    await new Promise((r) => setTimeout(r, WATCH_MS));
    const later = cpuTicks(pid);
    expect(answered - before, 'Zoekt worked during the call').toBeLessThanOrEqual(IDLE_MARGIN_TICKS);
    expect(later - answered, 'Zoekt worked after the call was answered').toBeLessThanOrEqual(IDLE_MARGIN_TICKS);
  });

  it('refuses regexes past the limits in search_symbols and search_files, naming the argument', async () => {
    const alternatives = Array.from({ length: QUERY_LIMITS.alternatives + 1 }, (_, i) => `n${i}`).join('|');
    const sym = failed(await call(mcp.client, 'search_symbols', { name: alternatives, regex: true }));
    expect(sym.code).toBe('INVALID_ARGUMENT');
    expect(sym.message).toMatch(/^the name regex is too complex .*101 alternatives/);
    const files = failed(await call(mcp.client, 'search_files', { pattern: '(((a+)+)+)+', regex: true }));
    expect(files.code).toBe('INVALID_ARGUMENT');
    expect(files.message).toMatch(/^the pattern regex is too complex .*repeats 4 deep/);
    const terms = failed(await call(mcp.client, 'search_code', { query: Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ') }));
    expect(terms.message).toMatch(/80 terms/);
  });

  it('still answers queries nested as deep as people write them', async () => {
    const out = ok<{ results: unknown[] }>(await call(mcp.client, 'search_code', { query: '( ( NewServer or StartServer ) ( func or def ) ) -( file:_test )' }));
    expect(out.results.length).toBeGreaterThan(0);
  });
});
