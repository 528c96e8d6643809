import type { Window } from './window-cache.js';

/**
 * Whether a query is crowded: Zoekt stopped its ranked window's first round at the match budget
 * with fewer files than a page and one more (`floor`), or the window's match cap ran out within
 * them (`e`, `.`, `the`: thousands of matches per file). Ranking such a query a page at a time
 * would take a request per file or two; it is walked by path instead (file-walk.ts). Decided from
 * the first round, which the index and the arguments fix: where the cap runs out does not depend
 * on how many files the round asked for, once that is at least the floor.
 */
export function crowded(first: Window, floor: number): boolean {
  if (first.stats.stopped?.cause !== 'match_limit') return false;
  if (first.stats.fileCount < floor) return true;
  const cut = first.cutAt;
  if (cut === undefined) return false;
  return first.files.filter((f) => f.score > cut).length < Math.min(floor, first.size);
}
