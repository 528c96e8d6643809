/**
 * Once per test run: install what is missing (Zoekt, ctags, the linters), compile the server,
 * index the fixtures and start a real zoekt-webserver -rpc. Tests read the URL with
 * inject('zoektUrl'). A second zoekt-webserver -rpc serves the Go source tree
 * (test/support/goroot.ts), indexed once per machine and cached: inject('goZoektUrl'),
 * inject('goSrcRoot'), inject('goRepo'). A third serves real trees in Python, TypeScript and
 * JavaScript for the symbol tests (test/support/corpora.ts): inject('corporaZoektUrl'), inject('corpora').
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';
import { ExtractorService } from '../../src/extractor/service.js';
import { buildCorporaIndex, symbolCorpora, type Corpus } from './corpora.js';
import { buildGorootIndex } from './goroot.js';
import { buildFixtureIndex, ROOT, startWebserver, type RunningZoekt } from './zoekt.js';

declare module 'vitest' {
  export interface ProvidedContext {
    zoektUrl: string;
    indexDir: string;
    repos: string[];
    /** zoekt-webserver -rpc serving one repository: `$(go env GOROOT)/src`. */
    goZoektUrl: string;
    /** The indexed tree on disk (`$(go env GOROOT)/src`); result paths are relative to it. */
    goSrcRoot: string;
    /** The repository name Zoekt gives it ('src'). */
    goRepo: string;
    /** zoekt-webserver -rpc serving the symbol corpora (test/support/corpora.ts). */
    corporaZoektUrl: string;
    corpora: Corpus[];
  }
}

/** scripts/setup.sh with `steps`, in the background; resolves to the error it failed with, if any. */
function setupBeside(steps: string[]): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const child = spawn('bash', [join(ROOT, 'scripts/setup.sh'), ...steps], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', resolve);
    child.on('exit', (code, signal) => resolve(code === 0 ? undefined : new Error(`scripts/setup.sh ${steps.join(' ')} exited ${code ?? signal}`)));
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Indexing needs Zoekt and the built extractor (the build carries the embedding model); what only
  // tests need (Zoekt's query parser, the linters, the protocol clients, Helm, ripgrep, the model's
  // Python truth, Weaviate's server) is checked, or built on a new machine, beside it: here, where
  // no hook's timeout runs (Weaviate takes five to ten minutes to build the first time).
  execFileSync('bash', [join(ROOT, 'scripts/setup.sh'), 'zoekt', 'model', 'build'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const rest = setupBeside(['parser', 'lint', 'protocol', 'helm', 'ripgrep', 'modeltruth', 'weaviate']);
  const workDir = mkdtempSync(join(tmpdir(), 'zoekt-mcp-test-'));
  // The index builds of the tests pass their files to one warm extractor, as the local
  // supervisor's do (src/extractor/service.ts); a test of the extractor started cold says so. It
  // answers from this process: the fixtures' build uses it too, run without blocking this process;
  // the builds of the Go tree and the corpora (on a new machine) block it, and start the extractor
  // each time.
  const extractor = new ExtractorService(join(workDir, 'run', 'extractor.sock'), pathToFileURL(join(ROOT, 'dist/extractor/worker.js')), (m) => process.stderr.write(`test extractor: ${m}\n`));
  let zoekt: RunningZoekt | undefined;
  let goZoekt: RunningZoekt | undefined;
  let corporaZoekt: RunningZoekt | undefined;
  try {
    const warm = await extractor.listen();
    const started = Date.now();
    const { indexDir, repos } = await buildFixtureIndex(workDir, warm ? extractor.path : undefined);
    zoekt = await startWebserver({ indexDir, expectRepos: repos.length });
    process.stderr.write(`test zoekt: ${repos.length} fixture repos indexed and served at ${zoekt.url} in ${Date.now() - started} ms\n`);
    project.provide('zoektUrl', zoekt.url);
    project.provide('indexDir', indexDir);
    project.provide('repos', repos);
    const goStarted = Date.now();
    const go = buildGorootIndex();
    goZoekt = await startWebserver({ indexDir: go.indexDir, expectRepos: 1 });
    process.stderr.write(`test zoekt: ${go.srcRoot} (repo ${go.repo}) served at ${goZoekt.url} in ${Date.now() - goStarted} ms\n`);
    project.provide('goZoektUrl', goZoekt.url);
    project.provide('goSrcRoot', go.srcRoot);
    project.provide('goRepo', go.repo);
    const corporaStarted = Date.now();
    const corpora = symbolCorpora();
    corporaZoekt = await startWebserver({ indexDir: buildCorporaIndex(corpora), expectRepos: corpora.length });
    process.stderr.write(`test zoekt: ${corpora.map((c) => c.repo).join(', ')} served at ${corporaZoekt.url} in ${Date.now() - corporaStarted} ms\n`);
    project.provide('corporaZoektUrl', corporaZoekt.url);
    project.provide('corpora', corpora);
    const failed = await rest;
    if (failed) throw failed;
    if (warm) process.env.ZOEKT_MCP_EXTRACTOR_SOCKET = extractor.path;
  } catch (e) {
    await extractor.close();
    await corporaZoekt?.stop();
    await goZoekt?.stop();
    await zoekt?.stop();
    rmSync(workDir, { recursive: true, force: true });
    throw e;
  }
  return async () => {
    await extractor.close();
    const { builds, files, workers } = extractor.counts;
    process.stderr.write(`test extractor: tagged ${files} files of ${builds} index builds with ${workers} parse workers\n`);
    await corporaZoekt?.stop();
    await goZoekt?.stop();
    await zoekt?.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
}
