/**
 * A definitions index folder's lock: one writer at a time changes its manifest. A file created
 * exclusively, holding the writer's host and process id; a lock whose process is gone (on this
 * host) is taken over, so a builder killed mid-write never blocks the folder for good.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { DefinitionsIndexError } from './format.js';

const LOCK = '.lock';

/**
 * How long a writer waits for another: a build holds the lock while it writes its repository's
 * files and the manifest (seconds; a minute for Go's whole tree), not while it extracts and embeds.
 */
const WAIT_MS = 10 * 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryTake(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, `${hostname()} ${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Whether the lock file names a process of this host that no longer runs. */
function stale(file: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  const [host, pid] = text.trim().split(' ');
  // A lock still being written (empty) is not stale; one of another host is its own to release.
  return host === hostname() && Number.isInteger(Number(pid)) && Number(pid) > 0 && !alive(Number(pid));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` holding the folder's lock; rejects with a DefinitionsIndexError when another writer keeps it past `waitMs`. */
export async function withLock<T>(dir: string, fn: () => T | Promise<T>, waitMs = WAIT_MS): Promise<T> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK);
  const until = Date.now() + waitMs;
  for (let pause = 5; !tryTake(file); pause = Math.min(pause * 2, 200)) {
    if (stale(file)) {
      rmSync(file, { force: true });
      continue;
    }
    if (Date.now() > until) {
      let holder = '';
      try {
        holder = readFileSync(file, 'utf8').trim();
      } catch {
        // released meanwhile
      }
      throw new DefinitionsIndexError(`the definitions index ${dir} is locked by another writer (${holder || 'unknown'})`, `wait for that build to finish; if no build runs, remove ${file}`, file);
    }
    await sleep(pause);
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}
