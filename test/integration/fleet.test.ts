/**
 * Several Zoekt backends behind one adapter: the fixture index split into two and into three
 * disjoint shares, each served by its own real zoekt-webserver. Every tool must answer exactly as
 * one Zoekt over the union does (the global test server), page for page; a backend that stops
 * makes answers partial, naming it and its repositories, and complete again once it is back.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectStreamable, raw, startAdapter } from '../support/http.js';
import { call, connectStdio, ok, textOf, type Connected } from '../support/mcp.js';
import { runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';

type Out = Record<string, unknown> & { next_cursor?: string; partial?: { reason: string; hint: string }; stats?: Record<string, unknown> };

let work: string;
const servers: RunningZoekt[] = [];
/** The shards (one file per repository) of each share, by split. */
/** One deployment: its cursors are the same whichever process makes them. */
const SECRET = 'fleet-test-cursor-secret-0123456789abcdef';
const shares: Record<2 | 3, string[]> = { 2: [], 3: [] };
const urls: Record<2 | 3, string[]> = { 2: [], 3: [] };
let union: Connected;
const fleets: Partial<Record<2 | 3, Connected>> = {};

async function serveShare(dir: string, repos: number, port?: number): Promise<RunningZoekt> {
  const z = await startWebserver({ indexDir: dir, expectRepos: repos, ...(port ? { port } : {}) });
  servers.push(z);
  return z;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-fleet-'));
  const indexDir = inject('indexDir');
  const shards = readdirSync(indexDir).filter((f) => f.endsWith('.zoekt')).sort();
  expect(shards.length).toBe(inject('repos').length);
  for (const n of [2, 3] as const) {
    for (let i = 0; i < n; i++) {
      const dir = join(work, `split${n}-${i}`);
      mkdirSync(dir);
      const mine = shards.filter((_, s) => s % n === i);
      for (const f of mine) copyFileSync(join(indexDir, f), join(dir, f));
      shares[n].push(dir);
      urls[n].push((await serveShare(dir, mine.length)).url);
    }
    fleets[n] = await connectStdio({ ZOEKT_URL: urls[n].join(','), ZOEKT_MCP_CURSOR_SECRET: SECRET });
  }
  union = await connectStdio({ ZOEKT_URL: inject('zoektUrl'), ZOEKT_MCP_CURSOR_SECRET: SECRET });
}, 60_000);

afterAll(async () => {
  await union?.close();
  for (const f of Object.values(fleets)) await f?.close();
  for (const s of servers) await s.stop();
  rmSync(work, { recursive: true, force: true });
});

/** What must be equal between one Zoekt and a fleet: everything but timings and where a repository lives. */
function comparable(out: Out): unknown {
  const copy = structuredClone(out) as Record<string, unknown>;
  if (copy.stats && typeof copy.stats === 'object') delete (copy.stats as Record<string, unknown>).duration_ms;
  if (Array.isArray(copy.repos)) for (const r of copy.repos as Record<string, unknown>[]) delete r.backend;
  return copy;
}

async function pages(client: Connected['client'], tool: string, args: Record<string, unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = ok<Out>(await call(client, tool, { ...args, ...(cursor ? { cursor } : {}) }));
    out.push(comparable(page));
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return out;
}

const CASES: [string, Record<string, unknown>][] = [
  ['search_code', { query: 'func', limit: 3 }],
  ['search_code', { query: 'user', case_sensitive: 'no', limit: 4, context_lines: 2 }],
  ['search_code', { query: 'TODO', literal: true, limit: 2 }],
  ['search_symbols', { name: 'get*', limit: 5 }],
  ['search_symbols', { name: 'UserService', kinds: ['class', 'struct', 'interface'] }],
  ['search_files', { pattern: '*.ts', limit: 4 }],
  ['search_files', { pattern: 'src/', limit: 7 }],
  ['find_references', { symbol: 'getUser', limit: 2 }],
  ['find_references', { symbol: 'NewServer', context_lines: 1 }],
  ['list_repos', { limit: 3 }],
  ['get_file', { repo: 'github.com/acme/gosvc', path: 'internal/server/server.go', start_line: 10, end_line: 30 }],
];

describe.each([2, 3] as const)('%i backends over disjoint shares of the index', (n) => {
  it.each(CASES)('%s %j: the same pages as one Zoekt over the union', async (tool, args) => {
    const expected = await pages(union.client, tool, args);
    const got = await pages(fleets[n]!.client, tool, args);
    expect(got).toEqual(expected);
  });

  it('list_repos says where each repository lives', async () => {
    const out = ok<{ repos: { name: string; backend: string }[] }>(await call(fleets[n]!.client, 'list_repos', { limit: 500 }));
    expect(new Set(out.repos.map((r) => r.backend))).toEqual(new Set(urls[n]));
    expect(out.repos.map((r) => r.name).sort()).toEqual([...inject('repos')].sort());
  });

  it('get_health reports every backend and the union of their index', async () => {
    const one = ok<{ index: Record<string, unknown> }>(await call(union.client, 'get_health', {}));
    const out = ok<{ status: string; index: Record<string, unknown>; backends: { url: string; ready: boolean; repos: number }[] }>(await call(fleets[n]!.client, 'get_health', {}));
    expect(out.status).toBe('ok');
    expect(out.backends.map((b) => b.url)).toEqual(urls[n]);
    expect(out.backends.every((b) => b.ready)).toBe(true);
    expect(out.backends.reduce((sum, b) => sum + b.repos, 0)).toBe(inject('repos').length);
    expect(out.index).toEqual(one.index);
  });
});

describe('a backend that stops mid-walk', () => {
  it('makes the pages partial, naming it and its repositories; answers are complete again once it is back', async () => {
    const [first, second] = urls[2];
    const downIndex = servers.findIndex((s) => s.url === second);
    // No window cache: every page asks the backends, as a page of another replica would.
    const fleet = await connectStdio({ ZOEKT_URL: `${first},${second}`, ZOEKT_MCP_CACHE_MB: '0', ZOEKT_MCP_CURSOR_SECRET: SECRET });
    try {
      const args = { query: 'func', limit: 2 };
      const expected = await pages(union.client, 'search_code', args);
      const page1 = ok<Out>(await call(fleet.client, 'search_code', args));
      expect(comparable(page1)).toEqual(expected[0]);
      // The repositories the stopped backend serves, from the union's list.
      const theirs = ok<{ repos: { name: string; backend: string }[] }>(await call(fleet.client, 'list_repos', { limit: 500 }))
        .repos.filter((r) => r.backend === second)
        .map((r) => r.name);
      expect(theirs.length).toBeGreaterThan(0);

      const port = servers[downIndex]!.port;
      await servers[downIndex]!.stop();
      const page2 = ok<Out>(await call(fleet.client, 'search_code', { ...args, cursor: page1.next_cursor }));
      expect(page2.stats?.complete).toBe(false);
      expect(page2.partial?.reason).toContain(second);
      expect(page2.partial?.reason).toContain(theirs[0]);
      expect(page2.partial?.hint).toMatch(/get_health/);
      expect(textOf(await call(fleet.client, 'search_code', args))).toContain(`partial: the zoekt backend ${second}`);
      const health = ok<{ status: string; backends: { url: string; ready: boolean }[] }>(await call(fleet.client, 'get_health', {}));
      expect(health.status).toBe('degraded');
      expect(health.backends.find((b) => b.url === second)?.ready).toBe(false);
      // get_file of a repository the stopped backend holds: retry later, not "not found".
      const file = await call(fleet.client, 'get_file', { repo: theirs[0]!, path: 'README.md' });
      expect(file.isError).toBe(true);
      expect((file.structuredContent as { error: { code: string } }).error.code).toBe('UNAVAILABLE');

      servers[downIndex] = await startWebserver({ indexDir: shares[2][1]!, port, expectRepos: theirs.length });
      expect(await pages(fleet.client, 'search_code', args)).toEqual(expected);
    } finally {
      await fleet.close();
    }
  });

  it('/readyz reports each backend: ready, degraded while one is down', async () => {
    const [first, second] = urls[3];
    const adapter = await startAdapter({ zoektUrl: `${first},${second}` });
    try {
      const ready = await raw(`${adapter.url}/readyz`);
      expect(ready.status).toBe(200);
      const body = ready.json() as unknown as { status: string; backends: { url: string; ready: boolean }[] };
      expect(body.status).toBe('ready');
      expect(body.backends.map((b) => b.url)).toEqual([first, second]);
      const i = servers.findIndex((s) => s.url === second);
      const port = servers[i]!.port;
      await servers[i]!.stop();
      const degraded = await raw(`${adapter.url}/readyz`);
      expect(degraded.status).toBe(200);
      const after = degraded.json() as unknown as { status: string; backends: { url: string; ready: boolean }[] };
      expect(after.status).toBe('degraded');
      expect(after.backends.find((b) => b.url === second)?.ready).toBe(false);
      servers[i] = await startWebserver({ indexDir: shares[3][1]!, port, expectRepos: 1 });
    } finally {
      await adapter.stop();
    }
  });
});

describe('scope, admission and metrics across backends', () => {
  it('--allow-repos confines a fleet exactly as it confines one Zoekt, whatever the query text says', async () => {
    // One allowed repository on each backend, so the scope spans both.
    const placed = ok<{ repos: { name: string; backend: string }[] }>(await call(fleets[2]!.client, 'list_repos', { limit: 500 })).repos;
    const allowed = urls[2].map((u) => placed.find((r) => r.backend === u)!.name);
    const env = { ZOEKT_MCP_ALLOW_REPOS: allowed.join(','), ZOEKT_MCP_CURSOR_SECRET: SECRET };
    const scopedFleet = await connectStdio({ ZOEKT_URL: urls[2].join(','), ...env });
    const scopedOne = await connectStdio({ ZOEKT_URL: inject('zoektUrl'), ...env });
    try {
      for (const [tool, args] of [
        ['search_code', { query: 'func', limit: 3 }],
        ['search_symbols', { name: 'get*', limit: 5 }],
        ['search_files', { pattern: '*', limit: 10 }],
        ['list_repos', {}],
      ] as const) {
        expect(await pages(scopedFleet.client, tool, args), `${tool} ${JSON.stringify(args)}`).toEqual(await pages(scopedOne.client, tool, args));
      }
      for (const query of ['func or repo:.', '(func) or (repo:. import)', 'repo:webapp or r:gosvc import', '-repo:gosvc func']) {
        const out = ok<{ results: { repo: string }[] }>(await call(scopedFleet.client, 'search_code', { query, limit: 50 }));
        expect(out.results.every((r) => allowed.includes(r.repo)), query).toBe(true);
      }
    } finally {
      await scopedFleet.close();
      await scopedOne.close();
    }
  });

  it('admission is one limit for the process, however many backends a call fans out to', async () => {
    const held = servers.findIndex((s) => s.url === urls[2][0]);
    const fleet = await connectStdio({ ZOEKT_URL: urls[2].join(','), ZOEKT_MCP_TIMEOUT_MS: '2000', ZOEKT_MCP_MAX_IN_FLIGHT: '1', ZOEKT_MCP_MAX_QUEUE: '0' });
    try {
      // A frozen backend holds the first call (the fleet waits for it until the deadline).
      await servers[held]!.freeze();
      const first = call(fleet.client, 'search_code', { query: 'func' });
      // Sent after it on the same ordered stream: the first is admitted by then.
      const refused = await call(fleet.client, 'search_code', { query: 'class' });
      expect((refused.structuredContent as { error: { code: string } }).error.code).toBe('OVERLOADED');
      const answered = await first;
      servers[held]!.thaw();
      // The held call ends in its deadline: partial, naming the frozen backend, or TIMEOUT.
      const text = textOf(answered);
      expect(text.includes(urls[2][0]!) || text.startsWith('TIMEOUT')).toBe(true);
      expect((await call(fleet.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
    } finally {
      servers[held]!.thaw();
      await fleet.close();
    }
  });

  it('/metrics times the requests to each backend under its own label', async () => {
    const adapter = await startAdapter({ zoektUrl: urls[3].join(',') });
    try {
      const mcp = await connectStreamable(adapter.url);
      try {
        expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
      } finally {
        await mcp.close();
      }
      const metrics = await raw(`${adapter.url}/metrics`);
      expect(metrics.status).toBe(200);
      for (const url of urls[3]) {
        const line = metrics.text.split('\n').find((l) => l.startsWith('zoekt_mcp_zoekt_request_duration_seconds_count') && l.includes(`backend="${url}"`) && l.includes('api/search'));
        expect(line, url).toBeDefined();
        expect(Number(line!.split(' ').pop())).toBeGreaterThan(0);
      }
      const tool = metrics.text.split('\n').find((l) => l.startsWith('zoekt_mcp_tool_call_duration_seconds_count') && l.includes('tool="search_code"'));
      expect(Number(tool?.split(' ').pop())).toBe(1);
    } finally {
      await adapter.stop();
    }
  });
});

describe('a language whose sampled file fills the match cap on its backend', { timeout: 120_000 }, () => {
  // list_repos tells a language's parser from the symbols of a sample of its files, read under a
  // cap on matches: a header with more symbols than the cap fills it alone, and its backend cuts
  // the answer in that file. One Zoekt keeps the file it cut in; the fleet must too, or the
  // language's symbols come from no file and its parser reads `none`.
  let dir: string;
  const started: RunningZoekt[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'zoekt-mcp-fleet-cap-'));
    const write = (path: string, text: string) => {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    };
    const decls = Array.from({ length: 600 }, (_, i) => `int helper_${i}(int x) { return x + ${i}; }`).join('\n');
    write(join(dir, 'trees/headers/include/big.hpp'), `#pragma once\nnamespace big {\nclass Widget {\n public:\n  int size() const;\n};\n${decls}\n}\n`);
    write(join(dir, 'trees/tools/main.go'), 'package main\n\nfunc main() {}\n');
    for (const repo of ['headers', 'tools']) {
      mkdirSync(join(dir, `share-${repo}`));
      runIndexer('dir', ['-index', join(dir, `share-${repo}`), join(dir, 'trees', repo)]);
    }
    mkdirSync(join(dir, 'union'));
    for (const repo of ['headers', 'tools']) for (const f of readdirSync(join(dir, `share-${repo}`))) copyFileSync(join(dir, `share-${repo}`, f), join(dir, 'union', f));
    for (const [index, repos] of [['share-headers', 1], ['share-tools', 1], ['union', 2]] as const) started.push(await startWebserver({ indexDir: join(dir, index), expectRepos: repos }));
  });
  afterAll(async () => {
    for (const s of started) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('list_repos reports the parser one Zoekt reports', async () => {
    const one = await connectStdio({ ZOEKT_URL: started[2]!.url, ZOEKT_MCP_CURSOR_SECRET: SECRET });
    const two = await connectStdio({ ZOEKT_URL: `${started[0]!.url},${started[1]!.url}`, ZOEKT_MCP_CURSOR_SECRET: SECRET });
    try {
      const expected = comparable(ok<Out>(await call(one.client, 'list_repos', {}))) as { repos: { name: string; symbols?: { language: string; parser: string }[] }[] };
      const cpp = expected.repos.find((r) => r.name === 'headers')?.symbols?.find((l) => l.language === 'C++');
      expect(cpp?.parser).toBeDefined();
      expect(cpp?.parser).not.toBe('none');
      const got = comparable(ok<Out>(await call(two.client, 'list_repos', {})));
      expect(got).toEqual(expected);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('a backend that stops, under a scope that holds none of its repositories', () => {
  it('names none of its repositories in any answer, text or structured', async () => {
    const [first, second] = urls[2];
    // Each share's repositories from its index: a shard's file name is its repository's, query-escaped.
    const reposOf = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.zoekt')).map((f) => decodeURIComponent(f.replace(/_v\d+\.\d+\.zoekt$/, '')));
    const ours = reposOf(shares[2][0]!);
    const theirs = reposOf(shares[2][1]!);
    expect(ours.length).toBeGreaterThan(0);
    expect(theirs.length).toBeGreaterThan(0);
    const fleet = await connectStdio({ ZOEKT_URL: `${first},${second}`, ZOEKT_MCP_ALLOW_REPOS: ours.join(','), ZOEKT_MCP_CACHE_MB: '0', ZOEKT_MCP_CURSOR_SECRET: SECRET });
    const i = servers.findIndex((s) => s.url === second);
    const port = servers[i]!.port;
    try {
      // The fleet knows where each repository lives before the backend stops.
      expect(ok<{ repos: unknown[] }>(await call(fleet.client, 'list_repos', {})).repos.length).toBe(ours.length);
      await servers[i]!.stop();
      const answers = {
        search_code: await call(fleet.client, 'search_code', { query: 'func', limit: 3 }),
        search_symbols: await call(fleet.client, 'search_symbols', { name: 'get*', limit: 5 }),
        list_repos: await call(fleet.client, 'list_repos', {}),
        get_health: await call(fleet.client, 'get_health', {}),
      };
      // The backend is still named (it is the operator's): the answers do say something is missing.
      expect(JSON.stringify(answers.search_code)).toContain(second);
      expect(JSON.stringify(answers.list_repos)).toContain(second);
      for (const [tool, answer] of Object.entries(answers)) {
        const text = JSON.stringify(answer);
        // A name followed by a character no repository name ends before (gosvc is not gosvc2).
        for (const repo of theirs) expect(new RegExp(`${escapeRegex(repo)}(?![\\w.-])`).test(text), `${tool} names ${repo}`).toBe(false);
      }
    } finally {
      await fleet.close();
      servers[i] = await startWebserver({ indexDir: shares[2][1]!, port, expectRepos: theirs.length });
    }
  });
});
