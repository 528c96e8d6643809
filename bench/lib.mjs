// Shared by the bench programs: starting a server over HTTP, reading a process's memory, and the
// four-tree corpus.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';

/**
 * Starts `node command ...args` (the adapter with --http, or bench/echo-server.mjs) and resolves
 * with the process and its URL once it logs the line naming it. Its stderr is read on and dropped
 * after that: the adapter logs every call, and a full pipe would stop it.
 */
export function startHttpServer(command, args, env) {
  const child = spawn(process.execPath, [command, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (d) => {
      buffered += d.toString();
      for (const line of buffered.split('\n')) {
        // The adapter's start-up line, or the echo server's only line.
        const m = line.startsWith('{') && line.endsWith('}') ? JSON.parse(line) : undefined;
        if (!m?.url || (m.msg !== undefined && m.msg !== 'serving MCP over HTTP')) continue;
        child.stderr.off('data', onData);
        child.stderr.resume();
        resolve({ child, url: m.url, pid: child.pid, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) });
        return;
      }
    };
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before listening: ${buffered}`)));
  });
}

/** Clock ticks per second in /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** CPU time a process has used so far, in ms (user + system, from /proc). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** A process's resident memory now (VmRSS) and at its peak (VmHWM), in MiB. */
export function memoryMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1]);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** Runs git in `dir`, committing as the bench; its output. */
export function gitIn(dir, ...args) {
  return execFileSync('git', ['-C', dir, ...args], { env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
}

/** Copies `from` to `dir` (when given) and makes it a git repository of one commit, named `name` for Zoekt. */
export function gitCopy(from, dir, name) {
  if (from) cpSync(from, dir, { recursive: true });
  const git = (...a) => gitIn(dir, ...a);
  git('init', '-q', '-b', 'main');
  git('config', 'zoekt.name', name);
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  return dir;
}

/** The pinned Zoekt's commands, as the set-up installs them (`.tools/zoekt/<version>/bin`). */
export function zoektBin(root) {
  const version = /^ZOEKT_VERSION=(\S+)$/m.exec(readFileSync(join(root, 'zoekt-config/zoekt.env'), 'utf8'))[1];
  return { version, bin: join(process.env.ZOEKT_MCP_TOOLS_DIR ?? join(root, '.tools'), 'zoekt', version, 'bin') };
}

/** Go's own source tree, `$(go env GOROOT)/src`. */
export const goSrc = () => `${execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim()}/src`;

/**
 * The stdio handshake a client makes with a spawned server: initialize, then (once answered)
 * notifications/initialized and tools/list. `on.initialize(msg)` and `on.toolsList(msg)` hear the
 * answers as they come.
 */
export function stdioHandshake(child, clientName, on) {
  const send = (msg) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  let buffered = '';
  child.stdout.on('data', (d) => {
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const msg = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      if (msg.id === 1) {
        on.initialize?.(msg);
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/list' });
      } else if (msg.id === 2) on.toolsList?.(msg);
    }
  });
  // Written at once, as a client does: the pipe holds it until the server reads.
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1' } } });
}

const sh = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 }).trim();

/** Files under `root` (relative) that `keep` accepts; symbolic links are not followed. */
export function listFiles(root, keep) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && keep(relative(root, path))) out.push(relative(root, path));
    }
  };
  walk(root);
  return out.sort();
}

/**
 * The four-tree corpus of bench/fetch-plan.mjs (indexed once into .tools/bench-corpus-index/):
 * each repository's name, the folder it is taken from, the files it keeps (relative paths) and the
 * version that keys the index. `root` is the checkout (for node_modules/typescript).
 */
export function corpora(root) {
  const goroot = sh('go', ['env', 'GOROOT']);
  const stdlib = sh('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])']);
  const tsLib = join(root, 'node_modules/typescript/lib');
  return [
    { repo: 'go', root: join(goroot, 'src'), keep: () => true, version: sh('go', ['env', 'GOVERSION']) },
    { repo: 'cpython', root: stdlib, keep: (f) => f.endsWith('.py') && !f.startsWith('site-packages/'), version: `py${sh('python3', ['-c', 'import sys; print(sys.version.split()[0])'])}` },
    { repo: 'typescript', root: tsLib, keep: (f) => /^lib\..*\.d\.ts$/.test(f), version: `ts${JSON.parse(readFileSync(join(tsLib, '../package.json'), 'utf8')).version}` },
    { repo: 'c-headers', root: '/usr/include', keep: () => true, version: '' },
  ];
}

/** A TCP port free on loopback now. */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.once('error', rej);
  });
}

/**
 * zoekt-webserver -rpc over `index` on a free loopback port; resolves once a search sees `repos`
 * repositories (every shard answers). The caller stops `child`.
 */
export async function startZoekt(bin, index, repos, { waitMs = 60_000 } = {}) {
  const port = await freePort();
  const child = spawn(join(bin, 'zoekt-webserver'), ['-rpc', '-index', index, '-listen', `127.0.0.1:${port}`], {
    env: { ...process.env, ZOEKT_WATCHDOG_ERRORS: '0' },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (const until = Date.now() + waitMs; Date.now() < until; ) {
    try {
      const list = await (await fetch(`${url}/api/list`, { method: 'POST', body: '{"Q":""}' })).json();
      if ((list.List?.Repos ?? []).length >= repos) return { url, child };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  throw new Error(`zoekt-webserver over ${index} did not start on ${url}`);
}
