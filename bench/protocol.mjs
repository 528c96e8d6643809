// The protocol layer, before and after, in one run: two builds of the server (ZOEKT_MCP_BEFORE_CLI
// and ZOEKT_MCP_CLI) measured in turn, round after round, with the same 2025-era client (the v1
// SDK, which both builds serve) over stdio and Streamable HTTP: p50 per call, throughput at 8 and
// 32 clients, RSS after 5,000 calls, cold start. The current build's 2026-07-28 figures (the v2
// client pinned) are printed beside them. bench/protocol.sh sets up the corpus and Zoekt. Prints
// figures; asserts nothing.
//   ZOEKT_URL=… ZOEKT_MCP_BEFORE_CLI=…/dist/cli.js [ZOEKT_MCP_CLI=dist/cli.js] node bench/protocol.mjs
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { memoryMiB, startHttpServer } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const AFTER = process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js');
const BEFORE = process.env.ZOEKT_MCP_BEFORE_CLI;
const ZOEKT_URL = process.env.ZOEKT_URL;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_CALLS ?? 5000);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 4);
if (!ZOEKT_URL || !BEFORE) {
  console.error('bench: set ZOEKT_URL and ZOEKT_MCP_BEFORE_CLI, or run bash bench/protocol.sh');
  process.exit(2);
}
const env = () => ({ PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'warn' });
const WORDS = ['function', 'return', 'export', 'import', 'const', 'async', 'await', 'Promise', 'Error', 'string', 'number', 'interface', 'class', 'extends', 'throw', 'undefined', 'null', 'length', 'push', 'Map'];
const CALL_MIX = [
  ...WORDS.map((query) => ['search_code', { query, limit: 10 }]),
  ['search_symbols', { name: 'create*' }],
  ['search_files', { pattern: '**/*.d.ts', limit: 50 }],
  ['find_references', { symbol: 'ZodType', limit: 20 }],
  ['list_repos', {}],
];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (n) => n.toFixed(1);
const f2 = (n) => n.toFixed(2);

async function stdio(cli) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli], env: env(), stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

async function http(url) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

/** p50 of each call of the mix over `rounds` passes (the first pass warms the caches and is dropped). */
async function perCall(client, passes = 4) {
  const times = [];
  for (let pass = 0; pass < passes; pass++) {
    for (const [name, args] of CALL_MIX) {
      const t = performance.now();
      await client.callTool({ name, arguments: args });
      if (pass > 0) times.push(performance.now() - t);
    }
  }
  return median(times);
}

async function throughput(url, clients) {
  const cs = await Promise.all(Array.from({ length: clients }, () => http(url)));
  let calls = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    cs.map(async (c, i) => {
      for (let k = i; performance.now() < end; k++) {
        const [name, args] = CALL_MIX[k % CALL_MIX.length];
        await c.callTool({ name, arguments: args });
        calls++;
      }
    }),
  );
  await Promise.all(cs.map((c) => c.close()));
  return calls / SECONDS;
}

async function rssAfter(cli) {
  const s = await stdio(cli);
  for (let k = 0; k < CALLS; k++) {
    const [name, args] = CALL_MIX[k % CALL_MIX.length];
    await s.client.callTool({ name, arguments: args });
  }
  const rss = memoryMiB(s.pid).rss;
  await s.close();
  return rss;
}

async function coldStart(cli) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const s = await stdio(cli);
    await s.client.listTools();
    times.push(performance.now() - t);
    await s.close();
  }
  return median(times);
}

const builds = { before: BEFORE, after: AFTER };
const figures = { before: {}, after: {} };
const add = (build, key, value) => (figures[build][key] ??= []).push(value);

for (let round = 0; round < ROUNDS; round++) {
  for (const build of round % 2 ? ['after', 'before'] : ['before', 'after']) {
    const cli = builds[build];
    const s = await stdio(cli);
    add(build, 'stdio p50 per call (ms)', await perCall(s.client));
    await s.close();
    const server = await startHttpServer(cli, ['--http', '--port', '0'], { ...env(), ZOEKT_MCP_LOG_LEVEL: 'info' });
    const c = await http(server.url);
    add(build, 'HTTP p50 per call (ms)', await perCall(c));
    await c.close();
    add(build, 'HTTP throughput, 8 clients (calls/s)', await throughput(server.url, 8));
    add(build, 'HTTP throughput, 32 clients (calls/s)', await throughput(server.url, 32));
    await server.stop();
    add(build, 'cold start, spawn to tools/list (ms)', await coldStart(cli));
    console.error(`bench: round ${round + 1}, ${build} measured`);
  }
}
for (const build of ['before', 'after']) add(build, `stdio RSS after ${CALLS} calls (MiB)`, await rssAfter(builds[build]));

// The current build with a 2026-07-28 client (no before: the earlier build does not speak it).
const modern = {};
{
  const client = new ClientV2({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StdioV2({ command: process.execPath, args: [AFTER], env: env(), stderr: 'ignore' }));
  modern['stdio p50 per call (ms)'] = await perCall(client);
  await client.close();
  const server = await startHttpServer(AFTER, ['--http', '--port', '0'], { ...env(), ZOEKT_MCP_LOG_LEVEL: 'info' });
  const h = new ClientV2({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await h.connect(new HttpV2(new URL(`${server.url}/mcp`)));
  modern['HTTP p50 per call (ms)'] = await perCall(h);
  await h.close();
  await server.stop();
}

console.log(`\n## Protocol layer: ${BEFORE} (before) and ${AFTER} (after), ${ROUNDS} rounds, medians\n`);
console.log('| figure | before | after | after ÷ before | after, 2026-07-28 client |');
console.log('| --- | --- | --- | --- | --- |');
for (const key of Object.keys(figures.after)) {
  const b = median(figures.before[key]);
  const a = median(figures.after[key]);
  const m = modern[key];
  console.log(`| ${key} | ${f1(b)} | ${f1(a)} | ${f2(a / b)} | ${m === undefined ? '' : f1(m)} |`);
}
console.log('\nLower is better but for throughput. Clients: the v1 SDK (2025-11-25) for both builds; the v2 SDK pinned to 2026-07-28 in the last column.');
