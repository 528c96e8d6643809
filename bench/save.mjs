// Time from save to searchable in local mode, on two trees of about 10k files: Go's source tree
// (11k files, a git work tree) and 10,000 text files of this project's node_modules (a plain
// folder). Each is served by scripts/serve.sh --repo with a data folder of its own; a line is
// appended to a file (never committed), then search_code is asked every 50 ms until it finds
// the line. Edits come as an agent makes them: BENCH_EDITS (20) in bursts of five, one after
// another, with a pause of BENCH_PAUSE_MS (15 s) between bursts.
//
// Each tree is measured twice in the same run: with background whole builds turned off
// (ZOEKT_MCP_IDLE_BUILD_MS=0: the change after nine deltas waits for a whole build, as before)
// and on (the default). Prints the first index's time, the median and max per mode, and
// the ratio. Removes what it made. Asserts nothing.
//   node bench/save.mjs            both trees
//   BENCH_TREES=go node bench/save.mjs
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = join(import.meta.dirname, '..');
const EDITS = Number(process.env.BENCH_EDITS ?? 20);
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 15_000);
const TREES = (process.env.BENCH_TREES ?? 'go,node').split(',');
const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-save-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Go's source tree as a git work tree; edits go to two files. */
function goTree(dir) {
  cpSync(join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src'), dir, { recursive: true });
  const git = (...args) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.email=bench@localhost', '-c', 'user.name=bench', 'commit', '-q', '-m', 'tree');
  return { label: "Go's source tree (git work tree)", edited: ['net/http/server.go', 'strings/strings.go'] };
}

/** The first 10,000 text files (under 1 MB, binaries by extension left out) of node_modules, as a plain folder. */
function nodeTree(dir) {
  const from = join(ROOT, 'node_modules');
  const picked = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      if (picked.length >= 10_000) return;
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (!/\.(wasm|node|png|jpe?g|gif|ico|gz|tgz|zip|woff2?|ttf|eot|so|dylib|dll|exe|bin)$/i.test(name) && st.size < 1_000_000) picked.push(p);
    }
  };
  walk(from);
  for (const p of picked) {
    const to = join(dir, relative(from, p));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(p, to);
  }
  const edited = picked.filter((p) => p.endsWith('.js')).slice(0, 2).map((p) => relative(from, p));
  return { label: `${picked.length} files of node_modules (plain folder)`, edited };
}

async function measure(dir, tree, mode, idleMs) {
  const data = join(work, `data-${relative(work, dir)}-${mode}`);
  const client = new Client({ name: 'bench-save', version: '1.0.0' });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? work,
    ZOEKT_MCP_DATA: data,
    ZOEKT_PORT: '0',
    ZOEKT_MCP_LINGER_MS: '0',
    ZOEKT_MCP_IDLE_BUILD_MS: String(idleMs),
    ZOEKT_MCP_TOOLS_DIR: process.env.ZOEKT_MCP_TOOLS_DIR ?? join(ROOT, '.tools'),
  };
  await client.connect(new StdioClientTransport({ command: 'bash', args: [join(ROOT, 'scripts/serve.sh'), '--repo', dir], env, stderr: 'ignore' }), { timeout: 600_000 });
  const t0 = Date.now();
  for (;;) {
    const h = await client.callTool({ name: 'get_health', arguments: {} });
    const repos = h.structuredContent.indexing?.repos ?? [];
    if (repos.length && repos.every((r) => r.state === 'ready')) break;
    await sleep(500);
  }
  const first = Date.now() - t0;
  const times = [];
  for (let i = 0; i < EDITS; i++) {
    if (i > 0 && i % 5 === 0) await sleep(PAUSE_MS);
    const marker = `saveBenchMarker${i}x${Date.now()}`;
    const started = Date.now();
    appendFileSync(join(dir, tree.edited[i % tree.edited.length]), `\n// ${marker}\n`);
    for (;;) {
      const r = await client.callTool({ name: 'search_code', arguments: { query: marker, limit: 1 } });
      if (r.structuredContent?.results?.length) break;
      await sleep(50);
    }
    times.push(Date.now() - started);
    if (process.env.BENCH_VERBOSE) console.log(`    ${mode} edit ${i}: ${times.at(-1)} ms`);
  }
  await client.close();
  const sorted = [...times].sort((a, b) => a - b);
  return { first, median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1) };
}

try {
  console.log(`save to searchable: ${EDITS} edits in bursts of 5, ${PAUSE_MS / 1000} s apart (node ${process.version}, ${new Date().toISOString().slice(0, 10)})`);
  for (const name of TREES) {
    const dir = join(work, name);
    mkdirSync(dir);
    const tree = name === 'go' ? goTree(dir) : nodeTree(dir);
    console.log(`  ${tree.label}`);
    const before = await measure(dir, tree, 'before', 0);
    const after = await measure(dir, tree, 'after', 10_000);
    const row = (m, r) => `    ${m.padEnd(46)} first index ${(r.first / 1000).toFixed(1)} s; median ${r.median} ms, max ${r.max} ms`;
    console.log(row('whole builds in the foreground (before)', before));
    console.log(row('whole builds in the background (after)', after));
    console.log(`    max: ${(before.max / after.max).toFixed(1)}x lower; median: ${(before.median / after.median).toFixed(2)}x`);
  }
} finally {
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
}
