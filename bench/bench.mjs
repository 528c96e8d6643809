// Figures for zoekt-mcp against a running zoekt-webserver (ZOEKT_URL); bench/run.sh sets one up.
// Every call goes through a real MCP client. Prints a table per section; asserts nothing.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { memoryMiB, startHttpServer } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');
const ZOEKT_URL = process.env.ZOEKT_URL;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
if (!ZOEKT_URL) {
  console.error('bench: set ZOEKT_URL, or run bash bench/run.sh');
  process.exit(2);
}

const env = { PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'warn' };

async function stdioAdapter(args = []) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], env, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

const rssMiB = (pid) => memoryMiB(pid).rss;

async function callTool(client, name, args) {
  const t = performance.now();
  const r = await client.callTool({ name, arguments: args });
  const ms = performance.now() - t;
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content.map((c) => c.text).join(' ')}`);
  return { ms, out: r.structuredContent };
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: at(0.5), p95: at(0.95), max: s[s.length - 1] };
}

const fmt = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1)).padStart(7);

function table(title, header, rows) {
  console.log(`\n${title}`);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}

/** Zoekt alone, for the same query: what the adapter adds on top of it. */
async function zoektMs(query, maxDocs) {
  const t = performance.now();
  const res = await fetch(`${ZOEKT_URL}/api/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Q: query, Opts: { ChunkMatches: true, MaxDocDisplayCount: maxDocs, NumContextLines: 0 } }),
  });
  await res.arrayBuffer();
  return performance.now() - t;
}

const SCENARIOS = [
  ['search_code', { query: 'function', limit: 20 }],
  ['search_code', { query: 'create[A-Z]\\w+Error', limit: 20 }],
  ['search_code', { query: 'new Map(', literal: true, limit: 20, context_lines: 2 }],
  ['search_code', { query: 'return', source_code_only: true, limit: 50 }],
  ['search_symbols', { name: 'createSourceFile' }],
  ['search_symbols', { name: 'get*', kinds: ['function'], limit: 50 }],
  ['search_files', { pattern: '**/*.d.ts', limit: 50 }],
  ['find_references', { symbol: 'ZodType', limit: 50 }],
  ['list_repos', {}],
  ['get_health', {}],
];

async function main() {
  const warm = await stdioAdapter();
  const cold = await stdioAdapter(['--cache-mb', '0']);
  const listed = (await callTool(warm.client, 'list_repos', { limit: 500 })).out;
  console.log(`corpus: ${listed.totals.repos} repos, ${listed.totals.documents} files, ${(listed.totals.content_bytes / 2 ** 20).toFixed(1)} MiB of content; ${ROUNDS} rounds per figure; times in ms`);
  const rssStart = rssMiB(warm.pid);

  // 1. Latency per tool, and Zoekt's own time for the same first-page query.
  const rows = [];
  for (const [tool, args] of SCENARIOS) {
    const samples = [];
    const zoekt = [];
    let last;
    for (let i = 0; i < ROUNDS; i++) {
      const { ms, out } = await callTool(warm.client, tool, args);
      samples.push(ms);
      last = out;
      if (typeof out.zoekt_query === 'string') zoekt.push(await zoektMs(out.zoekt_query, 2 * (args.limit ?? 50) + 1));
    }
    const s = stats(samples);
    const z = zoekt.length ? stats(zoekt).p50 : undefined;
    const count = ['results', 'symbols', 'files', 'usages', 'repos'].map((k) => last[k]?.length).find((n) => n !== undefined) ?? '-';
    rows.push([tool, JSON.stringify(args).slice(0, 60), count, fmt(s.p50), fmt(s.p95), fmt(s.max), z === undefined ? '      -' : fmt(z)]);
  }
  table('tool latency through MCP over stdio (first pages go to Zoekt every time)', ['tool', 'arguments', 'items', 'p50', 'p95', 'max', 'zoekt p50'], rows);

  // 2. Page 2: from the window cache, and with the cache off.
  const pageRows = [];
  for (const [tool, args] of SCENARIOS.filter(([t]) => t !== 'list_repos' && t !== 'get_health')) {
    const first = (await callTool(warm.client, tool, args)).out;
    if (!first.next_cursor) continue;
    const w = [];
    const c = [];
    for (let i = 0; i < ROUNDS; i++) {
      const p1 = (await callTool(warm.client, tool, args)).out;
      w.push((await callTool(warm.client, tool, { ...args, cursor: p1.next_cursor })).ms);
      const q1 = (await callTool(cold.client, tool, args)).out;
      c.push((await callTool(cold.client, tool, { ...args, cursor: q1.next_cursor })).ms);
    }
    pageRows.push([tool, JSON.stringify(args).slice(0, 60), fmt(stats(w).p50), fmt(stats(c).p50)]);
  }
  table('page 2 (p50): window cache warm vs --cache-mb 0', ['tool', 'arguments', 'warm', 'cold'], pageRows);

  // 3. find_references: its two Zoekt queries in flight together vs one after the other.
  const refs = (await callTool(warm.client, 'find_references', { symbol: 'ZodType', limit: 50 })).out;
  const both = [];
  const seq = [];
  for (let i = 0; i < ROUNDS; i++) {
    both.push(await (async () => {
      const t = performance.now();
      await Promise.all([zoektMs(refs.zoekt_queries.definitions, 5000), zoektMs(refs.zoekt_queries.usages, 101)]);
      return performance.now() - t;
    })());
    seq.push((await zoektMs(refs.zoekt_queries.definitions, 5000)) + (await zoektMs(refs.zoekt_queries.usages, 101)));
  }
  table('find_references ZodType: its two Zoekt queries (p50)', ['together', 'one after the other'], [[fmt(stats(both).p50), fmt(stats(seq).p50)]]);

  const rssEnd = rssMiB(warm.pid);
  table('adapter memory (stdio process, default 64 MiB cache)', ['RSS at start MiB', 'RSS after the runs MiB'], [[rssStart.toFixed(1), rssEnd.toFixed(1)]]);
  await warm.close();
  await cold.close();

  // 4. Streamable HTTP under concurrent clients.
  await httpLoad();
}

async function httpLoad() {
  const { child, url } = await startHttpServer(CLI, ['--http', '--port', '0'], { ...env, ZOEKT_MCP_LOG_LEVEL: 'info' });
  const rows = [];
  for (const clients of [1, 4, 16]) {
    const conns = await Promise.all(
      Array.from({ length: clients }, async () => {
        const c = new Client({ name: 'bench', version: '1.0.0' });
        await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
        return c;
      }),
    );
    const samples = [];
    const perClient = Math.max(5, Math.floor((ROUNDS * 4) / clients));
    const t = performance.now();
    await Promise.all(
      conns.map(async (c, i) => {
        for (let k = 0; k < perClient; k++) {
          const [tool, args] = SCENARIOS[(i + k) % 4];
          samples.push((await callTool(c, tool, args)).ms);
        }
      }),
    );
    const wall = (performance.now() - t) / 1000;
    const s = stats(samples);
    rows.push([clients, samples.length, (samples.length / wall).toFixed(1), fmt(s.p50), fmt(s.p95), rssMiB(child.pid).toFixed(1)]);
    await Promise.all(conns.map((c) => c.close()));
  }
  table('Streamable HTTP, concurrent clients (search_code mix)', ['clients', 'calls', 'calls/s', 'p50', 'p95', 'RSS MiB'], rows);
  child.kill('SIGTERM');
}

main().catch((err) => {
  console.error(`bench: ${err.message}`);
  process.exit(1);
});
