/**
 * Once per test run: install what is missing (Zoekt, ctags, the linters), compile the server,
 * index the fixtures and start a real zoekt-webserver -rpc. Tests read the URL with
 * inject('zoektUrl').
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildFixtureIndex, ROOT, startWebserver } from './zoekt.js';

declare module 'vitest' {
  export interface ProvidedContext {
    zoektUrl: string;
    indexDir: string;
    repos: string[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('bash', [join(ROOT, 'scripts/setup.sh'), 'zoekt', 'build', 'lint'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const workDir = mkdtempSync(join(tmpdir(), 'zoekt-mcp-test-'));
  const started = Date.now();
  const { indexDir, repos } = buildFixtureIndex(workDir);
  const zoekt = await startWebserver({ indexDir, expectRepos: repos.length });
  process.stderr.write(`test zoekt: ${repos.length} fixture repos indexed and served at ${zoekt.url} in ${Date.now() - started} ms\n`);
  project.provide('zoektUrl', zoekt.url);
  project.provide('indexDir', indexDir);
  project.provide('repos', repos);
  return async () => {
    await zoekt.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
}
