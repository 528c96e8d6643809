/**
 * list_repos: what is indexed, sorted by name (Zoekt's /api/list answers in random order), one
 * page at a time.
 */
import type { RepoInfo } from '../zoekt/wire.js';
import * as q from '../zoekt/query.js';
import { paginate } from './page.js';
import { repoGlobToRegex } from './globs.js';
import { compareStrings } from './paging.js';
import type { Searcher } from './searcher.js';

export const LIST_REPOS = 'list_repos';

export interface ListReposArgs {
  filter?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface RepoEntry {
  name: string;
  url?: string;
  branches: { name: string; version: string }[];
  index_time?: string;
  has_symbols: boolean;
  files: number;
  content_bytes: number;
}

export interface ListReposOutput {
  repos: RepoEntry[];
  totals: { repos: number; shards: number; documents: number; index_bytes: number; content_bytes: number };
  next_cursor?: string;
  hint?: string;
}

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
  return entry;
}

export async function listRepos(searcher: Searcher, args: ListReposArgs, signal?: AbortSignal): Promise<ListReposOutput> {
  const limit = args.limit ?? LIST_REPOS_DEFAULTS.limit;
  const query = args.filter !== undefined ? q.render(q.repo(repoGlobToRegex(args.filter))) : '';
  let totals: ListReposOutput['totals'] | undefined;
  const page = await paginate({
    tool: LIST_REPOS,
    args: { ...args },
    limit,
    fetch: async (offset) => {
      const listed = await searcher.list(query, signal);
      const all = [...listed.repos].sort((a, b) => compareStrings(a.name, b.name));
      totals = {
        repos: all.length,
        shards: listed.stats.shards,
        documents: listed.stats.documents,
        index_bytes: listed.stats.indexBytes,
        content_bytes: listed.stats.contentBytes,
      };
      return { items: all.slice(offset, offset + limit).map(toRepoEntry), more: all.length > offset + limit, complete: true };
    },
    emptyHint: () =>
      args.filter !== undefined
        ? `No indexed repository matches '${args.filter}'${searcher.scope.restricted ? ` within this server's repositories (${searcher.scope.describe()})` : ''}. A bare name matches the last part of a name ('webapp'); a glob with '/' matches whole names ('github.com/acme/*'). Call list_repos without filter to see every name.`
        : searcher.scope.restricted
          ? `No indexed repository matches this server's --allow-repos (${searcher.scope.describe()}).`
          : 'Zoekt has no repositories indexed yet: index some (zoekt-git-index or zoekt-index) and check get_health.',
  });
  const out: ListReposOutput = { repos: page.items, totals: totals! };
  if (page.next_cursor) out.next_cursor = page.next_cursor;
  if (page.hint) out.hint = page.hint;
  return out;
}
