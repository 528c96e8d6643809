/**
 * Local mode: the index state an answer gives is what the index holds as of that answer. A fresh
 * spawn on a current index says `current` (never `queued`, never `behind` for the data folder's own
 * writes), a save is never answered `current` until it is indexed, and symbol coverage does not
 * change with a delta build. Also: `--setup --repo PATH` makes the user's own list, which a later
 * spawn serves.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { allIndexed, gitIn, SERVE, serveEnv, spawnServe, supervisorGone, waitFor, type LocalClient } from '../support/local.js';
import { call, ok } from '../support/mcp.js';
import { FIXTURES } from '../support/zoekt.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-states-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function gitRepo(fixture: string, dir: string, name: string, ignore?: string): string {
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  if (ignore) writeFileSync(join(dir, '.gitignore'), ignore);
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'config', 'zoekt.name', name);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

async function search(c: LocalClient, query: string): Promise<CodeSearchOutput> {
  return ok<CodeSearchOutput>(await call(c.client, 'search_code', { query, context_lines: 0 }));
}

/** `scripts/serve.sh --setup` as a user runs it; its output. */
function setup(env: Record<string, string>, args: string[] = []): string {
  return execFileSync('bash', [SERVE, '--setup', ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 }).toString();
}

function setupStderr(env: Record<string, string>, args: string[] = []): string {
  const r = spawnSync('bash', [SERVE, '--setup', ...args], { env, encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stderr;
}

describe('the state of a fresh spawn', () => {
  it('on a current index, with the data folder inside the repository: current at once, never queued or behind', async () => {
    const repo = gitRepo('gosvc', join(work, 'own'), 'acme/own', '.data/\n');
    const data = join(repo, '.data');
    setup(serveEnv({ data, repos: repo }));
    expect(await supervisorGone(data)).toBe(true);
    const logBefore = readFileSync(join(data, 'supervisor.log'), 'utf8').length;
    const c = await spawnServe({ data, repos: repo });
    try {
      const first = await search(c, 'package');
      process.stderr.write(`fresh spawn, first answer: ${JSON.stringify(first.index_age)} complete=${first.stats.complete}\n`);
      expect(first.stats.complete).toBe(true);
      expect(first.index_age).toEqual([expect.objectContaining({ repo: 'acme/own', state: 'current' })]);
      // The supervisor writes its log, state and index under .data/, inside the repository: not a change of its files.
      const d = await spawnServe({ data, repos: repo });
      try {
        for (let i = 0; i < 6; i++) {
          for (const x of [c, d]) {
            const age = (await search(x, 'package')).index_age!;
            expect(age.map((a) => a.state)).toEqual(['current']);
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      } finally {
        await d.close();
      }
      // Nothing was re-indexed.
      expect(readFileSync(join(data, 'supervisor.log'), 'utf8').slice(logBefore)).not.toMatch(/indexing acme\/own/);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 180_000);

  it('a save is never answered current until it is indexed', async () => {
    const repo = gitRepo('gosvc', join(work, 'saves'), 'acme/saves');
    const data = join(work, 'data-saves');
    const c = await spawnServe({ data, repos: repo });
    try {
      await allIndexed(c.client);
      const file = join(repo, 'cmd/server/main.go');
      for (let n = 0; n < 3; n++) {
        const marker = `saveMarker${n}x`;
        writeFileSync(file, `${readFileSync(file, 'utf8')}\nfunc ${marker}() {}\n`);
        const saved = Date.now();
        let answers = 0;
        let notCurrent = 0;
        for (;;) {
          const out = await search(c, marker);
          answers++;
          const state = out.index_age?.find((a) => a.repo === 'acme/saves')?.state ?? 'current';
          // `current` only once the save is searchable.
          if (state === 'current') {
            expect(out.results.length).toBeGreaterThan(0);
            break;
          }
          notCurrent++;
          if (Date.now() - saved > 60_000) throw new Error('the save was never indexed');
        }
        process.stderr.write(`save ${n}: ${answers} answers, ${notCurrent} not current, searchable and current after ${Date.now() - saved} ms\n`);
      }
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 180_000);

  // After a delta, Zoekt's repository list gives the repository the IndexMetadata of one of its
  // shards, often the delta's, whose LanguageMap names only the changed files' languages; the
  // coverage counts every language seen before until it has no file (src/search/definitions/coverage.ts).
  it('symbol coverage in get_health is the same before and after a delta build', async () => {
    const repo = gitRepo('webapp', join(work, 'cov'), 'acme/cov');
    const data = join(work, 'data-cov');
    const c = await spawnServe({ data, repos: repo });
    type Health = { index?: { symbols?: { languages: { language: string; files: number; files_with_symbols: number }[] } } };
    const coverage = async () =>
      waitFor('symbol coverage', async () => ok<Health>(await call(c.client, 'get_health', {})).index?.symbols?.languages.map((l) => `${l.language}:${l.files}:${l.files_with_symbols}`));
    try {
      await allIndexed(c.client);
      const before = await coverage();
      const file = execFileSync('git', ['-C', repo, 'ls-files', '*.ts'], { encoding: 'utf8' }).trim().split('\n')[0]!;
      writeFileSync(join(repo, file), `${readFileSync(join(repo, file), 'utf8')}\nexport function coverageMarker(): number { return 1; }\n`);
      await waitFor('the delta searchable', async () => (await search(c, 'coverageMarker')).results.length > 0);
      await allIndexed(c.client);
      const after = await coverage();
      process.stderr.write(`symbol coverage before: ${before.join(', ')}\nsymbol coverage after a delta: ${after.join(', ')}\n`);
      expect(after).toEqual(before);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 180_000);
});

describe('your own list', () => {
  it('--setup --repo PATH (repeated) indexes them and writes your list in the data folder; a spawn without --repo serves it', async () => {
    const a = gitRepo('gosvc', join(work, 'mine-a'), 'acme/mine-a');
    const b = gitRepo('rustlib', join(work, 'mine-b'), 'acme/mine-b');
    const data = join(work, 'data-mine');
    const env = serveEnv({ data });
    const said = setupStderr(env, ['--repo', a, '--repo', b]);
    process.stderr.write(said);
    expect(said).toMatch(/to your list of repositories/);
    expect(said).toMatch(/2 of 2 repositories indexed/);
    const list = readFileSync(join(data, 'repos'), 'utf8');
    expect(list).toMatch(/^# Your repositories/);
    expect(list).toContain(`${a}\n`);
    expect(list).toContain(`${b}\n`);
    // Again: nothing added twice.
    setupStderr(env, ['--repo', a]);
    expect(readFileSync(join(data, 'repos'), 'utf8')).toBe(list);
    expect(await supervisorGone(data)).toBe(true);
    const c = await spawnServe({ data });
    try {
      expect(ok<ListReposOutput>(await call(c.client, 'list_repos', {})).repos.map((r) => [r.name, r.index_state])).toEqual([
        ['acme/mine-a', 'current'],
        ['acme/mine-b', 'current'],
      ]);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
    expect(existsSync(join(data, 'repos'))).toBe(true);
  }, 180_000);
});
