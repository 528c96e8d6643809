/**
 * What the local supervisor's status changes in tool answers, when the server runs under the
 * local serve command (and only then):
 * - a search that comes back empty, or a file not found, while a repository it covers has no
 *   index yet is not "no match": it is UNAVAILABLE, retryable, saying how far indexing is and
 *   when to retry;
 * - a search that comes back with results while a repository it covers has no index yet is
 *   partial, saying which and when to retry;
 * - every answer says how old the index of the repositories it shows is (index_age, index_state,
 *   and a line of its text);
 * - get_health carries each repository's indexing state and progress.
 */
import { ToolError } from '../errors.js';
import type { Partial } from '../search/completeness.js';
import { ageSeconds, type IndexState, type RepoIndexAge } from '../search/freshness.js';
import { repoGlobToRegex } from '../search/globs.js';
import { describeRepo, retryAfterMs, roughly, type RepoStatus, type SupervisorStatus } from './status.js';

const REPO_TOOLS = new Set(['search_code', 'search_symbols', 'search_files', 'find_references', 'get_file', 'list_repos']);

/** The listed repositories a call covers: those its `repos` globs or `repo` name select, else all. */
function covered(repos: RepoStatus[], args: Record<string, unknown>): RepoStatus[] {
  if (typeof args.repo === 'string') return repos.filter((r) => r.name === args.repo);
  const globs = Array.isArray(args.repos) ? (args.repos as string[]) : typeof args.filter === 'string' ? [args.filter] : [];
  if (!globs.length) return repos;
  const res = globs.flatMap((g) => {
    try {
      return [new RegExp(`^${repoGlobToRegex(g)}$`)];
    } catch {
      return [];
    }
  });
  return repos.filter((r) => res.some((re) => re.test(r.name)));
}

function isEmpty(out: Record<string, unknown>): boolean {
  const lists = ['results', 'symbols', 'files', 'usages', 'definitions', 'repos'].filter((k) => Array.isArray(out[k]));
  return lists.length > 0 && lists.every((k) => (out[k] as unknown[]).length === 0);
}

function notIndexed(pending: RepoStatus[]): ToolError {
  const indexing = pending.filter((r) => r.state !== 'error');
  const wait = Math.max(...(indexing.length ? indexing : pending).map(retryAfterMs));
  const what = pending.map(describeRepo).join('; ');
  if (!indexing.length) {
    return new ToolError('UNAVAILABLE', `not indexed: ${what}`, 'Fix the cause named above (the repository stays listed and is retried when it changes); get_health shows each repository\'s state.', { retryable: false });
  }
  return new ToolError(
    'UNAVAILABLE',
    `the answer may be incomplete: ${pending.length === 1 ? 'a repository it covers is' : `${pending.length} repositories it covers are`} not indexed yet (${what})`,
    `Retry the same call in about ${roughly(wait)}; get_health shows indexing progress per repository.`,
    { retryable: true },
  );
}

/** The list tools whose answers carry `index_age` (src/search/freshness.ts). */
const AGED_TOOLS = new Set(['search_code', 'search_symbols', 'search_files', 'find_references']);

function indexState(r: RepoStatus): IndexState {
  if (r.state === 'ready') return 'current';
  if (r.state === 'indexing') return 'indexing';
  if (r.state === 'error') return 'failed';
  return 'queued';
}

function indexAge(r: RepoStatus): RepoIndexAge {
  const state = indexState(r);
  const age = ageSeconds(r.indexed_at);
  return {
    repo: r.name,
    ...(r.indexed_at && r.has_index ? { index_time: r.indexed_at } : {}),
    ...(age !== undefined && r.has_index ? { index_age_s: age } : {}),
    state,
    ...(state === 'indexing' || state === 'queued' ? { retry_after_s: Math.round(retryAfterMs(r) / 1000) } : {}),
  };
}

/** Results came back, but some repositories the call covers have no index yet: the answer is partial, and says when to retry. */
function pendingPartial(pending: RepoStatus[]): Partial {
  const indexing = pending.filter((r) => r.state !== 'error');
  const what = pending.map(describeRepo).join('; ');
  const one = pending.length === 1;
  const reason = `${one ? 'a repository this call covers is' : `${pending.length} repositories this call covers are`} not indexed yet, so ${one ? 'its' : 'their'} results are missing (${what})`;
  if (!indexing.length) {
    return { reason, hint: "Fix the cause named above (the repository stays listed and is indexed again when it changes); get_health shows each repository's state." };
  }
  const wait = Math.max(...indexing.map(retryAfterMs));
  return { reason, hint: `Retry the same call in about ${roughly(wait)} for the whole answer; get_health shows indexing progress per repository.` };
}

function markPartial(out: Record<string, unknown>, p: Partial): void {
  const prev = out.partial as Partial | undefined;
  out.partial = prev ? { reason: `${prev.reason}; ${p.reason}`, hint: `${prev.hint} ${p.hint}` } : p;
  // Counts that leave out a repository are lower bounds.
  if (out.stats && typeof out.stats === 'object' && 'complete' in out.stats) out.stats = { ...out.stats, complete: false };
}

/**
 * Before a tool's answer goes out: an error to give instead, or a line to add to its text. The
 * answer itself is completed in place: `index_age` of search answers and `index_state` of
 * list_repos entries, and `partial` (with `stats.complete` false) when results came back while
 * a repository the call covers is still waiting for its first index.
 */
export function localAnswer(status: SupervisorStatus | undefined, tool: string, args: unknown, out: Record<string, unknown>): { error?: ToolError; note?: string } {
  if (!status || !REPO_TOOLS.has(tool)) return {};
  const a = (args ?? {}) as Record<string, unknown>;
  if (status.starting && isEmpty(out)) {
    return {
      error: new ToolError('UNAVAILABLE', 'the local index service is starting: the answer may be incomplete', 'Retry the same call in about 1 s; get_health shows indexing progress per repository.', {
        retryable: true,
      }),
    };
  }
  const mine = covered(status.repos, a);
  const pending = mine.filter((r) => !r.has_index);
  if (pending.length && isEmpty(out)) return { error: notIndexed(pending) };
  if (pending.length) markPartial(out, pendingPartial(pending));
  // How old the index is, for the repositories the answer shows (all covered ones for list_repos).
  const shown = new Set<string>();
  const collect = (v: unknown) => {
    if (Array.isArray(v)) for (const x of v) if (x && typeof x === 'object' && typeof (x as { repo?: unknown }).repo === 'string') shown.add((x as { repo: string }).repo);
  };
  for (const k of ['results', 'symbols', 'files', 'usages', 'definitions']) collect(out[k]);
  if (typeof out.repo === 'string') shown.add(out.repo);
  if (tool === 'list_repos') for (const r of mine) shown.add(r.name);
  const seen = status.repos.filter((r) => shown.has(r.name) && r.has_index);
  if (AGED_TOOLS.has(tool)) out.index_age = [...seen, ...pending].map(indexAge);
  if (tool === 'list_repos' && Array.isArray(out.repos)) {
    const byName = new Map(status.repos.map((r) => [r.name, r]));
    out.repos = (out.repos as { name: string; index_time?: string }[]).map((e) => {
      const r = byName.get(e.name);
      const age = ageSeconds(e.index_time);
      return { ...e, ...(age !== undefined ? { index_age_s: age } : {}), ...(r ? { index_state: indexState(r) } : {}) };
    });
  }
  const parts = seen.map(age);
  for (const r of pending) parts.push(describeRepo(r));
  return parts.length ? { note: `index: ${parts.join('; ')}` } : {};
}

/** A file not found in a repository that is not indexed yet is "not yet", not "no such file". */
export function localError(status: SupervisorStatus | undefined, tool: string, args: unknown, err: unknown): ToolError | undefined {
  if (!status || !REPO_TOOLS.has(tool) || !(err instanceof ToolError) || err.code !== 'NOT_FOUND') return undefined;
  const pending = covered(status.repos, (args ?? {}) as Record<string, unknown>).filter((r) => !r.has_index);
  return pending.length ? notIndexed(pending) : undefined;
}

function age(r: RepoStatus): string {
  const when = r.indexed_at ? `indexed ${roughly(Date.now() - Date.parse(r.indexed_at))} ago` : 'index age unknown';
  if (r.state === 'indexing') return `${r.name} ${when}, re-indexing now (~${r.progress?.percent ?? 0}%)`;
  if (r.state === 'error') return `${r.name} ${when}; re-indexing failed: ${r.error ?? ''}`;
  return `${r.name} ${when}${r.state === 'ready' ? ', current' : ''}`;
}

/** get_health's `indexing` field: the supervisor's view of every listed repository. */
export function localIndexing(s: SupervisorStatus | undefined): LocalIndexing | undefined {
  if (!s) return undefined;
  return {
    ...(s.starting ? { starting: true } : {}),
    list: s.list,
    list_errors: s.list_errors,
    repos: s.repos.map((r) => ({
      name: r.name,
      dir: r.dir,
      kind: r.kind,
      state: r.state,
      has_index: r.has_index,
      ...(r.indexed_at ? { indexed_at: r.indexed_at, index_age_s: Math.round((Date.now() - Date.parse(r.indexed_at)) / 1000) } : {}),
      ...(r.progress ? { progress: r.progress } : {}),
      ...(r.error ? { error: r.error } : {}),
    })),
  };
}

export interface LocalIndexing {
  starting?: boolean;
  list: string;
  list_errors: string[];
  repos: {
    name: string;
    dir: string;
    kind: 'git' | 'dir';
    state: RepoStatus['state'];
    has_index: boolean;
    indexed_at?: string;
    index_age_s?: number;
    progress?: NonNullable<RepoStatus['progress']>;
    error?: string;
  }[];
}
