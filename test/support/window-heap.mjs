// Run by test/integration/window-cache-heap.test.ts in a child `node --expose-gc`: fills a window
// cache with many distinct windows of real tool calls over the Go tree and prints, as JSON, the
// heap it grew by against the bytes the cache counted. Reads dist/ (npm run build).
//   ZOEKT_URL=… SRC_ROOT=… BUDGET_MB=16 CALLS=2000 node --expose-gc test/support/window-heap.mjs
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZoektClient } from '../../dist/zoekt/client.js';
import { asFleet } from '../../dist/zoekt/fleet.js';
import { Searcher } from '../../dist/search/searcher.js';
import { WindowCache } from '../../dist/search/window-cache.js';
import { TOOLS } from '../../dist/tools/index.js';
import { silentLogger } from '../../dist/log.js';

const budget = Number(process.env.BUDGET_MB) * 2 ** 20;
const calls = Number(process.env.CALLS);
const zoekt = asFleet(new ZoektClient({ url: process.env.ZOEKT_URL, timeoutMs: 60_000 }));
const cache = new WindowCache({ maxBytes: budget, ttlMs: 3_600_000 });
const signal = new AbortController().signal;
const tool = (name) => TOOLS.find((t) => t.name === name);
const searcher = new Searcher(zoekt, cache);
const call = (name, args) => tool(name).handler(tool(name).input.parse(args), { zoekt, searcher, log: silentLogger, signal });

// Distinct identifiers of real Go code: each one a query of its own, so each window is new.
const words = new Set();
for (const dir of ['net/http', 'go/types', 'runtime', 'cmd/compile/internal/ssa']) {
  for (const f of readdirSync(join(process.env.SRC_ROOT, dir)).filter((n) => n.endsWith('.go'))) {
    for (const w of readFileSync(join(process.env.SRC_ROOT, dir, f), 'utf8').match(/\b[A-Za-z][A-Za-z0-9]{5,}\b/g) ?? []) words.add(w);
  }
}
const queue = [...words];
const heap = () => {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
};

async function pages(word, i) {
  // Page 2 of each answer comes from the window page 1 cached; symbols add values worked out from a window.
  const first = await call('search_code', { query: word, limit: 10, context_lines: i % 3 });
  if (first.next_cursor) await call('search_code', { query: word, limit: 10, context_lines: i % 3, cursor: first.next_cursor });
  const syms = await call('search_symbols', { name: `${word}*`, limit: 5 });
  if (syms.next_cursor) await call('search_symbols', { name: `${word}*`, limit: 5, cursor: syms.next_cursor });
  return 2 + (first.next_cursor ? 1 : 0) + (syms.next_cursor ? 1 : 0);
}
// Warm: code compiled (it lives in the heap too) and connections open before the baseline.
for (const word of queue.slice(-100)) await pages(word, 0);
cache.clear();
const baseline = heap();
let made = 0;
for (let i = 0; made < calls && i < queue.length - 100; i++) made += await pages(queue[i], i);
const after = heap();
const counted = cache.bytes;
// What the cache holds is what the heap gives back when it lets go of every window.
cache.clear();
const emptied = heap();
console.log(JSON.stringify({ budget, calls: made, grown: after - baseline, held: after - emptied, counted }));
