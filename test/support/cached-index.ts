/**
 * Indexes of real trees, built once per machine and kept in `.tools/<kind>/<key>/`: `index/`
 * holds the shards and `complete.json` says the build finished. A build goes to a private
 * temporary directory next to it, gets its marker written last, and is renamed into place in one
 * step, so a killed run never leaves a directory that looks complete, and two runs at once cannot
 * corrupt each other (the loser of the rename throws its copy away). While one run builds,
 * another one on the same machine waits for it instead of building the same index a second time.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ROOT } from './zoekt.js';

const MARKER = 'complete.json';
const WAIT_FOR_OTHER_BUILD_MS = 10 * 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function isComplete(dir: string): boolean {
  return existsSync(join(dir, MARKER)) && existsSync(join(dir, 'index'));
}

/** `.tools/<kind>/<key>` (not created); the key is made safe for a file name. */
export function cacheDir(kind: string, key: string): string {
  return join(process.env.ZOEKT_MCP_TOOLS_DIR ?? join(ROOT, '.tools'), kind, key.replace(/[^A-Za-z0-9._-]/g, '_'));
}

/** Removes temporary build directories left by runs that were killed (their pid is gone). */
function removeStaleBuilds(cacheRoot: string, key: string, log: (msg: string) => void): void {
  for (const name of readdirSync(cacheRoot)) {
    const m = new RegExp(`^${key.replace(/[.]/g, '\\.')}\\.tmp-(\\d+)-`).exec(name);
    if (m && !alive(Number(m[1]))) {
      log(`removing ${name}, left by a killed run`);
      rmSync(join(cacheRoot, name), { recursive: true, force: true });
    }
  }
}

/**
 * A lock file naming the pid of the run that builds. Returns false when another live process
 * holds it. Advisory only: correctness comes from the atomic rename, the lock saves CPU.
 */
function tryLock(lockFile: string): boolean {
  try {
    writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  let owner: number;
  try {
    const text = readFileSync(lockFile, 'utf8').trim();
    // Created but its pid not written yet: held, unless that was long ago.
    if (!text) return Date.now() - statSync(lockFile).mtimeMs > 10_000 ? breakLock(lockFile) : false;
    owner = Number(text);
  } catch {
    return tryLock(lockFile); // released meanwhile
  }
  if (Number.isInteger(owner) && owner > 0 && alive(owner)) return false;
  return breakLock(lockFile);
}

function breakLock(lockFile: string): boolean {
  // Stale: its owner died. Whoever renames it away first takes the lock over.
  const aside = `${lockFile}.stale-${process.pid}`;
  try {
    renameSync(lockFile, aside);
    rmSync(aside, { force: true });
  } catch {
    return false;
  }
  return tryLock(lockFile);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The index in `finalDir`, built by `build(indexDir)` unless a complete one is there; returns
 * `finalDir/index`. `build` returns what to record in the marker.
 */
export function cachedIndex(finalDir: string, build: (indexDir: string) => Record<string, unknown>, log: (msg: string) => void): string {
  const indexDir = join(finalDir, 'index');
  if (isComplete(finalDir)) {
    log(`reusing ${finalDir}`);
    return indexDir;
  }
  const cacheRoot = dirname(finalDir);
  const key = basename(finalDir);
  mkdirSync(cacheRoot, { recursive: true });
  removeStaleBuilds(cacheRoot, key, log);

  const lockFile = `${finalDir}.lock`;
  const waitStart = Date.now();
  let announced = false;
  while (!tryLock(lockFile)) {
    if (isComplete(finalDir)) {
      log(`reusing ${finalDir}, built by another run while this one waited ${Date.now() - waitStart} ms`);
      return indexDir;
    }
    if (Date.now() - waitStart > WAIT_FOR_OTHER_BUILD_MS) {
      log('gave up waiting for the other build; building anyway');
      break;
    }
    if (!announced) log(`another run is building ${finalDir} (lock ${lockFile}); waiting for it`);
    announced = true;
    sleepSync(1000);
  }
  try {
    if (isComplete(finalDir)) {
      log(`reusing ${finalDir}, built by another run in ${Date.now() - waitStart} ms`);
      return indexDir;
    }
    const tmpDir = join(cacheRoot, `${key}.tmp-${process.pid}-${Date.now()}`);
    const tmpIndex = join(tmpDir, 'index');
    mkdirSync(tmpIndex, { recursive: true });
    try {
      const started = Date.now();
      const facts = build(tmpIndex);
      const shards = readdirSync(tmpIndex).filter((f) => f.endsWith('.zoekt'));
      if (!shards.length) throw new Error(`the build wrote no shard into ${tmpIndex}`);
      const ms = Date.now() - started;
      writeFileSync(join(tmpDir, MARKER), JSON.stringify({ ...facts, shards, indexMs: ms, builtAt: new Date().toISOString() }, null, 2) + '\n');
      try {
        renameSync(tmpDir, finalDir);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
        if (!isComplete(finalDir)) {
          // Not ours and not complete (made by hand?): move it aside and take its place.
          const aside = join(cacheRoot, `${key}.tmp-${process.pid}-incomplete`);
          renameSync(finalDir, aside);
          rmSync(aside, { recursive: true, force: true });
          renameSync(tmpDir, finalDir);
        }
      }
      log(`indexed ${shards.length} shard(s) in ${ms} ms into ${finalDir}`);
      return indexDir;
    } finally {
      rmSync(tmpDir, { recursive: true, force: true });
    }
  } finally {
    try {
      if (readFileSync(lockFile, 'utf8').trim() === String(process.pid)) rmSync(lockFile, { force: true });
    } catch {
      // not ours, or gone
    }
  }
}
