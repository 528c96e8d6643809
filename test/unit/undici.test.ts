/**
 * The undici files the Zoekt client loads by path (src/zoekt/undici.ts) are there in the pinned
 * version and do what undici's own request() does: a request through an Agent to a URL's origin,
 * path and query, and the error classes the client tells failures apart by.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadUndici } from '../../src/zoekt/undici.js';

describe('undici, loaded by part', () => {
  const seen: { method: string; url: string; type: string; body: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', type: req.headers['content-type'] ?? '', body });
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
  });
  let base: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
  });

  it('sends a request to the URL\'s path and query through an Agent, and reads the answer', async () => {
    const undici = await loadUndici();
    const agent = new undici.Agent({ connections: 2 });
    try {
      const post = await undici.request(agent, new URL('/api/search?x=1', base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"Q":"a"}' });
      expect(post.statusCode).toBe(200);
      expect(await post.body.json()).toEqual({ ok: true });
      const get = await undici.request(agent, new URL('/healthz', base), { method: 'GET' });
      expect(await get.body.text()).toBe('{"ok":true}');
      expect(seen).toEqual([
        { method: 'POST', url: '/api/search?x=1', type: 'application/json', body: '{"Q":"a"}' },
        { method: 'GET', url: '/healthz', type: '', body: '' },
      ]);
    } finally {
      await agent.close();
    }
  });

  it('gives the error classes and codes the client classifies failures by', async () => {
    const undici = await loadUndici();
    expect(new undici.errors.ConnectTimeoutError()).toBeInstanceOf(Error);
    expect(new undici.errors.ConnectTimeoutError().code).toBe('UND_ERR_CONNECT_TIMEOUT');
    const agent = new undici.Agent({ maxResponseSize: 4 });
    try {
      const failed: unknown = await undici
        .request(agent, new URL('/big', base), { method: 'GET' })
        .then((res) => res.body.text())
        .catch((e: unknown) => e);
      expect((failed as { code?: string }).code).toBe('UND_ERR_RES_EXCEEDED_MAX_SIZE');
    } finally {
      await agent.close();
    }
  });
});
