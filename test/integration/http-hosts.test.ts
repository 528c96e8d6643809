/**
 * The Host header check (DNS-rebinding defence): a loopback server, even without a token and for a
 * request without an Origin header, answers only its loopback names; the probes answer any Host;
 * a refused Host gets 403 before the token is looked at.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectStreamable, INITIALIZE, MCP_HEADERS, mcpRefusal, raw, startAdapter, TOKEN, type Adapter } from '../support/http.js';
import { CLI } from '../support/mcp.js';

const refusal = mcpRefusal('HOST_NOT_ALLOWED', '--allowed-hosts');

describe('a loopback server without a token', () => {
  let adapter: Adapter;
  let port: string;
  beforeAll(async () => {
    adapter = await startAdapter({ zoektUrl: inject('zoektUrl') });
    port = new URL(adapter.url).port;
  });
  afterAll(() => adapter?.stop());

  it('refuses a foreign Host on every MCP endpoint with 403 and a JSON reason', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.nip.io:${port}`]) {
      const mcp = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, host }, body: INITIALIZE });
      expect(mcp.status, host).toBe(403);
      expect(mcp.json()).toEqual(refusal);
      expect(mcp.json().error).toMatchObject({ message: expect.stringContaining(JSON.stringify(host)) });
    }
    const sse = await raw(`${adapter.url}/sse`, { headers: { host: 'evil.example' } });
    expect(sse.status).toBe(403);
    expect(sse.json()).toEqual(refusal);
    const messages = await raw(`${adapter.url}/messages?sessionId=x`, { method: 'POST', headers: { ...MCP_HEADERS, host: 'evil.example' }, body: INITIALIZE });
    expect(messages.status).toBe(403);
    // A CORS preflight from the rebound page is refused too.
    const preflight = await raw(`${adapter.url}/mcp`, { method: 'OPTIONS', headers: { host: 'evil.example', origin: 'http://localhost:1' } });
    expect(preflight.status).toBe(403);
  });

  it('serves its loopback names, and the SDK client, which sends 127.0.0.1:port', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'localhost']) {
      const r = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, host }, body: INITIALIZE });
      expect(r.status, host).toBe(200);
    }
    const mcp = await connectStreamable(adapter.url);
    await mcp.client.ping();
    await mcp.close();
  });

  it('answers the probes whatever the Host: orchestrators probe by the pod address', async () => {
    expect((await raw(`${adapter.url}/healthz`, { headers: { host: '10.1.2.3:3000' } })).status).toBe(200);
    expect((await raw(`${adapter.url}/readyz`, { headers: { host: 'evil.example' } })).status).toBe(200);
  });
});

describe('with a token', () => {
  let adapter: Adapter;
  beforeAll(async () => {
    adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_AUTH_TOKEN: TOKEN } });
  });
  afterAll(() => adapter?.stop());

  it('refuses a foreign Host before looking at the token: 403, not 401', async () => {
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
      const r = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers, host: 'evil.example' }, body: INITIALIZE });
      expect(r.status).toBe(403);
      expect(r.json()).toEqual(refusal);
    }
  });
});

describe('bound to every interface', () => {
  it('exits 2 with the reason when --allowed-hosts is missing', () => {
    const r = spawnSync(process.execPath, [CLI, '--http', '--host', '0.0.0.0', '--port', '0'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ZOEKT_MCP_AUTH_TOKEN: TOKEN },
      timeout: 10_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/serving 0\.0\.0\.0 \(not a loopback address\) needs --allowed-hosts or ZOEKT_MCP_ALLOWED_HOSTS/);
  });

  // Binds every interface for the moment the test takes; the port is one the system picked.
  it('answers the listed names only, a port given or any', async () => {
    const open = await startAdapter({ zoektUrl: inject('zoektUrl'), args: ['--host', '0.0.0.0', '--allowed-hosts', 'mcp.example.com,127.0.0.1'], env: { ZOEKT_MCP_AUTH_TOKEN: TOKEN } });
    try {
      const port = new URL(open.url).port;
      const post = (host: string) =>
        raw(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}`, host }, body: INITIALIZE });
      expect((await post('mcp.example.com')).status).toBe(200);
      expect((await post(`127.0.0.1:${port}`)).status).toBe(200);
      expect((await post(`localhost:${port}`)).status).toBe(403);
    } finally {
      await open.stop();
    }
  });
});
