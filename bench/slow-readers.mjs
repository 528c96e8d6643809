// Memory of the adapter under HTTP clients that never read their answers: READERS raw sockets
// (default 16), each POSTing PIPELINE batches of 10 large tools/call and then reading nothing, against a
// fresh `dist/cli.js --http` (BENCH_CLI picks another build, BENCH_ARGS adds flags). Prints the
// server's RSS before, at its peak while they hold on, and after they go; how many of them the
// server closed; and its write-budget refusals from /metrics. Asserts nothing.
//
//   ZOEKT_URL=http://127.0.0.1:6070 node bench/slow-readers.mjs     (a large index: Go's source tree)
import { connect } from 'node:net';
import { join } from 'node:path';
import { memoryMiB, startHttpServer } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const CLI = process.env.BENCH_CLI ?? join(ROOT, 'dist/cli.js');
const ZOEKT_URL = process.env.ZOEKT_URL;
const READERS = Number(process.env.READERS ?? 16);
const HOLD_MS = Number(process.env.HOLD_MS ?? 15_000);
if (!ZOEKT_URL) {
  console.error('bench/slow-readers: set ZOEKT_URL to a zoekt-webserver -rpc over a large index');
  process.exit(2);
}
const extra = (process.env.BENCH_ARGS ?? '').split(' ').filter(Boolean);
const server = await startHttpServer(CLI, ['--http', '--port', '0', '--max-batch', '10', ...extra], {
  PATH: process.env.PATH ?? '',
  ZOEKT_URL,
  ZOEKT_MCP_LOG_LEVEL: 'info',
  ZOEKT_MCP_TIMEOUT_MS: '30000',
});
const { hostname: host, port } = new URL(server.url);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rss = () => Math.round(memoryMiB(server.pid).rss);

// Ten different large pages: 2,000 lines each of the largest Go file of the tree (about 120 KB
// of answer each); PIPELINE such requests are sent back to back on each connection.
const PIPELINE = Number(process.env.PIPELINE ?? 8);
const FILE = process.env.BENCH_FILE ?? 'cmd/compile/internal/ssa/opGen.go';
const batch = JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_file', arguments: { repo: 'src', path: FILE, start_line: 1 + i * 2000, end_line: 2000 + i * 2000, max_output_chars: 1_000_000 } } })));
const request = `POST /mcp HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(batch)}\r\n\r\n${batch}`.repeat(PIPELINE);

// A warm-up answer read whole, so that the figures below are of the slow readers, not of start-up.
await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: batch }).then((r) => r.text());
const before = rss();

let closedByServer = 0;
const sockets = [];
for (let i = 0; i < READERS; i++) {
  const s = connect(Number(port), host);
  s.on('error', () => undefined);
  s.once('connect', () => {
    s.pause();
    s.write(request);
  });
  s.once('close', () => {
    if (!s.destroyedByUs) closedByServer++;
  });
  sockets.push(s);
}
let peak = before;
for (let t = 0; t < HOLD_MS; t += 250) {
  await sleep(250);
  peak = Math.max(peak, rss());
}
for (const s of sockets) {
  s.destroyedByUs = !s.destroyed;
  s.destroy();
}
const samples = [];
for (let t = 0; t < Number(process.env.AFTER_MS ?? 30_000); t += 2000) {
  await sleep(2000);
  const inFlight = /^zoekt_mcp_tool_calls_in_flight (\d+)/m.exec(await fetch(`${server.url}/metrics`).then((r) => r.text()))?.[1];
  samples.push(process.env.BENCH_VERBOSE ? `${rss()} (${inFlight} calls)` : rss());
}
const metrics = await fetch(`${server.url}/metrics`).then((r) => r.text());
const shed = [...metrics.matchAll(/zoekt_mcp_http_connections_shed_total\{reason="(\w+)"\} (\d+)/g)].map((m) => `${m[1]}=${m[2]}`).join(' ');
console.log(`slow readers: ${READERS} × ${PIPELINE} batches of 10 large answers (${FILE}), never read, held ${HOLD_MS} ms`);
console.log(`RSS MiB: before ${before}, peak ${peak}, after they went: ${samples.join(' → ')}`);
console.log(`closed by the server: ${closedByServer} of ${READERS}; shed: ${shed || 'none'}`);
await server.stop();
