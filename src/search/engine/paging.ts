/**
 * One stable order over Zoekt's ranked results, and the page of it at an offset.
 *
 * Zoekt ranks by score and cuts the list at MaxDocDisplayCount, but breaks ties between equal
 * scores differently from call to call (shards answer in any order). We sort by score, then by
 * a total tie-break (repo, path, line …), and we only trust a window whose cut falls at a strict
 * drop in score below the page's last item: then the page is exactly a slice of the one global
 * order, whichever window size produced it.
 */

export interface RankedWindow<T> {
  items: T[];
  /** True when Zoekt had nothing beyond these items. */
  exhausted: boolean;
  /**
   * The match cap ran out at this score (Window.cutAt): only items scored above it are known,
   * and no larger window would show more. The ranked order ends there.
   */
  cutAt?: number;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  /** All ranked items fetched (sorted); lets a caller cache them for later pages. */
  window: RankedWindow<T>;
}

export interface PagingOrder<T> {
  score: (item: T) => number;
  /** Total tie-break among equal scores. */
  tieBreak: (a: T, b: T) => number;
}

const MAX_GROWTH_ROUNDS = 4;

/** A fetched window in the total order; a cut one keeps only what lies above its cut. */
function ranked<T>(w: RankedWindow<T>, order: PagingOrder<T>): RankedWindow<T> {
  if (w.cutAt === undefined) return { items: sortRanked(w.items, order), exhausted: w.exhausted };
  const cutAt = w.cutAt;
  return { items: sortRanked(w.items.filter((i) => order.score(i) > cutAt), order), exhausted: false, cutAt };
}

export function sortRanked<T>(items: T[], order: PagingOrder<T>): T[] {
  return [...items].sort((a, b) => order.score(b) - order.score(a) || order.tieBreak(a, b));
}

/** Whether `window` (sorted) decides the page [offset, offset+limit) for certain. */
function decides<T>(window: RankedWindow<T>, offset: number, limit: number, order: PagingOrder<T>): boolean {
  if (window.exhausted) return true;
  // A cut window holds only what lies above its cut, every item of it in its final place.
  if (window.cutAt !== undefined) return window.items.length >= offset + limit;
  const { items } = window;
  if (items.length <= offset + limit) return false;
  const lastOnPage = items[offset + limit - 1]!;
  const lastFetched = items[items.length - 1]!;
  return order.score(lastFetched) < order.score(lastOnPage);
}

export interface FetchOptions<T> {
  /** Pages fetched at once, so the window cache can serve the next ones. */
  prefetchPages?: number;
  /** An earlier call's window; the page is cut from it when it decides it. */
  cached?: (RankedWindow<T> & { size: number }) | undefined;
  /** The largest window worth asking for (the caller never pages past it). */
  maxSize?: number;
}

/**
 * Cuts the page from `cached` when it decides it; otherwise fetches a window of
 * `offset + limit * prefetchPages + 1` items, at least twice the cached one (so a walk over
 * every page asks Zoekt a handful of times, not once per page), growing it while a run of equal
 * scores crosses its cut.
 */
export async function fetchPage<T>(
  fetchWindow: (size: number) => Promise<RankedWindow<T>>,
  offset: number,
  limit: number,
  order: PagingOrder<T>,
  opts: FetchOptions<T> = {},
): Promise<Page<T>> {
  const { cached } = opts;
  if (cached) {
    const window = ranked(cached, order);
    if (decides(window, offset, limit, order)) return pageOf(window, offset, limit);
  }
  const cap = (n: number) => (opts.maxSize === undefined ? n : Math.max(offset + limit + 1, Math.min(n, opts.maxSize)));
  let size = cap(Math.max(offset + limit * (opts.prefetchPages ?? 1) + 1, 2 * (cached?.size ?? 0)));
  let window: RankedWindow<T> = { items: [], exhausted: true };
  for (let round = 0; round <= MAX_GROWTH_ROUNDS; round++) {
    const fetched = await fetchWindow(size);
    window = ranked(fetched, order);
    // A cut window went as far as the rounds of one call go: a larger size would not help.
    if (decides(window, offset, limit, order) || window.cutAt !== undefined) break;
    size *= 2;
  }
  return pageOf(window, offset, limit);
}

export function pageOf<T>(window: RankedWindow<T>, offset: number, limit: number): Page<T> {
  const items = window.items.slice(offset, offset + limit);
  const hasMore = window.items.length > offset + limit || (!window.exhausted && (items.length === limit || window.cutAt !== undefined));
  return { items, hasMore, window };
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
