/**
 * Local mode answers only from its own index. Another zoekt-webserver (here: the fixtures' index,
 * started first) already answering on the port local mode would use by default: set-up and clients
 * take a free port of their own, record it in the data folder, and answer from their own index.
 * On a port the user chose (ZOEKT_PORT) that another program holds: set-up fails naming the port
 * and what holds it, and every answer and get_health say so. A --repo that names no folder, or a
 * file, is named in every answer, never an empty answer marked complete. And a cold start on the
 * default port answers `current` from its first answer.
 *
 * The default port is 6070, which other servers on this machine may use: the tests move it
 * (ZOEKT_MCP_DEFAULT_PORT) to a port of their own and leave ZOEKT_PORT unset, which is the code
 * path of the default.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { allIndexed, gitIn, health, SERVE, serveEnv, spawnServe, supervisorGone, type LocalClient } from '../support/local.js';
import { call, failed, ok, textOf } from '../support/mcp.js';
import { FIXTURES, freePort, startWebserver, type RunningZoekt } from '../support/zoekt.js';

/** A word only the test's own repository holds (the fixtures do not: checked with rg below). */
const OWN_WORD = 'ownIndexOnlyWordQ7x';

let work: string;
let foreign: RunningZoekt;
let fixtureRepos: string[];
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-own-'));
  foreign = await startWebserver({ indexDir: inject('indexDir'), expectRepos: inject('repos').length });
  fixtureRepos = inject('repos');
  // rg exits 1 when nothing matches: the word is not in the index the foreign Zoekt serves.
  expect(spawnSync('rg', ['-l', OWN_WORD, FIXTURES]).status).toBe(1);
}, 60_000);
afterAll(async () => {
  await foreign?.stop();
  rmSync(work, { recursive: true, force: true });
});

function ownRepo(name: string): string {
  const dir = join(work, name);
  cpSync(join(FIXTURES, 'rustlib'), dir, { recursive: true });
  writeFileSync(join(dir, 'own.rs'), `pub fn ${OWN_WORD}() {}\n`);
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'config', 'zoekt.name', `acme/${name}`);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

/** The serve command's environment with ZOEKT_PORT unset and the default moved to `port`. */
function defaultPortEnv(data: string, port: number, repos?: string): Record<string, string> {
  const env = serveEnv({ data, ...(repos ? { repos } : {}), extra: { ZOEKT_MCP_DEFAULT_PORT: String(port) } });
  delete env.ZOEKT_PORT;
  return env;
}

function setup(env: Record<string, string>, args: string[] = []): { status: number | null; stderr: string } {
  const r = spawnSync('bash', [SERVE, '--setup', ...args], { env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stderr: r.stderr };
}

describe('another Zoekt on the port local mode would use by default', () => {
  it('set-up and a client take a free port of their own, record it, and answer from their own index only', async () => {
    const repo = ownRepo('own');
    const data = join(work, 'data-default');
    const env = defaultPortEnv(data, foreign.port, repo);
    const r = setup(env);
    expect(r.status, r.stderr).toBe(0);
    const port = Number(readFileSync(join(data, 'zoekt.port'), 'utf8'));
    expect(port).toBeGreaterThan(0);
    expect(port).not.toBe(foreign.port);
    expect(r.stderr).toMatch(new RegExp(`1 of 1 repository indexed and served by Zoekt at http://127\\.0\\.0\\.1:${port} `));
    expect(readFileSync(join(data, 'supervisor.log'), 'utf8')).toMatch(new RegExp(`port ${foreign.port} is held by process ${foreign.process.pid} \\(\\S*zoekt-webserver .*\\): Zoekt takes a free port of its own`));
    expect(await supervisorGone(data)).toBe(true);
    const c = await spawnServe({ data, repos: repo, extra: { ZOEKT_MCP_DEFAULT_PORT: String(foreign.port), ZOEKT_PORT: '' } });
    try {
      const out = ok<CodeSearchOutput>(await call(c.client, 'search_code', { query: OWN_WORD, context_lines: 0 }));
      expect(out.results.map((x) => `${x.repo}/${x.path}`)).toEqual(['acme/own/own.rs']);
      expect(out.stats.complete).toBe(true);
      expect(ok<ListReposOutput>(await call(c.client, 'list_repos', {})).repos.map((x) => x.name)).toEqual(['acme/own']);
      const h = await health(c.client);
      expect(h.status, h.hint).toBe('ok');
      expect(ok<{ zoekt: { url: string } }>(await call(c.client, 'get_health', {})).zoekt.url).toBe(`http://127.0.0.1:${port}`);
      // Not a repository of the other index, whatever the query asks for.
      const other = ok<CodeSearchOutput>(await call(c.client, 'search_code', { query: `repo:${fixtureRepos[0]!.replace(/[.]/g, '\\.')} .`, context_lines: 0 }));
      expect(other.results).toEqual([]);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 180_000);
});

describe('a port the user chose (ZOEKT_PORT) that another program holds', () => {
  it('fails the set-up naming the port and what holds it; every answer and get_health carry the error', async () => {
    const repo = ownRepo('chosen');
    const data = join(work, 'data-chosen');
    const env = serveEnv({ data, repos: repo, extra: { ZOEKT_PORT: String(foreign.port) } });
    const r = setup(env);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`error: ZOEKT_PORT=${foreign.port} is held by process ${foreign.process.pid} \\(zoekt-webserver\\), `));
    expect(r.stderr).toMatch(/Set ZOEKT_PORT to a free port, or unset it/);
    expect(r.stderr).not.toMatch(/indexed and served/);
    expect(await supervisorGone(data)).toBe(true);
    const c: LocalClient = await spawnServe({ data, repos: repo, extra: { ZOEKT_PORT: String(foreign.port) } });
    try {
      for (const [tool, args] of [
        ['search_code', { query: OWN_WORD }],
        ['search_code', { query: 'fn' }],
        ['list_repos', {}],
        ['search_files', { pattern: '*.rs' }],
        ['get_file', { repo: 'acme/chosen', path: 'own.rs' }],
      ] as const) {
        const e = failed(await call(c.client, tool, args));
        expect(e.code, tool).toBe('BACKEND_MISCONFIGURED');
        expect(e.retryable, tool).toBe(false);
        expect(e.message, tool).toMatch(new RegExp(`ZOEKT_PORT=${foreign.port} is held by process ${foreign.process.pid} \\(zoekt-webserver\\), `));
        // Another program's arguments (here its -index folder) may hold its secrets: an answer names the program only.
        expect(e.message, tool).not.toContain(' -index ');
        expect(e.hint, tool).toMatch(/Set ZOEKT_PORT to a free port/);
      }
      const h = ok<{ status: string; hint?: string; zoekt: { reachable: boolean }; index?: unknown }>(await call(c.client, 'get_health', {}));
      expect(h.status).toBe('down');
      expect(h.hint).toMatch(new RegExp(`ZOEKT_PORT=${foreign.port} is held by process ${foreign.process.pid}`));
      // Nothing of the other index is reported as this one's.
      expect(h.index).toBeUndefined();
      expect(h.zoekt.reachable).toBe(false);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 180_000);
});

describe('--zoekt-url', () => {
  it('is refused by the local serve command, which answers only from the Zoekt it runs', () => {
    const r = spawnSync('bash', [SERVE, '--zoekt-url', foreign.url], { env: serveEnv({ data: join(work, 'data-url') }), input: '', encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--zoekt-url is not an option of the local serve command: it answers only from the Zoekt it runs over its own index/);
    expect(r.stdout).toBe('');
  });
});

describe('a --repo that names no folder', () => {
  it('a spawned client is told on every answer, naming the path: no such folder, or a file', async () => {
    const file = join(work, 'a-file.txt');
    writeFileSync(file, 'not a folder\n');
    const missing = join(work, 'no-such-folder');
    const data = join(work, 'data-bad-repo');
    for (const [path, why] of [
      [missing, 'no such directory'],
      [file, 'is a file, not a folder'],
    ] as const) {
      const c = await spawnServe({ data }, ['--repo', path]);
      try {
        for (const [tool, args] of [
          ['search_code', { query: 'fn' }],
          ['list_repos', {}],
          ['search_symbols', { name: 'start' }],
        ] as const) {
          const e = failed(await call(c.client, tool, args));
          expect(e.code, tool).toBe('BACKEND_MISCONFIGURED');
          expect(e.message, tool).toBe(`nothing to search: --repo: ${path}: ${why} (${path})`);
          expect(e.hint, tool).toMatch(/each --repo of the server's command \(in the MCP client's configuration\) must name a folder/);
        }
        const h = await health(c.client);
        expect(h.status).toBe('degraded');
        expect(h.hint).toContain(`--repo: ${path}: ${why}`);
        expect(h.hint).not.toMatch(/--allow-repos \(\)/);
      } finally {
        await c.close();
      }
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);

  it('with good entries beside it: the good ones are searched, and every answer is partial, naming the bad one', async () => {
    const repo = ownRepo('good');
    const missing = join(work, 'gone');
    const data = join(work, 'data-mixed');
    const c = await spawnServe({ data }, ['--repo', repo, '--repo', missing]);
    try {
      await allIndexed(c.client);
      const out = ok<CodeSearchOutput>(await call(c.client, 'search_code', { query: OWN_WORD, context_lines: 0 }));
      expect(out.results.map((x) => `${x.repo}/${x.path}`)).toEqual(['acme/good/own.rs']);
      expect(out.stats.complete).toBe(false);
      expect(out.partial?.reason).toBe(`an entry of --repo is not searched (--repo: ${missing}: no such directory (${missing}))`);
      const text = textOf(await call(c.client, 'search_code', { query: OWN_WORD }));
      expect(text).toContain(`not searched: --repo: ${missing}: no such directory`);
      const listed = ok<ListReposOutput & { partial?: { reason: string } }>(await call(c.client, 'list_repos', {}));
      expect(listed.repos.map((x) => x.name)).toEqual(['acme/good']);
      expect(listed.partial?.reason).toContain(missing);
      expect((await health(c.client)).indexing!.list_errors).toEqual([`--repo: ${missing}: no such directory (${missing})`]);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);

  it('--setup --repo with a file says it is a file, not a folder, and exits 2', () => {
    const file = join(work, 'setup-file.txt');
    writeFileSync(file, 'x\n');
    const r = setup(serveEnv({ data: join(work, 'data-setup-file') }), ['--repo', file]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: --repo ${file}: is a file, not a folder (${file})`);
  });
});

describe('a cold start on the default port', () => {
  it('says current from its first answers, for an index that is current', async () => {
    const repo = ownRepo('cold');
    const data = join(work, 'data-cold');
    // A port of this test's, free now: the default, as a new user's 6070.
    const port = await freePort();
    const r = setup(defaultPortEnv(data, port, repo));
    expect(r.status, r.stderr).toBe(0);
    expect(await supervisorGone(data)).toBe(true);
    const c = await spawnServe({ data, repos: repo, extra: { ZOEKT_MCP_DEFAULT_PORT: String(port), ZOEKT_PORT: '' } });
    try {
      const listed = ok<ListReposOutput>(await call(c.client, 'list_repos', {}));
      expect(listed.repos.map((x) => [x.name, x.index_state])).toEqual([['acme/cold', 'current']]);
      const out = ok<CodeSearchOutput>(await call(c.client, 'search_code', { query: OWN_WORD, context_lines: 0 }));
      expect(out.index_age?.map((a) => [a.repo, a.state])).toEqual([['acme/cold', 'current']]);
      expect(readFileSync(join(data, 'supervisor.log'), 'utf8').split('\n').filter((l) => /indexing acme\/cold/.test(l))).toHaveLength(1);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);
});

describe("a data folder's cursor key that is not private", () => {
  it('does not stop the server: it serves, says why its cursors last only as long as the process, and keeps the file as it was', async () => {
    const repo = ownRepo('key');
    const data = join(work, 'data-key');
    mkdirSync(data, { recursive: true });
    const key = join(data, 'cursor-secret');
    writeFileSync(key, `${'k'.repeat(43)}\n`, { mode: 0o644 });
    chmodSync(key, 0o644);
    const c = await spawnServe({ data, repos: repo });
    try {
      await allIndexed(c.client);
      const out = ok<CodeSearchOutput>(await call(c.client, 'search_code', { query: OWN_WORD, context_lines: 0 }));
      expect(out.results.map((x) => `${x.repo}/${x.path}`)).toEqual(['acme/key/own.rs']);
      expect(c.stderr()).toMatch(/cursor key not kept \(.*may be read or written by other users \(mode 644\).*\): cursors page only within this process/);
      expect(statSync(key).mode & 0o777).toBe(0o644);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);
});
