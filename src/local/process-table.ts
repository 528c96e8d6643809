/**
 * What the supervisor needs to know of other processes: whether one still runs, and its command
 * line (a pid file may name a pid the system has since given to another program). Read from
 * `/proc` where there is one (Linux: a file read, where `ps` is a process started for each
 * question, and stopProcess asks every 50 ms), through `ps` elsewhere (macOS). A process that
 * cannot be described is taken as not ours.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  /** The command and its arguments, joined by spaces. */
  args: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const HAS_PROC = existsSync('/proc/self/stat');

/** @internal `ps`'s view of `pid`, exported for tests on machines that have /proc. */
export function fromPs(pid: number): ProcessInfo | undefined {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'stat=', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    // ps exits 1 when no such process.
    return undefined;
  }
  const m = /^\s*(\S+)\s+(.*)$/.exec(out.split('\n')[0] ?? '');
  if (!m || m[1]!.startsWith('Z')) return undefined; // a zombie has exited; only its parent has not looked
  return { pid, args: m[2]!.trim() };
}

function fromProc(pid: number): ProcessInfo | undefined {
  try {
    if (/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return undefined;
    return { pid, args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() };
  } catch {
    return undefined;
  }
}

/** The running process `pid`, or undefined when none runs (or it has exited and not been reaped). */
export function describeProcess(pid: number): ProcessInfo | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it runs, as another user; nothing of ours.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return HAS_PROC ? fromProc(pid) : fromPs(pid);
}

export function isRunning(pid: number): boolean {
  return describeProcess(pid) !== undefined;
}

/** SIGTERM, up to `graceMs` to exit, then SIGKILL; resolves once it is gone (or after the kill). */
export async function stopProcess(pid: number, graceMs = 3000): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let waited = 0; waited < graceMs && isRunning(pid); waited += 50) await sleep(50);
  if (!isRunning(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  for (let waited = 0; waited < 1000 && isRunning(pid); waited += 50) await sleep(50);
}
