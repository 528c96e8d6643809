/**
 * The supervisor's zoekt-webserver: started on a port of its own (the same one as last time, so
 * that clients keep their URL), adopted when a supervisor of the same data folder that died left
 * it running, restarted when it exits, stopped with the supervisor.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { writeFileAtomically } from './atomic-file.js';
import { describeProcess, isRunning, stopProcess } from './process-table.js';

export interface WebserverOptions {
  data: string;
  /** Where zoekt-webserver is. */
  bin: string;
  index: string;
  /** 0 picks a free one. */
  port: number;
  say: (msg: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Whether a zoekt-webserver answers at `url` within a second. Through node:http, not fetch: the
 * supervisor asks this at every start, and Node loads its own copy of undici for a first fetch
 * (about 40 ms of CPU).
 */
export function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const req = get(`${url}/healthz`, { agent: false, signal: AbortSignal.timeout(1000) }, (res) => {
        res.resume();
        resolve(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300);
      });
      req.on('error', () => resolve(false));
    } catch {
      resolve(false); // a URL it cannot ask (a port out of range)
    }
  });
}

export class Webserver {
  url = '';
  /** A zoekt-webserver found answering on the port, not this data folder's: what it holds is not ours to know. */
  foreign = false;
  /** Why it could not be started (or restarted), while that is so. */
  error?: string;
  private child?: ChildProcess;
  private adoptedPid?: number;
  private owns = false;
  private stopping = false;

  constructor(private readonly o: WebserverOptions) {}

  private get pidFile(): string {
    return join(this.o.data, 'zoekt-webserver.pid');
  }

  /** The live webserver a pid file names, if it serves this folder's index (pids are reused). */
  leftover(): { pid: number; args: string } | undefined {
    let pid = NaN;
    try {
      pid = Number(readFileSync(this.pidFile, 'utf8').trim());
    } catch {
      return undefined;
    }
    const p = describeProcess(pid);
    return p && ` ${p.args} `.includes(` -index ${this.o.index} `) ? p : undefined;
  }

  /**
   * Starts zoekt-webserver, or adopts the one a previous supervisor of this folder left running.
   * `known` is called as soon as the URL is settled: clients may connect while it loads (their
   * Zoekt client retries).
   */
  async start(known: () => void): Promise<void> {
    let port = this.o.port;
    const left = this.leftover();
    if (left) {
      const listen = /-listen 127\.0\.0\.1:(\d+)/.exec(left.args)?.[1];
      const url = `http://127.0.0.1:${listen}`;
      if (listen && (port === 0 || Number(listen) === port) && (await answers(url))) {
        this.o.say(`adopting zoekt-webserver ${left.pid} at ${url}`);
        Object.assign(this, { url, owns: true, adoptedPid: left.pid });
        known();
        return;
      }
      this.o.say(`stopping zoekt-webserver ${left.pid}, left by an earlier supervisor`);
      await stopProcess(left.pid);
    }
    if (port !== 0) {
      const url = `http://127.0.0.1:${port}`;
      if (await answers(url)) {
        this.o.say(`reusing the zoekt-webserver already answering at ${url}; it does not serve this data folder's index`);
        this.url = url;
        this.foreign = true;
        known();
        return;
      }
    } else port = await freePort(this.previousPort());
    const url = `http://127.0.0.1:${port}`;
    const logPath = join(this.o.data, 'webserver.log');
    const logFd = openSync(logPath, 'a');
    let child: ChildProcess;
    try {
      child = spawn(join(this.o.bin, 'zoekt-webserver'), ['-rpc', '-index', this.o.index, '-listen', `127.0.0.1:${port}`], {
        // Its log goes to a file, not through this process: it outlives a crash of this process
        // (a broken pipe would end it) and the next supervisor adopts it.
        stdio: ['ignore', 'ignore', logFd],
        // Its watchdog would poll -listen and quit on a busy machine; the supervisor watches it instead.
        env: { ...process.env, ZOEKT_WATCHDOG_ERRORS: '0' },
      });
    } finally {
      closeSync(logFd);
    }
    const lastLog = () => {
      try {
        return readFileSync(logPath, 'utf8').trim().split('\n').slice(-1)[0] ?? '';
      } catch {
        return '';
      }
    };
    Object.assign(this, { child, owns: true, url });
    writeFileAtomically(this.pidFile, String(child.pid));
    writeFileAtomically(join(this.o.data, 'zoekt.port'), String(port));
    known();
    child.on('exit', (code, signal) => {
      if (this.stopping || this.child !== child) return;
      this.o.say(`zoekt-webserver exited (${signal ?? code}); restarting it`);
      this.error = `zoekt-webserver exited (${signal ?? code}): ${lastLog()}`;
      this.child = undefined;
      setTimeout(() => void this.start(() => undefined).catch((e: Error) => (this.error = e.message)), 500);
    });
    for (let i = 0; i < 200; i++) {
      if (await answers(url)) {
        this.error = undefined;
        this.o.say(`zoekt-webserver ${child.pid} serving ${this.o.index} at ${url}`);
        return;
      }
      if (child.exitCode !== null) break;
      await sleep(50);
    }
    this.error = `zoekt-webserver did not start at ${url}: ${lastLog()} (see ${logPath})`;
    this.o.say(this.error);
  }

  /** An adopted webserver (not our child: no exit event) that died is started again. */
  async check(): Promise<void> {
    if (!this.adoptedPid || isRunning(this.adoptedPid)) return;
    this.o.say(`zoekt-webserver ${this.adoptedPid} exited; restarting it`);
    this.adoptedPid = undefined;
    await this.start(() => undefined).catch((e: Error) => (this.error = e.message));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.owns) return;
    const pid = this.child?.pid ?? this.adoptedPid;
    if (pid) await stopProcess(pid);
    rmSync(this.pidFile, { force: true });
  }

  /** The port Zoekt had last time, so that a restarted supervisor keeps its URL. */
  private previousPort(): number {
    try {
      return Number(readFileSync(join(this.o.data, 'zoekt.port'), 'utf8').trim()) || 0;
    } catch {
      return 0;
    }
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
