/**
 * The supervisor's zoekt-webserver: started on a port of its own (the same one as last time, so
 * that clients keep their URL), adopted when a supervisor of the same data folder that died left
 * it running, restarted when it exits, stopped with the supervisor. A Zoekt this data folder did
 * not start serves another index: it is never used. When the port the user chose (ZOEKT_PORT) is
 * held by another program, there is no Zoekt, and `error` says which program holds it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { basename, join } from 'node:path';
import { writeFileAtomically } from './atomic-file.js';
import { describeProcess, isRunning, listenerOf, stopProcess } from './process-table.js';
import type { ZoektError } from './status.js';

export interface WebserverOptions {
  data: string;
  /** Where zoekt-webserver is. */
  bin: string;
  index: string;
  /** 0 picks a free one. */
  port: number;
  /**
   * The user chose `port` (ZOEKT_PORT): Zoekt serves there or nowhere. Otherwise `port` is only
   * the default: the port of last time (`zoekt.port`) comes first, then this one, then a free one,
   * so that Zoekt always has a port of its own.
   */
  portGiven: boolean;
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
  /** Why it could not be started (or restarted), while that is so. */
  error?: ZoektError;
  /** The port the user chose is held by another program: started once it is free. */
  blocked = false;
  private child?: ChildProcess;
  private adoptedPid?: number;
  private owns = false;
  private stopping = false;
  /** The first start has ended: check() may start it again. */
  private settled = false;

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

  /** Whether Zoekt may serve on `port`: any port of its own, unless the user chose one. */
  private fits(port: number): boolean {
    return !this.o.portGiven || this.o.port === 0 || port === this.o.port;
  }

  /**
   * Starts zoekt-webserver, or adopts the one a previous supervisor of this folder left running.
   * `known` is called as soon as the URL is settled: clients may connect while it loads (their
   * Zoekt client retries).
   */
  async start(known: () => void): Promise<void> {
    try {
      await this.startOnce(known);
    } finally {
      this.settled = true;
    }
  }

  private async startOnce(known: () => void): Promise<void> {
    const left = this.leftover();
    if (left) {
      const listen = /-listen 127\.0\.0\.1:(\d+)/.exec(left.args)?.[1];
      const url = `http://127.0.0.1:${listen}`;
      if (listen && this.fits(Number(listen)) && (await answers(url))) {
        this.o.say(`adopting zoekt-webserver ${left.pid} at ${url}`);
        Object.assign(this, { url, owns: true, adoptedPid: left.pid, error: undefined });
        known();
        return;
      }
      this.o.say(`stopping zoekt-webserver ${left.pid}, left by an earlier supervisor`);
      await stopProcess(left.pid);
    }
    const port = await this.choosePort();
    if (port === undefined) {
      known();
      return;
    }
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
    Object.assign(this, { child, owns: true, url, blocked: false });
    writeFileAtomically(this.pidFile, String(child.pid));
    writeFileAtomically(join(this.o.data, 'zoekt.port'), String(port));
    known();
    child.on('exit', (code, signal) => {
      if (this.stopping || this.child !== child) return;
      this.o.say(`zoekt-webserver exited (${signal ?? code}); restarting it`);
      this.error = { message: `zoekt-webserver exited (${signal ?? code}): ${lastLog()}`, hint: `It is being restarted: retry in a few seconds (its log: ${logPath}).`, misconfigured: false };
      this.child = undefined;
      setTimeout(() => void this.start(() => undefined).catch((e: Error) => (this.error = { message: e.message, hint: `See ${logPath}.`, misconfigured: false })), 500);
    });
    for (let i = 0; i < 200; i++) {
      // Exited first: what answers on the port then is not this child.
      if (child.exitCode !== null || child.signalCode !== null) break;
      if (await answers(url)) {
        this.error = undefined;
        this.o.say(`zoekt-webserver ${child.pid} serving ${this.o.index} at ${url}`);
        return;
      }
      await sleep(50);
    }
    this.error = { message: `zoekt-webserver did not start at ${url}: ${lastLog()}`, hint: `See ${logPath}; the supervisor restarts it when it exits.`, misconfigured: false };
    this.o.say(`${this.error.message} (see ${logPath})`);
  }

  /**
   * A port no other program holds: the one the user chose, or none (then `error` names what
   * holds it); else the one of last time, the default, or a free one, in that order.
   */
  private async choosePort(): Promise<number | undefined> {
    if (this.o.portGiven && this.o.port !== 0) {
      const code = await listenError(this.o.port);
      if (code === undefined) return this.o.port;
      this.url = `http://127.0.0.1:${this.o.port}`;
      this.blocked = true;
      this.error = heldError(this.o.port, code, this.o.index, this.o.data);
      this.o.say(`${this.error.message}; Zoekt starts there once it can`);
      return undefined;
    }
    const tried = new Set<number>();
    for (const port of [this.previousPort(), this.o.port]) {
      if (!port || tried.has(port)) continue;
      tried.add(port);
      const code = await listenError(port);
      if (code === undefined) return port;
      this.o.say(`port ${port} ${whyNot(port, code, true)}: Zoekt takes a free port of its own`);
    }
    return freePort();
  }

  /**
   * Each pass of the supervisor: an adopted webserver (not our child: no exit event) that died is
   * started again; a port the user chose that has come free is taken; an error that has passed
   * (a slow start) is cleared.
   */
  async check(): Promise<void> {
    if (!this.settled || this.stopping) return;
    if (this.blocked) {
      if (!(await canListen(this.o.port))) return;
      this.o.say(`port ${this.o.port} is free now: starting zoekt-webserver there`);
      await this.start(() => undefined).catch((e: Error) => (this.error = { message: e.message, hint: 'Retry in a few seconds.', misconfigured: false }));
      return;
    }
    if (this.error && (this.child?.exitCode === null || (this.adoptedPid && isRunning(this.adoptedPid))) && (await answers(this.url))) this.error = undefined;
    if (!this.adoptedPid || isRunning(this.adoptedPid)) return;
    this.o.say(`zoekt-webserver ${this.adoptedPid} exited; restarting it`);
    this.adoptedPid = undefined;
    await this.start(() => undefined).catch((e: Error) => (this.error = { message: e.message, hint: 'Retry in a few seconds.', misconfigured: false }));
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

/**
 * Who holds a port, for a message: the process and, for the supervisor's own log, its command
 * line where it can be seen. Tool answers get the program's name only: another program's
 * arguments may hold its secrets, and answers reach the model.
 */
function holderOf(port: number, full: boolean): string {
  const l = listenerOf(port);
  if (l.process) {
    const args = l.process.args;
    const shown = full ? (args.length > 200 ? `${args.slice(0, 200)}…` : args) : basename(args.split(' ')[0] ?? '');
    return `process ${l.process.pid} (${shown})`;
  }
  return l.listening ? 'a process of another user (its command line cannot be read)' : 'another program';
}

/** Why Zoekt cannot serve on `port`, for a message: who holds it, or why it cannot be listened on. */
function whyNot(port: number, code: string, full: boolean): string {
  return code === 'EADDRINUSE' ? `is held by ${holderOf(port, full)}` : `cannot be listened on (${code === 'EACCES' ? 'EACCES: a port below 1024 needs privileges' : code})`;
}

/** The error every answer gives while the port the user chose cannot be Zoekt's. */
export function heldError(port: number, code: string, index: string, data: string): ZoektError {
  return {
    message: `ZOEKT_PORT=${port} ${whyNot(port, code, false)}, so this data folder's Zoekt (${data}) cannot serve there, and local mode answers only from its own index (${index})`,
    hint: `Set ZOEKT_PORT to a free port, or unset it (local mode then takes a free port of its own and records it in ${join(data, 'zoekt.port')}), and start the server again; or stop what holds the port (Zoekt then starts there within seconds).`,
    misconfigured: true,
  };
}

/**
 * Why this process could not listen on 127.0.0.1:`port` (`EADDRINUSE`: another program holds it,
 * on some address; `EACCES`: a privileged port), or undefined when it could.
 */
export function listenError(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => srv.close(() => resolve(undefined)));
  });
}

const canListen = async (port: number) => (await listenError(port)) === undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
