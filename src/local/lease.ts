/**
 * A lease on the local supervisor: connect to its socket (starting it when none runs), say what
 * to index, learn where Zoekt answers, and keep the latest status of this client's repositories.
 * The supervisor lives while one lease is held; when the connection drops (the supervisor
 * crashed), the lease starts a new one and reconnects. A supervisor of another protocol (left
 * running by an older version) is stopped and replaced, never misread.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { SupervisorOptions } from './supervisor.js';
import { stopProcess } from './process-table.js';
import { PROTOCOL, type Hello, type ListSpec, type SupervisorStatus } from './status.js';

/** The socket of a data folder's supervisor: abstract on Linux (no file to go stale). */
export function socketFor(data: string): string {
  const id = createHash('sha256').update(data).digest('hex').slice(0, 24);
  return process.platform === 'linux' ? `\0zoekt-mcp-${id}` : join(data, 'supervisor.sock');
}

export interface Lease {
  /** The latest status the supervisor sent. */
  status(): SupervisorStatus;
  /** Called on every status the supervisor sends. */
  onStatus(fn: (s: SupervisorStatus) => void): void;
  /** Ask the supervisor to check the repositories now. */
  poke(): void;
  close(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tryConnect(path: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(undefined));
  });
}

function spawnSupervisor(opts: SupervisorOptions, script: string): void {
  mkdirSync(opts.data, { recursive: true });
  const log = openSync(join(opts.data, 'supervisor.log'), 'a');
  const child = spawn(process.execPath, [script, JSON.stringify(opts)], { detached: true, stdio: ['ignore', log, log] });
  child.unref();
  closeSync(log);
}

/** Connects (starting a supervisor if needed), asks for `list`, and resolves with the first status. */
export async function takeLease(opts: SupervisorOptions, list: ListSpec, script: string, deadlineMs = 15_000): Promise<Lease> {
  const hello: Hello = { protocol: PROTOCOL, list };
  let latest: SupervisorStatus | undefined;
  const listeners: ((s: SupervisorStatus) => void)[] = [];
  let socket: Socket | undefined;
  let closed = false;

  const open = async (): Promise<SupervisorStatus> => {
    const deadline = Date.now() + deadlineMs;
    let spawned = 0;
    for (;;) {
      const s = await tryConnect(opts.socket);
      let other: Partial<SupervisorStatus> | undefined;
      if (s) {
        s.write(`${JSON.stringify(hello)}\n`);
        const first = await new Promise<SupervisorStatus | undefined>((resolve) => {
          let buf = '';
          const onData = (d: Buffer) => {
            buf += d.toString();
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              let status: SupervisorStatus;
              try {
                status = JSON.parse(line) as SupervisorStatus;
              } catch {
                continue;
              }
              if (status.protocol !== PROTOCOL) {
                other = status;
                s.destroy();
                resolve(undefined);
                return;
              }
              latest = status;
              resolve(latest);
              for (const fn of listeners) fn(latest);
            }
          };
          s.on('data', onData);
          s.once('close', () => resolve(undefined));
          s.on('error', () => undefined);
        });
        if (first) {
          socket = s;
          s.once('close', () => {
            if (closed) return;
            // The supervisor went away with our lease: start another and carry on.
            void open().catch((err: Error) => process.stderr.write(`zoekt-mcp: lost the local supervisor: ${err.message}\n`));
          });
          return first;
        }
        if (other) {
          if ((other.protocol ?? 1) > PROTOCOL) {
            throw new Error(
              `a newer zoekt-mcp's supervisor (pid ${other.pid}, protocol ${other.protocol}) serves ${opts.data}; use that version, or set ZOEKT_MCP_DATA to another folder`,
            );
          }
          await replace(other);
        }
      }
      if (Date.now() > deadline) throw new Error(`the local supervisor did not start; see ${join(opts.data, 'supervisor.log')}`);
      // None runs, or the one that runs is stopping: start one (again after a while, in case the
      // one started meanwhile found the stopping one still there and left).
      if (Date.now() - spawned > 1000) {
        spawnSupervisor(opts, script);
        spawned = Date.now();
      }
      await sleep(50);
    }
  };

  /** A supervisor of an older protocol: stopped, so that the loop above starts ours. */
  const replace = async (other: Partial<SupervisorStatus>) => {
    if (typeof other.pid !== 'number' || replaced.has(other.pid)) return;
    replaced.add(other.pid);
    process.stderr.write(`zoekt-mcp: replacing the local supervisor ${other.pid} (protocol ${other.protocol ?? 1}, this version speaks ${PROTOCOL})\n`);
    await stopProcess(other.pid, 10_000);
  };
  const replaced = new Set<number>();

  await open();
  return {
    status: () => latest!,
    onStatus: (fn) => listeners.push(fn),
    poke: () => socket?.write('check\n'),
    close: () => {
      closed = true;
      socket?.destroy();
    },
  };
}
