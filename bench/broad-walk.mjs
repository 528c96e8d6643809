// Cursor walks of broad queries (search_code `.`, `e`, `a`, `the`, `[a-z]`) over the four-tree
// corpus of bench/fetch-plan.mjs, through a real MCP client over stdio, at --timeout-ms 3000:
// per query and build, the pages reached of BENCH_PAGES (default 20), pages short of 10 files,
// TIMEOUTs, and p50 / max ms a page. Builds alternate query by query. Prints figures; asserts nothing.
//   node bench/broad-walk.mjs      # or bash bench/broad-walk.sh (builds BEFORE_REV)
//   ZOEKT_MCP_BEFORE_CLI=…/dist/cli.js BENCH_QUERIES='.,e' BENCH_PAGES=20 BENCH_TIMEOUT_MS=3000 node bench/broad-walk.mjs
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startZoekt, zoektBin } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const PAGES = Number(process.env.BENCH_PAGES ?? 20);
const TIMEOUT_MS = process.env.BENCH_TIMEOUT_MS ?? '3000';
const QUERIES = (process.env.BENCH_QUERIES ?? '.,e,a,the,[a-z]').split(',');
const builds = [['after', resolve(process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js'))]];
if (process.env.ZOEKT_MCP_BEFORE_CLI) builds.unshift(['before', resolve(process.env.ZOEKT_MCP_BEFORE_CLI)]);
const log = (msg) => process.stderr.write(`broad-walk: ${msg}\n`);

const children = [];
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));


const index = execFileSync(process.execPath, [join(ROOT, 'bench/fetch-plan.mjs'), '--index-only'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 << 20 }).split('\n')[0].trim();
const { url, child: zoekt } = await startZoekt(zoektBin(ROOT).bin, index, 4);
children.push(zoekt);

const clients = new Map();
for (const [name, cli] of builds) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, '--zoekt-url', url, '--timeout-ms', TIMEOUT_MS, '--log-level', 'error'], stderr: 'ignore' });
  const client = new Client({ name: 'broad-walk', version: '1' });
  await client.connect(transport);
  clients.set(name, client);
}

async function walk(client, query) {
  const times = [];
  let short = 0;
  let timeouts = 0;
  let error;
  let cursor;
  for (let p = 0; p < PAGES; p++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: 'search_code', arguments: { query, limit: 10, ...(cursor ? { cursor } : {}) } });
    times.push(performance.now() - t0);
    const out = r.structuredContent;
    if (r.isError) {
      error = out?.error?.code ?? 'error';
      if (error === 'TIMEOUT') timeouts++;
      break;
    }
    if ((out.results?.length ?? 0) < 10) short++;
    cursor = out.next_cursor;
    if (!cursor) break;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { pages: times.length - (error ? 1 : 0), short, timeouts, error, p50: sorted[sorted.length >> 1], max: sorted.at(-1) };
}

log(`zoekt ${url}; ${PAGES} pages a query, --timeout-ms ${TIMEOUT_MS}; load ${loadavg()[0].toFixed(1)}`);
const results = [];
for (const [i, query] of QUERIES.entries()) {
  // The builds take turns going first.
  const order = i % 2 ? [...clients].reverse() : [...clients];
  for (const [name, client] of order) {
    const r = await walk(client, query);
    results.push({ name, query, ...r });
    log(`${name} ${JSON.stringify(query)}: ${r.pages} pages, ${r.short} short, ${r.timeouts} TIMEOUT${r.error && r.error !== 'TIMEOUT' ? `, ${r.error}` : ''}; p50 ${r.p50.toFixed(0)} ms, max ${r.max.toFixed(0)} ms`);
  }
}
console.log(`\nsearch_code walks of ${PAGES} pages (limit 10) at --timeout-ms ${TIMEOUT_MS}, four-tree corpus; load after ${loadavg()[0].toFixed(1)}`);
console.log('| query | build | pages | short | TIMEOUT | p50 ms | max ms |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of results) console.log(`| \`${r.query}\` | ${r.name} | ${r.pages} | ${r.short} | ${r.timeouts} | ${r.p50.toFixed(0)} | ${r.max.toFixed(0)} |`);
for (const c of clients.values()) await c.close();
process.exit(0);
