// search_symbols by description, on two held-out sets written before any answer was seen:
//  - meaning: bench/describe-meaning.json, plain sentences sharing few words with the names, over
//    the four-tree corpus of bench/fetch-plan.mjs (Go's source, CPython's Lib, TypeScript's
//    lib.*.d.ts, /usr/include; its index in .tools/bench-corpus-index/, built once);
//  - semver: test/support/describe-semver.json, semver's README over semver and four libraries
//    that compete for the same words, indexed here into a temporary folder as the test does.
// Each build (this checkout's, and ZOEKT_MCP_BEFORE_CLI's) runs over stdio with a real MCP client,
// one adapter per corpus, every description asked with limit 10, builds interleaved (their order
// alternates per description). Two passes: the first warms the processes (and any cache of the
// description), the second is timed and scored. Prints per build and set: top-1, top-3, top-10,
// the misses, p50/p95/p99 ms. Asserts nothing.
//
// A build with a definitions index: when `node <cli> definitions build --help` succeeds, each
// repository of each corpus is built into a definitions index first (from a copy of the very files
// Zoekt indexed), timed, with BENCH_DEFINITIONS_BUILD_ARGS (default `--repo {repo_path} --out
// {definitions} --name {repo} --quiet`); the adapters are started with BENCH_ADAPTER_ARGS (extra
// arguments; default `--definitions {definitions}` for such a build, none otherwise) and
// BENCH_ADAPTER_ENV (extra `NAME=value` words). Placeholders: {definitions} (a folder per build and
// corpus), {repo}, {repo_path}, {index} (Zoekt's index folder), {zoekt_url}. BENCH_DEFINITIONS=0
// skips the step.
//   node bench/describe-meaning.mjs          # or bash bench/describe-meaning.sh (builds BEFORE_REV)
//   ZOEKT_MCP_BEFORE_CLI=…/dist/cli.js BENCH_SETS=meaning,semver BENCH_SHOW_MISSES=3 node bench/describe-meaning.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { corpora as benchCorpora, listFiles, startZoekt as startZoektAt, zoektBin } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const { bin: ZOEKT_BIN } = zoektBin(ROOT);
const LIMIT = 10;
/** How many of a miss's results to print. */
const SHOW = Number(process.env.BENCH_SHOW_MISSES ?? 3);
const SETS = (process.env.BENCH_SETS ?? 'meaning,semver').split(',');
const builds = [['after', resolve(process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js'))]];
if (process.env.ZOEKT_MCP_BEFORE_CLI) builds.unshift(['before', resolve(process.env.ZOEKT_MCP_BEFORE_CLI)]);

const log = (msg) => process.stderr.write(`describe-meaning: ${msg}\n`);
const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-describe-meaning-'));
const children = [];
const clients = [];
function stopAll() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
process.on('exit', stopAll);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

// ---------------------------------------------------------------------------------------------
// The sets.

function meaningSet() {
  const set = JSON.parse(readFileSync(join(ROOT, 'bench/describe-meaning.json'), 'utf8'));
  return set.descriptions.map((d) => ({
    description: d.description,
    group: d.repo,
    wanted: d.accept.map((a) => `${a.name} (${a.path})`).join(', '),
    accepts: (s) => s.repo === d.repo && d.accept.some((a) => a.path === s.path && a.name === s.name),
  }));
}

const SEMVER = JSON.parse(readFileSync(join(ROOT, 'test/support/describe-semver.json'), 'utf8'));
function semverSet() {
  return SEMVER.descriptions.map((d) => ({ description: d.description, group: 'semver', wanted: d.accept, accepts: (s) => s.repo === 'semver' && s.name === d.accept }));
}

// ---------------------------------------------------------------------------------------------
// The corpora and their Zoekt.

/** The four-tree index, as bench/fetch-plan.mjs builds and caches it (BENCH_CORPUS_INDEX: another). */
function corpusIndex() {
  if (process.env.BENCH_CORPUS_INDEX) return process.env.BENCH_CORPUS_INDEX;
  // (fetch-plan.mjs keys and builds it; a definitions build reads the same files, see corpusTrees.)
  const out = execFileSync(process.execPath, [join(ROOT, 'bench/fetch-plan.mjs'), '--index-only'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 << 20 });
  return out.split('\n')[0].trim();
}

/**
 * The four trees as Zoekt indexed them (the same files, each repository a folder named after it),
 * for a definitions build; copied once, when a build needs them.
 */
let trees;
function corpusTrees() {
  if (trees) return trees;
  trees = benchCorpora(ROOT).map((c) => {
    const tree = join(work, 'trees', c.repo);
    for (const f of listFiles(c.root, c.keep)) {
      mkdirSync(dirname(join(tree, f)), { recursive: true });
      cpSync(join(c.root, f), join(tree, f));
    }
    return { repo: c.repo, path: tree };
  });
  return trees;
}

/** semver and the libraries beside it, each its own repository, as test/integration/describe-heldout.test.ts indexes them. */
function semverIndex() {
  const index = join(work, 'semver-index');
  mkdirSync(index, { recursive: true });
  for (const [repo, folder] of SEMVER.trees) {
    const [pkg, ...rest] = folder.split('/');
    const pkgRoot = join(ROOT, 'node_modules', pkg);
    const tree = join(work, 'semver-trees', repo);
    cpSync(join(pkgRoot, ...rest), tree, { recursive: true, filter: (src) => !src.includes('node_modules', pkgRoot.length) && !/\.(map|md)$/.test(src) });
    execFileSync(join(ROOT, 'zoekt-config/index'), ['dir', '-require_ctags', '-index', index, tree], {
      env: { ...process.env, ZOEKT_BIN, ZOEKT_MCP_NODE: process.execPath },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return { index, repos: SEMVER.trees.length, trees: () => SEMVER.trees.map(([repo]) => ({ repo, path: join(work, 'semver-trees', repo) })) };
}


/** zoekt-webserver over `index`, once a search sees `repos` repositories; stopped at exit. */
async function startZoekt(index, repos) {
  const { url, child } = await startZoektAt(ZOEKT_BIN, index, repos);
  children.push(child);
  return url;
}

// ---------------------------------------------------------------------------------------------
// The adapters, with a definitions index when the build has one.

const fill = (s, vars) => s.replace(/\{(\w+)\}/g, (m, k) => vars[k] ?? m);
const words = (s) => (s ?? '').split(/\s+/).filter(Boolean);

function hasDefinitionsCommand(cli) {
  if (process.env.BENCH_DEFINITIONS === '0') return false;
  return spawnSync(process.execPath, [cli, 'definitions', 'build', '--help'], { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

/** Builds the definitions index of one repository for `cli`; its wall and CPU time. */
function buildDefinitions(cli, vars) {
  const args = words(process.env.BENCH_DEFINITIONS_BUILD_ARGS ?? '--repo {repo_path} --out {definitions} --name {repo} --quiet').map((w) => fill(w, vars));
  mkdirSync(vars.definitions, { recursive: true });
  const t = performance.now();
  const r = spawnSync('bash', ['-c', 'time -p "$@" >&2', 'time', process.execPath, cli, 'definitions', 'build', ...args], {
    env: { ...process.env, ZOEKT_URL: vars.zoekt_url, ZOEKT_BIN },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const wallS = (performance.now() - t) / 1000;
  if (r.status !== 0) throw new Error(`definitions build (${args.join(' ')}) failed: ${r.stderr.slice(-2000)}`);
  const cpu = ['user', 'sys'].reduce((n, k) => n + Number(new RegExp(`^${k} ([\\d.]+)$`, 'm').exec(r.stderr)?.[1] ?? Number.NaN), 0);
  return { wallS, cpuS: cpu };
}

async function startAdapter(cli, vars, withDefinitions) {
  const defaultArgs = withDefinitions ? '--definitions {definitions}' : '';
  const args = words(process.env.BENCH_ADAPTER_ARGS ?? defaultArgs).map((w) => fill(w, vars));
  const extraEnv = Object.fromEntries(words(process.env.BENCH_ADAPTER_ENV).map((w) => fill(w, vars).split(/=(.*)/s).slice(0, 2)));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ZOEKT_URL: vars.zoekt_url, ZOEKT_MCP_LOG_LEVEL: 'warn', ZOEKT_MCP_CACHE_MB: '0', ZOEKT_MCP_TIMEOUT_MS: '30000', ...extraEnv };
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, ...args], env, stderr: 'pipe' });
  // The end of its log, read on (a full pipe would stop it) and shown if it dies.
  let tail = '';
  transport.stderr?.on('data', (d) => (tail = (tail + d).slice(-4000)));
  const client = new Client({ name: 'bench-describe-meaning', version: '1.0.0' });
  client.onclose = () => closing || log(`an adapter (${cli} ${args.join(' ')}) exited; its last log:\n${tail}`);
  await client.connect(transport);
  clients.push(client);
  pids.set(client, transport.pid);
  return client;
}
/** Each adapter's process, for its resident memory. */
const pids = new Map();

/** Resident memory of a process, in MiB (Linux). */
function rssMiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}
let closing = false;

/** One description through one adapter: the rank of the first accepted result (-1: none), the time, what came back. */
async function ask(client, item) {
  const t = performance.now();
  let r;
  try {
    r = await client.callTool({ name: 'search_symbols', arguments: { description: item.description, limit: LIMIT } }, undefined, { timeout: 60_000 });
  } catch (e) {
    return { ms: performance.now() - t, rank: -1, error: String(e.message).slice(0, 120), got: [] };
  }
  const ms = performance.now() - t;
  if (r.isError) {
    const text = (r.content ?? []).map((c) => c.text ?? '').join(' ');
    return { ms, rank: -1, error: `${r.structuredContent?.error?.code ?? 'ERROR'}: ${text.slice(0, 120)}`, got: [] };
  }
  const got = r.structuredContent?.symbols ?? [];
  return { ms, rank: got.findIndex(item.accepts), got };
}

// ---------------------------------------------------------------------------------------------

const at = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] : Number.NaN;
};

async function main() {
  const started = performance.now();
  const corpora = [];
  if (SETS.includes('meaning')) corpora.push({ name: 'meaning', set: meaningSet(), index: corpusIndex(), repos: 4, trees: corpusTrees });
  if (SETS.includes('semver')) corpora.push({ name: 'semver', set: semverSet(), ...semverIndex() });
  for (const c of corpora) {
    c.url = await startZoekt(c.index, c.repos);
    log(`${c.name}: ${c.set.length} descriptions, zoekt-webserver on ${c.url} over ${c.index}`);
  }

  const definitions = [];
  const adapters = {};
  for (const [name, cli] of builds) {
    const withDefinitions = hasDefinitionsCommand(cli);
    adapters[name] = {};
    for (const c of corpora) {
      const vars = { index: c.index, definitions: join(work, 'definitions', name, c.name), zoekt_url: c.url };
      if (withDefinitions) {
        for (const t of c.trees()) {
          log(`${name}: building the definitions index of ${t.repo}`);
          definitions.push({ build: name, corpus: c.name, repo: t.repo, ...buildDefinitions(cli, { ...vars, repo: t.repo, repo_path: t.path }) });
        }
      }
      adapters[name][c.name] = await startAdapter(cli, vars, withDefinitions);
    }
    log(`${name}: ${cli}${withDefinitions ? ', with a definitions index' : ', without a definitions index (no definitions command)'}`);
  }

  // results[build][corpus][i] of the timed pass; pass 0 warms.
  const results = Object.fromEntries(builds.map(([n]) => [n, Object.fromEntries(corpora.map((c) => [c.name, []]))]));
  for (let pass = 0; pass < 2; pass++) {
    let k = 0;
    for (const c of corpora) {
      for (let i = 0; i < c.set.length; i++, k++) {
        const order = (k + pass) % 2 ? [...builds].reverse() : builds;
        for (const [name] of order) {
          const r = await ask(adapters[name][c.name], c.set[i]);
          if (pass === 1) results[name][c.name][i] = r;
        }
      }
    }
    log(`pass ${pass + 1} done, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  // The same build without its definitions index, over the same set once: what the index adds to memory.
  for (const [name, cli] of builds) {
    if (!hasDefinitionsCommand(cli)) continue;
    for (const c of corpora) {
      const plain = await startAdapter(cli, { index: c.index, zoekt_url: c.url, definitions: '' }, false);
      for (const item of c.set) await ask(plain, item);
      adapters[`${name} without definitions`] = { ...(adapters[`${name} without definitions`] ?? {}), [c.name]: plain };
    }
  }
  for (const [name, byCorpus] of Object.entries(adapters)) {
    for (const [corpus, client] of Object.entries(byCorpus)) {
      let figures = '';
      try {
        const h = await client.callTool({ name: 'get_health', arguments: {} }, undefined, { timeout: 60_000 });
        const d = h.structuredContent?.definitions;
        if (d) figures = `; definitions index: ${d.state}, ${d.repos.reduce((n, r) => n + r.definitions, 0)} definitions, index search p50 ${d.searches.p50_ms} / p95 ${d.searches.p95_ms} / p99 ${d.searches.p99_ms} ms over ${d.searches.searches}, embedding cache hit rate ${d.searches.embedding_cache_hit_rate}`;
      } catch (e) {
        figures = `; get_health failed: ${e.message}`;
      }
      memory.push(`adapter ${name}, ${corpus}: RSS ${rssMiB(pids.get(client)).toFixed(0)} MiB${figures}`);
    }
  }
  closing = true;
  for (const c of clients) await c.close();
  report(corpora, results, definitions);
}

const memory = [];

function report(corpora, results, definitions) {
  for (const m of memory) console.log(m);
  console.log(`search_symbols by description, limit ${LIMIT}; node ${process.version}, ${cpus().length} cores, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log(`builds: ${builds.map(([n, cli]) => `${n} = ${cli}`).join('; ')}`);
  for (const d of definitions) console.log(`definitions index, ${d.build}, ${d.corpus}/${d.repo}: ${d.wallS.toFixed(1)} s wall, ${d.cpuS.toFixed(1)} s CPU`);
  console.log('');
  console.log('| set | n | build | top-1 | top-3 | top-10 | errors | p50 ms | p95 ms | p99 ms |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const rows = [];
  for (const c of corpora) {
    const groups = [...new Set(c.set.map((s) => s.group))];
    const parts = [[c.name, c.set.map((_, i) => i)]];
    if (groups.length > 1) for (const g of groups) parts.push([`${c.name}: ${g}`, c.set.flatMap((s, i) => (s.group === g ? [i] : []))]);
    for (const [label, idx] of parts) {
      for (const [name] of builds) {
        const rs = idx.map((i) => results[name][c.name][i]);
        const n = rs.length;
        const count = (f) => rs.filter(f).length;
        const pct = (k) => `${k} (${Math.round((100 * k) / n)}%)`;
        const ms = rs.map((r) => r.ms);
        rows.push(`| ${label} | ${n} | ${name} | ${pct(count((r) => r.rank === 0))} | ${pct(count((r) => r.rank >= 0 && r.rank < 3))} | ${pct(count((r) => r.rank >= 0))} | ${count((r) => r.error)} | ${at(ms, 0.5).toFixed(0)} | ${at(ms, 0.95).toFixed(0)} | ${at(ms, 0.99).toFixed(0)} |`);
      }
    }
  }
  console.log(rows.join('\n'));
  for (const [name] of builds) {
    for (const c of corpora) {
      const misses = c.set.flatMap((item, i) => {
        const r = results[name][c.name][i];
        if (r.rank >= 0) return [];
        const got = r.error ?? (r.got.slice(0, SHOW).map((s) => `${s.repo}/${s.path}:${s.name}`).join(', ') || 'nothing');
        return [`  [${item.group}] ${item.description} → want ${item.wanted}; got ${got}`];
      });
      console.log(`\n${name}, ${c.name}: ${misses.length} of ${c.set.length} missed at ${LIMIT}${misses.length ? `:\n${misses.join('\n')}` : ''}`);
    }
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`describe-meaning: ${e.stack ?? e}`);
    process.exit(1);
  },
);
