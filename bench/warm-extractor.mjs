// What the warm extractor saves an index build: `zoekt-config/index git` run again and again on
// a small repository, with the extractor started cold by each build and with the build's files
// passed on to a warm one (src/extractor/service.ts, run here as the supervisor runs it). Two kinds
// of build: the whole repository, and a delta after an edit of one file (what the supervisor builds
// on each save: `-incremental -delta -submodules=false`). Rounds alternate the two ways; prints each way's median wall
// and CPU time per build (this process and every process it started, the warm extractor's parse
// workers included).
//   node bench/warm-extractor.mjs [FOLDER] [BUILDS-PER-ROUND] [ROUNDS]
// FOLDER (a git repository; it gets commits) defaults to one made of src/search/ (TypeScript: the
// costliest tag rules).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gitCopy, gitIn, zoektBin } from './lib.mjs';

const root = join(import.meta.dirname, '..');
const { ExtractorService } = await import(pathToFileURL(join(root, 'dist/extractor/service.js')).href);
const { bin } = zoektBin(root);

const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-warm-extractor-'));
let repo = process.argv[2];
if (!repo) {
  repo = gitCopy(join(root, 'src/search'), join(work, 'repo'), 'bench');
}
const git = (...a) => gitIn(repo, ...a);
const edited = git('ls-files', '*.ts').toString().split('\n')[0];
if (!edited) throw new Error(`no .ts file in ${repo}`);
const builds = Number(process.argv[3] ?? 10);
const rounds = Number(process.argv[4] ?? 3);

// CPU of this process and of its waited-for descendants, in ms (/proc/self/stat: utime stime cutime cstime).
const ticks = () => readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ').slice(11, 15).reduce((a, b) => a + Number(b), 0);
const cpuMs = () => ticks() * 10;

const service = new ExtractorService(join(work, 'run', 'extractor.sock'), pathToFileURL(join(root, 'dist/extractor/worker.js')), console.error);
if (!(await service.listen())) process.exit(1);

function index(warm, args) {
  const env = { ...process.env, ZOEKT_BIN: bin, ZOEKT_MCP_NODE: process.execPath };
  if (warm) env.ZOEKT_MCP_EXTRACTOR_SOCKET = service.path;
  else delete env.ZOEKT_MCP_EXTRACTOR_SOCKET;
  // Asynchronously: the warm extractor answers in this process's event loop.
  return new Promise((resolve, reject) => {
    const child = spawn(join(root, 'zoekt-config/index'), ['git', '-require_ctags', ...args, '-index', join(work, 'index'), repo], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(err))));
  });
}

const cpuNow = () => cpuMs() + (process.cpuUsage().user + process.cpuUsage().system) / 1000;

async function measure(kind, warm) {
  if (kind === 'delta') {
    rmSync(join(work, 'index'), { recursive: true, force: true });
    await index(false, []);
  }
  let wall = 0;
  let cpu = 0;
  for (let i = 0; i < builds; i++) {
    if (kind === 'whole') rmSync(join(work, 'index'), { recursive: true, force: true });
    else {
      appendFileSync(join(repo, edited), `export const edit${i} = ${i};\n`);
      git('commit', '-qam', `edit ${i}`);
    }
    const wall0 = performance.now();
    const cpu0 = cpuNow();
    await index(warm, kind === 'delta' ? ['-incremental', '-delta', '-submodules=false'] : []);
    cpu += cpuNow() - cpu0;
    wall += performance.now() - wall0;
  }
  return { wall: wall / builds, cpu: cpu / builds };
}

const files = git('ls-files').toString().split('\n').filter(Boolean).length;
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${repo}: ${files} files; ${builds} builds a round, ${rounds} rounds; per build, medians:`);
for (const kind of ['whole', 'delta']) {
  const results = { cold: [], warm: [] };
  for (let r = 0; r < rounds; r++) {
    for (const way of r % 2 ? ['warm', 'cold'] : ['cold', 'warm']) results[way].push(await measure(kind, way === 'warm'));
  }
  const [c, w] = ['cold', 'warm'].map((way) => ({ wall: median(results[way].map((x) => x.wall)), cpu: median(results[way].map((x) => x.cpu)) }));
  console.log(`  ${kind === 'whole' ? 'the whole repository' : 'a delta of one edited file'}: cold ${c.wall.toFixed(0)} ms wall, ${c.cpu.toFixed(0)} ms CPU; warm ${w.wall.toFixed(0)} ms wall, ${w.cpu.toFixed(0)} ms CPU; cold / warm ${(c.wall / w.wall).toFixed(2)}x wall, ${(c.cpu / w.cpu).toFixed(2)}x CPU`);
}
console.log(`  the warm extractor: ${service.counts.builds} builds, ${service.counts.workers} parse worker${service.counts.workers === 1 ? '' : 's'} started`);
await service.close();
rmSync(work, { recursive: true, force: true });
