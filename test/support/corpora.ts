/**
 * Real trees in other languages for the symbol tests, from what every machine that runs the
 * tests has: CPython's standard library (the .py files of the python3 on PATH), the TypeScript
 * sources of the `effect` package (a devDependency: 572 files, 22 MB, generics-heavy) and the
 * JavaScript of `undici` (a dependency: CommonJS, classes). Indexed once per machine the way
 * zoekt-mcp indexes everywhere (zoekt-config/index dir), cached in `.tools/symbol-corpora/`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { cacheDir, cachedIndex } from './cached-index.js';
import { indexerFingerprint, ROOT, runIndexer, ZOEKT_BIN } from './zoekt.js';

export interface Corpus {
  /** The repository name Zoekt gives it. */
  repo: string;
  /** The tree on disk; paths in results are relative to it. */
  root: string;
  language: 'Python' | 'TypeScript' | 'JavaScript';
  /** Its files (relative, '/'-separated), sorted. */
  files: string[];
}

/** Files under `root` (relative) that `keep` accepts, sorted; symbolic links are not followed. */
export function listFiles(root: string, keep: (rel: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && keep(relative(root, path))) out.push(relative(root, path));
    }
  };
  walk(root);
  return out.sort();
}

function packageDir(name: string): string {
  return dirname(createRequire(join(ROOT, 'package.json')).resolve(`${name}/package.json`));
}

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The corpora: where they are and which of their files are indexed. */
export function symbolCorpora(): Corpus[] {
  const stdlib = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const effect = join(packageDir('effect'), 'src');
  const undici = join(packageDir('undici'), 'lib');
  return [
    { repo: 'cpython', root: stdlib, language: 'Python', files: listFiles(stdlib, (f) => f.endsWith('.py') && !f.startsWith('site-packages/')) },
    { repo: 'effect', root: effect, language: 'TypeScript', files: listFiles(effect, (f) => f.endsWith('.ts')) },
    { repo: 'undici', root: undici, language: 'JavaScript', files: listFiles(undici, (f) => f.endsWith('.js')) },
  ];
}

/** Indexes the corpora into one index (cached); returns its directory. */
export function buildCorporaIndex(corpora: Corpus[]): string {
  const python = execFileSync('python3', ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8' }).trim();
  const versions = `py${python}-effect${packageVersion('effect')}-undici${packageVersion('undici')}`;
  const finalDir = cacheDir('symbol-corpora', `${basename(dirname(ZOEKT_BIN))}-${versions}-${indexerFingerprint()}`);
  const log = (msg: string) => process.stderr.write(`symbol corpora: ${msg}\n`);
  return cachedIndex(
    finalDir,
    (tmpIndex) => {
      // zoekt-index names a folder's repository after the folder: each corpus is copied into one
      // named after it, with only the files that count (the .py of the standard library).
      const trees = join(dirname(tmpIndex), 'trees');
      for (const c of corpora) {
        log(`indexing ${c.files.length} files of ${c.root} as ${c.repo}`);
        const tree = join(trees, c.repo);
        for (const f of c.files) {
          mkdirSync(dirname(join(tree, f)), { recursive: true });
          cpSync(join(c.root, f), join(tree, f));
        }
        runIndexer('dir', ['-index', tmpIndex, tree]);
      }
      rmSync(trees, { recursive: true, force: true });
      return { corpora: corpora.map((c) => ({ repo: c.repo, root: c.root, files: c.files.length, bytes: c.files.reduce((n, f) => n + statSync(join(c.root, f)).size, 0) })) };
    },
    log,
  );
}
