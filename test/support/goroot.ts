/**
 * A large real corpus for the tests: the Go toolchain's own source tree, `$(go env GOROOT)/src`
 * (~11.5k files, ~157 MB), indexed once per machine with the pinned zoekt-index and ctags.
 *
 * The index is cached in `.tools/goroot-index/<zoekt version>-<go version>-<hash of GOROOT>/`:
 * `index/` holds the shard(s) and `complete.json` says the build finished. A build goes to a
 * private temporary directory next to it, gets its marker written last, and is renamed into place
 * in one step, so a killed run never leaves a directory that looks complete, and two runs at once
 * cannot corrupt each other (the loser of the rename throws its copy away). While one run builds,
 * another one on the same machine waits for it instead of building the same index a second time.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { indexerFingerprint, ROOT, runIndexer, ZOEKT_BIN } from './zoekt.js';

export interface GorootIndex {
  /** The directory of .zoekt shards, for zoekt-webserver -index. */
  indexDir: string;
  /** `$(go env GOROOT)/src`: the indexed tree, paths in results are relative to it. */
  srcRoot: string;
  /**
   * The repository name Zoekt reports: zoekt-index names a plain directory after its basename
   * ('src') and overwrites any name given with -meta, so this is 'src'.
   */
  repo: string;
}

/** Bump when the way the index is built changes, so old caches are not reused. */
const FORMAT = 'v2';
const MARKER = 'complete.json';
const WAIT_FOR_OTHER_BUILD_MS = 10 * 60_000;

function goEnv(name: string): string {
  return execFileSync('go', ['env', name], { encoding: 'utf8' }).trim();
}

function log(msg: string): void {
  process.stderr.write(`goroot index: ${msg}\n`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isComplete(dir: string): boolean {
  return existsSync(join(dir, MARKER)) && existsSync(join(dir, 'index'));
}

/** The cache directory for this Zoekt, this Go and this GOROOT (not created). */
export function gorootIndexDir(goroot = goEnv('GOROOT')): string {
  const zoektVersion = basename(dirname(ZOEKT_BIN));
  const goVersion = goEnv('GOVERSION');
  const hash = createHash('sha256').update(goroot).digest('hex').slice(0, 12);
  const cacheRoot = join(process.env.ZOEKT_MCP_TOOLS_DIR ?? join(ROOT, '.tools'), 'goroot-index');
  return join(cacheRoot, `${zoektVersion}-${goVersion}-${hash}-${FORMAT}-${indexerFingerprint()}`.replace(/[^A-Za-z0-9._-]/g, '_'));
}

/** Removes temporary build directories left by runs that were killed (their pid is gone). */
function removeStaleBuilds(cacheRoot: string, key: string): void {
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
 * Indexes `$(go env GOROOT)/src` with the pinned zoekt-index (ctags required), or reuses the
 * cached index from an earlier run. Takes about 45 s on two cores when it has to build.
 */
export function buildGorootIndex(): GorootIndex {
  const goroot = goEnv('GOROOT');
  const srcRoot = join(goroot, 'src');
  const repo = basename(srcRoot);
  const finalDir = gorootIndexDir(goroot);
  const result = { indexDir: join(finalDir, 'index'), srcRoot, repo };
  if (isComplete(finalDir)) {
    log(`reusing ${finalDir}`);
    return result;
  }
  const cacheRoot = dirname(finalDir);
  const key = basename(finalDir);
  mkdirSync(cacheRoot, { recursive: true });
  removeStaleBuilds(cacheRoot, key);

  const lockFile = `${finalDir}.lock`;
  const waitStart = Date.now();
  let announced = false;
  while (!tryLock(lockFile)) {
    if (isComplete(finalDir)) {
      log(`reusing ${finalDir}, built by another run while this one waited ${Date.now() - waitStart} ms`);
      return result;
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
      return result;
    }
    const tmpDir = join(cacheRoot, `${key}.tmp-${process.pid}-${Date.now()}`);
    const tmpIndex = join(tmpDir, 'index');
    mkdirSync(tmpIndex, { recursive: true });
    try {
      log(`indexing ${srcRoot} with zoekt-config/index dir (zoekt-index, tree-sitter symbols; about 30 s)...`);
      const started = Date.now();
      runIndexer('dir', ['-index', tmpIndex, srcRoot]);
      const ms = Date.now() - started;
      const shards = readdirSync(tmpIndex).filter((f) => f.endsWith('.zoekt'));
      if (!shards.length) throw new Error(`zoekt-index wrote no shard into ${tmpIndex}`);
      writeFileSync(
        join(tmpDir, MARKER),
        JSON.stringify({ srcRoot, repo, goVersion: goEnv('GOVERSION'), zoektBin: ZOEKT_BIN, shards, indexMs: ms, builtAt: new Date().toISOString() }, null, 2) + '\n',
      );
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
      return result;
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
