// A burst of concurrent tools/call POSTs against `zoekt-mcp --http`, each on a connection of its
// own, as a crowd of clients arriving at once would send them. Starts the server (this checkout's
// dist/cli.js, or ZOEKT_MCP_CLI) on a free loopback port against ZOEKT_URL, samples the server
// process's RSS and open file descriptors while the burst runs, and prints the answers by outcome,
// their latencies, and the peaks. bench/burst.sh sets up a Zoekt over Go's source tree. Asserts
// nothing.
//   ZOEKT_URL=http://127.0.0.1:6070 node bench/burst.mjs
//   BURST_REQUESTS=1000 BURST_ARGS='--max-in-flight 8' node bench/burst.mjs
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { memoryMiB, startHttpServer } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const CLI = process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js');
const ZOEKT_URL = process.env.ZOEKT_URL;
const REQUESTS = Number(process.env.BURST_REQUESTS ?? 1000);
const EXTRA_ARGS = (process.env.BURST_ARGS ?? '').split(' ').filter(Boolean);
/** Broad enough to make Zoekt work on Go's tree, narrow enough that one call is not the bench. */
const CALL = JSON.parse(process.env.BURST_CALL ?? '{"name":"search_code","arguments":{"query":"func New","limit":10}}');
if (!ZOEKT_URL) {
  console.error('burst: set ZOEKT_URL, or run bash bench/burst.sh');
  process.exit(2);
}

const startServer = () => startHttpServer(CLI, ['--http', '--port', '0', ...EXTRA_ARGS], { PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'info' });

function sample(pid) {
  const { rss } = memoryMiB(pid);
  return { rss, fds: readdirSync(`/proc/${pid}/fd`).length };
}

/** One POST on a connection of its own; resolves with the outcome, never rejects. */
function post(url, id) {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: CALL });
  const t0 = performance.now();
  return new Promise((resolve) => {
    const done = (outcome) => resolve({ outcome, ms: performance.now() - t0 });
    const req = request(
      `${url}/mcp`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('error', () => done(`HTTP ${res.statusCode}, then a broken body`));
        res.on('end', () => {
          if (res.statusCode !== 200) return done(`HTTP ${res.statusCode}${res.headers['retry-after'] ? ' + Retry-After' : ''}`);
          try {
            const msg = JSON.parse(text);
            if (msg.error) return done(`JSON-RPC ${msg.error.code}`);
            if (!msg.result.isError) return done('ok');
            return done(msg.result.structuredContent?.error?.code ?? 'tool error without a code');
          } catch {
            return done('HTTP 200, not JSON');
          }
        });
      },
    );
    req.on('error', (err) => done(`connection ${err.code ?? err.message}`));
    req.end(body);
  });
}

const { child, url } = await startServer();
try {
  const idle = sample(child.pid);
  let peak = { ...idle };
  const sampler = setInterval(() => {
    try {
      const s = sample(child.pid);
      peak = { rss: Math.max(peak.rss, s.rss), fds: Math.max(peak.fds, s.fds) };
    } catch {
      // the server is gone; the burst's answers will say so
    }
  }, 25);
  const t0 = performance.now();
  const answers = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => post(url, i + 1)));
  const wall = performance.now() - t0;
  clearInterval(sampler);
  const after = sample(child.pid);

  const byOutcome = new Map();
  for (const a of answers) {
    const o = byOutcome.get(a.outcome) ?? { n: 0, max: 0 };
    o.n += 1;
    o.max = Math.max(o.max, a.ms);
    byOutcome.set(a.outcome, o);
  }
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
  const at = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
  console.log(`burst: ${REQUESTS} concurrent tools/call ${JSON.stringify(CALL)}`);
  console.log(`server: ${CLI} ${EXTRA_ARGS.join(' ')}`.trim());
  console.log(`wall ${(wall / 1000).toFixed(1)} s; latency p50 ${(at(0.5) / 1000).toFixed(2)} s, p95 ${(at(0.95) / 1000).toFixed(2)} s, max ${(ms.at(-1) / 1000).toFixed(2)} s`);
  console.log('answers by outcome (count, slowest):');
  for (const [outcome, o] of [...byOutcome].sort((a, b) => b[1].n - a[1].n)) console.log(`  ${outcome.padEnd(28)} ${String(o.n).padStart(5)}  ${(o.max / 1000).toFixed(2)} s`);
  console.log(`server RSS: idle ${idle.rss.toFixed(0)} MiB, peak ${peak.rss.toFixed(0)} MiB, after ${after.rss.toFixed(0)} MiB`);
  console.log(`server open fds: idle ${idle.fds}, peak ${peak.fds}, after ${after.fds}`);
} finally {
  child.kill('SIGTERM');
}
