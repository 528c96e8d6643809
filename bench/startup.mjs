#!/usr/bin/env node
// How soon a spawned server answers: `node -e 0` (the floor: Node itself), `--version`, `--help`
// (spawn to exit), and over stdio spawn to the `initialize` answer and spawn to the `tools/list`
// answer (sent once initialize is answered, as a client does), for this checkout's dist/cli.js
// and, when ZOEKT_MCP_BEFORE_CLI names one, another build's, alternating spawn by spawn so both
// see the same machine. No Zoekt is needed: neither answer asks it anything (ZOEKT_URL is passed
// through). Prints median and p90 per figure, and after/before ratios; asserts nothing. On a
// shared machine the wall times move with its load (printed): the server's main-thread CPU time
// at each answer (Linux, /proc/PID/schedstat) moves much less. BENCH_NODE names another Node to
// spawn (e.g. 22, whose compile cache this checkout's CLI turns on).
//   git worktree add /tmp/before <rev> && ln -s "$PWD/node_modules" /tmp/before/ && (cd /tmp/before && npm run build)
//   ZOEKT_MCP_BEFORE_CLI=/tmp/before/dist/cli.js node bench/startup.mjs [RUNS]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { stdioHandshake } from './lib.mjs';

const RUNS = Number(process.argv[2] ?? 20);
const NODE = process.env.BENCH_NODE ?? process.execPath;
const builds = { after: join(import.meta.dirname, '../dist/cli.js') };
if (process.env.ZOEKT_MCP_BEFORE_CLI) builds.before = resolve(process.env.ZOEKT_MCP_BEFORE_CLI);
const env = { ...process.env, ZOEKT_MCP_LOG_LEVEL: 'warn' };

/** Spawn to exit, in ms; fails on a non-zero exit or an empty stdout (when one is expected). */
function exitTime(args, wantsOutput) {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(NODE, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (code !== 0 || (wantsOutput && !out)) fail(new Error(`node ${args.join(' ')} exited ${code}`));
      else done(ms);
    });
  });
}

function exitOutput(args) {
  return new Promise((done) => {
    const child = spawn(NODE, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', () => done(out));
  });
}

/** CPU time of a process's main thread so far, in ms; NaN where /proc does not say. */
function mainThreadCpu(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

/** Spawn to the initialize answer and spawn to the tools/list answer, in ms, and the main thread's CPU at each. */
function serveTimes(cli) {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(NODE, [cli], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const times = {};
    stdioHandshake(child, 'bench', {
      initialize(msg) {
        times.initialize = performance.now() - started;
        times.initializeCpu = mainThreadCpu(child.pid);
        if (!msg.result?.serverInfo) fail(new Error(`initialize: ${JSON.stringify(msg)}`));
      },
      toolsList(msg) {
        times.toolsList = performance.now() - started;
        times.toolsListCpu = mainThreadCpu(child.pid);
        if (!msg.result?.tools?.length) fail(new Error(`tools/list: ${JSON.stringify(msg).slice(0, 300)}`));
        child.stdin.end();
      },
    });
    child.on('exit', () => (times.toolsList ? done(times) : fail(new Error(`${cli} exited before answering tools/list`))));
  });
}

const FIGURES = ['node -e 0', '--version', '--help', 'spawn → initialize answered', 'spawn → tools/list answered', 'main-thread CPU at initialize', 'main-thread CPU at tools/list'];
const samples = Object.fromEntries(Object.keys(builds).map((b) => [b, Object.fromEntries(FIGURES.map((f) => [f, []]))]));
const floor = [];

const loadBefore = loadavg()[0];
// One warm-up of each, unrecorded: the first spawn reads the files from disk.
for (const cli of Object.values(builds)) {
  await exitTime([cli, '--version'], true);
  await serveTimes(cli);
}
for (let i = 0; i < RUNS; i++) {
  floor.push(await exitTime(['-e', '0'], false));
  const order = i % 2 ? Object.keys(builds).reverse() : Object.keys(builds);
  for (const b of order) {
    const cli = builds[b];
    samples[b]['--version'].push(await exitTime([cli, '--version'], true));
    samples[b]['--help'].push(await exitTime([cli, '--help'], true));
    const t = await serveTimes(cli);
    samples[b]['spawn → initialize answered'].push(t.initialize);
    samples[b]['spawn → tools/list answered'].push(t.toolsList);
    samples[b]['main-thread CPU at initialize'].push(t.initializeCpu);
    samples[b]['main-thread CPU at tools/list'].push(t.toolsListCpu);
  }
}
for (const b of Object.keys(builds)) samples[b]['node -e 0'] = floor;

const pick = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const rows = FIGURES.filter((f) => samples.after[f].some(Number.isFinite)).map((f) => {
  const row = { figure: f };
  for (const b of Object.keys(builds)) {
    row[`${b} p50`] = Math.round(pick(samples[b][f], 0.5));
    row[`${b} p90`] = Math.round(pick(samples[b][f], 0.9));
  }
  if (builds.before && f !== 'node -e 0') row['after/before p50'] = Number((pick(samples.after[f], 0.5) / pick(samples.before[f], 0.5)).toFixed(2));
  return row;
});
console.log(`${RUNS} spawns each, ms, Node ${(await exitOutput(['--version'])).trim()}, load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}`);
console.log(`after: ${builds.after}${builds.before ? `; before: ${builds.before}` : ''}`);
console.table(rows);
