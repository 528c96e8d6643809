// The definitions index in Weaviate at the size of a real tree: a definitions index built on disk
// (zoekt-mcp definitions build) pushed into a weaviate-server started here (scripts/setup.sh
// weaviate builds it; data in a temporary folder, loopback), then the descriptions of
// test/support/describe-go.json (the tuning set; never the held-out ones) searched with each way
// of fusing Weaviate's two lists. Prints the import's time and the server's memory, and per way:
// top-1, top-3 and top-10 of the set, p50/p95 ms. Asserts nothing. Needs `npm run build`.
//   node bench/definitions-weaviate.mjs --index /tmp/go-defs     # built with --repo $(go env GOROOT)/src --name src
//   BENCH_WEAVIATE_URL=http://127.0.0.1:8080 node bench/definitions-weaviate.mjs --index DIR   # a server of yours (pushed if behind)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { index: { type: 'string' }, repeat: { type: 'string', default: '2' } } });
if (!values.index) {
  console.error('usage: node bench/definitions-weaviate.mjs --index DIR');
  process.exit(2);
}
const { pushDefinitions } = await import(join(ROOT, 'dist/definitions-index/weaviate-push.js'));
const { WeaviateDefinitionsIndex } = await import(join(ROOT, 'dist/definitions-index/weaviate.js'));
const { loadEmbedder } = await import(join(ROOT, 'dist/model/embedder.js'));
const { FolderDefinitionsIndex } = await import(join(ROOT, 'dist/definitions-index/folder-index.js'));

const freePort = () =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

async function startWeaviate(data) {
  const version = /^WEAVIATE_VERSION=(\S+)$/m.exec(readFileSync(join(ROOT, 'scripts/install-weaviate.sh'), 'utf8'))[1];
  const bin = join(process.env.ZOEKT_MCP_TOOLS_DIR ?? join(ROOT, '.tools'), 'weaviate', version, 'weaviate-server');
  const [http, grpc, gossip, dataPort, raft, raftRpc] = await Promise.all(Array.from({ length: 6 }, freePort));
  const child = spawn(bin, ['--host', '127.0.0.1', '--port', String(http), '--scheme', 'http'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH,
      PERSISTENCE_DATA_PATH: data,
      AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED: 'true',
      DEFAULT_VECTORIZER_MODULE: 'none',
      ENABLE_MODULES: '',
      DISABLE_TELEMETRY: 'true',
      GO_PROFILING_DISABLE: 'true',
      CLUSTER_HOSTNAME: 'node1',
      CLUSTER_ADVERTISE_ADDR: '127.0.0.1',
      CLUSTER_BIND_ADDR: '127.0.0.1',
      CLUSTER_GOSSIP_BIND_PORT: String(gossip),
      CLUSTER_DATA_BIND_PORT: String(dataPort),
      RAFT_PORT: String(raft),
      RAFT_INTERNAL_RPC_PORT: String(raftRpc),
      RAFT_BOOTSTRAP_EXPECT: '1',
      GRPC_PORT: String(grpc),
      QUERY_HYBRID_MAXIMUM_RESULTS: '200',
      LOG_LEVEL: 'warning',
    },
  });
  const url = `http://127.0.0.1:${http}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    try {
      if ((await fetch(`${url}/v1/.well-known/ready`)).ok) return { url, child };
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error('weaviate-server did not become ready within 60 s');
}

const rssMiB = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);

let server;
let work;
let url = process.env.BENCH_WEAVIATE_URL;
if (!url) {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-bench-weaviate-'));
  server = await startWeaviate(join(work, 'data'));
  url = server.url;
}
try {
  const started = Date.now();
  let lastSaid = 0;
  const report = await pushDefinitions(values.index, {
    url,
    graceMs: 0,
    progress: (line) => {
      if (Date.now() - lastSaid > 10_000 || !line.startsWith(' ')) console.error(`push: ${line}`), (lastSaid = Date.now());
    },
  });
  const pushedDefs = report.pushed.reduce((n, p) => n + p.definitions, 0);
  console.log(`push: ${pushedDefs} definitions of ${report.pushed.length} repositories in ${((Date.now() - started) / 1000).toFixed(1)} s (${report.unchanged.length} unchanged, ${report.failed.length} failed)${server ? `; server RSS ${rssMiB(server.child.pid)} MiB` : ''}`);

  const embedder = await loadEmbedder();
  const set = JSON.parse(readFileSync(join(ROOT, 'test/support/describe-go.json'), 'utf8')).descriptions.map(({ description, accept }) => ({ description, accept: accept.map(([name, dir]) => [name, new RegExp(dir)]) }));
  // BENCH_WAYS=ranked:0.7,relative:0.5 picks some.
  const ways = (process.env.BENCH_WAYS ?? 'ranked:0.5,relative:0.5,ranked:0.3,relative:0.3,ranked:0.7,relative:0.7').split(',').map((w) => [w.split(':')[0], Number(w.split(':')[1])]);
  // The in-process engine over the same folder, for comparison.
  ways.push(['in-process', 0]);
  for (const [fusion, alpha] of ways) {
    const index = fusion === 'in-process' ? new FolderDefinitionsIndex(values.index, embedder) : new WeaviateDefinitionsIndex({ url, timeoutMs: 30_000, embedder, fusion, alpha });
    const times = [];
    let top1 = 0;
    let top3 = 0;
    let top10 = 0;
    for (let pass = 0; pass < Number(values.repeat); pass++) {
      for (const { description, accept } of set) {
        const t = performance.now();
        const answer = await index.search({ text: description, includeVendored: false, limit: 10 });
        if (pass === 0) continue;
        times.push(performance.now() - t);
        const at = answer.hits.findIndex((h) => accept.some(([name, dir]) => h.definition.name === name && dir.test(h.definition.path)));
        if (at === 0) top1++;
        if (at >= 0 && at < 3) top3++;
        if (at >= 0) top10++;
      }
    }
    await index.close();
    times.sort((a, b) => a - b);
    const p = (q) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)].toFixed(1);
    const n = set.length * (Number(values.repeat) - 1);
    console.log(`${fusion === 'in-process' ? 'in-process engine (reciprocal rank)' : `${fusion} fusion, alpha ${alpha}`}: top-1 ${top1}/${n}, top-3 ${top3}/${n}, top-10 ${top10}/${n}; p50 ${p(0.5)} ms, p95 ${p(0.95)} ms${server ? `; server RSS ${rssMiB(server.child.pid)} MiB` : ''}`);
  }
} finally {
  if (server) {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
  }
  if (work) rmSync(work, { recursive: true, force: true });
}
