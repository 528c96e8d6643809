/**
 * The per-user local supervisor: one per data folder, started on demand by the serve command and
 * shared by every MCP server that runs over that data folder.
 *
 * - It owns zoekt-webserver (started, adopted after a crash of ours, restarted if it dies), so no
 *   client depends on another client's process.
 * - It is the only process that writes the index: set-ups and servers started at once all go
 *   through it, so they cannot corrupt the index.
 * - It keeps the index following the code on disk: it watches the listed folders (git work trees
 *   with their uncommitted edits, and plain directories), snapshots them when they change, polls
 *   the list itself, re-indexes what changed and deletes the shards of repositories taken off the list.
 * - Clients hold leases: a connection to its unix socket. It sends them its status (JSON lines)
 *   whenever it changes, and exits `lingerMs` after the last lease is gone.
 *
 * Only one supervisor binds the socket of a data folder (an abstract unix socket on Linux, which
 * the kernel releases when the process dies, so a crash never leaves a stale lock behind).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { writeFileAtomically } from './atomic-file.js';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { fingerprint, hasShards, indexerPidFile, measure, pruneShadow, removeShards, shadowDir, startIndex, sweep, type IndexerPaths } from './indexer.js';
import { readRepoList, type RepoEntry } from './repos.js';
import type { RepoStatus, SupervisorStatus } from './status.js';

export interface SupervisorOptions {
  data: string;
  /** zoekt-webserver and zoekt-git-index. */
  bin: string;
  /** zoekt-config/index. */
  indexCommand: string;
  list: { file?: string; dirs?: string[]; base: string; label: string };
  /** Zoekt's port; 0 picks a free one. */
  port: number;
  lingerMs: number;
  pollMs: number;
  socket: string;
}

interface Saved {
  fingerprint: string;
  indexed_at: string;
  duration_ms: number;
  bytes: number;
  name: string;
  kind: 'git' | 'dir';
  dir: string;
}

interface State {
  /** By directory. */
  repos: Record<string, Saved>;
  /** Bytes indexed per millisecond, measured: the first estimate of an unknown repository. */
  rate?: number;
}

const say = (msg: string) => process.stderr.write(`${new Date().toISOString()} supervisor[${process.pid}]: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Supervisor {
  private leases = new Set<Socket>();
  private lingerTimer?: NodeJS.Timeout;
  private zoekt?: ChildProcess;
  private ownsZoekt = false;
  private zoektUrl = '';
  private zoektError?: string;
  private entries: RepoEntry[] = [];
  private listErrors: string[] = [];
  private status = new Map<string, RepoStatus>();
  private state: State = { repos: {} };
  private stopping = false;
  private pass = 0;
  private indexing?: { child?: ChildProcess };
  private wake?: () => void;
  private broadcastTimer?: NodeJS.Timeout;
  private readonly startedAt = new Date().toISOString();
  private readonly paths: IndexerPaths;
  private readonly statePath: string;

  constructor(private readonly opts: SupervisorOptions) {
    this.paths = {
      bin: opts.bin,
      index: join(opts.data, 'index'),
      shadows: join(opts.data, 'shadow'),
      indexCommand: opts.indexCommand,
      log: (line) => process.stderr.write(line),
    };
    this.statePath = join(opts.data, 'state.json');
  }

  /** Binds the socket; false when another supervisor already serves this data folder. */
  async claim(): Promise<boolean> {
    const server = createServer((socket) => this.lease(socket));
    const bound = await new Promise<boolean>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)));
      server.listen(this.opts.socket, () => resolve(true));
    });
    if (!bound && !this.opts.socket.startsWith('\0') && !(await answersSocket(this.opts.socket))) {
      // A socket file left by a supervisor that died (abstract sockets never linger): take it over.
      rmSync(this.opts.socket, { force: true });
      return this.claim();
    }
    return bound;
  }

  private markStarted!: () => void;
  private readonly started = new Promise<void>((r) => (this.markStarted = r));

  async run(): Promise<void> {
    mkdirSync(this.paths.index, { recursive: true });
    this.loadState();
    await this.stopLeftoverIndexer();
    this.readList(true);
    // Nobody connected within the linger time after start (the spawner died): stop.
    this.armLinger(Math.max(this.opts.lingerMs, 10_000));
    await this.startZoekt();
    this.markStarted();
    this.broadcast();
    void this.loop();
  }

  status_(): SupervisorStatus {
    return {
      pid: process.pid,
      zoekt_url: this.zoektUrl,
      started_at: this.startedAt,
      leases: this.leases.size,
      pass: this.pass,
      list: this.opts.list.label,
      list_errors: this.listErrors,
      repos: this.entries.map((e) => this.status.get(e.dir)!).filter(Boolean),
      ...(this.zoektError ? { zoekt_error: this.zoektError } : {}),
    };
  }

  private lease(socket: Socket): void {
    if (this.stopping) return void socket.destroy();
    this.leases.add(socket);
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.leases.delete(socket);
      if (this.leases.size === 0) this.armLinger(this.opts.lingerMs);
      this.broadcast();
    });
    // Any line from a client asks for a check now (e.g. the set-up command, or a search that
    // found a repository stale).
    socket.on('data', () => this.wake?.());
    // The first status names Zoekt's URL: send it once Zoekt is up.
    void this.started.then(() => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(this.status_())}\n`);
    });
    this.broadcast();
  }

  private armLinger(ms: number): void {
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = setTimeout(() => {
      if (this.leases.size === 0) void this.stop('no client left');
    }, ms);
  }

  /** Status to every lease, at most every 100 ms. */
  private broadcast(): void {
    if (this.broadcastTimer) return;
    this.broadcastTimer = setTimeout(() => {
      this.broadcastTimer = undefined;
      const line = `${JSON.stringify(this.status_())}\n`;
      for (const s of this.leases) s.write(line);
    }, 100);
  }

  private loadState(): void {
    try {
      this.state = JSON.parse(readFileSync(this.statePath, 'utf8')) as State;
      this.state.repos ??= {};
    } catch {
      this.state = { repos: {} };
    }
  }

  private saveState(): void {
    writeFileAtomically(this.statePath, JSON.stringify(this.state, null, 1));
  }

  private listStamp = '';

  /**
   * An indexer whose supervisor died (killed outright) may still be writing the index: it is
   * stopped before this supervisor writes there, so that two indexers never write one index.
   */
  private async stopLeftoverIndexer(): Promise<void> {
    const file = indexerPidFile(this.paths);
    const left = this.leftover(file);
    if (left) {
      say(`stopping zoekt-git-index ${left.pid}, left by an earlier supervisor`);
      await stopProcess(left.pid);
    }
    rmSync(file, { force: true });
  }

  /**
   * Reads the list (again); repositories taken off it leave the index, and their shadows go. At
   * start (`first`), what interrupted indexers left goes too. Runs only between indexes.
   */
  private readList(first = false): void {
    const { file } = this.opts.list;
    if (file) {
      // The text itself, not its mtime: a list rewritten twice within one tick still counts.
      let stamp = 'missing';
      try {
        stamp = readFileSync(file, 'utf8');
      } catch {
        // reported by readRepoList
      }
      if (stamp === this.listStamp) return;
      this.listStamp = stamp;
    } else if (this.listStamp) return;
    else this.listStamp = 'dirs';
    const list = readRepoList(this.opts.list);
    if (list.unreadable) {
      // Moved away for a moment, or not readable: the index stays as it is until the list reads again.
      say(`repo list: ${list.errors.join('; ')}; keeping the index as it is`);
      this.listErrors = list.errors;
      this.broadcast();
      return;
    }
    this.entries = list.entries;
    this.listErrors = list.errors;
    for (const err of list.errors) say(`repo list: ${err}`);
    const listed = new Set(list.entries.map((e) => e.dir));
    for (const e of list.entries) {
      if (!this.status.has(e.dir)) {
        const saved = this.state.repos[e.dir];
        const has = hasShards(this.paths.index, e.name);
        this.status.set(e.dir, {
          name: e.name,
          dir: e.dir,
          kind: e.kind,
          state: 'queued',
          has_index: has,
          ...(saved && has && saved.name === e.name ? { indexed_at: saved.indexed_at, last_duration_ms: saved.duration_ms } : {}),
        });
      }
    }
    for (const dir of [...this.status.keys()]) if (!listed.has(dir)) this.status.delete(dir);
    for (const e of list.entries) if (!this.watchers.has(e.dir)) this.watch(e);
    for (const [dir, w] of [...this.watchers]) {
      if (!listed.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
    let changed = false;
    for (const [dir, saved] of Object.entries(this.state.repos)) {
      const now = list.entries.find((e) => e.dir === dir);
      if (now && now.name === saved.name) continue;
      const removed = removeShards(this.paths.index, saved.name);
      say(`${saved.name} (${dir}) left the list: removed ${removed.length} shard file(s)`);
      rmSync(shadowDir(this.paths, { dir }), { recursive: true, force: true });
      delete this.state.repos[dir];
      changed = true;
    }
    if (changed) this.saveState();
    // Shards and shadows of no listed repository: left by a list changed while no supervisor ran,
    // a state file lost, or an index interrupted.
    const swept = sweep(this.paths, list.entries, first);
    if (swept.length) say(`removed what no listed repository uses: ${swept.join(', ')}`);
    this.broadcast();
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      if (this.adoptedPid && !alive(this.adoptedPid)) {
        say(`zoekt-webserver ${this.adoptedPid} exited; restarting it`);
        this.adoptedPid = undefined;
        await this.startZoekt().catch((e: Error) => (this.zoektError = e.message));
      }
      try {
        this.readList();
      } catch (err) {
        say(`reading the list failed: ${(err as Error).message}`);
      }
      for (const e of [...this.entries]) {
        if (this.stopping) break;
        if (!this.status.has(e.dir)) continue; // left the list meanwhile
        if (this.quiet(e)) continue;
        this.dirty.delete(e.dir);
        this.lastCheck.set(e.dir, Date.now());
        await this.refresh(e);
      }
      if (this.stopping) break;
      this.pass++;
      this.broadcast();
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.opts.pollMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  private watchers = new Map<string, FSWatcher>();
  private dirty = new Set<string>();
  private lastCheck = new Map<string, number>();
  private wakeTimer?: NodeJS.Timeout;

  /**
   * Listed folders are watched (inotify): a change marks the folder for a check, soon. Checking one
   * means reading the metadata of every file, so a watched folder that reported nothing is only
   * checked once a minute, in case the watch missed something.
   */
  private watch(e: RepoEntry): void {
    try {
      const w = watch(e.dir, { recursive: true }, (_event, file) => {
        // Git's own bookkeeping is not a change of the files (a commit changes none of them).
        if (typeof file === 'string' && (file === '.git' || file.startsWith('.git/'))) return;
        this.dirty.add(e.dir);
        if (!this.wakeTimer) {
          this.wakeTimer = setTimeout(() => {
            this.wakeTimer = undefined;
            this.wake?.();
          }, 200);
        }
      });
      w.on('error', () => {
        w.close();
        this.watchers.delete(e.dir);
      });
      this.watchers.set(e.dir, w);
    } catch {
      // Not watchable (too many folders for inotify, …): checked every pass instead.
    }
  }

  private quiet(e: RepoEntry): boolean {
    if (!this.watchers.has(e.dir) || this.dirty.has(e.dir)) return false;
    if (this.status.get(e.dir)?.state !== 'ready') return false;
    return Date.now() - (this.lastCheck.get(e.dir) ?? 0) < 60_000;
  }

  private set(e: RepoEntry, patch: Partial<RepoStatus>): RepoStatus {
    const st = this.status.get(e.dir);
    if (!st) return { ...patch } as RepoStatus;
    Object.assign(st, patch);
    for (const k of Object.keys(patch) as (keyof RepoStatus)[]) if (patch[k] === undefined) delete st[k];
    this.broadcast();
    return st;
  }

  /** Brings one repository's index up to date, if it is not. */
  private async refresh(e: RepoEntry): Promise<void> {
    const st = this.status.get(e.dir)!;
    if (st.state === 'queued') this.set(e, { state: 'checking' });
    let fp: string;
    try {
      fp = await fingerprint(this.paths, e);
    } catch (err) {
      this.set(e, { state: 'error', error: (err as Error).message });
      return;
    }
    const saved = this.state.repos[e.dir];
    if (saved && saved.fingerprint === fp && saved.name === e.name && hasShards(this.paths.index, e.name)) {
      if (st.state !== 'ready') this.set(e, { state: 'ready', has_index: true, indexed_at: saved.indexed_at, last_duration_ms: saved.duration_ms, error: undefined });
      return;
    }
    const size = await measure(this.paths, e, fp).catch(() => ({ files: 0, bytes: 0 }));
    const estimated =
      saved && saved.bytes > 0 ? Math.round((saved.duration_ms * Math.max(size.bytes, 1)) / saved.bytes) : Math.round(size.bytes / (this.state.rate ?? 2000)) + 1000;
    const started = Date.now();
    say(`indexing ${e.name} (${e.dir}): ${size.files} files, ${(size.bytes / 1e6).toFixed(1)} MB`);
    const progress = () => {
      const elapsed = Date.now() - started;
      return { ...size, elapsed_ms: elapsed, estimated_ms: Math.max(estimated, elapsed), percent: Math.min(99, Math.floor((100 * elapsed) / Math.max(estimated, 1))) };
    };
    this.set(e, { state: 'indexing', progress: progress(), error: undefined });
    const ticker = setInterval(() => this.set(e, { progress: progress() }), 1000);
    try {
      const job = startIndex(this.paths, e, fp);
      this.indexing = job;
      fp = await job.done;
    } catch (err) {
      clearInterval(ticker);
      this.indexing = undefined;
      if (this.stopping) return;
      say(`indexing ${e.name} failed: ${(err as Error).message}`);
      this.set(e, { state: 'error', progress: undefined, error: (err as Error).message, has_index: hasShards(this.paths.index, e.name) });
      return;
    }
    clearInterval(ticker);
    this.indexing = undefined;
    const duration = Date.now() - started;
    const indexedAt = new Date().toISOString();
    this.state.repos[e.dir] = { fingerprint: fp, indexed_at: indexedAt, duration_ms: duration, bytes: size.bytes, name: e.name, kind: e.kind, dir: e.dir };
    if (size.bytes > 1e6) this.state.rate = size.bytes / duration;
    this.saveState();
    say(`indexed ${e.name} in ${(duration / 1000).toFixed(1)} s`);
    try {
      if (await pruneShadow(this.paths, e, size.bytes)) say(`pruned the snapshots of ${e.name} older than the one indexed`);
    } catch (err) {
      say(`pruning the snapshots of ${e.name} failed: ${(err as Error).message}`);
    }
    this.set(e, { state: 'ready', has_index: hasShards(this.paths.index, e.name), indexed_at: indexedAt, last_duration_ms: duration, progress: undefined });
  }

  private async answers(url: string): Promise<boolean> {
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      return res.ok;
    } catch {
      return false;
    }
  }

  private get pidFile(): string {
    return join(this.opts.data, 'zoekt-webserver.pid');
  }

  /** The live process a pid file names, if it works on this folder's index (pids are reused). */
  private leftover(pidFile: string): { pid: number; cmdline: string } | undefined {
    const pid = Number(existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : NaN);
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return undefined;
    const cmdline = procCmdline(pid);
    return cmdline.includes(` -index ${this.paths.index} `) ? { pid, cmdline } : undefined;
  }

  /** Starts zoekt-webserver, or adopts the one a previous supervisor of this folder left running. */
  private async startZoekt(): Promise<void> {
    let port = this.opts.port;
    // A zoekt-webserver of this data folder left running by a supervisor that died: adopt it, so
    // that clients keep their URL and no webserver is left behind.
    const left = this.leftover(this.pidFile);
    if (left) {
      const { pid } = left;
      const listen = /-listen 127\.0\.0\.1:(\d+)/.exec(left.cmdline)?.[1];
      const url = `http://127.0.0.1:${listen}`;
      if (listen && (port === 0 || Number(listen) === port) && (await this.answers(url))) {
        say(`adopting zoekt-webserver ${pid} at ${url}`);
        this.zoektUrl = url;
        this.ownsZoekt = true;
        this.adoptedPid = pid;
        this.markStarted();
        return;
      }
      say(`stopping zoekt-webserver ${pid}, left by an earlier supervisor`);
      process.kill(pid, 'SIGTERM');
      for (let i = 0; i < 60 && alive(pid); i++) await sleep(50);
    }
    if (port !== 0) {
      const url = `http://127.0.0.1:${port}`;
      if (await this.answers(url)) {
        say(`reusing the zoekt-webserver already answering at ${url}`);
        this.zoektUrl = url;
        this.markStarted();
        return;
      }
    } else port = await freePort(this.previousPort());
    const url = `http://127.0.0.1:${port}`;
    const logPath = join(this.opts.data, 'webserver.log');
    const logFd = openSync(logPath, 'a');
    const child = spawn(join(this.opts.bin, 'zoekt-webserver'), ['-rpc', '-index', this.paths.index, '-listen', `127.0.0.1:${port}`], {
      // Its log goes to a file, not through this process: it outlives a crash of this process
      // (a broken pipe would end it) and the next supervisor adopts it.
      stdio: ['ignore', 'ignore', logFd],
      // Its watchdog would poll -listen and quit on a busy machine; this process watches it instead.
      env: { ...process.env, ZOEKT_WATCHDOG_ERRORS: '0' },
    });
    closeSync(logFd);
    const lastLog = () => {
      try {
        return readFileSync(logPath, 'utf8').trim().split('\n').slice(-1)[0] ?? '';
      } catch {
        return '';
      }
    };
    this.zoekt = child;
    this.ownsZoekt = true;
    this.zoektUrl = url;
    writeFileAtomically(this.pidFile, String(child.pid));
    writeFileAtomically(join(this.opts.data, 'zoekt.port'), String(port));
    // Clients may connect now: their Zoekt client retries while the webserver loads.
    this.markStarted();
    child.on('exit', (code, signal) => {
      if (this.stopping || this.zoekt !== child) return;
      say(`zoekt-webserver exited (${signal ?? code}); restarting it`);
      this.zoektError = `zoekt-webserver exited (${signal ?? code}): ${lastLog()}`;
      this.zoekt = undefined;
      setTimeout(() => void this.startZoekt().catch((e: Error) => (this.zoektError = e.message)), 500);
    });
    for (let i = 0; i < 200; i++) {
      if (await this.answers(url)) {
        this.zoektError = undefined;
        say(`zoekt-webserver ${child.pid} serving ${this.paths.index} at ${url}`);
        return;
      }
      if (child.exitCode !== null) break;
      await sleep(50);
    }
    this.zoektError = `zoekt-webserver did not start at ${url}: ${lastLog()} (see ${logPath})`;
    say(this.zoektError);
  }

  private adoptedPid?: number;

  /** The port Zoekt had last time, so that a restarted supervisor keeps its URL. */
  private previousPort(): number {
    try {
      return Number(readFileSync(join(this.opts.data, 'zoekt.port'), 'utf8').trim()) || 0;
    } catch {
      return 0;
    }
  }

  async stop(reason: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    say(`stopping: ${reason}`);
    this.wake?.();
    for (const s of this.leases) s.destroy();
    // The socket stays bound until the indexer is gone too: a successor never indexes beside it.
    const indexer = this.indexing?.child?.pid;
    if (indexer) await stopProcess(indexer);
    // The socket stays bound until Zoekt is gone (leases asked for meanwhile are refused): a
    // successor cannot start before, and so never adopts a webserver that is being stopped.
    if (this.ownsZoekt) {
      const pid = this.zoekt?.pid ?? this.adoptedPid;
      if (pid) await stopProcess(pid);
      rmSync(this.pidFile, { force: true });
    }
    process.exit(0);
  }
}

/** SIGTERM, up to 3 s to exit, then SIGKILL. */
async function stopProcess(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 60 && alive(pid); i++) await sleep(50);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function answersSocket(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function procCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function freePort(preferred = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (err) => (preferred ? resolve(freePort(0)) : reject(err)));
    srv.listen(preferred, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Entry: `node dist/local/supervisor.js '<options as JSON>'`, started detached by the lease client. */
export async function supervisorMain(argv: string[]): Promise<void> {
  const opts = JSON.parse(argv[0] ?? '{}') as SupervisorOptions;
  const sup = new Supervisor(opts);
  if (!(await sup.claim())) {
    say('another supervisor serves this data folder; leaving it to that one');
    process.exit(0);
  }
  process.on('SIGTERM', () => void sup.stop('SIGTERM'));
  process.on('SIGINT', () => void sup.stop('SIGINT'));
  process.on('SIGHUP', () => undefined);
  await sup.run();
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  supervisorMain(process.argv.slice(2)).catch((err: unknown) => {
    say(`fatal: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  });
}
