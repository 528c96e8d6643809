// The fetch plan, in one interleaved run: what each query costs through this checkout's build
// (after), an older build (before, ZOEKT_MCP_BEFORE_CLI) and another Zoekt MCP adapter (other,
// OTHER_ADAPTER: jahales/mcp-zoekt's dist/index.js), against raw Zoekt asked the cheapest request
// that could produce the page (minimal), for a symbol by exact name the one request that returns
// a page of its definitions with their documentation (docs: the name in any case, 12 context
// lines), the same request with the match budget zoekt-mcp sends (budget), and the very requests
// this build sent (exact, replayed).
// Over a 4-repository corpus: Go's source tree, CPython's Lib (the .py files), TypeScript's
// lib.*.d.ts and the C headers of /usr/include, indexed once with symbols into
// .tools/bench-corpus-index/ (zoekt-config/index dir -require_ctags, as zoekt-mcp indexes
// everywhere). Starts its own zoekt-webserver -rpc on a free loopback port.
//
// Every target reads Zoekt through a counting proxy of its own (raw Zoekt too, so each request
// pays the same hop): requests and response bytes per call. The adapters run with their window
// cache off (ZOEKT_MCP_CACHE_MB=0): each call is the fetch plan, not a cache hit. Prints per kind
// and overall: p50 and ratios, bytes and requests from Zoekt per call, page bytes, whether broad
// queries came back as a full page with a cursor; RSS and peak of each adapter after the run;
// start-up (spawn → tools/list answered); HTTP throughput at 1/8/32 clients, plain JSON-RPC POSTs
// to /mcp against raw Zoekt's minimal requests. Asserts nothing.
//   node bench/fetch-plan.mjs                      # or bash bench/fetch-plan.sh (builds before/other)
//   ZOEKT_MCP_BEFORE_CLI=/tmp/zm-before/dist/cli.js OTHER_ADAPTER=/tmp/other/zoekt-mcp/dist/index.js \
//     BENCH_ROUNDS=7 BENCH_BROAD_ROUNDS=1 BENCH_TIME_BUDGET_S=480 BENCH_LOAD_SECONDS=10 BENCH_STARTS=10 node bench/fetch-plan.mjs
// (the defaults: up to 7 rounds, as many as fit in 8 minutes once Zoekt is up, at least 3).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, Agent as HttpAgent } from 'node:http';
import { cpus } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Agent, request } from 'undici';
import { corpora, listFiles, memoryMiB, startHttpServer, startZoekt as startZoektAt, stdioHandshake, zoektBin } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const TOOLS = process.env.ZOEKT_MCP_TOOLS_DIR ?? join(ROOT, '.tools');
const { version: ZOEKT_VERSION, bin: ZOEKT_BIN } = zoektBin(ROOT);
const AFTER = resolve(process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js'));
const BEFORE = process.env.ZOEKT_MCP_BEFORE_CLI ? resolve(process.env.ZOEKT_MCP_BEFORE_CLI) : undefined;
const OTHER = process.env.OTHER_ADAPTER ? resolve(process.env.OTHER_ADAPTER) : undefined;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const STARTS = Number(process.env.BENCH_STARTS ?? 10);
const CLIENTS = (process.env.BENCH_CLIENTS ?? '1,8,32').split(',').map(Number);
/**
 * Seconds the run may take once Zoekt is up (the corpus index is built once, before): rounds past
 * BENCH_MIN_ROUNDS stop early when the next would not fit with the start-up and HTTP figures.
 */
const BUDGET_S = Number(process.env.BENCH_TIME_BUDGET_S ?? 480);
const MIN_ROUNDS = Number(process.env.BENCH_MIN_ROUNDS ?? 3);
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
/** Files a page (search_code, search_files, search_symbols) and usage lines (find_references). */
const PAGE = 10;
const CONTEXT = 1;

const log = (msg) => process.stderr.write(`fetch-plan: ${msg}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : Number.NaN;
};
const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : '–');
const f2 = (n) => (Number.isFinite(n) ? n.toFixed(2) : '–');
const kb = (n) => (Number.isFinite(n) ? `${(n / 1024).toFixed(n < 10_240 ? 1 : 0)}` : '–');

// ---------------------------------------------------------------------------------------------
// The corpus: four repositories, indexed once with symbols.

/**
 * What decides the symbols besides Zoekt (as test/support/zoekt.ts's indexerFingerprint), recorded
 * with the index. Not part of its key: the extractor changes often, and a figure of the fetch plan
 * does not depend on it enough to index four trees again (about 3 minutes); BENCH_REINDEX=1 does.
 */
function indexerFingerprint() {
  const hash = createHash('sha256');
  const files = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
  for (const file of [...files(join(ROOT, 'src/extractor')).sort(), join(ROOT, 'zoekt-config/index'), join(ROOT, 'zoekt-config/scip-ctags')]) hash.update(file).update(readFileSync(file));
  return hash.digest('hex').slice(0, 12);
}

/** The corpus index in .tools/bench-corpus-index/<key>/index, built unless a complete one is there. */
function corpusIndex() {
  const cs = corpora(ROOT);
  const settings = createHash('sha256');
  for (const file of ['zoekt-config/index', 'zoekt-config/scip-ctags']) settings.update(readFileSync(join(ROOT, file)));
  const key = [ZOEKT_VERSION, ...cs.map((c) => c.version).filter(Boolean), settings.digest('hex').slice(0, 12), 'v1'].join('-').replace(/[^A-Za-z0-9._-]/g, '_');
  const finalDir = join(TOOLS, 'bench-corpus-index', key);
  if (process.env.BENCH_REINDEX) rmSync(finalDir, { recursive: true, force: true });
  if (existsSync(join(finalDir, 'complete.json'))) {
    log(`reusing ${relative(ROOT, finalDir)}`);
    return { index: join(finalDir, 'index'), facts: JSON.parse(readFileSync(join(finalDir, 'complete.json'), 'utf8')) };
  }
  const tmp = `${finalDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'index'), { recursive: true });
  const started = Date.now();
  const repos = [];
  try {
    for (const c of cs) {
      // zoekt-index names a folder's repository after the folder: each tree is copied into one
      // named after it, with only the files that count.
      const files = listFiles(c.root, c.keep);
      const tree = join(tmp, 'trees', c.repo);
      log(`indexing ${files.length} files of ${c.root} as ${c.repo}`);
      for (const f of files) {
        mkdirSync(dirname(join(tree, f)), { recursive: true });
        cpSync(join(c.root, f), join(tree, f));
      }
      const t = Date.now();
      execFileSync(join(ROOT, 'zoekt-config/index'), ['dir', '-require_ctags', '-index', join(tmp, 'index'), tree], {
        env: { ...process.env, ZOEKT_BIN, ZOEKT_MCP_NODE: process.execPath },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      repos.push({ repo: c.repo, root: c.root, files: files.length, bytes: files.reduce((n, f) => n + statSync(join(c.root, f)).size, 0), indexMs: Date.now() - t });
    }
    rmSync(join(tmp, 'trees'), { recursive: true, force: true });
    const facts = { repos, indexMs: Date.now() - started, builtAt: new Date().toISOString(), extractor: indexerFingerprint() };
    writeFileSync(join(tmp, 'complete.json'), `${JSON.stringify(facts, null, 2)}\n`);
    renameSync(tmp, finalDir);
    // Indexes built with an earlier extractor or toolchain: no run reads them any more.
    for (const old of readdirSync(dirname(finalDir))) {
      if (old !== key && !old.includes('.tmp-')) rmSync(join(dirname(finalDir), old), { recursive: true, force: true });
    }
    return { index: join(finalDir, 'index'), facts };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

if (process.argv.includes('--index-only')) {
  const { index, facts } = corpusIndex();
  console.log(index);
  console.log(JSON.stringify(facts, null, 2));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// The queries: ~30 of several kinds, each as every target asks it. `raw` is the Zoekt query of
// the cheapest request that could produce the page; `other` the closest call of the other adapter.

const code = (kind, query, extra = {}, rawQ = query, otherQ = rawQ) => ({
  kind,
  label: query + (extra.languages ? ` (${extra.languages.join(',')})` : ''),
  tool: 'search_code',
  args: { query, limit: PAGE, context_lines: CONTEXT, ...extra },
  raw: rawQ,
  other: ['search', { query: otherQ, limit: PAGE, contextLines: CONTEXT }],
});
const sym = (kind, name, rawQ) => ({
  kind,
  label: name,
  tool: 'search_symbols',
  args: { name, limit: PAGE },
  raw: `sym:${rawQ}`,
  other: ['search_symbols', { query: rawQ, limit: PAGE, contextLines: CONTEXT }],
});
const refs = (symbol) => ({
  kind: 'references',
  label: symbol,
  tool: 'find_references',
  args: { symbol, limit: PAGE, context_lines: CONTEXT },
  raw: `case:yes \\b${symbol}\\b`,
  other: ['find_references', { symbol, limit: PAGE, contextLines: CONTEXT }],
});
const files = (pattern, fileRe) => ({
  kind: 'files',
  label: pattern,
  tool: 'search_files',
  args: { pattern, limit: PAGE },
  raw: `file:${fileRe}`,
  other: ['search_files', { query: `file:${fileRe}`, limit: PAGE }],
});
const QUERIES = [
  code('code: rare identifier', 'NewSingleHostReverseProxy'),
  code('code: rare identifier', 'ReadableStreamDefaultReader'),
  code('code: rare identifier', '__subclasshook__'),
  code('code: common identifier', 'err'),
  code('code: common identifier', 'self'),
  code('code: common identifier', 'size_t'),
  code('code: regex', 'func\\s+\\(\\w+\\s+\\*Reader\\)\\s+Read'),
  code('code: regex', 'def\\s+__\\w+__\\(self\\)'),
  code('code: multi-term', 'context cancel'),
  code('code: multi-term', 'socket timeout'),
  code('code: language filter', 'open', { languages: ['python'] }, 'open lang:Python'),
  code('code: language filter', 'Marshal', { languages: ['go'] }, 'Marshal lang:Go'),
  code('code: language filter', 'memcpy', { languages: ['c'] }, 'memcpy lang:C'),
  code('broad', 'e'),
  code('broad', 'a'),
  code('broad', '.'),
  sym('symbols: exact', 'String', '^String$'),
  sym('symbols: exact', 'Close', '^Close$'),
  sym('symbols: exact', '__init__', '^__init__$'),
  sym('symbols: exact', 'len', '^len$'),
  sym('symbols: exact', 'ParseFloat', '^ParseFloat$'),
  sym('symbols: prefix glob', 'New*', '^New'),
  sym('symbols: prefix glob', 'get*', '^get'),
  sym('symbols: qualified', 'Buffer.Write', '^Write$'),
  sym('symbols: qualified', 'Thread.start', '^start$'),
  refs('Close'),
  refs('join'),
  refs('malloc'),
  files('*.h', '\\.h$'),
  files('**/net/http/*.go', '(^|/)net/http/[^/]*\\.go$'),
  files('test_*.py', '(^|/)test_[^/]*\\.py$'),
];
const KINDS = [...new Set(QUERIES.map((q) => q.kind))];
const isBroad = (q) => q.kind === 'broad';
/** The Zoekt request raw Zoekt is asked for a query: the page's files, 1 context line. */
const minimalBody = (q) => JSON.stringify({ Q: q.raw, Opts: { ChunkMatches: true, MaxDocDisplayCount: PAGE, NumContextLines: CONTEXT, MaxMatchDisplayCount: 50 } });
/**
 * The same request with the match budget zoekt-mcp sends (src/zoekt/client.ts). Without one,
 * Zoekt derives it from MaxDocDisplayCount (about 50 matches a shard on this corpus) and stops
 * early: the minimal request's files are the first found, not the best ranked of every match.
 */
/**
 * For a symbol by exact name, the one raw request that returns a page of its definitions with
 * their documentation: the name in any case (as search_symbols asks it), 12 lines around each
 * match (src/search/definitions/documentation.ts, DOC_LINES), a page of files.
 */
const DOC_LINES = 12;
const hasDocs = (q) => q.kind === 'symbols: exact';
const docsBody = (q) => JSON.stringify({ Q: `case:no ${q.raw}`, Opts: { ChunkMatches: true, MaxDocDisplayCount: PAGE, NumContextLines: DOC_LINES, MaxMatchDisplayCount: 50 } });
const budgetBody = (q) => JSON.stringify({ Q: q.raw, Opts: { ChunkMatches: true, MaxDocDisplayCount: PAGE, NumContextLines: CONTEXT, MaxMatchDisplayCount: 50, ShardMaxMatchCount: 300_000, TotalMaxMatchCount: 1_200_000 } });

// ---------------------------------------------------------------------------------------------
// Zoekt, and a counting proxy in front of it per target.


const children = [];
function stopAll() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
}
process.on('exit', stopAll);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

async function startZoekt(index) {
  const { url, child } = await startZoektAt(ZOEKT_BIN, index, 4);
  children.push(child);
  return { url, pid: child.pid };
}

/** A proxy that forwards to Zoekt as it goes and counts requests and the response bytes. */
async function countingProxy(upstream) {
  const u = new URL(upstream);
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  const stats = { requests: 0, bytes: 0, recording: undefined };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('error', () => {});
    res.on('error', () => {});
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry = { path: req.url, body: body.toString(), start: performance.now(), end: Number.POSITIVE_INFINITY };
      stats.requests++;
      stats.recording?.push(entry);
      const up = httpRequest({ host: u.hostname, port: u.port, method: req.method, path: req.url, headers: { ...req.headers, host: u.host }, agent }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.on('data', (c) => (stats.bytes += c.length));
        ur.on('end', () => (entry.end = performance.now()));
        ur.on('error', () => res.destroy());
        ur.pipe(res);
      });
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      // A caller that gives up (a deadline) stops reading what is left.
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
      });
      up.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, stats, close: () => (server.closeAllConnections(), server.close(), agent.destroy()) };
}

// ---------------------------------------------------------------------------------------------
// The targets.

const adapterEnv = (url, extra = {}) => ({ PATH: process.env.PATH ?? '', ZOEKT_URL: url, ZOEKT_MCP_LOG_LEVEL: 'warn', ZOEKT_MCP_CACHE_MB: '0', ...extra });
/** The other adapter: its URL flag, its own 10 s deadline (as zoekt-mcp's), warnings only. */
const otherArgs = (url) => ['--url', url, '--timeout', '10000', '--log-level', 'warn'];

async function stdioAdapter(cli, url, isOther = false) {
  const transport = new StdioClientTransport({ command: process.execPath, args: isOther ? [cli, ...otherArgs(url)] : [cli], env: adapterEnv(url), stderr: 'ignore' });
  const client = new Client({ name: 'fetch-plan', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

const textOf = (r) => (r.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** What a page holds: items, whether it has a cursor, its text bytes. */
function pageOf(tool, r, isOther) {
  const text = textOf(r);
  const page = { bytes: Buffer.byteLength(text), error: !!r.isError, items: 0, cursor: false };
  if (page.error) {
    page.code = r.structuredContent?.error?.code ?? (/TIMEOUT|timed out/i.test(text) ? 'TIMEOUT' : 'ERROR');
    return page;
  }
  if (isOther) {
    page.cursor = text.includes('More results available');
    page.items = (text.match(tool === 'search' ? /^### /gm : /^- /gm) ?? []).length;
    return page;
  }
  const s = r.structuredContent ?? {};
  page.cursor = !!s.next_cursor;
  page.items = (s.results ?? s.symbols ?? s.usages ?? s.files ?? []).length;
  return page;
}

async function callAdapter(a, name, args, isOther) {
  try {
    const r = await a.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    return pageOf(name, r, isOther);
  } catch (e) {
    return { bytes: 0, error: true, code: String(e.message).slice(0, 40), items: 0, cursor: false };
  }
}

const rawAgent = new Agent({ connections: 64, keepAliveTimeout: 60_000 });
async function postRaw(url, path, body, dispatcher = rawAgent) {
  const res = await request(`${url}${path}`, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json' }, body });
  const buf = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) throw new Error(`zoekt ${res.statusCode}: ${buf.toString().slice(0, 200)}`);
  return buf;
}

/**
 * Replays recorded requests with the dependencies they were sent with (as bench/perf.mjs does):
 * each starts once every request answered before it was sent has been answered again.
 */
function replayAsSent(url, requests) {
  const sorted = [...requests].sort((a, b) => a.start - b.start);
  const done = [];
  for (const r of sorted) {
    const before = sorted.flatMap((o, i) => (o.end <= r.start ? [done[i]] : []));
    done.push(Promise.all(before).then(() => postRaw(url, r.path, r.body)));
  }
  return Promise.all(done);
}

async function timed(fn) {
  const t = performance.now();
  const out = await fn();
  return { ms: performance.now() - t, out };
}

// ---------------------------------------------------------------------------------------------
// Start-up and HTTP throughput.

/** Spawn → tools/list answered (sent once initialize is answered, as a client does), in ms. */
function startTime(cli, args, env) {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let ms;
    stdioHandshake(child, 'fetch-plan', {
      toolsList(msg) {
        ms = performance.now() - started;
        if (!msg.result?.tools?.length) fail(new Error(`tools/list: ${JSON.stringify(msg).slice(0, 200)}`));
        child.kill('SIGTERM');
      },
    });
    child.on('exit', () => (ms ? done(ms) : fail(new Error(`${cli} exited before answering tools/list`))));
  });
}

/** `workers` clients calling `one(k)` in turn for LOAD_SECONDS: answers a second, and failures. */
async function load(workers, one) {
  let ok = 0;
  let failed = 0;
  const until = performance.now() + LOAD_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let k = w; performance.now() < until; k++) {
        try {
          (await one(k)) ? ok++ : failed++;
        } catch {
          failed++;
        }
      }
    }),
  );
  return { rate: ok / LOAD_SECONDS, failed };
}

/** One plain JSON-RPC tools/call POST to /mcp (as bench/perf.mjs sends them); true if answered without error. */
async function mcpPost(url, dispatcher, name, args, id) {
  const res = await request(`${url}/mcp`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) return false;
  const json = text.startsWith('{') ? JSON.parse(text) : JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return !json.error && !json.result?.isError;
}

// ---------------------------------------------------------------------------------------------
// The run.

/** Broad queries take seconds per call on every target: they run in the first BROAD_ROUNDS rounds only. */
const BROAD_ROUNDS = Number(process.env.BENCH_BROAD_ROUNDS ?? 1);

async function main() {
  const { index, facts } = corpusIndex();
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const elapsed = () => `${seconds().toFixed(0)} s`;
  const loadAtStart = loadavg();
  const zoekt = await startZoekt(index);
  log(`zoekt-webserver on ${zoekt.url}`);
  const rawProxy = await countingProxy(zoekt.url);
  const adapters = {};
  for (const [name, cli, isOther] of [['after', AFTER, false], ['before', BEFORE, false], ['other', OTHER, true]]) {
    if (!cli) continue;
    const proxy = await countingProxy(zoekt.url);
    adapters[name] = { ...(await stdioAdapter(cli, proxy.url, isOther)), proxy, isOther, cli };
  }
  const names = ['raw', 'docs', 'budget', 'after', 'exact', 'before', 'other'].filter((n) => !['after', 'before', 'other'].includes(n) || adapters[n]);
  const samples = Object.fromEntries(names.map((n) => [n, QUERIES.map(() => ({ ms: [], requests: [], bytes: [], pages: [] }))]));
  /** The Zoekt requests of after's latest call of each query, for `exact`. */
  const recorded = [];

  async function run(name, qi, keep) {
    const q = QUERIES[qi];
    let proxy;
    let call;
    if (name === 'raw' || name === 'docs' || name === 'budget' || name === 'exact') {
      proxy = rawProxy;
      if (name === 'budget' && isBroad(q)) return; // seconds a call: left out
      if (name === 'docs' && !hasDocs(q)) return;
      if (name !== 'exact') {
        call = async () => {
          try {
            const buf = await postRaw(rawProxy.url, '/api/search', (name === 'raw' ? minimalBody : name === 'docs' ? docsBody : budgetBody)(q));
            return { buf };
          } catch (e) {
            return { page: { error: true, code: String(e.message).slice(0, 40), bytes: 0, items: 0 } };
          }
        };
      } else {
        const rec = recorded[qi];
        if (!rec?.ok) return; // after failed (a deadline): nothing complete to replay
        call = () => replayAsSent(rawProxy.url, rec.requests).then(() => ({}));
      }
    } else {
      const a = adapters[name];
      proxy = a.proxy;
      const [tool, args] = a.isOther ? q.other : [q.tool, q.args];
      if (name === 'after') proxy.stats.recording = [];
      call = async () => ({ page: await callAdapter(a, tool, args, a.isOther) });
    }
    const r0 = proxy.stats.requests;
    const b0 = proxy.stats.bytes;
    const { ms, out } = await timed(call);
    if (process.env.BENCH_VERBOSE) log(`${keep ? '' : 'warm-up '}${name} ${q.label}: ${f1(ms)} ms`);
    const requests = proxy.stats.requests - r0;
    const bytes = proxy.stats.bytes - b0;
    let page = out.page;
    if (out.buf) {
      const files = JSON.parse(out.buf.toString()).Result?.Files ?? [];
      page = { bytes: out.buf.length, items: files.length, cursor: false, error: false };
    }
    if (name === 'after') {
      const requestsSent = proxy.stats.recording.filter((e) => e.path.startsWith('/api/'));
      proxy.stats.recording = undefined;
      recorded[qi] = { requests: requestsSent, ok: !page.error };
    }
    if (!keep) return;
    const s = samples[name][qi];
    s.ms.push(ms);
    s.requests.push(requests);
    s.bytes.push(bytes);
    if (page) s.pages.push(page);
  }

  console.log(`# zoekt-mcp fetch plan, ${new Date().toISOString().slice(0, 10)}`);
  console.log(`node ${process.version}, ${cpus().length} cores, load average at the start ${loadAtStart}; corpus: ${facts.repos.map((r) => `${r.repo} ${r.files} files`).join(', ')}`);
  console.log(`after: ${AFTER}\nbefore: ${BEFORE ?? '(none)'}\nother: ${OTHER ?? '(none)'}`);
  console.log(`${QUERIES.length} queries, up to ${ROUNDS} rounds (broad: ${Math.min(ROUNDS, BROAD_ROUNDS)}), ${PAGE} files a page, ${CONTEXT} context line, window caches off; raw Zoekt's minimal request: MaxDocDisplayCount ${PAGE}, NumContextLines ${CONTEXT}, ChunkMatches, MaxMatchDisplayCount 50\n`);

  // One untimed call of each kind but broad: each process's one-time work (its repository list,
  // the modules a kind loads).
  for (const kind of KINDS.filter((k) => k !== 'broad')) {
    const qi = QUERIES.findIndex((q) => q.kind === kind);
    for (const n of names) await run(n, qi, false);
  }
  log(`warm-up done, ${elapsed()}`);
  // What the start-up and HTTP figures take, to keep the whole within BUDGET_S.
  const tail = (STARTS + 1) * Object.keys(adapters).length * 0.7 + CLIENTS.length * (1 + ['after', 'before'].filter((n) => adapters[n]).length) * (LOAD_SECONDS + 1) + 10;
  let rounds = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const roundStart = seconds();
    for (let qi = 0; qi < QUERIES.length; qi++) {
      if (isBroad(QUERIES[qi]) && round >= BROAD_ROUNDS) continue;
      const shift = (round + qi) % names.length;
      for (const n of [...names.slice(shift), ...names.slice(0, shift)]) await run(n, qi, true);
    }
    rounds++;
    log(`round ${round + 1} of ${ROUNDS} done, ${elapsed()}`);
    const next = seconds() - roundStart;
    if (rounds >= MIN_ROUNDS && round + 1 < ROUNDS && seconds() + next + tail > BUDGET_S) {
      log(`stopping after ${rounds} rounds: another (${next.toFixed(0)} s) would take the run past ${BUDGET_S} s`);
      break;
    }
  }
  const memory = Object.fromEntries(Object.entries(adapters).map(([n, a]) => [n, memoryMiB(a.pid)]));
  memory.zoekt = memoryMiB(zoekt.pid);
  for (const a of Object.values(adapters)) await a.close();

  // Start-up: spawn → tools/list answered, the builds in turn.
  const starts = Object.fromEntries(Object.keys(adapters).map((n) => [n, []]));
  for (let i = 0; i < STARTS + 1; i++) {
    const order = i % 2 ? Object.keys(adapters).reverse() : Object.keys(adapters);
    for (const n of order) {
      const a = adapters[n];
      const ms = await startTime(a.cli, a.isOther ? otherArgs(zoekt.url) : [], adapterEnv(zoekt.url));
      if (i > 0) starts[n].push(ms); // the first spawn reads the files from disk
    }
  }
  log(`start-up done, ${elapsed()}`);

  // HTTP throughput: plain JSON-RPC POSTs to /mcp against raw Zoekt's minimal requests, the
  // queries but the broad ones in turn. The other adapter serves only the older HTTP+SSE
  // transport, so it is left out here.
  const mix = QUERIES.filter((q) => !isBroad(q));
  const throughput = {};
  const httpServers = {};
  for (const n of ['after', 'before']) {
    if (!adapters[n]) continue;
    httpServers[n] = await startHttpServer(adapters[n].cli, ['--http', '--port', '0'], adapterEnv(zoekt.url, { ZOEKT_MCP_LOG_LEVEL: 'info' }));
    const warm = new Agent({ connections: 1 });
    await mcpPost(httpServers[n].url, warm, mix[0].tool, mix[0].args, 0);
    await warm.close();
  }
  for (const clients of CLIENTS) {
    const row = {};
    for (const n of ['raw', ...Object.keys(httpServers)]) {
      const dispatcher = new Agent({ connections: clients, keepAliveTimeout: 60_000 });
      row[n] =
        n === 'raw'
          ? await load(clients, (k) => postRaw(zoekt.url, '/api/search', minimalBody(mix[k % mix.length]), dispatcher).then(() => true))
          : await load(clients, (k) => mcpPost(httpServers[n].url, dispatcher, mix[k % mix.length].tool, mix[k % mix.length].args, k + 1));
      await dispatcher.close();
    }
    throughput[clients] = row;
    log(`HTTP throughput, ${clients} client(s): ${Object.entries(row).map(([n, r]) => `${n} ${f1(r.rate)}/s`).join(', ')}, ${elapsed()}`);
  }
  for (const [n, s] of Object.entries(httpServers)) {
    memory[`${n} --http`] = memoryMiB(s.pid);
    await s.stop();
  }
  memory['zoekt at the end'] = memoryMiB(zoekt.pid);
  rawProxy.close();
  for (const a of Object.values(adapters)) a.proxy.close();
  await rawAgent.close();

  report({ samples, names, memory, starts, throughput, totalS: seconds(), mix, rounds, loadAtEnd: loadavg() });
}

// ---------------------------------------------------------------------------------------------
// The figures.

function report({ samples, names, memory, starts, throughput, totalS, mix, rounds, loadAtEnd }) {
  const has = (n) => names.includes(n);
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
  const p50 = (n, qi) => (has(n) ? median(samples[n][qi].ms) : Number.NaN);
  const ratio = (a, b, qi) => p50(a, qi) / p50(b, qi);
  const inKind = (kind) => QUERIES.flatMap((q, qi) => (q.kind === kind ? [qi] : []));
  const all = QUERIES.map((_, qi) => qi);
  const medianRatio = (a, b, qis) => median(qis.map((qi) => ratio(a, b, qi)).filter(Number.isFinite));
  const meanOver = (n, field, qis) => mean(qis.flatMap((qi) => (has(n) ? samples[n][qi][field] : [])));
  const pageBytes = (n, qis) => mean(qis.flatMap((qi) => (has(n) ? samples[n][qi].pages.filter((p) => !p.error).map((p) => p.bytes) : [])));
  const errors = (n, qis) => {
    const pages = qis.flatMap((qi) => (has(n) ? samples[n][qi].pages : []));
    const bad = pages.filter((p) => p.error);
    return bad.length ? `${bad.length}/${pages.length} ${[...new Set(bad.map((p) => p.code))].join(',')}` : '';
  };
  const table = (head, rows) => {
    console.log(`| ${head.join(' | ')} |`);
    console.log(`| ${head.map(() => '---').join(' | ')} |`);
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
    console.log('');
  };
  const adapters = names.filter((n) => !['raw', 'docs', 'budget', 'exact'].includes(n));
  const title = { raw: 'raw minimal', docs: 'raw, a page with documentation', budget: 'raw, with a match budget', exact: "raw, after's requests" };

  console.log('## p50 per call (ms) and ratios, per kind: each a median over the kind\'s queries of their p50s and ratios\n');
  const kindRow = (label, qis) => [
    label,
    String(qis.length),
    ...names.map((n) => f1(median(qis.map((qi) => p50(n, qi))))),
    f2(medianRatio('after', 'raw', qis)),
    f2(medianRatio('after', 'budget', qis)),
    f2(medianRatio('before', 'raw', qis)),
    f2(medianRatio('after', 'before', qis)),
    f2(medianRatio('after', 'other', qis)),
    f2(medianRatio('after', 'exact', qis)),
  ];
  table(
    ['kind', 'queries', ...names.map((n) => title[n] ?? n), 'after ÷ raw', 'after ÷ raw with budget', 'before ÷ raw', 'after ÷ before', 'after ÷ other', 'after ÷ its requests'],
    [...KINDS.map((k) => kindRow(k, inKind(k))), kindRow('**all**', all)],
  );

  console.log('## Read from Zoekt per call: KB (requests), mean over calls; the page: KB of text the call returns\n');
  const io = (n, qis) => `${kb(meanOver(n, 'bytes', qis))} (${f1(meanOver(n, 'requests', qis))})`;
  const kindIo = (label, qis) => [
    label,
    ...['raw', ...adapters].map((n) => io(n, qis)),
    ...adapters.map((n) => kb(pageBytes(n, qis))),
    f2(meanOver('after', 'bytes', qis) / meanOver('before', 'bytes', qis)),
    ...adapters.map((n) => errors(n, qis)),
  ];
  table(
    ['kind', 'raw minimal', ...adapters.map((n) => `${n}`), ...adapters.map((n) => `${n} page`), 'after ÷ before bytes', ...adapters.map((n) => `${n} errors`)],
    [...KINDS.map((k) => kindIo(k, inKind(k))), kindIo('**all**', all)],
  );

  console.log('## Per query: p50 ms, and KB read from Zoekt per call (requests)\n');
  table(
    ['query', 'kind', ...names.map((n) => `${n} ms`), 'after ÷ raw', 'after ÷ budget', 'after ÷ other', ...adapters.map((n) => `${n} KB (req)`), 'after page KB'],
    QUERIES.map((q, qi) => [
      `\`${q.label}\``,
      q.kind,
      ...names.map((n) => f1(p50(n, qi))),
      f2(ratio('after', 'raw', qi)),
      f2(ratio('after', 'budget', qi)),
      f2(ratio('after', 'other', qi)),
      ...adapters.map((n) => io(n, [qi])),
      kb(pageBytes('after', [qi])),
    ]),
  );

  console.log('## Broad queries: the page each target returned (files, cursor), calls that failed\n');
  table(
    ['query', ...['raw', ...adapters].map((n) => n)],
    inKind('broad').map((qi) => [
      `\`${QUERIES[qi].label}\``,
      ...['raw', ...adapters].map((n) => {
        const pages = samples[n][qi].pages;
        const ok = pages.filter((p) => !p.error);
        const last = ok.at(-1);
        const page = last ? `${last.items} files${n === 'raw' ? '' : last.cursor ? ', cursor' : ', no cursor'}` : 'no page';
        return `${page}${ok.length < pages.length ? `; ${pages.length - ok.length}/${pages.length} failed (${[...new Set(pages.filter((p) => p.error).map((p) => p.code))].join(',')})` : ''}`;
      }),
    ]),
  );

  console.log('## Symbol calls: bytes read from Zoekt ÷ bytes of the page\n');
  const symbolQis = QUERIES.flatMap((q, qi) => (q.tool === 'search_symbols' ? [qi] : []));
  const symRatio = (n, qi) => meanOver(n, 'bytes', [qi]) / pageBytes(n, [qi]);
  table(
    ['query', ...adapters.map((n) => `${n}: KB read ÷ page KB`)],
    symbolQis.map((qi) => [`\`${QUERIES[qi].label}\``, ...adapters.map((n) => `${kb(meanOver(n, 'bytes', [qi]))} ÷ ${kb(pageBytes(n, [qi]))} = ${f1(symRatio(n, qi))}×`)]),
  );

  console.log('## Symbols by exact name: against the one raw request for a page of its definitions with their documentation\n');
  const docQis = QUERIES.flatMap((q, qi) => (hasDocs(q) ? [qi] : []));
  const reqs = (n, qi) => (has(n) ? f1(meanOver(n, 'requests', [qi])) : '–');
  table(
    ['query', 'raw with documentation ms', 'after ms', 'after ÷ it', ...(has('before') ? ['before ms', 'before ÷ it'] : []), 'after requests', ...(has('before') ? ['before requests'] : [])],
    docQis.map((qi) => [
      `\`${QUERIES[qi].label}\``,
      f1(p50('docs', qi)),
      f1(p50('after', qi)),
      f2(ratio('after', 'docs', qi)),
      ...(has('before') ? [f1(p50('before', qi)), f2(ratio('before', 'docs', qi))] : []),
      reqs('after', qi),
      ...(has('before') ? [reqs('before', qi)] : []),
    ]),
  );

  console.log('## Memory (MiB), start-up (ms) and HTTP throughput (calls/s)\n');
  table(
    ['process', 'RSS', 'peak (VmHWM)'],
    Object.entries(memory).map(([n, m]) => [n === 'zoekt' ? 'zoekt-webserver after the rounds' : n, f1(m.rss), f1(m.peak)]),
  );
  table(
    ['build', `spawn → tools/list, median of ${STARTS}`, 'min', 'max'],
    Object.entries(starts).map(([n, xs]) => [n, f1(median(xs)), f1(Math.min(...xs)), f1(Math.max(...xs))]),
  );
  const httpNames = Object.keys(Object.values(throughput)[0] ?? {});
  table(
    ['clients', ...httpNames.map((n) => (n === 'raw' ? 'raw Zoekt, minimal' : `${n} --http`)), ...httpNames.filter((n) => n !== 'raw').map((n) => `${n} ÷ raw`)],
    Object.entries(throughput).map(([c, row]) => [
      c,
      ...httpNames.map((n) => `${f1(row[n].rate)}${row[n].failed ? ` (${row[n].failed} failed)` : ''}`),
      ...httpNames.filter((n) => n !== 'raw').map((n) => f2(row[n].rate / row.raw.rate)),
    ]),
  );
  console.log(`HTTP mix: the ${mix.length} queries but the broad ones, in turn, ${LOAD_SECONDS} s per figure.\n`);

  console.log('## Targets\n');
  const overall = medianRatio('after', 'raw', all);
  const slowerKinds = has('other') ? KINDS.filter((k) => medianRatio('after', 'other', inKind(k)) > 1) : [];
  const tp = (c) => (throughput[c]?.after && throughput[c]?.raw ? throughput[c].after.rate / throughput[c].raw.rate : Number.NaN);
  const symMax = Math.max(...symbolQis.map((qi) => symRatio('after', qi)));
  const verdict = (ok) => (ok ? 'met' : 'MISSED');
  console.log(`- median per-query p50, after ÷ raw minimal: ${f2(overall)} (target ≤ 1.3): ${verdict(overall <= 1.3)}`);
  console.log(`  (after ÷ raw with the adapter's match budget: ${f2(medianRatio('after', 'budget', all))}; after ÷ its own Zoekt requests replayed: ${f2(medianRatio('after', 'exact', all))}; before ÷ raw minimal: ${f2(medianRatio('before', 'raw', all))})`);
  if (has('other')) console.log(`- no kind slower than the other adapter: ${slowerKinds.length ? `MISSED (${slowerKinds.map((k) => `${k} ${f2(medianRatio('after', 'other', inKind(k)))}×`).join('; ')})` : 'met'}`);
  console.log(`- HTTP throughput ÷ raw Zoekt at 8 and 32 clients: ${f2(tp(8))}, ${f2(tp(32))} (target ≥ 0.8): ${verdict(tp(8) >= 0.8 && tp(32) >= 0.8)}`);
  const docRatio = medianRatio('after', 'docs', docQis);
  console.log(`- symbols by exact name, median p50 after ÷ the raw request of a page with documentation: ${f2(docRatio)} (target ≤ 1.3): ${verdict(docRatio <= 1.3)}${has('before') ? `; before: ${f2(medianRatio('before', 'docs', docQis))}` : ''}`);
  console.log(`- bytes read from Zoekt per symbol call ÷ page bytes: median ${f1(median(symbolQis.map((qi) => symRatio('after', qi))))}×, max ${f1(symMax)}× (target ≤ 10×): ${verdict(symMax <= 10)}`);
  console.log(`\n${rounds} rounds (broad queries: ${Math.min(rounds, BROAD_ROUNDS)}); run time ${f1(totalS)} s once Zoekt was up; load average at the end ${loadAtEnd}.`);
}

main().catch((err) => {
  console.error(`fetch-plan: ${err.stack ?? err.message}`);
  process.exitCode = 1;
}).finally(() => {
  stopAll();
  // Open keep-alive sockets and the SDK's transports would keep the process up.
  setTimeout(() => process.exit(), 500).unref();
});
