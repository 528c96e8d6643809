// Fan-out latency of zoekt-mcp's fleet against the slowest backend's own latency for the same
// request, measured in one interleaved run. bench/fanout.sh sets up two backends.
//   ZOEKT_URLS=http://…,http://… node bench/fanout.mjs
import { join } from 'node:path';

const dist = join(import.meta.dirname, '..', 'dist');
const { ZoektClient } = await import(join(dist, 'zoekt/client.js'));
const { ZoektFleet } = await import(join(dist, 'zoekt/fleet.js'));

const urls = (process.env.ZOEKT_URLS ?? '').split(',').filter(Boolean);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
if (urls.length < 2) {
  console.error('bench: set ZOEKT_URLS to two or more zoekt-webserver URLs, or run bash bench/fanout.sh');
  process.exit(2);
}
const backends = urls.map((url) => new ZoektClient({ url, timeoutMs: 30_000 }));
const fleet = new ZoektFleet(urls.map((url) => new ZoektClient({ url, timeoutMs: 30_000 })));

const QUERIES = ['function', 'export const', 'case:yes Error', 'sym:parse', 'type:filename file:\\.ts$', 'content:"return new"'];
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = async (f) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};

console.log(`fan-out over ${urls.length} backends, ${ROUNDS} interleaved rounds per query, window of 21 files`);
// The fleet waits for whichever backend is slowest on that request, so the figure compares it with
// the slowest backend of each round (p50 over rounds); the slowest backend's own p50 is shown too.
console.log('query | each backend p50 ms | slowest backend per round, p50 ms | slowest p50 of a backend ms | fleet p50 ms | fleet ÷ slowest per round | fleet ÷ slowest backend p50');
const ratios = [];
const ratiosOfP50 = [];
for (const query of QUERIES) {
  const req = { query, maxDocs: 21, contextLines: 1 };
  const own = backends.map(() => []);
  const merged = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, b] of backends.entries()) own[i].push(await time(() => b.search(req)));
    merged.push(await time(() => fleet.search(req)));
  }
  const each = own.map(p50);
  const slowestBackend = Math.max(...each);
  const slowestPerRound = p50(merged.map((_, r) => Math.max(...own.map((xs) => xs[r]))));
  const ratio = p50(merged) / slowestPerRound;
  ratios.push(ratio);
  ratiosOfP50.push(p50(merged) / slowestBackend);
  console.log(
    `${query} | ${each.map((x) => x.toFixed(1)).join(' / ')} | ${slowestPerRound.toFixed(1)} | ${slowestBackend.toFixed(1)} | ${p50(merged).toFixed(1)} | ${ratio.toFixed(2)} | ${(p50(merged) / slowestBackend).toFixed(2)}`,
  );
}
console.log(`median fleet ÷ slowest backend of each round: ${p50(ratios).toFixed(2)}`);
console.log(`median fleet ÷ slowest backend's own p50: ${p50(ratiosOfP50).toFixed(2)}`);
await Promise.all([...backends.map((b) => b.close()), fleet.close()]);
