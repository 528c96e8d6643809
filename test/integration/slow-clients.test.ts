/**
 * Slow and surplus clients over raw sockets: connections that dribble a body or never finish their
 * headers are answered 408 and closed by the server, while a well-behaved client is served; past
 * the connection cap a request gets 503 with Retry-After, probes excepted. No token is configured:
 * these connections cost the server something before any token could be checked.
 *
 * The timeouts are set small so that the test ends soon; nothing here measures how soon a
 * connection is closed, only that the server closes it, with a 408.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectStreamable, MCP_HEADERS, mcpRefusal, raw, startAdapter, type Adapter } from '../support/http.js';
import { call, ok } from '../support/mcp.js';
import { REPO_PREFIX } from '../support/zoekt.js';
import { UNFINISHED_GRACE_MS } from '../../src/server/http/connections.js';

interface SlowSocket {
  socket: Socket;
  /** Everything the server sent. */
  received(): string;
  /** Resolves once the server has closed the connection (this side never closes it first). */
  closed: Promise<void>;
}

/** Opens a connection, sends `head`, then one more byte of `drip` every 200 ms until the server closes it. */
function dribble(port: number, head: string, drip: string): Promise<SlowSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const closed = new Promise<void>((done) => {
      socket.once('close', () => {
        clearInterval(timer);
        done();
      });
    });
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      received += d;
    });
    // A reset after the server's answer is a way of being closed too; the answer is checked below.
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (socket.writable) socket.write(drip);
      }, 200);
      resolve({ socket, received: () => received, closed });
    });
    socket.once('error', reject);
  });
}

describe('slow clients', () => {
  let adapter: Adapter;
  beforeAll(async () => {
    adapter = await startAdapter({
      zoektUrl: inject('zoektUrl'),
      // Budgets wide enough that only the timeouts close these (test/integration/hostile-traffic.test.ts has the budgets).
      args: ['--headers-timeout-ms', '1000', '--request-timeout-ms', '2000', '--max-unfinished', '400', '--max-unfinished-per-peer', '400'],
    });
  });
  afterAll(() => adapter?.stop());

  it('closes 300 connections dribbling a body and 10 never finishing their headers with 408, and serves a normal client meanwhile', async () => {
    const port = Number(new URL(adapter.url).port);
    const host = `127.0.0.1:${port}`;
    const bodyHead =
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
      `Content-Length: 100000\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{},"pad":"`;
    const opened: Promise<SlowSocket>[] = [];
    for (let i = 0; i < 300; i++) opened.push(dribble(port, bodyHead, 'x'));
    for (let i = 0; i < 10; i++) opened.push(dribble(port, `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `, 'a'));
    const slow = await Promise.all(opened);
    try {
      const mcp = await connectStreamable(adapter.url);
      try {
        const out = ok<{ results: unknown[] }>(await call(mcp.client, 'search_code', { query: 'paginate_marker', repos: [`${REPO_PREFIX}manyhits`], limit: 1 }));
        expect(out.results).toHaveLength(1);
      } finally {
        await mcp.close();
      }
      await Promise.all(slow.map((s) => s.closed));
      for (const s of slow) {
        expect(s.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        expect(s.received()).toContain('"code":"REQUEST_TIMEOUT"');
        expect(s.received().toLowerCase()).toContain('connection: close');
      }
      // The server is still whole: the probes answer and the log has no handler failure.
      expect((await raw(`${adapter.url}/healthz`)).status).toBe(200);
      expect(adapter.logs().filter((l) => l.level === 'error')).toEqual([]);
    } finally {
      for (const s of slow) s.socket.destroy();
    }
  }, 60_000);
});

describe('connection cap', () => {
  let adapter: Adapter;
  beforeAll(async () => {
    adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), args: ['--max-connections', '5', '--headers-timeout-ms', '30000'] });
  });
  afterAll(() => adapter?.stop());

  const open = (port: number) =>
    new Promise<Socket>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(s));
      s.on('error', reject);
    });
  const closeAll = (sockets: Socket[]) =>
    Promise.all(sockets.map((s) => new Promise<void>((done) => {
      if (s.destroyed) return done();
      s.once('close', () => done());
      s.destroy();
    })));
  const ping = () => raw(`${adapter.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });

  it('makes room by closing a connection that never sent a request, not by refusing the newcomer', async () => {
    const port = Number(new URL(adapter.url).port);
    const silent = await Promise.all(Array.from({ length: 5 }, () => open(port)));
    const said: string[] = silent.map(() => '');
    silent.forEach((s, i) => s.on('data', (d: Buffer) => (said[i] += d.toString())));
    // A connection is only closed for another once it has had its grace to send a request.
    await new Promise((r) => setTimeout(r, UNFINISHED_GRACE_MS + 100));
    try {
      expect((await ping()).status).toBe(200);
      // The oldest was closed with a word of why; the rest are still open.
      await new Promise<void>((done) => (silent[0]!.destroyed ? done() : silent[0]!.once('close', () => done())));
      expect(said[0]).toMatch(/^HTTP\/1\.1 503 /);
      expect(said[0]).toContain('"code":"UNFINISHED_REQUEST"');
      expect(said[0]!.toLowerCase()).toContain('retry-after: 1');
    } finally {
      await closeAll(silent);
    }
  });

  it('answers 503 with Retry-After only when every connection is serving, still answers probes, and serves again after', async () => {
    // Five SSE streams: connections that are active for as long as they stay open.
    const port = Number(new URL(adapter.url).port);
    const streams = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const s = await open(port);
        const started = new Promise<void>((done) => s.once('data', () => done()));
        s.write(`GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
        await started;
        return s;
      }),
    );
    try {
      const refused = await ping();
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json()).toEqual(mcpRefusal('TOO_MANY_CONNECTIONS', '5 connections open, all serving requests', 1000));
      expect((await raw(`${adapter.url}/healthz`)).status).toBe(200);
    } finally {
      await closeAll(streams);
    }
    // The server sees the closes a little after this side does: ask until it has (bounded).
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await ping()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });
});
