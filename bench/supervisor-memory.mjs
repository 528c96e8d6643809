#!/usr/bin/env node
// The local supervisor's own memory (it holds lists and status, not an index): RSS and V8 heap of
// the supervisor process once a list is indexed and watched, read from /proc while it lingers.
//
//   node bench/supervisor-memory.mjs [CHECKOUT] [FOLDER...]
//
// CHECKOUT (default: this one) is the zoekt-mcp checkout whose scripts/serve.sh runs (point it at
// a `git worktree` of an older commit, built, to compare); the FOLDERs are indexed (default: this
// checkout, node_modules and all on disk, and a copy of $(go env GOROOT)/src as a git repository).
// Prints one JSON line: rss_mib, and the folders' files and directories on disk.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitCopy, goSrc } from './lib.mjs';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const checkout = resolve(process.argv[2] ?? here);
const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-supmem-'));
let folders = process.argv.slice(3).map((f) => resolve(f));
if (!folders.length) {
  const go = gitCopy(goSrc(), join(work, 'gosrc'), 'go/src');
  folders = [here, go];
}
const list = join(work, 'repos');
writeFileSync(list, folders.map((f) => `${f}\n`).join(''));
const data = join(work, 'data');
const count = (f, type) => Number(execFileSync('sh', ['-c', `find "$1" -type ${type} | wc -l`, 'sh', f], { encoding: 'utf8' }).trim());
const env = {
  ...process.env,
  ZOEKT_MCP_DATA: data,
  ZOEKT_MCP_REPOS: list,
  ZOEKT_PORT: '0',
  ZOEKT_MCP_LINGER_MS: '30000',
  ZOEKT_MCP_TOOLS_DIR: existsSync(join(checkout, '.tools')) ? join(checkout, '.tools') : join(here, '.tools'),
};
const started = Date.now();
const r = spawnSync('bash', [join(checkout, 'scripts/serve.sh'), '--setup'], { env, encoding: 'utf8' });
if (r.status !== 0) {
  process.stderr.write(r.stderr);
  process.exit(1);
}
const setupS = (Date.now() - started) / 1000;
const status = await new Promise((res) => {
  // The supervisor's socket (src/local/lease.ts socketFor): abstract on Linux.
  const id = createHash('sha256').update(data).digest('hex').slice(0, 24);
  const s = connect(process.platform === 'linux' ? `\0zoekt-mcp-${id}` : join(data, 'supervisor.sock'));
  let buf = '';
  s.on('connect', () => s.write(`${JSON.stringify({ protocol: 2 })}\n`));
  s.on('data', (d) => {
    buf += d;
    if (buf.includes('\n')) {
      s.destroy();
      res(JSON.parse(buf.slice(0, buf.indexOf('\n'))));
    }
  });
  s.on('error', () => res(undefined));
});
if (!status) throw new Error(`no supervisor at ${data}`);
// Settled: a few seconds after the set-up, as a client would find it.
await new Promise((res) => setTimeout(res, 5000));
const field = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${status.pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const out = {
  checkout,
  folders: folders.map((f) => ({ folder: f, files: count(f, 'f'), dirs: count(f, 'd') })),
  setup_s: setupS,
  supervisor_pid: status.pid,
  rss_mib: Math.round(field('VmRSS')),
  rss_peak_mib: Math.round(field('VmHWM')),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
process.kill(status.pid, 'SIGTERM');
await new Promise((res) => setTimeout(res, 2000));
rmSync(work, { recursive: true, force: true });
