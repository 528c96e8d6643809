/**
 * Graceful shutdown over HTTP: SIGTERM while a tool call is in flight. To hold a call in flight
 * for as long as the test needs, a small proxy sits in front of the real Zoekt and keeps each
 * /api/search request until the test releases it: a real Zoekt cannot be made slow on demand
 * (and a frozen one would also freeze the answers the test waits for). Everything else is real.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { gate, type Gate } from '../support/gate.js';
import { connectSse, connectStreamable, raw, startAdapter, type Adapter } from '../support/http.js';
import { call, ok, type Connected } from '../support/mcp.js';
import { REPO_PREFIX } from '../support/zoekt.js';

const SEARCH = { query: 'paginate_marker', repos: [`${REPO_PREFIX}manyhits`], limit: 3 };
const SHUTTING_DOWN = 'shutting down: no new connections, waiting for in-flight calls';

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
  cleanup = [];
});

async function setUp(env: Record<string, string> = {}): Promise<{ zoekt: Gate; adapter: Adapter }> {
  const zoekt = await gate(inject('zoektUrl'));
  cleanup.push(async () => {
    zoekt.release();
    await new Promise((r) => zoekt.server.close(r));
  });
  const adapter = await startAdapter({ zoektUrl: zoekt.url, env });
  cleanup.push(() => adapter.stop());
  return { zoekt, adapter };
}

describe.each([
  ['SIGTERM', 'Streamable HTTP', connectStreamable, { in_flight: 1 }],
  ['SIGTERM', 'SSE', connectSse, { sse_sessions: 1, calls_in_flight: 1 }],
  ['SIGINT', 'Streamable HTTP', connectStreamable, { in_flight: 1 }],
] as const)('%s over %s', (signal, _name, connect, counts) => {
  it('stops taking connections, finishes the call in flight with its result, then exits 0', async () => {
    const { zoekt, adapter } = await setUp();
    const mcp: Connected = await connect(adapter.url);
    cleanup.push(() => mcp.close());

    const pending = call(mcp.client, 'search_code', SEARCH);
    pending.catch(() => undefined); // awaited below; a failure must not count as unhandled meanwhile
    await zoekt.arrived;
    adapter.process.kill(signal);
    const draining = await adapter.waitForLog(SHUTTING_DOWN);
    expect(draining).toMatchObject(counts);

    await expect(raw(`${adapter.url}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(adapter.process.exitCode).toBeNull();

    zoekt.release();
    const out = ok<CodeSearchOutput>(await pending);
    expect(out.results).toHaveLength(3);
    expect(out.results.every((r) => r.repo === `${REPO_PREFIX}manyhits`)).toBe(true);
    expect(await adapter.exited).toEqual({ code: 0, signal: null });
    expect(adapter.logs().some((l) => l.msg === 'shutdown timeout reached: abandoning in-flight calls')).toBe(false);
    expect(adapter.logs().at(-1)).toMatchObject({ msg: 'stopped' });
  });
});

describe('SIGTERM with a call that outlasts the shutdown timeout', () => {
  it('abandons the call (and its Zoekt request) at the timeout and still exits 0', async () => {
    const { zoekt, adapter } = await setUp({ ZOEKT_MCP_SHUTDOWN_TIMEOUT_MS: '300', ZOEKT_MCP_TIMEOUT_MS: '60000' });
    const mcp = await connectStreamable(adapter.url);
    cleanup.push(() => mcp.close());

    const pending = call(mcp.client, 'search_code', SEARCH);
    pending.catch(() => undefined); // awaited below; its failure must not count as unhandled meanwhile
    await zoekt.arrived;
    adapter.process.kill('SIGTERM');
    expect(await adapter.exited).toEqual({ code: 0, signal: null });
    await expect(pending).rejects.toThrow();
    await zoekt.abandoned;
    expect(adapter.logs().some((l) => l.msg === 'shutdown timeout reached: abandoning in-flight calls')).toBe(true);
  });
});
