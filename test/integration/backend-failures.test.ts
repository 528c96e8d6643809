/**
 * What an agent sees when Zoekt is down or misconfigured: real processes, no mocks. A stopped
 * Zoekt is a port nobody listens on; a misconfigured one is a real zoekt-webserver without -rpc.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, connectStdio, failed, textOf, type Connected } from '../support/mcp.js';
import { ZoektClient } from '../../src/zoekt/client.js';
import { freePort, startWebserver, type RunningZoekt } from '../support/zoekt.js';

describe('Zoekt unreachable', () => {
  let mcp: Connected;
  let url: string;
  beforeAll(async () => {
    url = `http://127.0.0.1:${await freePort()}`;
    mcp = await connectStdio({ ZOEKT_URL: url, ZOEKT_MCP_TIMEOUT_MS: '2000' });
  });
  afterAll(() => mcp.close());

  it('answers UNAVAILABLE naming the URL, within the deadline, without hanging', async () => {
    const started = Date.now();
    const err = failed(await call(mcp.client, 'search_code', { query: 'anything' }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain(url);
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.hint).toContain(`curl ${url}/healthz`);
  });

  it('says so in the text block too: CODE: message, then a hint line', async () => {
    const text = textOf(await call(mcp.client, 'search_code', { query: 'anything' }));
    expect(text).toMatch(/^UNAVAILABLE: zoekt is unreachable at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\nhint: /);
  });
});

describe('Zoekt stopped while the adapter runs', () => {
  it('goes from results to UNAVAILABLE when Zoekt stops, and back when it returns', async () => {
    const indexDir = inject('indexDir');
    const port = await freePort();
    let zoekt: RunningZoekt = await startWebserver({ indexDir, port, expectRepos: 1 });
    const mcp = await connectStdio({ ZOEKT_URL: zoekt.url, ZOEKT_MCP_TIMEOUT_MS: '3000' });
    try {
      expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
      await zoekt.stop();
      const started = Date.now();
      expect(failed(await call(mcp.client, 'search_code', { query: 'func' })).code).toBe('UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(4_000);
      zoekt = await startWebserver({ indexDir, port, expectRepos: 1 });
      expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
    } finally {
      await mcp.close();
      await zoekt.stop();
    }
  });
});

describe('Zoekt without -rpc', () => {
  let zoekt: RunningZoekt;
  let mcp: Connected;
  beforeAll(async () => {
    zoekt = await startWebserver({ indexDir: inject('indexDir'), rpc: false });
    mcp = await connectStdio({ ZOEKT_URL: zoekt.url });
  });
  afterAll(async () => {
    await mcp.close();
    await zoekt.stop();
  });

  it('answers BACKEND_MISCONFIGURED with a hint to add -rpc', async () => {
    const err = failed(await call(mcp.client, 'search_code', { query: 'func' }));
    expect(err.code).toBe('BACKEND_MISCONFIGURED');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain(zoekt.url);
    expect(err.hint).toContain('-rpc');
  });
});

describe('Zoekt hanging', () => {
  // A frozen (SIGSTOP) zoekt-webserver still accepts connections through the kernel but never
  // answers: a real hung backend, made on demand.
  it('answers TIMEOUT at the deadline instead of hanging, and recovers when Zoekt does', async () => {
    const zoekt = await startWebserver({ indexDir: inject('indexDir'), expectRepos: 1 });
    const mcp = await connectStdio({ ZOEKT_URL: zoekt.url, ZOEKT_MCP_TIMEOUT_MS: '1500' });
    try {
      expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
      await zoekt.freeze();
      const started = Date.now();
      const result = await call(mcp.client, 'search_code', { query: 'func' });
      const elapsed = Date.now() - started;
      expect(result.isError, `answered while zoekt-webserver was in state ${zoekt.state()}`).toBe(true);
      const err = failed(result);
      expect(err.code).toBe('TIMEOUT');
      expect(err.retryable).toBe(true);
      expect(err.message).toContain('1500 ms');
      expect(elapsed).toBeGreaterThanOrEqual(1400);
      expect(elapsed).toBeLessThan(4000);
      zoekt.thaw();
      expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
    } finally {
      zoekt.thaw();
      await mcp.close();
      await zoekt.stop();
    }
  });
});

describe('deadlines named truly', () => {
  it('get_health against a frozen Zoekt names the time its check was given, within --timeout-ms', async () => {
    const zoekt = await startWebserver({ indexDir: inject('indexDir'), expectRepos: 1 });
    const mcp = await connectStdio({ ZOEKT_URL: zoekt.url, ZOEKT_MCP_TIMEOUT_MS: '3000' });
    try {
      await zoekt.freeze();
      const result = await call(mcp.client, 'get_health', {});
      const text = textOf(result);
      const named = [...text.matchAll(/within (?:the )?(\d+) ms/g)].map((m) => Number(m[1]));
      expect(named.length, text).toBeGreaterThan(0);
      for (const ms of named) expect(ms).toBeLessThanOrEqual(3000);
      expect(text).not.toContain('10000 ms');
    } finally {
      zoekt.thaw();
      await mcp.close();
      await zoekt.stop();
    }
  });
});

describe('readiness', () => {
  it('is ready against the real Zoekt, through /readyz or, on a Zoekt without it, /healthz', async () => {
    const client = new ZoektClient({ url: inject('zoektUrl'), timeoutMs: 3000 });
    try {
      const r = await client.readiness();
      expect(r.ready).toBe(true);
      expect(['readyz', 'healthz']).toContain(r.via);
    } finally {
      await client.close();
    }
  });

  it('is not ready, with the reason, when nothing listens', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const client = new ZoektClient({ url, timeoutMs: 3000 });
    try {
      const r = await client.readiness();
      expect(r.ready).toBe(false);
      expect(r.ready === false && r.reason).toContain('ECONNREFUSED');
    } finally {
      await client.close();
    }
  });
});
