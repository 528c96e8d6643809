// The adapter's performance figures in one run, each against a floor measured in the same run:
// raw Zoekt (the very requests the adapter sends, recorded through a proxy and replayed with
// undici's request) or an MCP echo server (bench/echo-server.mjs: same SDK, same transport, no
// work). bench/perf.sh sets up the corpus and Zoekt. Prints figures; asserts nothing.
//   ZOEKT_URL=… [ZOEKT_MCP_CLI=dist/cli.js] [BENCH_ROUNDS=10] [BENCH_CALLS=5500] node bench/perf.mjs
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, request } from 'undici';
import { cpuMs, memoryMiB, startHttpServer } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const CLI = process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js');
const ECHO = join(ROOT, 'bench/echo-server.mjs');
const ZOEKT_URL = process.env.ZOEKT_URL;
/** zoekt-webserver's pid, for the CPU it spends per call (bench/perf.sh sets it). */
const ZOEKT_PID = process.env.ZOEKT_PID ? Number(process.env.ZOEKT_PID) : undefined;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CALLS = Number(process.env.BENCH_CALLS ?? 5500);
if (!ZOEKT_URL) {
  console.error('bench: set ZOEKT_URL, or run bash bench/perf.sh');
  process.exit(2);
}
const env = (url = ZOEKT_URL) => ({ PATH: process.env.PATH ?? '', ZOEKT_URL: url, ZOEKT_MCP_LOG_LEVEL: 'warn' });

// 30 search_code queries over the corpus: words, regexes, filters.
const WORDS = ['function', 'return', 'export', 'import', 'const', 'async', 'await', 'Promise', 'Error', 'string', 'number', 'interface', 'class', 'extends', 'throw', 'undefined', 'null', 'length', 'push', 'Map'];
const QUERIES = [
  ...WORDS.map((w) => ({ query: w, limit: 10 })),
  { query: 'create[A-Z]\\w+', limit: 10 },
  { query: 'new Map(', literal: true, limit: 10 },
  { query: 'TODO', limit: 10 },
  { query: 'file:\\.d\\.ts$ export', limit: 10 },
  { query: 'lang:typescript readonly', limit: 10 },
  { query: 'parse', source_code_only: true, limit: 10 },
  { query: 'z\\.object', limit: 10 },
  { query: 'socket', limit: 10, context_lines: 2 },
  { query: 'Symbol\\.iterator', limit: 10 },
  { query: 'JSON.stringify', literal: true, limit: 10 },
];

const p = (samples, q) => {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const median = (xs) => p(xs, 0.5);
const f1 = (n) => n.toFixed(1);
const f2 = (n) => n.toFixed(2);
const rows = [];
const row = (figure, value, floor, ratio, note = '') => {
  rows.push([figure, value, floor, ratio, note]);
  console.error(`bench: ${figure}: ${value} | ${floor} | ${ratio}`);
};

async function stdioClient(command, args = [], url) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [command, ...args], env: env(url), stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

const httpServer = (command, args) => startHttpServer(command, args, { ...env(), ZOEKT_MCP_LOG_LEVEL: 'info' });

async function httpClient(url) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

async function timed(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content.map((c) => c.text).join(' ')}`);
  return r.structuredContent;
}

const rssMiB = (pid) => memoryMiB(pid).rss;

/** A proxy in front of Zoekt that keeps the bodies of the requests passing through it. */
async function recorder() {
  const seen = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    const entry = { path: req.url, body, start: performance.now(), end: Number.POSITIVE_INFINITY };
    if (req.method === 'POST') seen.push(entry);
    const up = await request(`${ZOEKT_URL}${req.url}`, { method: req.method, headers: { 'content-type': 'application/json' }, body: req.method === 'POST' ? body : undefined });
    res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') });
    res.end(Buffer.from(await up.body.arrayBuffer()));
    entry.end = performance.now();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() };
}

/**
 * Replays recorded requests with the dependencies they were sent with: each starts once every
 * request answered before it was sent has been answered again (it may have depended on one).
 */
function replayAsSent(requests) {
  const sorted = [...requests].sort((a, b) => a.start - b.start);
  return () => {
    const done = [];
    for (const r of sorted) {
      const before = sorted.flatMap((o, i) => (o.end <= r.start ? [done[i]] : []));
      done.push(Promise.all(before).then(() => raw(r)));
    }
    return Promise.all(done);
  };
}

/** How the requests were sent, e.g. "2 at once, then 1 after". */
function shapeOf(requests) {
  const first = requests.filter((r) => !requests.some((o) => o.end <= r.start)).length;
  return first === requests.length ? `${first} at once` : `${first} at once, then ${requests.length - first} after`;
}

const zoektAgent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
async function raw(req) {
  const res = await request(`${ZOEKT_URL}${req.path}`, { method: 'POST', dispatcher: zoektAgent, headers: { 'content-type': 'application/json' }, body: req.body });
  await res.body.arrayBuffer();
}

async function coldStart(command) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const child = spawn(process.execPath, [command], { env: env(), stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdin.write(
      [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(''),
    );
    await new Promise((resolve) => {
      let buf = '';
      child.stdout.on('data', (d) => {
        buf += d;
        if (buf.includes('"id":2')) resolve();
      });
    });
    times.push(performance.now() - t0);
    child.kill();
  }
  return median(times);
}

async function main() {
  console.log(`zoekt-mcp perf: ${CLI}`);
  console.log(`node ${process.version}, ${cpus().length} cores, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ${ROUNDS} rounds, ${QUERIES.length} queries; times in ms`);
  const adapter = await stdioClient(CLI);
  const echo = await stdioClient(ECHO);
  const rec = await recorder();
  const recording = await stdioClient(CLI, ['--cache-mb', '0'], rec.url);
  const listed = await call(adapter.client, 'list_repos', { limit: 500 });
  console.log(`corpus: ${listed.totals.repos} repos, ${listed.totals.documents} files`);

  // The Zoekt requests each call makes on its first page.
  const requestsOf = async (tool, args) => {
    rec.seen.length = 0;
    const out = await call(recording.client, tool, args);
    return { requests: rec.seen.filter((r) => r.path.startsWith('/api/search')).map((r) => ({ ...r })), out };
  };

  // 1. stdio: per query, adapter p50 ÷ raw Zoekt p50 of the same requests, interleaved with the echo floor.
  const perQuery = [];
  const echoMs = [];
  const stdioAll = [];
  const serverCpu = { adapter: 0, echo: 0 };
  // The Zoekt requests of each query, replayed as the raw floor here and in the throughput runs.
  const recorded = [];
  for (const args of QUERIES) {
    const { requests } = await requestsOf('search_code', args);
    recorded.push(requests);
    const a = [];
    const z = [];
    for (let i = 0; i < ROUNDS; i++) {
      let cpu = cpuMs(adapter.pid);
      a.push(await timed(() => call(adapter.client, 'search_code', args)));
      serverCpu.adapter += cpuMs(adapter.pid) - cpu;
      z.push(await timed(async () => { for (const r of requests) await raw(r); }));
      cpu = cpuMs(echo.pid);
      echoMs.push(await timed(() => call(echo.client, 'echo', { text: 'x' })));
      serverCpu.echo += cpuMs(echo.pid) - cpu;
    }
    stdioAll.push(...a);
    perQuery.push({ a: median(a), z: median(z) });
  }
  const echoP50 = median(echoMs);
  const ratios = perQuery.map((q) => q.a / q.z);
  const added = perQuery.map((q) => q.a - q.z);
  row('stdio search_code p50 ÷ raw Zoekt p50 (median over queries)', `${f1(median(perQuery.map((q) => q.a)))} ms`, `raw ${f1(median(perQuery.map((q) => q.z)))} ms`, f2(median(ratios)));
  row('stdio: ms added over raw Zoekt vs MCP echo floor', `${f1(median(added))} ms added`, `echo ${f1(echoP50)} ms`, `${f1(median(added) - echoP50)} ms over echo`);
  const stdioCalls = QUERIES.length * ROUNDS;
  row('stdio: server CPU per call, adapter vs echo (mean over every call)', `${f2(serverCpu.adapter / stdioCalls)} ms`, `echo ${f2(serverCpu.echo / stdioCalls)} ms`, `+${f2((serverCpu.adapter - serverCpu.echo) / stdioCalls)} ms`);

  // 2. Streamable HTTP, one client: the SDK's client, and plain JSON-RPC POSTs (undici, one
  // keep-alive connection) that show what the server side costs without the SDK client's fetch.
  const http = await httpServer(CLI, ['--http', '--port', '0']);
  const echoHttp = await httpServer(ECHO, ['--http']);
  const hc = await httpClient(http.url);
  const ec = await httpClient(echoHttp.url);
  const plainAgent = new Agent({ connections: 1, keepAliveTimeout: 30_000 });
  const plain = async (method, params) => {
    const res = await request(`${http.url}/mcp`, {
      method: 'POST',
      dispatcher: plainAgent,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const reply = JSON.parse(await res.body.text());
    if (reply.error || reply.result?.isError) throw new Error(`${method}: ${JSON.stringify(reply).slice(0, 300)}`);
  };
  const h = [];
  const s = [];
  const hp = [];
  const eh = [];
  const pings = { stdio: [], sdk: [], plain: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const args of QUERIES) {
      h.push(await timed(() => call(hc, 'search_code', args)));
      s.push(await timed(() => call(adapter.client, 'search_code', args)));
      hp.push(await timed(() => plain('tools/call', { name: 'search_code', arguments: args })));
    }
    eh.push(await timed(() => call(ec, 'echo', { text: 'x' })));
    for (let k = 0; k < 5; k++) {
      pings.stdio.push(await timed(() => adapter.client.ping()));
      pings.sdk.push(await timed(() => hc.ping()));
      pings.plain.push(await timed(() => plain('ping', {})));
    }
  }
  row('Streamable HTTP one client p50 vs stdio p50 (SDK clients)', `${f1(median(h))} ms`, `stdio ${f1(median(s))} ms, echo HTTP ${f1(median(eh))} ms`, `+${f1(median(h) - median(s))} ms`);
  row('Streamable HTTP, plain JSON-RPC POSTs, p50 vs stdio p50', `${f1(median(hp))} ms`, `stdio ${f1(median(s))} ms`, `${median(hp) >= median(s) ? '+' : ''}${f1(median(hp) - median(s))} ms`);
  row('ping p50: SDK HTTP client / plain POST / SDK stdio client', `${f2(median(pings.sdk))} / ${f2(median(pings.plain))} ms`, `stdio ${f2(median(pings.stdio))} ms`, `SDK HTTP client +${f2(median(pings.sdk) - median(pings.plain))} ms over a plain POST`);
  await hc.close();
  await ec.close();
  await plainAgent.close();

  // 3. Throughput: the same load generator (N workers, the 30 queries in turn) through HTTP and raw.
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 4);
  const load = async (workers, one) => {
    let done = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        for (let k = w; performance.now() < until; k++) {
          await one(w, k % QUERIES.length);
          done++;
        }
      }),
    );
    return done / seconds;
  };
  for (const n of [1, 8, 32]) {
    const clients = await Promise.all(Array.from({ length: n }, () => httpClient(http.url)));
    const cpuNow = () => ({ adapter: cpuMs(http.pid), zoekt: ZOEKT_PID ? cpuMs(ZOEKT_PID) : 0 });
    const before = cpuNow();
    const viaHttp = await load(n, (w, q) => call(clients[w], 'search_code', QUERIES[q]));
    const after = cpuNow();
    const viaRaw = await load(n, async (_w, q) => { for (const r of recorded[q]) await raw(r); });
    row(`HTTP throughput ÷ raw Zoekt, ${n} client(s)`, `${f1(viaHttp)} calls/s`, `raw ${f1(viaRaw)} req/s`, f2(viaHttp / viaRaw));
    if (n === 32 && ZOEKT_PID) {
      // With every core busy, each call costs Zoekt's CPU plus the adapter's (and the load
      // generator's): 0.9 of raw Zoekt's rate leaves this much CPU per call beside Zoekt's.
      const calls = viaHttp * seconds;
      const zoekt = (after.zoekt - before.zoekt) / calls;
      const budget = (cpus().length * 1000) / (0.9 * viaRaw);
      row(
        'CPU per call under the 32-client load: adapter / Zoekt',
        `${f2((after.adapter - before.adapter) / calls)} / ${f2(zoekt)} ms`,
        `${cpus().length} cores at 0.9 × raw: ${f2(budget)} ms per call in all`,
        `${f2(budget - zoekt)} ms left beside Zoekt`,
      );
    }
    await Promise.all(clients.map((c) => c.close()));
  }
  const httpRss = rssMiB(http.pid);
  http.stop();
  echoHttp.stop();

  // 4. find_references ÷ its Zoekt requests, replayed with the dependencies the adapter sent them
  // with (the definitions and the first usages at once; an exact usage count may need one more).
  {
    const args = { symbol: 'ZodType', limit: 50 };
    const { requests } = await requestsOf('find_references', args);
    const replay = replayAsSent(requests);
    const a = [];
    const z = [];
    for (let i = 0; i < ROUNDS * 3; i++) {
      a.push(await timed(() => call(adapter.client, 'find_references', args)));
      z.push(await timed(replay));
    }
    row(`find_references ${args.symbol} ÷ its Zoekt requests as sent (${shapeOf(requests)})`, `${f1(median(a))} ms`, `raw ${f1(median(z))} ms`, f2(median(a) / median(z)));
  }

  // 5. search_symbols page 1: against one raw request for the page's files, and against what it sends.
  {
    const args = { name: 'get*', limit: 20 };
    const { requests, out } = await requestsOf('search_symbols', args);
    const page = { path: '/api/search', body: JSON.stringify({ Q: out.zoekt_query, Opts: { ChunkMatches: true, MaxDocDisplayCount: args.limit } }) };
    const a = [];
    const z = [];
    const sent = [];
    for (let i = 0; i < ROUNDS * 3; i++) {
      a.push(await timed(() => call(adapter.client, 'search_symbols', args)));
      z.push(await timed(() => raw(page)));
      sent.push(await timed(async () => { for (const r of requests) await raw(r); }));
    }
    const windows = requests.map((r) => JSON.parse(r.body).Opts.MaxDocDisplayCount).join('+');
    row('search_symbols get* page 1 ÷ raw Zoekt for the page (20 files)', `${f1(median(a))} ms`, `raw ${f1(median(z))} ms; its own ${windows}-file request(s) ${f1(median(sent))} ms`, f2(median(a) / median(z)));
  }

  // 6. tools/list bytes.
  const tools = JSON.stringify((await adapter.client.listTools()).tools).length;
  const echoTools = JSON.stringify((await echo.client.listTools()).tools).length;
  row('tools/list bytes', `${tools}`, `echo ${echoTools}`, `${f2(tools / 12_000)} of 12 KB`);

  // 7. Memory after many calls with the default cache: distinct queries, later pages, symbols, references.
  {
    const fresh = await stdioClient(CLI);
    const freshEcho = await stdioClient(ECHO);
    const words = [...new Set(readFileSync(join(ROOT, 'node_modules/typescript/lib/typescript.d.ts'), 'utf8').match(/\b[A-Za-z]\w{5,}\b/g))];
    let made = 0;
    for (let i = 0; made < CALLS; i++) {
      const w = words[i % words.length];
      const kind = i % 4;
      if (kind === 0 || kind === 1) {
        const first = await call(fresh.client, 'search_code', { query: w, limit: 10, context_lines: kind });
        made++;
        if (first.next_cursor && made < CALLS) {
          await call(fresh.client, 'search_code', { query: w, limit: 10, context_lines: kind, cursor: first.next_cursor });
          made++;
        }
      } else if (kind === 2) {
        await call(fresh.client, 'search_symbols', { name: `${w.slice(0, 4)}*` });
        made++;
      } else {
        await call(fresh.client, 'find_references', { symbol: w });
        made++;
      }
    }
    for (let i = 0; i < CALLS; i++) await call(freshEcho.client, 'echo', { text: 'x' });
    // What the window cache holds, by the server's own count (get_health), is memory it is meant to use.
    const cache = (await call(fresh.client, 'get_health', {})).calls.cache;
    const cacheMiB = (cache.bytes ?? 0) / 2 ** 20;
    const mem = memoryMiB(fresh.pid);
    const echoMem = memoryMiB(freshEcho.pid);
    const rss = mem.rss;
    const echoRss = echoMem.rss;
    row(`RSS after ${CALLS} calls, default cache (64 MiB)`, `${f1(rss)} MiB`, `echo ${f1(echoRss)} MiB after ${CALLS} calls`, `${f1(rss - echoRss)} MiB over echo`, `HTTP server after the load runs: ${f1(httpRss)} MiB`);
    row('RSS less the window cache', `${f1(rss - cacheMiB)} MiB (cache ${f1(cacheMiB)} of ${f1((cache.max_bytes ?? 0) / 2 ** 20)} MiB)`, `echo ${f1(echoRss)} MiB`, `${f1(rss - cacheMiB - echoRss)} MiB over echo`);
    row('peak RSS', `${f1(mem.peak)} MiB`, `echo ${f1(echoMem.peak)} MiB`, `${f1(mem.peak - echoMem.peak)} MiB over echo's peak (cache budget ${f1((cache.max_bytes ?? 0) / 2 ** 20)} MiB)`);
    await fresh.close();
    await freshEcho.close();
  }

  // 8. Cold start: spawn → first tools/list answer over stdio.
  const cold = await coldStart(CLI);
  const coldEcho = await coldStart(ECHO);
  row('cold start, spawn → tools/list answer (median of 5)', `${f1(cold)} ms`, `echo ${f1(coldEcho)} ms`, f2(cold / coldEcho));

  await adapter.close();
  await echo.close();
  await recording.close();
  rec.close();
  await zoektAgent.close();

  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length), ['figure', 'zoekt-mcp', 'floor (same run)', 'ratio'][i].length));
  const line = (cells) => `| ${cells.map((c, i) => (i < 4 ? c.padEnd(widths[i]) : c)).join(' | ')} |`;
  console.log(line(['figure', 'zoekt-mcp', 'floor (same run)', 'ratio', 'note']));
  console.log(line(widths.map((w) => '-'.repeat(w)).concat(['-'])));
  for (const r of rows) console.log(line(r));
}

main().catch((err) => {
  console.error(`bench: ${err.stack ?? err.message}`);
  process.exit(1);
});
