/**
 * How fresh the local index is, in tool answers, when the server runs under the local serve
 * command (and only then). Each tool declares what it reads (`reads` in its definition: which
 * repositories its arguments cover, which ones its answer shows, where it says how old they are);
 * this module, given what the local serve command reports of its index (LocalIndex), then:
 * - turns an empty answer, or a file not found, while a repository the call covers has no index
 *   yet into UNAVAILABLE, retryable, saying how far indexing is and when to retry;
 * - marks an answer with results partial while a repository it covers has no index yet;
 * - says how old the index of each repository the answer shows is, and whether it holds the code
 *   on disk (`current`) or is behind it, since when (index_age, index_state, and a line of text).
 */
import { ToolError } from '../errors.js';
import type { Partial } from '../search/engine/completeness.js';
import { ageSeconds, type IndexState, type RepoIndexAge } from '../search/vocab/freshness.js';
import { repoGlobToRegex } from '../patterns/globs.js';
import { describeRepo, listFix, retryAfterMs, roughly, type LocalIndex, type RepoIndex } from '../search/vocab/local-index.js';

/**
 * What a tool reads of the index, for this module: declared by each tool that reads repositories
 * (get_health reads none).
 */
export interface RepoReads<A = never, O = never> {
  /** The repositories the arguments select: one by name, some by globs, or (undefined) all. */
  covers(args: A): { repo: string } | { globs: readonly string[] } | undefined;
  /** The repositories the answer shows. */
  shows(out: O): Iterable<string>;
  /** Nothing found: a repository not indexed yet may be why. */
  empty(out: O): boolean;
  /** Where the answer says how old each index is: a page's `index_age`, list_repos' entries, or only the text. */
  ages: 'index_age' | 'entries' | 'text';
}

type Item = { repo?: unknown };
const itemsOf = (out: Record<string, unknown>, key: string): Item[] => (Array.isArray(out[key]) ? (out[key] as Item[]) : []);

/** A page of a search tool: filtered by `repos` globs; its lists' items name their repository. */
export function pageReads(...lists: string[]): RepoReads<{ repos?: readonly string[] }, Record<string, unknown>> {
  return {
    covers: (a) => (a.repos?.length ? { globs: a.repos } : undefined),
    *shows(out) {
      for (const k of lists) for (const x of itemsOf(out, k)) if (typeof x.repo === 'string') yield x.repo;
    },
    empty: (out) => lists.every((k) => itemsOf(out, k).length === 0),
    ages: 'index_age',
  };
}

/** A tool about one file of one repository (`repo` argument). */
export const fileReads: RepoReads<{ repo: string }, { repo?: string }> = {
  covers: (a) => ({ repo: a.repo }),
  shows: (out) => (typeof out.repo === 'string' ? [out.repo] : []),
  empty: () => false,
  ages: 'text',
};

/** The listed repositories a call covers: those its `repos` globs or `repo` name select, else all. */
function covered(repos: RepoIndex[], reads: RepoReads<unknown, unknown>, args: unknown): RepoIndex[] {
  let c: ReturnType<typeof reads.covers>;
  try {
    // Arguments as sent (an error's call may not have passed validation): read with care.
    c = reads.covers(args && typeof args === 'object' ? args : {});
  } catch {
    return repos;
  }
  if (!c) return repos;
  if ('repo' in c) return repos.filter((r) => r.name === c.repo);
  if (!Array.isArray(c.globs)) return repos;
  const res = c.globs.flatMap((g) => {
    try {
      return [new RegExp(repoGlobToRegex(g))];
    } catch {
      return [];
    }
  });
  return repos.filter((r) => res.some((re) => re.test(r.name)));
}

function notIndexed(pending: RepoIndex[]): ToolError {
  const indexing = pending.filter((r) => r.state !== 'error');
  const wait = Math.max(...(indexing.length ? indexing : pending).map((r) => retryAfterMs(r)));
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

/** Seconds since the first change on disk the index does not hold yet, when it is behind. */
function behindSeconds(r: RepoIndex): number | undefined {
  return r.has_index ? ageSeconds(r.changed_at) : undefined;
}

function indexState(r: RepoIndex): IndexState {
  if (r.state === 'indexing') return 'indexing';
  if (r.state === 'error') return 'failed';
  if (r.state === 'ready') return r.changed_at ? 'behind' : 'current';
  return 'queued';
}

function indexAge(r: RepoIndex): RepoIndexAge {
  const state = indexState(r);
  const age = ageSeconds(r.indexed_at);
  const behind = behindSeconds(r);
  const checked = ageSeconds(r.checked_at);
  return {
    repo: r.name,
    ...(r.indexed_at && r.has_index ? { index_time: r.indexed_at } : {}),
    ...(age !== undefined && r.has_index ? { index_age_s: age } : {}),
    state,
    ...(behind !== undefined ? { behind_s: behind } : {}),
    ...(state === 'current' && checked !== undefined ? { checked_s: checked } : {}),
    ...(state === 'indexing' || state === 'queued' || state === 'behind' ? { retry_after_s: Math.round(retryAfterMs(r) / 1000) } : {}),
  };
}

/** Results came back, but some repositories the call covers have no index yet: the answer is partial, and says when to retry. */
function pendingPartial(pending: RepoIndex[]): Partial {
  const indexing = pending.filter((r) => r.state !== 'error');
  const what = pending.map(describeRepo).join('; ');
  const one = pending.length === 1;
  const reason = `${one ? 'a repository this call covers is' : `${pending.length} repositories this call covers are`} not indexed yet, so ${one ? 'its' : 'their'} results are missing (${what})`;
  if (!indexing.length) {
    return { reason, hint: "Fix the cause named above (the repository stays listed and is indexed again when it changes); get_health shows each repository's state." };
  }
  const wait = Math.max(...indexing.map((r) => retryAfterMs(r)));
  return { reason, hint: `Retry the same call in about ${roughly(wait)} for the whole answer; get_health shows indexing progress per repository.` };
}

function markPartial(out: Record<string, unknown>, p: Partial): void {
  const prev = out.partial as Partial | undefined;
  out.partial = prev ? { reason: `${prev.reason}; ${p.reason}`, hint: `${prev.hint} ${p.hint}` } : p;
  // Counts that leave out a repository are lower bounds.
  if (out.stats && typeof out.stats === 'object' && 'complete' in out.stats) out.stats = { ...out.stats, complete: false };
}

/**
 * Before a tool that reads the index runs: the error every such call answers while nothing can be
 * answered from the local index (its own Zoekt cannot serve, or its list names no folder there is).
 */
export function localRefusal(reads: RepoReads<unknown, unknown> | undefined, status: LocalIndex | undefined): ToolError | undefined {
  const u = status?.unavailable;
  if (!reads || !u) return undefined;
  return new ToolError(u.code, u.message, u.hint, { retryable: u.retryable });
}

/** Entries of the list that are not searched, while the others are: an answer from those is partial. */
function listPartial(status: LocalIndex): Partial {
  const n = status.list_errors.length;
  return {
    reason: `${n === 1 ? 'an entry' : `${n} entries`} of ${status.list} ${n === 1 ? 'is' : 'are'} not searched (${status.list_errors.join('; ')})`,
    hint: `The other repositories were searched. Fix ${n === 1 ? 'that entry' : 'those entries'}: ${listFix(status.list)}; get_health lists ${n === 1 ? 'it' : 'them'}.`,
  };
}

/**
 * Before a tool's answer goes out: an error to give instead, or a line to add to its text. The
 * answer itself is completed in place: how old the index of each repository it shows is (as the
 * tool declares), and `partial` (with `stats.complete` false) when results came back while a
 * repository the call covers is still waiting for its first index.
 */
export function freshAnswer(reads: RepoReads<unknown, unknown> | undefined, status: LocalIndex | undefined, args: unknown, out: Record<string, unknown>): { error?: ToolError; note?: string } {
  if (!status || !reads) return {};
  const empty = reads.empty(out);
  if (status.starting && empty) {
    return {
      error: new ToolError('UNAVAILABLE', 'the local index service is starting: the answer may be incomplete', 'Retry the same call in about 1 s; get_health shows indexing progress per repository.', {
        retryable: true,
      }),
    };
  }
  const mine = covered(status.repos, reads, args);
  const pending = mine.filter((r) => !r.has_index);
  if (pending.length && empty) return { error: notIndexed(pending) };
  if (pending.length) markPartial(out, pendingPartial(pending));
  // A bad entry has no repository name: any page or listing may be missing its results. An
  // answer about one repository named in the call is whole; its text still says it.
  if (status.list_errors.length && reads.ages !== 'text') markPartial(out, listPartial(status));
  // How old the index is, for the repositories the answer shows (every covered one for a
  // listing), and for every covered one that is behind the files on disk: its results, or their
  // absence, may be out of date.
  const shown = new Set(reads.shows(out));
  for (const r of mine) if (reads.ages === 'entries' || indexState(r) !== 'current') shown.add(r.name);
  const seen = status.repos.filter((r) => shown.has(r.name) && r.has_index);
  if (reads.ages === 'index_age') out.index_age = [...seen, ...pending].map(indexAge);
  if (reads.ages === 'entries' && Array.isArray(out.repos)) {
    const byName = new Map(status.repos.map((r) => [r.name, r]));
    out.repos = (out.repos as { name: string; index_time?: string }[]).map((e) => {
      const r = byName.get(e.name);
      const age = ageSeconds(e.index_time);
      const behind = r ? behindSeconds(r) : undefined;
      return { ...e, ...(age !== undefined ? { index_age_s: age } : {}), ...(r ? { index_state: indexState(r) } : {}), ...(behind !== undefined ? { behind_s: behind } : {}) };
    });
  }
  const parts = seen.map(age);
  for (const r of pending) parts.push(describeRepo(r));
  const notes = [...(parts.length ? [`index: ${parts.join('; ')}`] : []), ...status.list_errors.map((e) => `not searched: ${e}`)];
  return notes.length ? { note: notes.join('\n') } : {};
}

/** A file not found in a repository that is not indexed yet is "not yet", not "no such file". */
export function freshError(reads: RepoReads<unknown, unknown> | undefined, status: LocalIndex | undefined, args: unknown, err: unknown): ToolError | undefined {
  if (!status || !reads || !(err instanceof ToolError) || err.code !== 'NOT_FOUND') return undefined;
  const pending = covered(status.repos, reads, args).filter((r) => !r.has_index);
  return pending.length ? notIndexed(pending) : undefined;
}

function age(r: RepoIndex): string {
  const when = r.indexed_at ? `indexed ${roughly(Date.now() - Date.parse(r.indexed_at))} ago` : 'index age unknown';
  const behind = behindSeconds(r);
  const lag = behind !== undefined ? `, behind the files on disk changed ${roughly(behind * 1000)} ago` : '';
  if (r.state === 'indexing') return `${r.name} ${when}${lag}, re-indexing now (~${r.progress?.percent ?? 0}%)`;
  if (r.state === 'error') return `${r.name} ${when}${lag}; re-indexing failed: ${r.error ?? ''}`;
  if (r.state === 'ready' && lag) return `${r.name} ${when}${lag}, re-indexing soon`;
  return `${r.name} ${when}${r.state === 'ready' ? ', current' : ''}`;
}

/** get_health's `indexing` field: the supervisor's view of every listed repository. */
export function localIndexing(s: LocalIndex | undefined): LocalIndexing | undefined {
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
      ...(behindSeconds(r) !== undefined ? { behind_s: behindSeconds(r) } : {}),
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
    state: RepoIndex['state'];
    has_index: boolean;
    indexed_at?: string;
    index_age_s?: number;
    behind_s?: number;
    progress?: NonNullable<RepoIndex['progress']>;
    error?: string;
  }[];
}
