// What a tools/call costs over Streamable HTTP in each protocol era: the same calls as plain
// JSON-RPC POSTs on one keep-alive connection, once as a 2025 client sends them (MCP-Protocol-
// Version 2025-06-18, no envelope) and once as a 2026-07-28 client does (the version, method and
// name headers and the `_meta` envelope), alternating era by era and build by build so that all
// see the same machine. Per era and build: p50 per call and the server's CPU per call (from
// /proc, the adapter alone; Zoekt answers in its own process). bench/eras.sh sets up the corpus
// and Zoekt. Prints figures; asserts nothing.
//   ZOEKT_URL=… [ZOEKT_MCP_BEFORE_CLI=…/dist/cli.js] [ZOEKT_MCP_CLI=dist/cli.js] node bench/eras.mjs
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { cpuMs, startHttpServer } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const builds = { after: process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js') };
if (process.env.ZOEKT_MCP_BEFORE_CLI) builds.before = process.env.ZOEKT_MCP_BEFORE_CLI;
const ZOEKT_URL = process.env.ZOEKT_URL;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
if (!ZOEKT_URL) {
  console.error('bench: set ZOEKT_URL, or run bash bench/eras.sh');
  process.exit(2);
}
const MIX = [
  ['search_code', { query: 'function', limit: 10 }],
  ['search_symbols', { name: 'create*', limit: 10 }],
  ['search_files', { pattern: '**/*.d.ts', limit: 20 }],
  ['list_repos', {}],
];
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function poster(url) {
  const agent = new Agent({ connections: 1 });
  let id = 0;
  const post = async (era, [name, args]) => {
    const modern = era === '2026-07-28';
    const body = { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: modern ? { name, arguments: args, _meta: ENVELOPE } : { name, arguments: args } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': era, ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': name } : {}) };
    const res = await request(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body), dispatcher: agent });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes('"result"') || text.includes('"isError":true')) throw new Error(`${era} ${name}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
  };
  return { post, close: () => agent.close() };
}

const figures = {};
const add = (build, era, key, value) => (((figures[`${build} ${era}`] ??= {})[key] ??= []).push(value));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ERAS = ['2025-06-18', '2026-07-28'];

for (let round = 0; round < ROUNDS; round++) {
  for (const build of Object.keys(builds)) {
    const server = await startHttpServer(builds[build], ['--http', '--port', '0'], { PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'info' });
    const { post, close } = poster(server.url);
    for (let i = 0; i < 100; i++) for (const era of ERAS) await post(era, MIX[i % MIX.length]);
    for (const era of round % 2 ? [...ERAS].reverse() : ERAS) {
      const times = [];
      const cpu0 = cpuMs(server.pid);
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        await post(era, MIX[i % MIX.length]);
        times.push(performance.now() - t);
      }
      add(build, era, 'server CPU per call (ms)', (cpuMs(server.pid) - cpu0) / CALLS);
      add(build, era, 'p50 per call (ms)', median(times));
    }
    await close();
    await server.stop();
    console.error(`bench: round ${round + 1}, ${build} measured`);
  }
}

const rows = Object.keys(figures);
console.log(`\n## tools/call over Streamable HTTP by protocol era: ${CALLS} calls per figure, medians of ${ROUNDS} rounds\n`);
console.log(`| figure | ${rows.join(' | ')} |`);
console.log(`| --- |${rows.map(() => ' --- |').join('')}`);
for (const key of Object.keys(figures[rows[0]])) console.log(`| ${key} | ${rows.map((r) => median(figures[r][key]).toFixed(2)).join(' | ')} |`);
for (const build of Object.keys(builds)) {
  const [old, modern] = ERAS.map((era) => median(figures[`${build} ${era}`]['server CPU per call (ms)']));
  console.log(`\n${build}: a 2026-07-28 call costs the server ${(modern / old).toFixed(2)}× the CPU of a 2025 one.`);
}
