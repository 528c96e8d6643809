/**
 * A definitions index folder's lock: one writer at a time changes its manifest. A file created
 * exclusively, holding the writer's host and process id; a lock whose process is gone (on this
 * host) is taken over, so a builder killed mid-write never blocks the folder for good.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
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

/** The lock file's text when it names a process of this host that no longer runs. */
function stale(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const [host, pid] = text.trim().split(' ');
  // A lock still being written (empty) is not stale; one of another host is its own to release.
  return host === hostname() && Number.isInteger(Number(pid)) && Number(pid) > 0 && !alive(Number(pid)) ? text : undefined;
}

/**
 * Removes a stale lock, and only it: two waiters may both find the same one stale, and the second
 * must not remove the lock the first has just taken. Takeovers take turns through a second file
 * created exclusively; inside its turn a waiter removes the lock only if it still holds the same
 * stale text. A turn left by a waiter that died is over after TAKEOVER_MS.
 */
function removeStale(file: string, text: string): void {
  const turn = `${file}.takeover`;
  try {
    closeSync(openSync(turn, 'wx'));
  } catch {
    try {
      if (Date.now() - statSync(turn).mtimeMs > TAKEOVER_MS) rmSync(turn, { force: true });
    } catch {
      // released meanwhile
    }
    return;
  }
  try {
    let now = '';
    try {
      now = readFileSync(file, 'utf8');
    } catch {
      return;
    }
    if (now === text) rmSync(file, { force: true });
  } finally {
    rmSync(turn, { force: true });
  }
}

/** A takeover turn takes microseconds; one older than this was left by a waiter that died in it. */
const TAKEOVER_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` holding the folder's lock; rejects with a DefinitionsIndexError when another writer keeps it past `waitMs`. */
export async function withLock<T>(dir: string, fn: () => T | Promise<T>, waitMs = WAIT_MS): Promise<T> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK);
  const until = Date.now() + waitMs;
  for (let pause = 5; !tryTake(file); pause = Math.min(pause * 2, 200)) {
    const old = stale(file);
    if (old !== undefined) {
      removeStale(file, old);
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
