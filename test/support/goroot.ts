/**
 * A large real corpus for the tests: the Go toolchain's own source tree, `$(go env GOROOT)/src`
 * (~11.5k files, ~157 MB), indexed once per machine the way zoekt-mcp indexes everywhere
 * (zoekt-config/index dir: zoekt-index with the symbol extractor) and cached in
 * `.tools/goroot-index/` (test/support/cached-index.ts).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { cacheDir, cachedIndex } from './cached-index.js';
import { indexerFingerprint, runIndexer, ZOEKT_BIN } from './zoekt.js';

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

export function goEnv(name: string): string {
  return execFileSync('go', ['env', name], { encoding: 'utf8' }).trim();
}

/**
 * Indexes `$(go env GOROOT)/src` (symbol parsers required), or reuses the cached index of an
 * earlier run with the same Zoekt, Go, GOROOT and indexer. About 30 s on two cores to build.
 */
export function buildGorootIndex(): GorootIndex {
  const goroot = goEnv('GOROOT');
  const srcRoot = join(goroot, 'src');
  const repo = basename(srcRoot);
  const zoektVersion = basename(dirname(ZOEKT_BIN));
  const hash = createHash('sha256').update(goroot).digest('hex').slice(0, 12);
  const finalDir = cacheDir('goroot-index', `${zoektVersion}-${goEnv('GOVERSION')}-${hash}-${FORMAT}-${indexerFingerprint()}`);
  const log = (msg: string) => process.stderr.write(`goroot index: ${msg}\n`);
  const indexDir = cachedIndex(
    finalDir,
    (tmpIndex) => {
      log(`indexing ${srcRoot} with zoekt-config/index dir (about 30 s)...`);
      runIndexer('dir', ['-index', tmpIndex, srcRoot]);
      return { srcRoot, repo, goVersion: goEnv('GOVERSION'), zoektBin: ZOEKT_BIN };
    },
    log,
  );
  return { indexDir, srcRoot, repo };
}
