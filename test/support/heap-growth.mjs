// A process that keeps about 60 MiB alive and parses a large JSON answer 300 times, each answer
// held until the next one is read (as a server holds one while its call goes on, so answers
// outlive young-generation collections); prints the largest heap V8 kept (heapTotal, MiB) and
// whether the server's heap margin (dist/heap.js) was applied. `node heap-growth.mjs on` asks for it;
// `node heap-growth.mjs on 0` only says whether it was applied.
import { keepHeapNearLive } from '../../dist/heap.js';

const applied = process.argv[2] === 'on' ? keepHeapNearLive() : false;
const live = [];
for (let i = 0; i < 80; i++) live.push(Array.from({ length: 10_000 }, (_, k) => ({ k, s: `x${k}` })));
const answer = JSON.stringify(Array.from({ length: 20_000 }, (_, k) => ({ a: k, b: 'y'.repeat(20), c: [k, k + 1] })));
let maxTotal = 0;
let held;
const rounds = Number(process.argv[3] ?? 300);
for (let i = 0; i < rounds; i++) {
  held = JSON.parse(answer);
  if (held.length !== 20_000) throw new Error('parse');
  maxTotal = Math.max(maxTotal, process.memoryUsage().heapTotal);
}
process.stdout.write(JSON.stringify({ maxTotalMiB: maxTotal / 2 ** 20, applied, live: live.length }));
