/**
 * HTTP clients that send requests and never read the answers. What the server holds for one of
 * them is bounded: past --write-budget-mb of answers it has written and the client has not taken,
 * a connection whose client takes nothing is closed, counted in /metrics (reason write_budget),
 * and what it held is freed; a client that reads is served whole. Loopback only; the budget is
 * set small (1 MiB) and each reader asks for several times more than the kernel's socket buffers
 * take, so that the server has to hold the rest. Nothing here measures how soon a connection is
 * closed: the test waits, bounded, for the counts, and the server's RSS is printed as evidence
 * (bench/slow-readers.mjs measures it at scale).
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MCP_HEADERS, raw, startAdapter, type Adapter } from '../support/http.js';

const READERS = 3;
/** Requests each reader sends back to back (pipelined) without reading. */
const PIPELINE = 4;
const BUDGET_MB = 1;
/** Twenty pages of 2,000 lines of the largest file of Go's tree: about 2.4 MB of answer. */
const BATCH = JSON.stringify(
  Array.from({ length: 20 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'tools/call',
    params: { name: 'get_file', arguments: { repo: 'src', path: 'cmd/compile/internal/ssa/opGen.go', start_line: 1 + (i % 10) * 2000, end_line: 2000 + (i % 10) * 2000, max_output_chars: 1_000_000 } },
  })),
);

let adapter: Adapter;
beforeAll(async () => {
  adapter = await startAdapter({ zoektUrl: inject('goZoektUrl'), args: ['--write-budget-mb', String(BUDGET_MB)], env: { ZOEKT_MCP_TIMEOUT_MS: '30000' } });
});
afterAll(() => adapter?.stop());

const rssMiB = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${adapter.process.pid}/status`, 'utf8'))![1]) / 1024);

/** The figures of /metrics this test reads. */
async function figures(): Promise<{ shed: number; unsent: number; inFlight: number }> {
  const text = (await raw(`${adapter.url}/metrics`)).text;
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  return {
    shed: num(/^zoekt_mcp_http_connections_shed_total\{reason="write_budget"\} (\d+)/m),
    unsent: num(/^zoekt_mcp_http_unsent_bytes (\d+)/m),
    inFlight: num(/^zoekt_mcp_tool_calls_in_flight (\d+)/m),
  };
}

/** A connection that sends `count` requests at once and reads nothing until told to. */
function nonReader(port: number, count: number, body = BATCH): { socket: Socket; received: () => number; ended: () => Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let received = 0;
  socket.on('error', () => undefined);
  socket.once('connect', () => {
    socket.pause();
    const request = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    socket.write(request.repeat(count));
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    received: () => received,
    // Reads what the kernel kept for it, to the end the server gave the connection.
    ended: () => {
      socket.on('data', (d: Buffer) => (received += d.length));
      socket.resume();
      return closed;
    },
  };
}

const waitFor = async (what: string, ok: () => Promise<boolean>, ms: number) => {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

describe('clients that do not read their answers', { timeout: 180_000 }, () => {
  it('are closed past the write budget, counted, and what they held is freed; a reading client is served whole', async () => {
    // A client that reads gets the whole batch, the budget notwithstanding.
    const read = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: BATCH });
    expect(read.status).toBe(200);
    const answers = JSON.parse(read.text) as { id: number; result: { isError?: boolean } }[];
    expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(answers.every((a) => !a.result.isError)).toBe(true);
    const answerBytes = Buffer.byteLength(read.text);
    // More than the kernel keeps for a connection (a few MiB each way on loopback) plus the budget.
    expect(answerBytes * PIPELINE).toBeGreaterThan(8 * 1024 * 1024);

    const port = Number(new URL(adapter.url).port);
    const before = { rss: rssMiB(), ...(await figures()) };
    const readers = Array.from({ length: READERS }, () => nonReader(port, PIPELINE));
    let peakUnsent = 0;
    let peakRss = before.rss;
    await waitFor(
      `${READERS} connections closed for their write budget`,
      async () => {
        const now = await figures();
        peakUnsent = Math.max(peakUnsent, now.unsent);
        peakRss = Math.max(peakRss, rssMiB());
        return now.shed - before.shed >= READERS;
      },
      150_000,
    );
    // Held past the budget before being closed, and not closed before.
    expect(peakUnsent).toBeGreaterThan(BUDGET_MB * 1024 * 1024);
    // Each reader, reading at last, finds its connection ended short of what it asked for.
    await Promise.all(readers.map((r) => r.ended()));
    for (const r of readers) expect(r.received()).toBeLessThan(answerBytes * PIPELINE);
    // The calls of the closed connections are let go, and nothing is held for them any more.
    await waitFor('no call left in flight', async () => (await figures()).inFlight === 0, 60_000);
    const after = await figures();
    expect(after.unsent).toBe(0);
    expect(after.shed - before.shed).toBe(READERS);
    console.log(`slow readers: RSS ${before.rss} MiB before, ${peakRss} MiB at most, ${rssMiB()} MiB after; ${peakUnsent} bytes held at most`);
    // The server still serves a reader.
    expect((await raw(`${adapter.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: BATCH })).status).toBe(200);
  });

  it('that go on their own leave nothing behind: the answers queued behind their unread ones end with them', async () => {
    // Sixteen readers, each sending 8 batches of 10 pages back to back, gone after a few seconds
    // with answers written to them and others queued (node reads one request past the answer a
    // client has not taken). The shutdown counts the responses still in flight: an answer queued
    // for a reader that went, never given its socket, had no end and stayed counted (and held,
    // with its answer) for the life of the process.
    const own = await startAdapter({ zoektUrl: inject('goZoektUrl'), env: { ZOEKT_MCP_TIMEOUT_MS: '30000' } });
    try {
      const port = Number(new URL(own.url).port);
      const metricsOf = async () => (await raw(`${own.url}/metrics`)).text;
      const batch = JSON.parse(BATCH) as unknown[];
      const readers = Array.from({ length: 16 }, () => nonReader(port, 8, JSON.stringify(batch.slice(0, 10))));
      await new Promise((r) => setTimeout(r, 6000));
      for (const r of readers) r.socket.destroy();
      const inFlight = async () => Number(/^zoekt_mcp_tool_calls_in_flight (\d+)/m.exec(await metricsOf())?.[1] ?? 0);
      await waitFor('no call left in flight once they went', async () => (await inFlight()) === 0, 90_000);
      await own.stop();
      const stopping = own.logs().find((l) => l.msg === 'shutting down: no new connections, waiting for in-flight calls');
      expect(stopping).toMatchObject({ in_flight: 0, calls_in_flight: 0 });
      expect(own.logs().filter((l) => l.msg === 'shutdown timeout reached: abandoning in-flight calls')).toEqual([]);
    } finally {
      await own.stop();
    }
  });
});
