/**
 * Once per test run: install what is missing (Zoekt, ctags, the linters), compile the server,
 * index the fixtures and start a real zoekt-webserver -rpc. Tests read the URL with
 * inject('zoektUrl'). A second zoekt-webserver -rpc serves the Go source tree
 * (test/support/goroot.ts), indexed once per machine and cached: inject('goZoektUrl'),
 * inject('goSrcRoot'), inject('goRepo').
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
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
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('bash', [join(ROOT, 'scripts/setup.sh'), 'zoekt', 'build', 'parser', 'lint'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const workDir = mkdtempSync(join(tmpdir(), 'zoekt-mcp-test-'));
  const started = Date.now();
  const { indexDir, repos } = buildFixtureIndex(workDir);
  const zoekt = await startWebserver({ indexDir, expectRepos: repos.length });
  process.stderr.write(`test zoekt: ${repos.length} fixture repos indexed and served at ${zoekt.url} in ${Date.now() - started} ms\n`);
  project.provide('zoektUrl', zoekt.url);
  project.provide('indexDir', indexDir);
  project.provide('repos', repos);
  let goZoekt: RunningZoekt;
  try {
    const goStarted = Date.now();
    const go = buildGorootIndex();
    goZoekt = await startWebserver({ indexDir: go.indexDir, expectRepos: 1 });
    process.stderr.write(`test zoekt: ${go.srcRoot} (repo ${go.repo}) served at ${goZoekt.url} in ${Date.now() - goStarted} ms\n`);
    project.provide('goZoektUrl', goZoekt.url);
    project.provide('goSrcRoot', go.srcRoot);
    project.provide('goRepo', go.repo);
  } catch (e) {
    await zoekt.stop();
    rmSync(workDir, { recursive: true, force: true });
    throw e;
  }
  return async () => {
    await goZoekt.stop();
    await zoekt.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
}
