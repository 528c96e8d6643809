/**
 * What the supervisor needs to know of other processes: whether one still runs, its command
 * line (a pid file may name a pid the system has since given to another program), and which one
 * holds a port Zoekt was to serve on (to name it in the error). Read from
 * `/proc` where there is one (Linux: a file read, where `ps` is a process started for each
 * question, and stopProcess asks every 50 ms), through `ps` elsewhere (macOS). A process that
 * cannot be described is taken as not ours.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/** The inodes of the sockets listening on TCP `port` (any address), from /proc/net/tcp and tcp6. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const row of text.split('\n').slice(1)) {
      // sl local_address rem_address st … uid timeout inode: 0A is LISTEN.
      const f = row.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hex}`) && f[3] === '0A' && f[9] && f[9] !== '0') inodes.add(f[9]);
    }
  }
  return inodes;
}

/** The processes whose open files include one of these sockets (only the user's own can be read). */
function holdersOf(inodes: Set<string>): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue; // another user's, or gone
    }
    for (const fd of fds) {
      let link = '';
      try {
        link = readlinkSync(`/proc/${name}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1]!)) {
        pids.push(Number(name));
        break;
      }
    }
  }
  return pids;
}

/**
 * What listens on TCP `port`, to name it in an error: `listening` false when nothing does; `process`
 * when the process is one this user can see (another user's is known only to listen). From /proc
 * where there is one, else `lsof`; where neither tells, only whether something listens is known.
 */
export function listenerOf(port: number): { listening: boolean; process?: ProcessInfo } {
  if (HAS_PROC) {
    const inodes = listeningInodes(port);
    if (!inodes.size) return { listening: false };
    const pid = holdersOf(inodes)[0];
    const p = pid === undefined ? undefined : describeProcess(pid);
    return { listening: true, ...(p ? { process: p } : {}) };
  }
  let out = '';
  try {
    out = execFileSync('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-t'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    // lsof exits 1 when nothing listens, or is missing: nothing known.
    return { listening: false };
  }
  const p = describeProcess(Number(out.trim().split('\n')[0]));
  return { listening: true, ...(p ? { process: p } : {}) };
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
