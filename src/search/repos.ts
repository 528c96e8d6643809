/**
 * list_repos: what is indexed, sorted by name (Zoekt's /api/list answers in random order), one
 * page at a time.
 */
import type { RepoInfo } from '../zoekt/wire.js';
import * as q from '../zoekt/query.js';
import { z } from 'zod';
import { missingBackends } from './engine/completeness.js';
import { inTime, LanguageCoverage, repoCoverage } from './definitions/coverage.js';
import { IndexState } from './vocab/freshness.js';
import { paginate, pagingFields, pagingOutput } from './engine/page.js';
import { repoGlobToRegex } from '../patterns/globs.js';
import { compareStrings } from './engine/paging.js';
import type { Searcher } from './engine/searcher.js';
import { indexSkipped, NotIndexedCounts } from './engine/skipped.js';
import { fitPage, halve, RESULTS_DIAL, truncatedField, type Budget } from './engine/budget.js';

export const LIST_REPOS = 'list_repos';

export interface ListReposArgs {
  filter?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

const RepoEntry = z.object({
  name: z.string(),
  url: z.string().optional(),
  branches: z.array(z.object({ name: z.string(), version: z.string() })),
  index_time: z.string().optional(),
  /**
   * Only under the local serve command (elsewhere index_time says it, and answers stay the same
   * from one second to the next): seconds since index_time, and whether that index is current.
   */
  index_age_s: z.number().int().optional().describe('only under the local serve command: seconds since index_time'),
  index_state: IndexState.optional(),
  behind_s: z.number().int().optional(),
  has_symbols: z.boolean(),
  /**
   * Per language: files, files with at least one symbol, and the parser that produced them
   * (search/definitions/coverage.ts). Absent while it is still being read from the index.
   */
  symbols: z.array(LanguageCoverage).optional(),
  files: z.number().int(),
  /** Files the indexer skipped (their names are indexed, their text is not), by reason. Absent when none, or while still being read. */
  not_indexed: NotIndexedCounts.optional(),
  content_bytes: z.number().int(),
  /** With several Zoekt backends: the one that serves the repository. */
  backend: z.string().optional(),
});
export type RepoEntry = z.infer<typeof RepoEntry>;

export const ListReposOutput = z.object({
  repos: z.array(RepoEntry),
  totals: z.object({ repos: z.number().int(), shards: z.number().int(), documents: z.number().int(), index_bytes: z.number().int(), content_bytes: z.number().int() }),
  ...truncatedField,
  ...pagingFields,
});
export type ListReposOutput = z.infer<typeof ListReposOutput>;

export const LIST_REPOS_DEFAULTS = { limit: 50 };

export function toRepoEntry(r: RepoInfo): RepoEntry {
  const entry: RepoEntry = {
    name: r.name,
    branches: r.branches,
    has_symbols: r.hasSymbols,
    files: r.stats.documents,
    content_bytes: r.stats.contentBytes,
  };
  if (r.url) entry.url = r.url;
  if (r.indexTime) entry.index_time = r.indexTime;
  if (r.backend) entry.backend = r.backend;
  return entry;
}

/** Repositories whose coverage is read at once. */
const COVERAGE_CONCURRENCY = 4;
/** Reading coverage stops this long before the call's deadline. */
const COVERAGE_MARGIN_MS = 250;

/**
 * Adds each repository's symbol coverage, as far as it can be read before the call's deadline;
 * a hint names those still being read (the reading goes on, and the next call has them).
 */
async function withCoverage(searcher: Searcher, entries: RepoEntry[], infos: Map<string, RepoInfo>): Promise<string | undefined> {
  const read = new Map<string, LanguageCoverage[]>();
  let next = 0;
  const reading = Promise.all(
    Array.from({ length: Math.min(COVERAGE_CONCURRENCY, entries.length) }, async () => {
      while (next < entries.length) {
        const entry = entries[next++]!;
        const info = infos.get(entry.name);
        if (info) read.set(entry.name, (await repoCoverage(searcher, info)).languages);
      }
    }),
  );
  await inTime(reading, COVERAGE_MARGIN_MS);
  for (const e of entries) {
    const coverage = read.get(e.name);
    if (coverage) e.symbols = coverage;
  }
  const missing = entries.filter((e) => !e.symbols).length;
  return missing ? `Symbol coverage of ${missing} repo(s) on this page is still being read from the index: call list_repos again for it.` : undefined;
}

/**
 * Adds each repository's skipped files, when they can be read before the call's deadline.
 * `all`: the whole index in scope when the call listed it (no filter), the index's generation.
 */
async function withSkipped(searcher: Searcher, entries: RepoEntry[], all: RepoInfo[] | undefined): Promise<void> {
  const skipped = await inTime(indexSkipped(searcher, all), COVERAGE_MARGIN_MS);
  if (!skipped) return;
  for (const e of entries) {
    const counts = skipped.byRepo.get(e.name);
    if (counts) e.not_indexed = counts;
  }
}

export async function listRepos(searcher: Searcher, args: ListReposArgs, budget: Budget<ListReposOutput>, signal?: AbortSignal): Promise<ListReposOutput> {
  const limit = args.limit ?? LIST_REPOS_DEFAULTS.limit;
  const query = args.filter !== undefined ? q.render(q.repo(repoGlobToRegex(args.filter))) : '';
  let totals: ListReposOutput['totals'] | undefined;
  const infos = new Map<string, RepoInfo>();
  const page = await paginate({
    tool: LIST_REPOS,
    cursors: searcher.cursors,
    args: { ...args },
    limit,
    fetch: async (offset) => {
      const listed = await searcher.list(query, signal);
      const all = [...listed.repos].sort((a, b) => compareStrings(a.name, b.name));
      for (const r of all) infos.set(r.name, r);
      totals = {
        repos: all.length,
        shards: listed.stats.shards,
        documents: listed.stats.documents,
        index_bytes: listed.stats.indexBytes,
        content_bytes: listed.stats.contentBytes,
      };
      const missing = listed.missing;
      return {
        items: all.slice(offset, offset + limit).map(toRepoEntry),
        more: all.length > offset + limit,
        complete: !missing,
        partial: missing && { reason: missingBackends(missing), hint: 'Call again in a few seconds for every repository; get_health shows each backend.' },
      };
    },
    emptyHint: () =>
      args.filter !== undefined
        ? `No indexed repository matches '${args.filter}'${searcher.scope.restricted ? ` within this server's repositories (${searcher.scope.describe()})` : ''}. A bare name matches the last part of a name ('webapp'); a glob with '/' matches whole names ('github.com/acme/*'). Call list_repos without filter to see every name.`
        : searcher.scope.restricted
          ? `No indexed repository matches ${searcher.scope.origin === '--allow-repos' ? "this server's --allow-repos" : searcher.scope.origin} (${searcher.scope.describe()}).`
          : 'Zoekt has no repositories indexed yet: index some (zoekt-git-index or zoekt-index) and check get_health.',
    narrowHint: "Ask for less: a narrower filter ('github.com/acme/*') or a lower limit.",
  });
  const [coverageHint] = await Promise.all([withCoverage(searcher, page.items, infos), withSkipped(searcher, page.items, args.filter === undefined ? [...infos.values()] : undefined)]);
  const make = (s: Record<'results' | 'languages', number>, truncated: ListReposOutput['truncated']): ListReposOutput => {
    const repos = page.items.slice(0, s.results).map((r) => (r.symbols && r.symbols.length > s.languages ? { ...r, symbols: r.symbols.slice(0, s.languages) } : r));
    const out: ListReposOutput = { repos, totals: totals!, ...(truncated ? { truncated } : {}), ...pagingOutput(page) };
    if (coverageHint) out.hint = [out.hint, coverageHint].filter(Boolean).join(' ');
    return out;
  };
  // A repository of many languages is one long entry: its languages (most files first) are cut last.
  const languages = Math.max(0, ...page.items.map((r) => r.symbols?.length ?? 0));
  return fitPage(page, make, { languages }, [...RESULTS_DIAL, { name: 'languages', down: halve(1) }], budget);
}
