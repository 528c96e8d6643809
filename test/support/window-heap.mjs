// Run by test/integration/window-cache-heap.test.ts in a child `node --expose-gc`: fills a window
// cache with many distinct windows of real tool calls over the Go tree and prints, as JSON, the
// heap it grew by against the bytes the cache counted. Reads dist/ (npm run build).
//   ZOEKT_URL=… SRC_ROOT=… BUDGET_MB=8 CALLS=1000 node --expose-gc test/support/window-heap.mjs
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import { ZoektClient } from '../../dist/zoekt/client.js';
import { asFleet } from '../../dist/zoekt/fleet.js';
import { Searcher } from '../../dist/search/engine/searcher.js';
import { WindowCache } from '../../dist/search/engine/window-cache.js';
import { TOOLS } from '../../dist/tools/index.js';
import { silentLogger } from '../../dist/log.js';
import { DEFAULTS } from '../../dist/config.js';

const budget = Number(process.env.BUDGET_MB) * 2 ** 20;
const calls = Number(process.env.CALLS);
const zoekt = asFleet(new ZoektClient({ url: process.env.ZOEKT_URL, timeoutMs: 60_000 }));
const cache = new WindowCache({ maxBytes: budget, ttlMs: 3_600_000 });
const signal = new AbortController().signal;
const tool = (name) => TOOLS.find((t) => t.name === name);
const searcher = new Searcher(zoekt, cache);
// The server's default output budget, measured by the tool's own rendering.
const budgetOf = (t, input) => ({ maxChars: DEFAULTS.maxOutputChars, render: (out) => t.render(out, input) });
const call = (name, args) => {
  const input = tool(name).input.parse(args);
  return tool(name).handler(input, { zoekt, searcher, log: silentLogger, signal }, budgetOf(tool(name), input));
};

// Distinct identifiers of real Go code: each one a query of its own, so each window is new.
function identifiers() {
  const words = new Set();
  for (const dir of ['net/http', 'go/types', 'runtime', 'cmd/compile/internal/ssa']) {
    for (const f of readdirSync(join(process.env.SRC_ROOT, dir)).filter((n) => n.endsWith('.go'))) {
      for (const w of readFileSync(join(process.env.SRC_ROOT, dir, f), 'utf8').match(/\b[A-Za-z][A-Za-z0-9]{5,}\b/g) ?? []) words.add(w);
    }
  }
  // A match is a slice of its file's text and keeps the whole file alive; copied out through
  // JSON, the words hold only themselves, so no file is let go of in the middle of the run.
  return JSON.parse(JSON.stringify([...words]));
}
const queue = identifiers();
const heap = () => {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
};
const spaces = () => Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));

async function pages(word, i) {
  // Page 2 of a code search comes from the window page 1 cached; symbols add values worked out
  // from a window. A symbol search costs Zoekt several times a code search (each is a few `sym:`
  // requests of 10–20 ms over Go's tree), so every fourth word asks for symbols.
  const first = await call('search_code', { query: word, limit: 10, context_lines: i % 3 });
  if (first.next_cursor) await call('search_code', { query: word, limit: 10, context_lines: i % 3, cursor: first.next_cursor });
  if (i % 4 !== 0) return 1 + (first.next_cursor ? 1 : 0);
  const syms = await call('search_symbols', { name: `${word}*`, limit: 5 });
  if (syms.next_cursor) await call('search_symbols', { name: `${word}*`, limit: 5, cursor: syms.next_cursor });
  return 2 + (first.next_cursor ? 1 : 0) + (syms.next_cursor ? 1 : 0);
}
// Warm: the cache filled to its budget once with words the run does not use, so that compiled
// code (it lives in the heap too), the cache's own bookkeeping and open connections are at the
// size they keep before the baseline is taken.
let warmed = 0;
// Words from `calls` on: the measured run below makes at least one call a word, so it uses none of them.
for (let i = calls; cache.bytes < 0.9 * budget && warmed < calls && i < queue.length; i++) {
  warmed += await pages(queue[i], i);
}
cache.clear();
const baseline = heap();
const spacesBefore = spaces();
let made = 0;
// Calls made when the cache first held 90% of its budget: from then on each new window evicts.
let filledAt = 0;
for (let i = 0; made < calls && i < queue.length / 2; i++) {
  made += await pages(queue[i], i);
  if (!filledAt && cache.bytes >= 0.9 * budget) filledAt = made;
}
const after = heap();
const counted = cache.bytes;
// What the cache holds is what the heap gives back when it lets go of every window.
cache.clear();
const emptied = heap();
// Where the heap ended above its baseline once the cache let go, by V8 heap space: what a failure names.
const left = Object.fromEntries(Object.entries(spaces()).map(([k, v]) => [k, v - spacesBefore[k]]).filter(([, d]) => d !== 0));
// The words are still used here, so they are live at every measurement and cancel out.
console.log(JSON.stringify({ budget, words: queue.length, calls: made, filledAt, warmed, grown: after - baseline, held: after - emptied, counted, left }));
