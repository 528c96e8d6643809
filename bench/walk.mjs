// The cost of walking every page of broad queries over a large real tree, against one raw
// Zoekt request that returns the same files. bench/walk.sh sets up Zoekt over Go's source tree.
// Every call goes through a real MCP client over stdio; a counting proxy in front of Zoekt says
// how many requests and bytes each walk cost. Prints figures; asserts nothing.
//   ZOEKT_URL=… node bench/walk.mjs
//   ZOEKT_MCP_CLI=/other/checkout/dist/cli.js …   # the same walk through another build
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ZOEKT_URL = process.env.ZOEKT_URL;
const CLI = process.env.ZOEKT_MCP_CLI ?? join(import.meta.dirname, '..', 'dist/cli.js');
const MAX_PAGES = Number(process.env.BENCH_MAX_PAGES ?? 2000);
if (!ZOEKT_URL) {
  console.error('bench: set ZOEKT_URL, or run bash bench/walk.sh');
  process.exit(2);
}

/** A loopback proxy in front of Zoekt that counts requests and answer bytes. */
async function countingProxy(target) {
  const upstream = new URL(target);
  const counts = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    counts.requests++;
    const out = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.on('data', (d) => (counts.bytes += d.length));
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, counts, close: () => new Promise((r) => server.close(r)) };
}

async function adapter(zoektUrl) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI],
    env: { PATH: process.env.PATH ?? '', ZOEKT_URL: zoektUrl, ZOEKT_MCP_LOG_LEVEL: 'warn', ZOEKT_MCP_TIMEOUT_MS: '60000' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-walk', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

/** The server's CPU so far, every thread (Linux: /proc), in ms; undefined elsewhere. */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name, which may hold ") ": utime and stime are fields 14 and 15, in ticks of 10 ms.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** Follows next_cursor to the end; returns what the walk reached and what it cost. */
async function walk({ client, pid }, proxy, tool, args, listKey) {
  const before = { ...proxy.counts };
  const cpu = cpuMs(pid);
  const seen = new Set();
  let cursor;
  let pages = 0;
  let first;
  let last;
  const t = performance.now();
  while (pages < MAX_PAGES) {
    const r = await client.callTool({ name: tool, arguments: { ...args, ...(cursor ? { cursor } : {}) } });
    if (r.isError) throw new Error(`${tool} ${JSON.stringify(args)}: ${r.content.map((c) => c.text).join(' ')}`);
    const out = r.structuredContent;
    first ??= out;
    last = out;
    pages++;
    for (const item of out[listKey]) seen.add(tool === 'find_references' ? `${item.repo}/${item.path}:${item.line}` : `${item.repo}/${item.path}`);
    if (!out.next_cursor) break;
    cursor = out.next_cursor;
  }
  return {
    ms: performance.now() - t,
    cpu: cpu === undefined ? undefined : cpuMs(pid) - cpu,
    pages,
    reached: seen.size,
    firstStats: first.stats,
    partial: last.partial,
    requests: proxy.counts.requests - before.requests,
    bytes: proxy.counts.bytes - before.bytes,
  };
}

/** One raw Zoekt request for every file of the query, with the options the adapter sends. */
async function raw(query, files, contextLines) {
  const t = performance.now();
  const res = await fetch(`${ZOEKT_URL}/api/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      Q: query,
      Opts: { ChunkMatches: true, MaxDocDisplayCount: files + 1, NumContextLines: contextLines, ShardMaxMatchCount: 1_000_000, TotalMaxMatchCount: 4_000_000, MaxWallTime: 60e9 },
    }),
  });
  const body = await res.text();
  const parsed = JSON.parse(body);
  return { ms: performance.now() - t, bytes: body.length, files: parsed.Result.Files?.length ?? 0 };
}

const CASES = [
  { tool: 'search_code', args: { query: 'err', limit: 50 }, listKey: 'results', context: 1 },
  { tool: 'search_code', args: { query: 'Deadline', limit: 10 }, listKey: 'results', context: 1 },
  { tool: 'search_files', args: { pattern: '*.go', limit: 200 }, listKey: 'files', context: 0 },
  { tool: 'find_references', args: { symbol: 'err', limit: 200 }, listKey: 'usages', context: 0 },
];

const proxy = await countingProxy(ZOEKT_URL);
const server = await adapter(proxy.url);
const { client } = server;
const mib = (b) => (b / 1048576).toFixed(1);
console.log(`walking every page through ${CLI}`);
console.log('case | pages | reached | stats | walk ms | server CPU ms | zoekt requests | MiB from zoekt | raw ms | raw MiB | walk ÷ raw (time)');
for (const c of CASES) {
  const w = await walk(server, proxy, c.tool, c.args, c.listKey);
  const first = await client.callTool({ name: c.tool, arguments: c.args });
  const query = first.structuredContent.zoekt_query ?? first.structuredContent.zoekt_queries?.usages;
  const files = first.structuredContent.stats.files;
  const r = await raw(query, Math.max(files, w.reached), c.context);
  const stats = JSON.stringify(w.firstStats);
  console.log(
    `${c.tool} ${JSON.stringify(c.args)} | ${w.pages} | ${w.reached} | ${stats} | ${w.ms.toFixed(0)} | ${w.cpu?.toFixed(0) ?? '?'} | ${w.requests} | ${mib(w.bytes)} | ${r.ms.toFixed(0)} | ${mib(r.bytes)} | ${(w.ms / r.ms).toFixed(2)}` +
      (w.partial ? ` | partial: ${w.partial.reason}` : ''),
  );
}
await client.close();
await proxy.close();
