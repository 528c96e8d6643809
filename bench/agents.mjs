// Many agents at once against `zoekt-mcp --http`: AGENTS (200) SDK clients connect over Streamable
// HTTP at the same moment and each calls tools for AGENTS_SECONDS (60), a fixed mix over Go's
// source tree with a random pause of up to 1 s between calls (seeded). Phase "quiet" runs them
// alone; phase "hostile" runs them beside AGENTS_HOSTILE (300) connections that send a request
// line and then one header line every 2 s, never finishing, each reopened as soon as the server
// closes it. Each phase starts a fresh server (this checkout's dist/cli.js, and then
// ZOEKT_MCP_BEFORE_CLI when set, in the same run) at its defaults. Prints, per build and phase:
// clients connected, calls answered, latency p50/p95 of the answered calls, refusals by kind, the server's RSS (peak and
// after) and zoekt-webserver's (ZOEKT_PID) peak; then after/before ratios. Asserts nothing.
//   bash bench/agents.sh
//   ZOEKT_MCP_BEFORE_CLI=/tmp/old/dist/cli.js AGENTS_SECONDS=30 bash bench/agents.sh
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { memoryMiB, startHttpServer } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const ZOEKT_URL = process.env.ZOEKT_URL;
const ZOEKT_PID = Number(process.env.ZOEKT_PID ?? 0);
const AGENTS = Number(process.env.AGENTS ?? 200);
const SECONDS = Number(process.env.AGENTS_SECONDS ?? 60);
const HOSTILE = Number(process.env.AGENTS_HOSTILE ?? 300);
const BUILDS = [['after', process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js')], ...(process.env.ZOEKT_MCP_BEFORE_CLI ? [['before', process.env.ZOEKT_MCP_BEFORE_CLI]] : [])];
if (!ZOEKT_URL) {
  console.error('agents: set ZOEKT_URL, or run bash bench/agents.sh');
  process.exit(2);
}

/** mulberry32: the same pauses and calls in every run. */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mix = (repo) => [
  ['search_code', { query: 'func New', limit: 10 }],
  ['search_symbols', { name: 'Reader', limit: 20 }],
  ['find_references', { symbol: 'Context', limit: 50 }],
  ['search_files', { pattern: '*_test.go', limit: 20 }],
  ['get_file', { repo, path: 'io/io.go', start_line: 1, end_line: 80 }],
  ['list_repos', { limit: 5 }],
];

/** Connections that never finish a request, reopened when closed, until stop(). */
function hostile(port, count) {
  const live = new Set();
  let stopping = false;
  let opened = 0;
  const open = () => {
    if (stopping) return;
    opened++;
    const s = connect(port, '127.0.0.1');
    live.add(s);
    let timer;
    s.on('error', () => undefined);
    s.on('data', () => undefined);
    s.once('connect', () => {
      s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      timer = setInterval(() => s.writable && s.write('X-Slow: a\r\n'), 2000);
    });
    s.once('close', () => {
      clearInterval(timer);
      live.delete(s);
      setImmediate(open);
    });
  };
  for (let i = 0; i < count; i++) open();
  return {
    opened: () => opened,
    stop() {
      stopping = true;
      for (const s of live) s.destroy();
    },
  };
}

async function phase(cli, withHostile) {
  const server = await startHttpServer(cli, ['--http', '--port', '0'], { PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'info' });
  const port = Number(new URL(server.url).port);
  let peak = memoryMiB(server.pid).rss;
  let zoektPeak = ZOEKT_PID ? memoryMiB(ZOEKT_PID).rss : 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, memoryMiB(server.pid).rss);
      if (ZOEKT_PID) zoektPeak = Math.max(zoektPeak, memoryMiB(ZOEKT_PID).rss);
    } catch {
      // a process gone: the outcomes say so
    }
  }, 250);
  const outcomes = new Map();
  const count = (o) => outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
  const latencies = [];
  let connected = 0;
  const repo = await (async () => {
    const c = new Client({ name: 'bench-agents', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const r = await c.callTool({ name: 'list_repos', arguments: { limit: 1 } });
    await c.close();
    return r.structuredContent.repos[0].name;
  })();
  const calls = mix(repo);
  const attack = withHostile ? hostile(port, HOSTILE) : undefined;
  if (attack) await new Promise((r) => setTimeout(r, 1500));
  const until = Date.now() + SECONDS * 1000;
  const agent = async (i) => {
    const random = rng(i + 1);
    const client = new Client({ name: 'bench-agents', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
      connected++;
    } catch (err) {
      count(`connect failed: ${String(err.message).slice(0, 60)}`);
      return;
    }
    while (Date.now() < until) {
      const [name, args] = calls[Math.floor(random() * calls.length)];
      const t0 = performance.now();
      try {
        const r = await client.callTool({ name, arguments: args });
        // Latency of answers only: a refusal is quick and would make a server that refuses look fast.
        if (!r.isError) latencies.push(performance.now() - t0);
        count(r.isError ? (r.structuredContent?.error?.code ?? 'tool error') : 'answered');
      } catch (err) {
        count(`failed: ${String(err.message).slice(0, 60)}`);
      }
      await new Promise((r) => setTimeout(r, random() * 1000));
    }
    await client.close().catch(() => undefined);
  };
  await Promise.all(Array.from({ length: AGENTS }, (_, i) => agent(i)));
  attack?.stop();
  clearInterval(sampler);
  const after = memoryMiB(server.pid).rss;
  await server.stop();
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { connected, outcomes, p50: at(0.5), p95: at(0.95), peak, after, zoektPeak, hostileOpened: attack?.opened() ?? 0 };
}

const results = new Map();
console.log(`agents: ${AGENTS} Streamable HTTP clients at once for ${SECONDS} s each phase; zoekt ${ZOEKT_URL}`);
for (const [label, cli] of BUILDS) {
  for (const withHostile of [false, true]) {
    const name = `${label}/${withHostile ? 'hostile' : 'quiet'}`;
    const r = await phase(cli, withHostile);
    results.set(name, r);
    const answered = r.outcomes.get('answered') ?? 0;
    const total = [...r.outcomes.values()].reduce((a, b) => a + b, 0);
    console.log(`\n${name} (${cli})${withHostile ? `, ${HOSTILE} unfinished connections beside (${r.hostileOpened} opened in all)` : ''}`);
    console.log(`  clients connected ${r.connected}/${AGENTS}; calls ${total}, answered ${answered} (${((100 * answered) / Math.max(1, total)).toFixed(1)}%)`);
    console.log(`  latency of answered calls: p50 ${r.p50.toFixed(0)} ms, p95 ${r.p95.toFixed(0)} ms`);
    for (const [o, n] of [...r.outcomes].sort((a, b) => b[1] - a[1])) if (o !== 'answered') console.log(`  refused or failed: ${o}: ${n}`);
    console.log(`  server RSS peak ${r.peak.toFixed(0)} MiB, after ${r.after.toFixed(0)} MiB${ZOEKT_PID ? `; zoekt-webserver RSS peak ${r.zoektPeak.toFixed(0)} MiB` : ''}`);
  }
}
if (BUILDS.length === 2) {
  console.log('\nafter/before:');
  for (const p of ['quiet', 'hostile']) {
    const a = results.get(`after/${p}`);
    const b = results.get(`before/${p}`);
    const ratio = (x, y) => (y ? (x / y).toFixed(2) : 'n/a');
    console.log(`  ${p}: connected ${a.connected} vs ${b.connected}; answered ${a.outcomes.get('answered') ?? 0} vs ${b.outcomes.get('answered') ?? 0}; p50 ${ratio(a.p50, b.p50)}×, p95 ${ratio(a.p95, b.p95)}×, server RSS peak ${ratio(a.peak, b.peak)}×`);
  }
}
