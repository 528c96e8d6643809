// Memory of the adapter under calls that ask a lot: its peak RSS (VmHWM) per case, each case on a
// fresh `dist/cli.js --http` process, against a running zoekt-webserver over a large index
// (ZOEKT_URL; the Go source tree of the test setup is a good one). BENCH_CLI picks another build's
// cli.js, to compare before and after. Prints a table; asserts nothing.
//
//   ZOEKT_URL=http://127.0.0.1:6070 node bench/memory.mjs
//   ZOEKT_URL=… BENCH_CLI=/path/to/old/dist/cli.js node bench/memory.mjs
import { join } from 'node:path';
import { memoryMiB, startHttpServer } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const CLI = process.env.BENCH_CLI ?? join(ROOT, 'dist/cli.js');
const ZOEKT_URL = process.env.ZOEKT_URL;
if (!ZOEKT_URL) {
  console.error('bench/memory: set ZOEKT_URL to a zoekt-webserver -rpc over a large index');
  process.exit(2);
}

const adapter = (args = []) => startHttpServer(CLI, ['--http', '--port', '0', ...args], { PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'info', ZOEKT_MCP_TIMEOUT_MS: '30000' });

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

async function post(url, body) {
  const res = await fetch(`${url}/mcp`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, bytes: text.length, text };
}

/** What the answers were: HTTP refusals, results, partial answers and error codes, counted. */
function outcome(answers) {
  const counts = {};
  for (const { status, text } of answers) {
    if (status !== 200) counts[`HTTP ${status}`] = (counts[`HTTP ${status}`] ?? 0) + 1;
    for (const m of text.matchAll(/"code":"([A-Z_]+)"|"partial":\{|"isError":true/g)) {
      const key = m[1] ?? (m[0].startsWith('"partial"') ? 'partial' : 'error');
      counts[key] = (counts[key] ?? 0) + 1;
    }
  }
  return Object.entries(counts).map(([k, v]) => `${k}×${v}`).join(' ') || 'ok';
}

const BROAD = { query: 'e', limit: 50, context_lines: 3, max_matches_per_file: 100 };
const CASES = [
  // A batch that large is refused by default (--max-batch 20): this case lets it in, to see what it costs.
  ['batch of 100 broad search_code in one POST (--max-batch 100)', ['--max-batch', '100'], async (url) => [await post(url, Array.from({ length: 100 }, (_, i) => call(i + 1, 'search_code', BROAD)))]],
  ['search_symbols {"name":"n","regex":true}', [], async (url) => [await post(url, call(1, 'search_symbols', { name: 'n', regex: true }))]],
  ['search_symbols {"name":"e","regex":true}', [], async (url) => [await post(url, call(1, 'search_symbols', { name: 'e', regex: true }))]],
  ['8 × search_symbols {"name":"n","regex":true} at once', [], async (url) => Promise.all(Array.from({ length: 8 }, (_, i) => post(url, call(i + 1, 'search_symbols', { name: 'n', regex: true }))))],
];

console.log(`cli: ${CLI}\nzoekt: ${ZOEKT_URL}\n`);
console.log(['case'.padEnd(62), 'start MiB', 'peak MiB', 'after MiB', 'seconds', 'answer KiB', 'outcome'].join('  '));
// BENCH_ONLY: a regex over case names, to run some of them.
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
for (const [name, args, run] of CASES.filter(([name]) => !only || only.test(name))) {
  const a = await adapter(args);
  try {
    const start = memoryMiB(a.pid).rss;
    const t = performance.now();
    const answers = await run(a.url);
    const seconds = (performance.now() - t) / 1000;
    const m = memoryMiB(a.pid);
    const kib = answers.reduce((n, r) => n + r.bytes, 0) / 1024;
    console.log(
      [name.padEnd(62), start.toFixed(0).padStart(9), m.peak.toFixed(0).padStart(8), m.rss.toFixed(0).padStart(9), seconds.toFixed(1).padStart(7), kib.toFixed(0).padStart(10), outcome(answers)].join('  '),
    );
  } finally {
    await a.stop();
  }
}
