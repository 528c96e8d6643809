/**
 * Live figures: /metrics in Prometheus text over HTTP, and get_health's latency, cache and symbol
 * coverage figures, moving as calls are made against the real Zoekt.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, connectStdio, ok, type Connected } from '../support/mcp.js';
import { connectStreamable, raw, startAdapter, TOKEN, type Adapter } from '../support/http.js';

/** The value of one series, e.g. sample(text, 'x_total', { result: 'hit' }); 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{\s]+(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) continue;
    const got = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[2]);
  }
  return 0;
}

const TOOL_SECONDS = 'zoekt_mcp_tool_call_duration_seconds';
const ZOEKT_SECONDS = 'zoekt_mcp_zoekt_request_duration_seconds';
const CACHE = 'zoekt_mcp_window_cache_lookups_total';
const ERRORS = 'zoekt_mcp_tool_errors_total';
const IN_FLIGHT = 'zoekt_mcp_tool_calls_in_flight';
const CACHE_BYTES = 'zoekt_mcp_window_cache_bytes';

describe('/metrics over HTTP', () => {
  let adapter: Adapter;
  let mcp: Connected;
  const auth = { authorization: `Bearer ${TOKEN}` };
  const scrape = async () => {
    const res = await raw(`${adapter.url}/metrics`, { headers: auth });
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/plain/);
    return res.text;
  };
  beforeAll(async () => {
    adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), args: ['--auth-token', TOKEN] });
    mcp = await connectStreamable(adapter.url, auth);
  });
  afterAll(async () => {
    await mcp?.close();
    await adapter?.stop();
  });

  it('needs the bearer token when one is set', async () => {
    expect((await raw(`${adapter.url}/metrics`)).status).toBe(401);
    expect((await raw(`${adapter.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('declares every series with help and type', async () => {
    const text = await scrape();
    for (const [name, type] of [
      [TOOL_SECONDS, 'histogram'],
      [ZOEKT_SECONDS, 'histogram'],
      [CACHE, 'counter'],
      [ERRORS, 'counter'],
      [IN_FLIGHT, 'gauge'],
      [CACHE_BYTES, 'gauge'],
    ]) {
      expect(text).toContain(`# TYPE ${name} ${type}`);
      expect(text).toContain(`# HELP ${name} `);
    }
  });

  it('counts tool calls by tool and outcome, Zoekt requests by backend and endpoint, cache lookups and errors by code', async () => {
    const before = await scrape();
    const args = { query: 'func', limit: 1 };
    const first = ok<{ next_cursor?: string }>(await call(mcp.client, 'search_code', args));
    expect(first.next_cursor).toBeDefined();
    // Page 2 is cut from the window page 1 fetched: a cache hit.
    ok(await call(mcp.client, 'search_code', { ...args, cursor: first.next_cursor }));
    const bad = await call(mcp.client, 'search_code', { query: 'x', limit: 0 });
    expect(bad.isError).toBe(true);
    const after = await scrape();
    // The window page 2 was cut from is held, counted in heap bytes.
    expect(sample(after, CACHE_BYTES)).toBeGreaterThan(0);

    const ok_ = { tool: 'search_code', outcome: 'ok' };
    expect(sample(after, `${TOOL_SECONDS}_count`, ok_) - sample(before, `${TOOL_SECONDS}_count`, ok_)).toBe(2);
    expect(sample(after, `${TOOL_SECONDS}_bucket`, { ...ok_, le: '+Inf' })).toBe(sample(after, `${TOOL_SECONDS}_count`, ok_));
    expect(sample(after, `${TOOL_SECONDS}_sum`, ok_)).toBeGreaterThan(0);
    const invalid = { tool: 'search_code', outcome: 'INVALID_ARGUMENT' };
    expect(sample(after, `${TOOL_SECONDS}_count`, invalid) - sample(before, `${TOOL_SECONDS}_count`, invalid)).toBe(1);
    const err = { tool: 'search_code', code: 'INVALID_ARGUMENT' };
    expect(sample(after, ERRORS, err) - sample(before, ERRORS, err)).toBe(1);
    expect(sample(after, CACHE, { result: 'hit' }) - sample(before, CACHE, { result: 'hit' })).toBeGreaterThanOrEqual(1);
    const search = { backend: inject('zoektUrl'), endpoint: 'api/search' };
    expect(sample(after, `${ZOEKT_SECONDS}_count`, search) - sample(before, `${ZOEKT_SECONDS}_count`, search)).toBeGreaterThanOrEqual(1);
    // The scrape itself runs while no call does.
    expect(sample(after, IN_FLIGHT)).toBe(0);
  });

  it('counts calls to names that are no tool under one label, so callers cannot grow the series', async () => {
    const before = await scrape();
    // Each is the protocol error -32602 (the SDK client rejects), counted as UNKNOWN_TOOL.
    for (let i = 0; i < 5; i++) await expect(call(mcp.client, `no_such_tool_${i}`, {})).rejects.toMatchObject({ code: -32602 });
    const after = await scrape();
    const unknown = { tool: '(unknown)', code: 'UNKNOWN_TOOL' };
    expect(sample(after, ERRORS, unknown) - sample(before, ERRORS, unknown)).toBe(5);
    expect(after).not.toContain('no_such_tool_');
  });

  it('answers only the allowed Host names, like the MCP endpoints', async () => {
    const res = await raw(`${adapter.url}/metrics`, { headers: { ...auth, host: 'evil.example' } });
    expect(res.status).toBe(403);
    expect(res.text).toContain('HOST_NOT_ALLOWED');
  });
});

describe('get_health figures', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
  });
  afterAll(() => mcp.close());

  interface Health {
    index: { repos: number; repos_without_symbols: number };
    calls: { in_flight: number; tools: { tool: string; calls: number; errors: number; p50_ms: number; p95_ms: number; p99_ms: number }[]; cache: { hits: number; misses: number; hit_rate?: number; bytes?: number; max_bytes?: number } };
  }
  const health = async () => ok<Health>(await call(mcp.client, 'get_health', {}));

  it('reports latency per tool and the cache hit rate since start, moving with calls', async () => {
    const before = await health();
    expect(before.calls.tools.find((t) => t.tool === 'search_symbols')).toBeUndefined();
    const args = { name: '*', limit: 1 };
    const first = ok<{ next_cursor?: string }>(await call(mcp.client, 'search_symbols', args));
    ok(await call(mcp.client, 'search_symbols', { ...args, cursor: first.next_cursor }));
    expect((await call(mcp.client, 'get_file', { repo: 'no/such/repo', path: 'x' })).isError).toBe(true);
    const after = await health();
    const symbols = after.calls.tools.find((t) => t.tool === 'search_symbols')!;
    expect(symbols).toMatchObject({ calls: 2, errors: 0 });
    expect(symbols.p50_ms).toBeGreaterThanOrEqual(0);
    expect(symbols.p95_ms).toBeGreaterThanOrEqual(symbols.p50_ms);
    expect(symbols.p99_ms).toBeGreaterThanOrEqual(symbols.p95_ms);
    expect(after.calls.tools.find((t) => t.tool === 'get_file')).toMatchObject({ calls: 1, errors: 1 });
    // The first get_health call counted itself once it ended.
    expect(after.calls.tools.find((t) => t.tool === 'get_health')?.calls).toBe(1);
    expect(after.calls.cache.hits).toBeGreaterThan(before.calls.cache.hits);
    expect(after.calls.cache.hit_rate).toBeCloseTo(after.calls.cache.hits / (after.calls.cache.hits + after.calls.cache.misses), 2);
    // get_health itself is in flight while it answers.
    expect(after.calls.in_flight).toBe(1);
    // The cache holds the windows of those pages, within its budget (64 MiB by default).
    expect(before.calls.cache.max_bytes).toBe(64 * 1024 * 1024);
    expect(after.calls.cache.bytes).toBeGreaterThan(before.calls.cache.bytes ?? 0);
    expect(after.calls.cache.bytes).toBeLessThanOrEqual(after.calls.cache.max_bytes!);
  });
});
