// search_symbols by description: the 22 descriptions of test/support/describe-go.json asked one
// after another over stdio (window cache off, so each call is its own fetch plan), timed per
// description, with how often an accepted definition is first and among the first three. With
// ZOEKT_MCP_BEFORE_CLI, another build is run the same way, round by round alternately, and the
// ratios printed. bench/describe.sh sets up Zoekt over Go's source tree; any ZOEKT_URL will do
// (the accepted answers are Go's). Asserts nothing.
//   ZOEKT_URL=… [ZOEKT_MCP_BEFORE_CLI=…/dist/cli.js] [BENCH_ROUNDS=2] node bench/describe.mjs
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ZOEKT_URL = process.env.ZOEKT_URL;
const root = join(import.meta.dirname, '..');
const builds = [['after', process.env.ZOEKT_MCP_CLI ?? join(root, 'dist/cli.js')]];
if (process.env.ZOEKT_MCP_BEFORE_CLI) builds.unshift(['before', process.env.ZOEKT_MCP_BEFORE_CLI]);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
if (!ZOEKT_URL) {
  console.error('bench: set ZOEKT_URL, or run bash bench/describe.sh');
  process.exit(2);
}
const SET = JSON.parse(readFileSync(join(root, 'test/support/describe-go.json'), 'utf8')).descriptions.map(({ description, accept }) => ({
  description,
  accept: accept.map(([name, dir]) => [name, new RegExp(dir)]),
}));

const at = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/** One round of the set through a fresh server of `cli`: each description's time, and the hits. */
async function round(cli) {
  const client = new Client({ name: 'bench-describe', version: '1.0.0' });
  const env = { PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'warn', ZOEKT_MCP_CACHE_MB: '0', ZOEKT_MCP_TIMEOUT_MS: '30000' };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli], env, stderr: 'ignore' }));
  // The server's code loaded and compiled before the first timed call.
  await client.callTool({ name: 'search_symbols', arguments: { description: 'warm up the server' } });
  const ms = [];
  let top1 = 0;
  let top3 = 0;
  for (const { description, accept } of SET) {
    const t = performance.now();
    const r = await client.callTool({ name: 'search_symbols', arguments: { description, limit: 10 } });
    ms.push(performance.now() - t);
    const found = (r.structuredContent?.symbols ?? []).findIndex((s) => accept.some(([name, dir]) => s.name === name && dir.test(s.path)));
    if (found === 0) top1++;
    if (found >= 0 && found < 3) top3++;
  }
  await client.close();
  return { ms, top1, top3 };
}

const runs = Object.fromEntries(builds.map(([name]) => [name, []]));
for (let i = 0; i < ROUNDS; i++) for (const [name, cli] of builds) runs[name].push(await round(cli));

console.log(`search_symbols by description, ${SET.length} descriptions, ${ROUNDS} round(s) per build, ms per description (each round's figure; ranges over rounds)`);
const range = (xs, digits = 0) => {
  const lo = Math.min(...xs).toFixed(digits);
  const hi = Math.max(...xs).toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
};
const figures = {
  p50: (r) => at(r.ms, 0.5),
  p90: (r) => at(r.ms, 0.9),
  slowest: (r) => Math.max(...r.ms),
  sum: (r) => r.ms.reduce((a, b) => a + b, 0),
};
console.log(`| figure | ${builds.map(([n]) => n).join(' | ')}${builds.length > 1 ? ' | after ÷ before (medians)' : ''} |`);
console.log(`| --- | ${builds.map(() => '---').join(' | ')}${builds.length > 1 ? ' | ---' : ''} |`);
for (const [label, f] of Object.entries(figures)) {
  const cells = builds.map(([n]) => range(runs[n].map(f)));
  const ratio = builds.length > 1 ? ` | ${(at(runs.after.map(f), 0.5) / at(runs.before.map(f), 0.5)).toFixed(2)}` : '';
  console.log(`| ${label} | ${cells.join(' | ')}${ratio} |`);
}
console.log(`| top-1 / top-3 | ${builds.map(([n]) => `${range(runs[n].map((r) => r.top1))} / ${range(runs[n].map((r) => r.top3))}`).join(' | ')}${builds.length > 1 ? ' | ' : ''} |`);
