/**
 * Zoekt searches as the tools need them: a ranked window of `size` files for a query, served
 * from the window cache when an earlier call already fetched enough of it.
 */
import type { ZoektClient } from '../zoekt/client.js';
import type { FileHit, RepoListResult } from '../zoekt/wire.js';
import { RepoScope } from './scope.js';
import { compareStrings, fetchPage, type Page, type PagingOrder } from './paging.js';
import { WindowCache, type Window } from './window-cache.js';

/** Pages of files fetch this many pages at once, so the next page usually comes from the cache. */
export const PREFETCH_PAGES = 2;

/** Files by Zoekt's score, then repo and path: one total order across calls and shards. */
export const FILE_ORDER: PagingOrder<FileHit> = {
  score: (f) => f.score,
  tieBreak: (a, b) => compareStrings(a.repo, b.repo) || compareStrings(a.path, b.path),
};

export interface WindowRequest {
  query: string;
  size: number;
  contextLines?: number;
  signal?: AbortSignal | undefined;
  /**
   * Ask Zoekt even if a cached window would do. First pages are always fresh, so a repeated
   * search sees index updates and a stopped Zoekt; the cache only serves later pages.
   */
  fresh?: boolean;
}

const windowKey = (req: Omit<WindowRequest, 'size'>) => `${req.contextLines ?? 0}\u0000${req.query}`;

export class Searcher {
  constructor(
    readonly zoekt: ZoektClient,
    private readonly cache: WindowCache = new WindowCache(),
    readonly scope: RepoScope = RepoScope.ALL,
  ) {}

  /**
   * The query as it is sent: confined to the allowed repositories. Tools report this text; they
   * pass the unconfined query to the methods below, which confine it exactly once.
   */
  confine(query: string): string {
    return this.scope.confine(query);
  }

  async window(req: WindowRequest): Promise<Window> {
    const key = windowKey(req);
    const cached = req.fresh ? undefined : this.cache.get(key, req.size);
    if (cached) return cached;
    const result = await this.zoekt.search({ query: this.confine(req.query), maxDocs: req.size, contextLines: req.contextLines ?? 0, signal: req.signal });
    // The query already confines the search; this is the second lock.
    const files = result.files.filter((f) => this.scope.allows(f.repo));
    const window: Window = { files, size: req.size, exhausted: result.files.length < req.size, stats: result.stats };
    this.cache.set(key, window);
    return window;
  }

  /** Files with their whole content (never cached: get_file reads the index as it is now). */
  async wholeFiles(query: string, maxDocs: number, signal?: AbortSignal): Promise<FileHit[]> {
    const result = await this.zoekt.search({ query: this.confine(query), maxDocs, whole: true, signal });
    return result.files.filter((f) => this.scope.allows(f.repo));
  }

  /** Indexed repositories matching `query` (a `repo:` filter, or '' for all), within the scope. */
  async list(query: string, signal?: AbortSignal): Promise<RepoListResult> {
    const result = await this.zoekt.list(this.confine(query), signal);
    return { ...result, repos: result.repos.filter((r) => this.scope.allows(r.name)) };
  }

  /** The cached window of a query, whatever its size, if any. */
  peek(req: Omit<WindowRequest, 'size'>): Window | undefined {
    return req.fresh ? undefined : this.cache.peek(windowKey(req));
  }

  /** One page of files in the stable order, and the last window it was cut from. */
  async filePage(query: Omit<WindowRequest, 'size' | 'fresh'>, offset: number, limit: number): Promise<{ page: Page<FileHit>; window: Window }> {
    const req = { ...query, fresh: offset === 0 };
    let last = this.peek(req);
    const cached = last && { items: last.files, exhausted: last.exhausted };
    const page = await fetchPage(
      async (size) => {
        last = await this.window({ ...req, size });
        return { items: last.files, exhausted: last.exhausted };
      },
      offset,
      limit,
      FILE_ORDER,
      PREFETCH_PAGES,
      cached,
    );
    return { page, window: last! };
  }
}
