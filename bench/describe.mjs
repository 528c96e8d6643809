// search_symbols by description against one raw Zoekt request of the same reach: the `sym:` query
// the adapter sends (its zoekt_query), for the same 500 files, with the same match budget, posted
// straight to Zoekt. Each description is timed BENCH_ROUNDS times (first pages, so no cache)
// through a real MCP client over stdio; prints the medians and their ratio. bench/describe.sh
// sets up Zoekt over Go's source tree. Asserts nothing.
//   ZOEKT_URL=… node bench/describe.mjs
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ZOEKT_URL = process.env.ZOEKT_URL;
const CLI = process.env.ZOEKT_MCP_CLI ?? join(import.meta.dirname, '..', 'dist/cli.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const DESCRIPTIONS = ['parse url', 'listen and serve http', 'trim space', 'gzip reader', 'json marshal indent', 'walk directory', 'close idle connections', 'decode utf8 rune'];
if (!ZOEKT_URL) {
  console.error('bench: set ZOEKT_URL, or run bash bench/describe.sh');
  process.exit(2);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const client = new Client({ name: 'bench-describe', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], env: { PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'warn' }, stderr: 'ignore' }));
const opts = { ChunkMatches: true, MaxDocDisplayCount: 500, ShardMaxMatchCount: 300_000, TotalMaxMatchCount: 1_200_000 };
console.log(`description search vs one raw Zoekt sym: request (500 files), median of ${ROUNDS}`);
const ratios = [];
for (const description of DESCRIPTIONS) {
  const ours = [];
  const raw = [];
  let query = '';
  for (let i = 0; i < ROUNDS; i++) {
    let t = performance.now();
    // A different limit each round: the same first page is not served twice from the window cache.
    const r = await client.callTool({ name: 'search_symbols', arguments: { description, limit: 10 + i } });
    ours.push(performance.now() - t);
    query = r.structuredContent.zoekt_query;
    t = performance.now();
    const res = await fetch(`${ZOEKT_URL}/api/search`, { method: 'POST', body: JSON.stringify({ Q: query, Opts: opts }) });
    await res.text();
    raw.push(performance.now() - t);
  }
  const ratio = median(ours) / median(raw);
  ratios.push(ratio);
  console.log(`  ${description.padEnd(26)} ours ${median(ours).toFixed(0).padStart(5)} ms, raw ${median(raw).toFixed(0).padStart(5)} ms, ${ratio.toFixed(2)}×`);
}
console.log(`median ratio ${median(ratios).toFixed(2)}×`);
await client.close();
