/**
 * --allow-repos: crafted attempts to reach other repositories, through query text and through
 * arguments, on every tool. Each attempt runs on an adapter confined to two fixture repos and on
 * an unconfined one: the unconfined run proves the attempt aims at real content elsewhere, the
 * confined run must return nothing from elsewhere. The Zoekt query the confined adapter reports
 * is also sent straight to Zoekt, so the query constraint is shown to hold on its own, without the
 * adapter's second check of every answer.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { HealthOutput } from '../../src/search/health.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { RepoScope } from '../../src/search/engine/scope.js';
import { connectStreamable, startAdapter, type Adapter } from '../support/http.js';
import { call, connectStdio, failed, ok, type Connected } from '../support/mcp.js';
import { allPages, attempts } from '../support/scope-attempts.js';
import { REPO_PREFIX } from '../support/zoekt.js';

const WEBAPP = `${REPO_PREFIX}webapp`;
const PYTOOLS = `${REPO_PREFIX}pytools`;
const GOSVC = `${REPO_PREFIX}gosvc`;
const ALLOW = `${WEBAPP},${REPO_PREFIX}py*`;
const ALLOWED = new Set([WEBAPP, PYTOOLS]);
/** The constraint the server appends, as text a query could imitate. */
const CONSTRAINT = new RepoScope(ALLOW.split(',')).confine('');

const ATTEMPTS = attempts(CONSTRAINT);

/** What Zoekt itself answers to a query, with no adapter in between. */
async function zoektRepos(query: string): Promise<string[]> {
  const res = await fetch(`${inject('zoektUrl')}/api/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Q: query, Opts: { MaxDocDisplayCount: 5000 } }),
  });
  expect(res.status, query).toBe(200);
  const body = (await res.json()) as { Result: { Files: { Repository: string }[] | null } };
  return (body.Result.Files ?? []).map((f) => f.Repository);
}

const outside = (repos: string[]) => [...new Set(repos.filter((r) => !ALLOWED.has(r)))];

let confined: Connected;
let open: Connected;
beforeAll(async () => {
  // One cursor secret: a cursor one of them makes is refused by the other for its scope alone.
  const env = { ZOEKT_URL: inject('zoektUrl'), ZOEKT_MCP_CURSOR_SECRET: 'scope-test-secret-0123456789abcdef' };
  [confined, open] = await Promise.all([connectStdio(env, ['--allow-repos', ALLOW]), connectStdio(env)]);
});
afterAll(async () => {
  await Promise.all([confined?.close(), open?.close()]);
});

describe('--allow-repos against crafted query text and arguments', () => {
  it('has at least 30 attempts, on every tool', () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(ATTEMPTS.map((a) => [`${a.tool} ${JSON.stringify(a.args)}`, a] as const))('%s', async (_label, attempt) => {
    const unconfined = await allPages(open.client, attempt.tool, attempt.args);
    if (attempt.unconfinedFails) {
      expect(unconfined.error, 'the unconfined adapter was expected to refuse this').toBeDefined();
    } else {
      expect(unconfined.error && failed(unconfined.error)).toBeUndefined();
      // The attempt is real: without the scope it reaches other repositories.
      expect(outside(unconfined.repos).length).toBeGreaterThan(0);
    }

    const got = await allPages(confined.client, attempt.tool, attempt.args);
    if (got.error) {
      expect(attempt.mayFail ?? [], JSON.stringify(failed(got.error))).toContain(failed(got.error).code);
      return;
    }
    expect(outside(got.repos)).toEqual([]);
    // The query alone keeps Zoekt inside the scope; the adapter's own filter is a second lock.
    expect(got.queries.length).toBeGreaterThan(0);
    for (const query of got.queries) expect(outside(await zoektRepos(query)), query).toEqual([]);
  });
});

describe('cursors and the repo scope', () => {
  it('refuses a cursor made outside the scope, and one made inside it outside', async () => {
    for (const [tool, args] of [
      ['search_code', { query: 'Server', limit: 1 }],
      ['search_symbols', { name: 'get*', limit: 1 }],
      ['search_files', { pattern: '*.py', limit: 1 }],
      ['list_repos', { limit: 1 }],
    ] as const) {
      const outsideCursor = ok(await call(open.client, tool, args)).next_cursor as string;
      expect(outsideCursor, tool).toBeDefined();
      const err = failed(await call(confined.client, tool, { ...args, cursor: outsideCursor }));
      expect(err.code, tool).toBe('INVALID_CURSOR');
      expect(err.message).toMatch(/confined to other repositories/);
      expect(err.hint).toMatch(/without cursor/);
      const insideCursor = ok(await call(confined.client, tool, args)).next_cursor as string;
      expect(insideCursor, tool).toBeDefined();
      expect(failed(await call(open.client, tool, { ...args, cursor: insideCursor })).code, tool).toBe('INVALID_CURSOR');
      // Within its own scope the same cursor pages on.
      ok(await call(confined.client, tool, { ...args, cursor: insideCursor }));
    }
  });
});

describe('--allow-repos on list_repos, get_file and get_health', () => {
  it('list_repos lists only the allowed repos, whatever the filter', async () => {
    for (const filter of [undefined, 'gosvc', '*', 'github.com/acme/*', '**']) {
      const out = ok<ListReposOutput>(await call(confined.client, 'list_repos', filter === undefined ? {} : { filter }));
      const names = out.repos.map((r) => r.name);
      expect(outside(names), `filter ${filter}`).toEqual([]);
      if (filter !== 'gosvc') expect(names, `filter ${filter}`).toEqual([PYTOOLS, WEBAPP]);
      else expect(out.hint).toMatch(/within this server's repositories/);
      expect(out.totals.repos).toBe(names.length);
      expect(out.totals.documents).toBe(out.repos.reduce((n, r) => n + r.files, 0));
    }
  });

  it('list_repos pages within the scope', async () => {
    const first = ok<ListReposOutput>(await call(confined.client, 'list_repos', { limit: 1 }));
    const second = ok<ListReposOutput>(await call(confined.client, 'list_repos', { limit: 1, cursor: first.next_cursor }));
    expect([...first.repos, ...second.repos].map((r) => r.name)).toEqual([PYTOOLS, WEBAPP]);
    expect(second.next_cursor).toBeUndefined();
  });

  it('get_file refuses another repository with FORBIDDEN, without saying whether it exists', async () => {
    for (const repo of [GOSVC, `${REPO_PREFIX}nonexistent`, 'github.com/acme/.*', `${WEBAPP}/../gosvc`, 'gosvc']) {
      const unconfined = await call(open.client, 'get_file', { repo, path: 'go.mod' });
      if (repo === GOSVC) expect(unconfined.isError).toBeFalsy();
      const err = failed(await call(confined.client, 'get_file', { repo, path: 'go.mod' }));
      expect(err.code, repo).toBe('FORBIDDEN');
      expect(err.hint).toMatch(/list_repos/);
      expect(`${err.message} ${err.hint}`).not.toMatch(/gosvc.*exists|did you mean/i);
    }
  });

  it('get_file reads an allowed repository, and a path cannot climb out of it', async () => {
    const out = ok<{ repo: string; content: string }>(await call(confined.client, 'get_file', { repo: PYTOOLS, path: 'setup.cfg' }));
    expect(out.repo).toBe(PYTOOLS);
    expect(out.content.length).toBeGreaterThan(0);
    for (const path of ['../gosvc/go.mod', '/../../gosvc/go.mod', '**/go.mod', '.*']) {
      const err = failed(await call(confined.client, 'get_file', { repo: WEBAPP, path }));
      expect(err.code, path).toBe('NOT_FOUND');
      // The path given is echoed back; nothing else may come from another repository.
      expect(`${err.message.replaceAll(path.replace(/^\/+/, ''), '')} ${err.hint}`, path).not.toMatch(/gosvc|javaapp|rustlib|native|manyhits|docs-only/);
    }
  });

  it('get_health counts only the allowed repositories', async () => {
    const scoped = ok<HealthOutput>(await call(confined.client, 'get_health', {}));
    const all = ok<HealthOutput>(await call(open.client, 'get_health', {}));
    const listed = ok<ListReposOutput>(await call(confined.client, 'list_repos', {}));
    expect(scoped.status).toBe('ok');
    expect(scoped.index!.repos).toBe(2);
    expect(scoped.index!.documents).toBe(listed.repos.reduce((n, r) => n + r.files, 0));
    expect(scoped.index!.documents).toBeLessThan(all.index!.documents);
    expect(all.index!.repos).toBe(inject('repos').length);
  });

  it('a scope that matches nothing says so instead of returning silent empties', async () => {
    const none = await connectStdio({ ZOEKT_URL: inject('zoektUrl') }, ['--allow-repos', 'github.com/other/*']);
    try {
      const health = ok<HealthOutput>(await call(none.client, 'get_health', {}));
      expect(health.status).toBe('degraded');
      expect(health.hint).toMatch(/no indexed repository matches --allow-repos 'github\.com\/other\/\*'/);
      const code = ok<{ results: unknown[]; hint?: string }>(await call(none.client, 'search_code', { query: 'Server' }));
      expect(code.results).toEqual([]);
      expect(code.hint).toMatch(/github\.com\/other\/\*/);
    } finally {
      await none.close();
    }
  });
});

describe('--allow-repos over Streamable HTTP', () => {
  let adapter: Adapter;
  beforeAll(async () => {
    adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), args: ['--allow-repos', ALLOW] });
  });
  afterAll(() => adapter?.stop());

  it('confines every request, each with its own server', async () => {
    const mcp = await connectStreamable(adapter.url);
    try {
      for (const attempt of [{ tool: 'search_code', args: { query: 'Server or repo:gosvc' } }, { tool: 'search_files', args: { pattern: '**' } }, { tool: 'find_references', args: { symbol: 'Server' } }]) {
        const got = await allPages(mcp.client, attempt.tool, attempt.args);
        expect(got.error).toBeUndefined();
        expect(outside(got.repos), attempt.tool).toEqual([]);
      }
      const err = failed(await call(mcp.client, 'get_file', { repo: GOSVC, path: 'go.mod' }));
      expect(err.code).toBe('FORBIDDEN');
    } finally {
      await mcp.close();
    }
  });
});
