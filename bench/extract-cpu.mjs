// The extractor's CPU time on a folder, in process (no indexer, no worker): every file of the
// given extensions read first, then extracted one after the other; prints the CPU milliseconds
// (user + system) and the tags. For before/after: run two builds' dist/ alternately, round by
// round, on a machine that others share (CPU time, not wall).
//   node bench/extract-cpu.mjs DIST FOLDER .py [.pyi …]
//   node --cpu-prof bench/extract-cpu.mjs dist "$(go env GOROOT)/src" .go
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, folder, ...exts] = process.argv.slice(2);
if (!dist || !folder || !exts.length) {
  console.error('usage: node bench/extract-cpu.mjs DIST FOLDER EXT…');
  process.exit(2);
}
const { extract } = await import(pathToFileURL(resolve(dist, 'extractor/extract.js')).href);
const { grammarFor } = await import(pathToFileURL(resolve(dist, 'extractor/languages.js')).href);

const files = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'site-packages' && e.name !== 'node_modules') walk(path);
    } else if (e.isFile() && exts.some((x) => e.name.endsWith(x))) files.push(path);
  }
};
walk(folder);
files.sort();
const inputs = [];
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  if (text.length > 4 << 20) continue;
  const g = grammarFor(f, text);
  if (g) inputs.push([g, text]);
}
// The grammar loaded, untimed.
await extract(inputs[0][0], inputs[0][1], 60_000);
const before = process.cpuUsage();
let tags = 0;
for (const [g, text] of inputs) {
  try {
    tags += (await extract(g, text, 60_000)).tags.length;
  } catch {
    // A timeout: counted as the indexer would, no tags.
  }
}
const used = process.cpuUsage(before);
console.log(`${Math.round((used.user + used.system) / 1000)} ${inputs.length} ${tags}`);
