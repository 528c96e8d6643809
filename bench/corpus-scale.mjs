// Whether a first page costs what it shows or what the corpus holds: the same calls against the
// four-tree corpus of bench/fetch-plan.mjs and against that corpus with three renamed copies of
// each repository beside it (four times the repositories and files), each through a real MCP
// client over stdio, first pages only (never from the window cache), calls interleaved between
// the two corpora. Prints per call the p50 of BENCH_CALLS (default 9) on each and their ratio;
// asserts nothing. The copies' index is built once into .tools/bench-corpus-x4/ (about three
// times the corpus's own indexing).
//   node bench/corpus-scale.mjs                    # this checkout's dist/
//   ZOEKT_MCP_CLI=…/dist/cli.js BENCH_CALLS=9 node bench/corpus-scale.mjs
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { corpora, listFiles, startZoekt as startZoektAt, zoektBin } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const CLI = resolve(process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js'));
const CALLS = Number(process.env.BENCH_CALLS ?? 9);
const COPIES = 3;
const log = (msg) => process.stderr.write(`corpus-scale: ${msg}\n`);
const { bin: ZOEKT_BIN } = zoektBin(ROOT);

const children = [];
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

const PROBES = [
  ['search_symbols', { name: 'get*' }],
  ['search_symbols', { name: 'Buffer.*' }],
  ['search_code', { query: 'err' }],
  ['search_code', { query: 'e' }],
  ['find_references', { symbol: 'Close' }],
  ['search_files', { pattern: '**/*.go' }],
  ['search_symbols', { description: 'parse a floating point number' }],
];

/** The corpus's index (fetch-plan.mjs builds and caches it). */
const single = execFileSync(process.execPath, [join(ROOT, 'bench/fetch-plan.mjs'), '--index-only'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 << 20 }).split('\n')[0].trim();

/** The copies' shards, keyed as the corpus's index is, built once. */
function copiesIndex() {
  const dir = join(ROOT, '.tools/bench-corpus-x4', basename(dirname(single)));
  if (existsSync(join(dir, 'complete'))) return join(dir, 'index');
  rmSync(join(ROOT, '.tools/bench-corpus-x4'), { recursive: true, force: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(join(tmp, 'index'), { recursive: true });
  for (const c of corpora(ROOT)) {
    const files = listFiles(c.root, c.keep);
    for (let k = 1; k <= COPIES; k++) {
      // zoekt-index names a folder's repository after the folder.
      const tree = join(tmp, 'trees', `${c.repo}-copy${k}`);
      log(`indexing ${files.length} files of ${c.root} as ${basename(tree)}`);
      for (const f of files) {
        mkdirSync(dirname(join(tree, f)), { recursive: true });
        cpSync(join(c.root, f), join(tree, f));
      }
      execFileSync(join(ROOT, 'zoekt-config/index'), ['dir', '-require_ctags', '-index', join(tmp, 'index'), tree], { env: { ...process.env, ZOEKT_BIN, ZOEKT_MCP_NODE: process.execPath }, stdio: ['ignore', 'ignore', 'inherit'] });
      rmSync(tree, { recursive: true, force: true });
    }
  }
  writeFileSync(join(tmp, 'complete'), '');
  renameSync(tmp, dir);
  return join(dir, 'index');
}

/** The corpus and its copies in one folder: links to both's shards. */
function fourfold(copies, work) {
  const dir = join(work, 'x4');
  mkdirSync(dir, { recursive: true });
  for (const from of [single, copies]) for (const f of readdirSync(from)) if (f.endsWith('.zoekt')) symlinkSync(join(from, f), join(dir, f));
  return dir;
}

async function startZoekt(index, repos) {
  const { url, child } = await startZoektAt(ZOEKT_BIN, index, repos, { waitMs: 120_000 });
  children.push(child);
  return url;
}

async function connect(url) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--zoekt-url', url, '--timeout-ms', '60000', '--log-level', 'error'], stderr: 'ignore' });
  const client = new Client({ name: 'corpus-scale', version: '1' });
  await client.connect(transport);
  return client;
}

const work = execFileSync('mktemp', ['-d', '/tmp/zoekt-mcp-corpus-scale-XXXXXX'], { encoding: 'utf8' }).trim();
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const copies = copiesIndex();
const sides = [
  ['1×', await startZoekt(single, 4)],
  ['4×', await startZoekt(fourfold(copies, work), 16)],
];
const clients = new Map();
for (const [name, url] of sides) clients.set(name, await connect(url));
log(`${CLI}; ${CALLS} calls a probe and corpus; load ${loadavg()[0].toFixed(1)}`);

const times = new Map();
for (const [name] of sides) for (const [tool, args] of PROBES) await clients.get(name).callTool({ name: tool, arguments: args }); // warm-up
for (let round = 0; round < CALLS; round++) {
  for (const [tool, args] of PROBES) {
    const order = round % 2 ? [...sides].reverse() : sides;
    for (const [name] of order) {
      const t0 = performance.now();
      const r = await clients.get(name).callTool({ name: tool, arguments: args });
      const ms = performance.now() - t0;
      if (r.isError) log(`${name} ${tool} ${JSON.stringify(args)}: ${r.structuredContent?.error?.code ?? 'error'}`);
      const key = `${tool} ${JSON.stringify(args)}`;
      if (!times.has(key)) times.set(key, { '1×': [], '4×': [] });
      times.get(key)[name].push(ms);
    }
  }
}
const p50 = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`\nfirst pages, p50 of ${CALLS} calls, the corpus (1×) and it with three copies of each repository (4×); load after ${loadavg()[0].toFixed(1)}`);
console.log('| call | 1× ms | 4× ms | 4× ÷ 1× |');
console.log('| --- | --- | --- | --- |');
for (const [key, t] of times) console.log(`| \`${key}\` | ${p50(t['1×']).toFixed(0)} | ${p50(t['4×']).toFixed(0)} | ${(p50(t['4×']) / p50(t['1×'])).toFixed(2)} |`);
for (const c of clients.values()) await c.close();
process.exit(0);
