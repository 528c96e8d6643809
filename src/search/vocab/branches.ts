/**
 * A branch asked for by name, as the index knows it. zoekt-git-index names the branch it was given
 * (`-branches main,dev`), and by default that is `HEAD`: a repository indexed that way has no
 * branch called `main`, though `main` is what HEAD was. Asking it for `main` would find nothing
 * and say nothing; here it is searched as `HEAD`, and the answer says so.
 */
import * as q from '../../zoekt/query.js';
import type { RepoListResult } from '../../zoekt/wire.js';

/** What a branch is resolved through: the indexed repositories a `repo:` query names (the searcher, within its scope). */
export interface RepoLister {
  list(query: string, signal?: AbortSignal): Promise<RepoListResult>;
}

export interface BranchChoice {
  /** The branch to search. */
  branch: string;
  /** What the answer should say about the choice. */
  note?: string;
  /** Every branch name the repositories in scope are indexed under (for a hint when nothing is found). */
  indexed: string[];
}

const HEAD = 'HEAD';

/** `repos`: the repositories the search is limited to (their `repo:` filter), or none for all. */
export async function resolveBranch(searcher: RepoLister, branch: string, repos: q.QueryPart[], signal?: AbortSignal): Promise<BranchChoice> {
  const listed = await searcher.list(repos.length ? q.render(q.and(...repos)) : '', signal);
  const indexed = [...new Set(listed.repos.flatMap((r) => r.branches.map((b) => b.name)))].sort();
  const headOnly = listed.repos.filter((r) => r.branches.length === 1 && r.branches[0]!.name === HEAD);
  // Zoekt's branch: matches names that contain the text.
  const named = listed.repos.filter((r) => r.branches.some((b) => b.name.includes(branch)));
  if (branch === HEAD || headOnly.length === 0) return { branch, indexed };
  if (named.length === 0 && headOnly.length === listed.repos.length) {
    return {
      branch: HEAD,
      indexed,
      note: `No repository in scope has a branch '${branch}': ${headOnly.length === 1 ? `${headOnly[0]!.name} is` : `all ${headOnly.length} are`} indexed as '${HEAD}' (the branch checked out when indexed), which was searched instead.`,
    };
  }
  const names = headOnly.slice(0, 3).map((r) => r.name).join(', ');
  return {
    branch,
    indexed,
    note: `${headOnly.length} repositor${headOnly.length === 1 ? 'y is' : 'ies are'} indexed only as '${HEAD}' (${names}${headOnly.length > 3 ? ', …' : ''}) and ${headOnly.length === 1 ? 'was' : 'were'} not searched for branch '${branch}': call again with branch '${HEAD}' for ${headOnly.length === 1 ? 'it' : 'them'}.`,
  };
}
