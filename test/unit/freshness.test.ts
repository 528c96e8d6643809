import { describe, expect, it } from 'vitest';
import { freshAnswer, freshError, localRefusal, type RepoReads } from '../../src/tools/freshness.js';
import { TOOLS } from '../../src/tools/index.js';
import type { RepoStatus, SupervisorStatus } from '../../src/local/status.js';
import { retryAfterMs } from '../../src/search/vocab/local-index.js';

const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
const ready: RepoStatus = { name: 'acme/a', dir: '/src/a', kind: 'git', state: 'ready', has_index: true, indexed_at: hourAgo };
const indexing: RepoStatus = {
  name: 'acme/b',
  dir: '/src/b',
  kind: 'dir',
  state: 'indexing',
  has_index: false,
  progress: { files: 10, bytes: 1000, elapsed_ms: 2000, estimated_ms: 12_000, percent: 16 },
};
const failing: RepoStatus = { name: 'acme/c', dir: '/src/c', kind: 'dir', state: 'error', has_index: false, error: 'permission denied' };

function serving(repos: RepoStatus[]): SupervisorStatus {
  return { protocol: 2, pid: 1, zoekt_url: 'http://127.0.0.1:1', started_at: hourAgo, leases: 1, pass: 1, list: 'repos', list_errors: [], repos };
}

/** What a tool declares it reads, as the dispatcher passes it. */
const reads = (tool: string) => TOOLS.find((t) => t.name === tool)!.reads as RepoReads<unknown, unknown>;

const hit = (repo: string) => ({ repo, path: 'x.go', language: 'Go', score: 1, matches: [], omitted_matches: 0 });

describe('answers under the local serve command, as each tool declares what it reads', () => {
  it('are left alone elsewhere', () => {
    const out = { results: [hit('acme/a')], stats: { complete: true } };
    expect(freshAnswer(reads('search_code'), undefined, {}, out)).toEqual({});
    expect(out).toEqual({ results: [hit('acme/a')], stats: { complete: true } });
  });

  it('say how old the index of each repository shown is, and which are still being indexed', () => {
    const status = serving([ready, indexing]);
    const out: Record<string, unknown> = { results: [hit('acme/a')], stats: { files: 1, complete: true } };
    const { note, error } = freshAnswer(reads('search_code'), status, {}, out);
    expect(error).toBeUndefined();
    expect(out.index_age).toEqual([
      { repo: 'acme/a', index_time: hourAgo, index_age_s: expect.any(Number), state: 'current' },
      { repo: 'acme/b', state: 'indexing', retry_after_s: 11 },
    ]);
    expect((out.index_age as { index_age_s?: number }[])[0]!.index_age_s).toBeGreaterThanOrEqual(3600);
    expect(out.stats).toEqual({ files: 1, complete: false });
    expect(out.partial).toEqual({
      reason: expect.stringMatching(/^a repository this call covers is not indexed yet, so its results are missing \(acme\/b: indexing 10 files/),
      hint: 'Retry the same call in about 11 s for the whole answer; get_health shows indexing progress per repository.',
    });
    expect(note).toMatch(/^index: acme\/a indexed 60 min ago, current; acme\/b: indexing/);
  });

  it("add to Zoekt's own partial note rather than replace it, and tell a failed repository from one still coming", () => {
    const status = serving([ready, failing]);
    const out: Record<string, unknown> = { results: [hit('acme/a')], stats: { complete: false }, partial: { reason: 'Zoekt hit its time limit', hint: 'Narrow it.' } };
    freshAnswer(reads('search_code'), status, {}, out);
    expect(out.partial).toEqual({
      reason: expect.stringMatching(/^Zoekt hit its time limit; a repository this call covers is not indexed yet.*acme\/c: indexing failed: permission denied/),
      hint: expect.stringMatching(/^Narrow it\. Fix the cause named above/),
    });
  });

  it('leave a call alone that covers only indexed repositories', () => {
    const status = serving([ready, indexing]);
    const out: Record<string, unknown> = { results: [hit('acme/a')], stats: { complete: true } };
    freshAnswer(reads('search_code'), status, { repos: ['acme/a'] }, out);
    expect(out.partial).toBeUndefined();
    expect(out.stats).toEqual({ complete: true });
  });

  it('turn an empty answer that waits for a repository into a retryable UNAVAILABLE', () => {
    const status = serving([ready, indexing]);
    const { error } = freshAnswer(reads('search_code'), status, { repos: ['acme/b'] }, { results: [], stats: { complete: true } });
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(error!.hint).toMatch(/Retry the same call in about 11 s/);
  });

  it("give list_repos each repository's index age and state, and say which listed ones are missing", () => {
    const status = serving([ready, indexing]);
    const out: Record<string, unknown> = { repos: [{ name: 'acme/a', index_time: hourAgo }, { name: 'other', index_time: hourAgo }], totals: {} };
    freshAnswer(reads('list_repos'), status, {}, out);
    expect(out.repos).toEqual([
      { name: 'acme/a', index_time: hourAgo, index_age_s: expect.any(Number), index_state: 'current' },
      { name: 'other', index_time: hourAgo, index_age_s: expect.any(Number) },
    ]);
    expect((out.partial as { reason: string }).reason).toMatch(/acme\/b: indexing/);
    expect(out.index_age).toBeUndefined();
  });
});

describe('an index that cannot answer, under the local serve command', () => {
  const unavailable = { code: 'BACKEND_MISCONFIGURED' as const, message: 'ZOEKT_PORT=7001 is held by process 9', hint: 'Set ZOEKT_PORT to a free port.', retryable: false, zoekt: true };

  it('refuses every tool that reads it with the structured error, and get_health none', () => {
    const status = { ...serving([ready]), unavailable };
    for (const tool of TOOLS.filter((t) => t.reads)) {
      expect(localRefusal(reads(tool.name), status)?.toJSON(), tool.name).toEqual({ code: 'BACKEND_MISCONFIGURED', message: unavailable.message, hint: unavailable.hint, retryable: false });
    }
    expect(localRefusal(undefined, status)).toBeUndefined();
    expect(localRefusal(reads('search_code'), serving([ready]))).toBeUndefined();
    expect(localRefusal(reads('search_code'), undefined)).toBeUndefined();
  });

  it('marks a page or listing partial while entries of its list are not searched, naming them; a file answer only says it', () => {
    const bad = '--repo: /nope: no such directory (/nope)';
    const status = { ...serving([ready]), list: '--repo', list_errors: [bad] };
    for (const [tool, out] of [
      ['search_code', { results: [], stats: { files: 0, complete: true } }],
      ['list_repos', { repos: [{ name: 'acme/a', index_time: hourAgo }], totals: {} }],
    ] as const) {
      const copy: Record<string, unknown> = structuredClone(out);
      const { note, error } = freshAnswer(reads(tool), status, {}, copy);
      expect(error, tool).toBeUndefined();
      expect(copy.partial, tool).toEqual({ reason: `an entry of --repo is not searched (${bad})`, hint: expect.stringMatching(/^The other repositories were searched\. Fix that entry: each --repo of the server's command/) });
      expect(note, tool).toMatch(new RegExp(`not searched: ${bad.replace(/[()/]/g, '\\$&')}$`));
    }
    const copy: Record<string, unknown> = { repo: 'acme/a', path: 'x.go', content: '' };
    expect(freshAnswer(reads('get_file'), status, { repo: 'acme/a', path: 'x.go' }, copy).note).toMatch(/not searched: --repo: \/nope/);
    expect(copy.partial).toBeUndefined();
  });
});

describe('what each tool declares it reads', () => {
  it('every tool that reads repositories declares it; get_health reads none', () => {
    expect(TOOLS.filter((t) => !t.reads).map((t) => t.name)).toEqual(['get_health']);
  });

  it('a file in a repository not indexed yet is "not yet", not "no such file", for get_file and get_file_outline', async () => {
    const { ToolError } = await import('../../src/errors.js');
    const notFound = new ToolError('NOT_FOUND', 'no file', 'hint');
    for (const tool of ['get_file', 'get_file_outline']) {
      const err = freshError(reads(tool), serving([ready, indexing]), { repo: 'acme/b', path: 'x.go' }, notFound);
      expect(err, tool).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      expect(freshError(reads(tool), serving([ready, indexing]), { repo: 'acme/a', path: 'x.go' }, notFound), tool).toBeUndefined();
    }
    // Arguments that never passed validation are read with care.
    expect(freshError(reads('search_code'), serving([indexing]), null, notFound)).toMatchObject({ code: 'UNAVAILABLE' });
    expect(freshError(reads('search_code'), serving([indexing]), { repos: 'not-a-list' }, notFound)).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('a repository whose files changed after its index was built is behind, since when, not current', () => {
    const changed = new Date(Date.now() - 7000).toISOString();
    const behind: RepoStatus = { ...ready, changed_at: changed, last_duration_ms: 800 };
    const out: Record<string, unknown> = { results: [hit('acme/a')], stats: { complete: true } };
    const { note } = freshAnswer(reads('search_code'), serving([behind]), {}, out);
    expect(out.index_age).toEqual([{ repo: 'acme/a', index_time: hourAgo, index_age_s: expect.any(Number), state: 'behind', behind_s: 7, retry_after_s: 2 }]);
    expect(note).toMatch(/^index: acme\/a indexed 60 min ago, behind the files on disk changed 7 s ago, re-indexing soon$/);
    const listed: Record<string, unknown> = { repos: [{ name: 'acme/a', index_time: hourAgo }], totals: {} };
    freshAnswer(reads('list_repos'), serving([behind]), {}, listed);
    expect(listed.repos).toEqual([{ name: 'acme/a', index_time: hourAgo, index_age_s: expect.any(Number), index_state: 'behind', behind_s: 7 }]);
    // Current says when the files were last compared.
    const checked: RepoStatus = { ...ready, checked_at: new Date(Date.now() - 3000).toISOString() };
    const fresh: Record<string, unknown> = { results: [hit('acme/a')], stats: { complete: true } };
    freshAnswer(reads('search_code'), serving([checked]), {}, fresh);
    expect(fresh.index_age).toEqual([{ repo: 'acme/a', index_time: hourAgo, index_age_s: expect.any(Number), state: 'current', checked_s: 3 }]);
  });
});

describe('retry_after_s follows the expected time', () => {
  it('of a repository waiting behind other jobs, not a fixed 5 s', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    const queued: RepoStatus = { name: 'acme/q', dir: '/src/q', kind: 'git', state: 'queued', has_index: false, expected_at: new Date(now + 42_000).toISOString() };
    expect(retryAfterMs(queued, now)).toBe(43_000);
    // Indexing: the expectation, else what the progress says is left.
    expect(retryAfterMs({ ...indexing, expected_at: new Date(now + 3000).toISOString() }, now)).toBe(4000);
    expect(retryAfterMs(indexing, now)).toBe(11_000);
    // Not checked yet: a check takes a moment.
    expect(retryAfterMs({ ...queued, expected_at: undefined }, now)).toBe(2000);
    // Long waits are said as they are (up to 10 min), not cut at a minute.
    expect(retryAfterMs({ ...queued, expected_at: new Date(now + 300_000).toISOString() }, now)).toBe(301_000);
  });

  it('in index_age', () => {
    const queued: RepoStatus = { name: 'acme/b', dir: '/src/b', kind: 'git', state: 'queued', has_index: false, expected_at: new Date(Date.now() + 20_000).toISOString() };
    const out: Record<string, unknown> = { results: [hit('acme/a')], stats: { files: 1, complete: true } };
    freshAnswer(reads('search_code'), serving([ready, queued]), {}, out);
    const age = (out.index_age as { repo: string; retry_after_s?: number }[]).find((a) => a.repo === 'acme/b')!;
    expect(age.retry_after_s).toBeGreaterThanOrEqual(20);
    expect(age.retry_after_s).toBeLessThanOrEqual(21);
  });
});
