/**
 * Zoekt searches as the tools need them: a ranked window of `size` files for a query, served
 * from the window cache when an earlier call already fetched enough of it.
 */
import * as q from '../../zoekt/query.js';
import { createHash } from 'node:crypto';
import { ToolError } from '../../errors.js';
import type { ZoektFleet } from '../../zoekt/fleet.js';
import { missingBackends } from './completeness.js';
import { withoutPlaceholder, type FileHit, type MissingBackend, type RepoListResult, type SearchStatsOut } from '../../zoekt/wire.js';
import { CursorSigner } from './cursor.js';
import { randomBytes } from 'node:crypto';
import { RepoScope } from './scope.js';
import { compareStrings, fetchPage, type Page, type PagingOrder } from './paging.js';
import { WindowCache, type Window } from './window-cache.js';
import { crowded } from './crowded.js';
import type { DefinitionsIndex } from '../definitions/definitions-index.js';

/**
 * How long a capped window's rounds go on before a call settles for a short page (Searcher.
 * cappedWindow): a fifth of the default deadline, so a page of files with thousands of matches
 * each answers in time even on a busy machine, and says where to go on.
 */
const ROUNDS_MS = 2_000;

/**
 * Pages of files past the first fetch this many pages at once, so that a walk's next page usually
 * comes from the cache. A first page asks Zoekt only for the files it shows and one more: most
 * searches read no further, and reading for a second page doubled what Zoekt sent them. Not
 * under a match cap (search_code): a window too small for a tie at its end is asked for again,
 * larger, and a capped one then repeats its rounds (`e` over the bench corpus: 24 requests
 * instead of 14).
 */
export const PREFETCH_PAGES = 2;

/** Searchers confined to callers' scopes kept at once (Searcher.within). */
const MAX_VIEWS = 256;

/** One file of an answer: a path can stand twice when its content differs between branches. */
export const fileId = (f: FileHit): string => `${f.repo}\u0000${f.path}\u0000${f.version ?? ''}`;

/** Repo, path, version: the order of files among equal scores, and of a walk's path-ordered part. */
export const comparePaths = (a: FileHit, b: FileHit): number =>
  compareStrings(a.repo, b.repo) || compareStrings(a.path, b.path) || compareStrings(a.version ?? '', b.version ?? '');

/** Files by Zoekt's score, then repo and path: one total order across calls and shards. */
export const FILE_ORDER: PagingOrder<FileHit> = { score: (f) => f.score, tieBreak: comparePaths };

/** How far a walk over every page of an answer goes (see file-walk.ts). */
export interface WalkLimits {
  /** Files ordered by relevance before a walk turns to path order: well past any page size. */
  rankedFiles: number;
  /** The most files one walk over pages reaches. */
  walkFiles: number;
  /** How long the rounds of a capped window go on before a short page will do (default ROUNDS_MS). */
  roundsMs?: number;
}

export const WALK_LIMITS: WalkLimits = { rankedFiles: 200, walkFiles: 20_000 };

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
  /** The cache key, when it is not the query's ranked files (a listing, a block of a walk). */
  key?: string;
  /** Neither read from nor kept in the cache: a one-off read that no later page asks for again. */
  once?: boolean;
  /** Keep matches in the placeholders of skipped files (wire.ts, withoutPlaceholder): the search for them. */
  placeholders?: boolean;
  /**
   * Matches Zoekt sends at most, all files together (see SearchRequest.maxMatches): what keeps
   * one file with thousands of matches from filling the answer. The window then ends at `cutAt`.
   */
  maxMatches?: number | undefined;
  /** Zoekt's match budget per shard for this search, when smaller than the server's (SearchRequest.shardMatches). */
  shardMatches?: number | undefined;
  /**
   * Under `shardMatches`: a first round that found fewer files than this within the budget ends
   * the window there (its caller asks again under the whole budget), instead of going on in rounds.
   */
  sampledFloor?: number | undefined;
  /**
   * Under `shardMatches`: a crowded first round (file-walk.ts, crowded) ends the window there too,
   * since its caller walks the query by path instead.
   */
  crowdedWalk?: boolean | undefined;
  /** Under a match cap: rounds stop once this many files lie above the cut (the page's need). */
  minFiles?: number | undefined;
  /**
   * Under a match cap: after ROUNDS_MS, rounds stop once this many files lie above the cut (the
   * page's first file): a page of files with thousands of matches each comes short.
   */
  floorFiles?: number | undefined;
}

const windowKey = (req: Omit<WindowRequest, 'size'>) => {
  const cap = `${req.maxMatches ?? ''}\u0000${req.shardMatches ?? ''}${req.crowdedWalk ? '\u0000crowded' : ''}`;
  return req.key === undefined ? `ranked\u0000${req.contextLines ?? 0}\u0000${cap}\u0000${req.query}` : `${req.key}\u0000${cap}`;
};

const cutOf = (w: Window): { cutAt?: number } => (w.cutAt === undefined ? {} : { cutAt: w.cutAt });

export class Searcher {
  /** Cursors signed with the deployment's secret and bound to this scope. */
  readonly cursors: CursorSigner;
  private readonly scopeOf: () => RepoScope;

  /** `scope`: fixed (--allow-repos), or read at each use (the local serve command's list, which may change). */
  private readonly secret: string | Buffer;
  /** Searchers confined to a caller's repositories, by their scope's tag (see within). */
  private readonly views = new Map<string, { inner: RepoScope; searcher: Searcher }>();
  /** Set on a searcher confined to a caller's repositories: before every window cache key. */
  private keyPrefix = '';
  /** The searcher this one confines (within), whose definitions index it shares. */
  private root: Searcher = this;
  private ownDefinitions: DefinitionsIndex | undefined;

  /** The definitions index description search ranks by meaning with, when one is wired in. */
  get definitions(): DefinitionsIndex | undefined {
    return this.root.ownDefinitions;
  }

  set definitions(index: DefinitionsIndex | undefined) {
    this.root.ownDefinitions = index;
  }

  constructor(
    readonly zoekt: ZoektFleet,
    private readonly cache: WindowCache = new WindowCache(),
    scope: RepoScope | (() => RepoScope) = RepoScope.ALL,
    readonly walkLimits: WalkLimits = WALK_LIMITS,
    cursorSecret?: string | Buffer,
  ) {
    this.scopeOf = typeof scope === 'function' ? scope : () => scope;
    // Without a given key, cursors are good for this searcher's life.
    this.secret = cursorSecret ?? randomBytes(32);
    this.cursors = new CursorSigner(this.secret, () => this.scope.tag);
  }

  /**
   * This searcher confined further to `inner`, a caller's repositories (a signed-in user's): the
   * same backends, cache memory and cursor key, a scope that both allow, cursors bound to it, and
   * window cache keys of its own, so no answer kept for one scope is served in another. Kept per
   * scope (a few hundred at most), so what a searcher keeps per scope outlives the call.
   */
  within(inner: RepoScope): Searcher {
    const key = JSON.stringify(inner.tag);
    const kept = this.views.get(key);
    if (kept) return kept.searcher;
    // Narrowed again only when the outer scope changes (the local serve command's list).
    let made: { outer: RepoScope; scope: RepoScope } | undefined;
    const narrowed = () => {
      const outer = this.scope;
      if (made?.outer !== outer) made = { outer, scope: outer.narrow(inner) };
      return made.scope;
    };
    const searcher = new Searcher(this.zoekt, this.cache, narrowed, this.walkLimits, this.secret);
    searcher.keyPrefix = `scope\u0000${key}\u0000`;
    searcher.root = this.root;
    if (this.views.size >= MAX_VIEWS) this.views.delete(this.views.keys().next().value!);
    this.views.set(key, { inner, searcher });
    return searcher;
  }

  /** The repositories every answer is confined to, now. */
  get scope(): RepoScope {
    return this.scopeOf();
  }

  /**
   * The query as it is sent: confined to the allowed repositories. Tools report this text; they
   * pass the unconfined query to the methods below, which confine it exactly once.
   */
  confine(query: string): string {
    return this.scope.confine(query);
  }

  /**
   * The scope as Zoekt's own restriction (RepoIDs), a wall that holds whatever the query text
   * says: Zoekt ANDs it with the parsed query. Absent without a scope, and when the index's
   * repository IDs cannot tell the allowed repositories apart (then the query constraint and the
   * check of every answer remain).
   */
  private async scopeIds(signal?: AbortSignal): Promise<{ repoIds?: number[] }> {
    if (!this.scope.restricted) return {};
    const scope = this.scope;
    const repoIds = await this.zoekt.repoIdsOf((repo) => scope.allows(repo), signal, scope.names);
    return repoIds ? { repoIds } : {};
  }

  async window(req: WindowRequest & { repos?: string[] }): Promise<Window> {
    const key = this.keyPrefix + windowKey(req);
    const cached = req.fresh || req.once ? undefined : this.cache.get(key, req.size);
    if (cached) return cached;
    // A ranked window goes in rounds; a listing or a block of given files is one request.
    const window =
      req.maxMatches && req.key === undefined ? await this.cappedWindow(req, key, req.maxMatches) : await this.fetchWindow(req, req.query, req.size, req.maxMatches);
    // An answer with a backend or shard missing, or cut by Zoekt's time limit, is not kept: the
    // next page asks again, with its own time.
    const cause = window.stats.stopped?.cause;
    if (cause !== 'backends_failed' && cause !== 'shards_failed' && cause !== 'time_limit' && !req.once) this.cache.set(key, window);
    return window;
  }

  /**
   * A ranked window under a match cap, in rounds. Zoekt's cap counts the whole answer and stops
   * sending files where it runs out, so each round holds the files above the score it ran out at
   * (whole, in their final places) and the next round asks for the rest, the held files excluded
   * by name. A round that holds nothing began with files tied at that score: those that came
   * whole are held, or, when the first file alone has as many matches as the cap, that file is
   * held with its first matches only (`matchesCut`). Rounds go on until `minFiles` (else `size`)
   * files lie above the last cut, or Zoekt has no more, or, after ROUNDS_MS, once `floorFiles`
   * do. When Zoekt stopped early (its match budget), a later round may meet files
   * the first never evaluated, ranked above files already held: they are left out, so that the
   * order stays one order (the answer says it is partial). What each round holds is fixed by the
   * index, the cap and the files before it, whatever order Zoekt breaks ties in, so any replica
   * gets the same files and the same matches; a cached window that ended at a cut goes on.
   */
  private async cappedWindow(req: WindowRequest & { repos?: string[] }, key: string, cap: number): Promise<Window> {
    const need = req.minFiles ?? req.size;
    const start = req.fresh || req.once ? undefined : this.cache.peek(key);
    const resumed = start?.cutAt !== undefined && start.held !== undefined;
    const first = resumed ? start! : await this.fetchWindow(req, req.query, req.size, cap);
    if (req.shardMatches && req.sampledFloor !== undefined) {
      if (req.crowdedWalk && !resumed && crowded(first, req.sampledFloor)) return { ...first, crowded: true };
      if (first.stats.stopped?.cause === 'match_limit' && first.stats.fileCount < req.sampledFloor) return first;
    }
    let held: FileHit[] = resumed ? start!.files.slice(0, start!.held) : [];
    let rest = resumed ? start!.files.slice(start!.held) : first.files;
    let dropped: FileHit[] = first.dropped ?? [];
    let cut = first.cutAt;
    let exhausted = first.exhausted;
    let stopped = first.stats.stopped;
    const began = Date.now();
    let asked = -1;
    while (cut !== undefined) {
      const at = cut;
      const above = rest.filter((f) => f.score > at);
      const decided = held.filter((f) => f.score > at).length + above.length;
      if (decided >= need || (Date.now() - began >= (this.walkLimits.roundsMs ?? ROUNDS_MS) && decided >= (req.floorFiles ?? need))) break;
      // Whole files go in; a cut file only when it began its round (then it has at least `cap` matches).
      const whole = rest.filter((f) => !f.matchesCut);
      held = [...held, ...(above.length ? above : whole.length ? whole : rest)];
      const leftOut = [...held, ...dropped];
      // The same files left out would ask Zoekt the same question again: no round goes further.
      if (leftOut.length === asked) break;
      asked = leftOut.length;
      const excluded = leftOut.map((f) => q.render(q.not(q.and(q.repo(`^${q.escapeRegex(f.repo)}$`), q.file(`^${q.escapeRegex(f.path)}$`)))));
      // Appended, not grouped with the query: a top-level case: or type: must stay top-level.
      const next = await this.fetchWindow(req, `${req.query} ${excluded.join(' ')}`, Math.max(req.size, need, held.length + 1) - held.length, cap);
      // Ranked above the cut, so never evaluated by the first round (Zoekt stopped early): left out.
      dropped = [...dropped, ...(next.dropped ?? []), ...next.files.filter((f) => f.score > at)];
      rest = next.files.filter((f) => f.score <= at);
      exhausted = next.exhausted;
      stopped ??= next.stats.stopped;
      // A round cut in a file left out sent nothing after it: the cut stays where it was.
      cut = next.cutAt === undefined ? undefined : Math.min(next.cutAt, at);
    }
    // Counts come from the first round: the later ones leave files out on purpose.
    const files = [...held, ...rest];
    const window: Window = { files, size: req.size, exhausted, held: held.length, stats: { ...first.stats, ...(stopped ? { stopped } : {}) } };
    if (dropped.length) window.dropped = dropped;
    if (cut !== undefined) {
      const at = cut;
      window.cutAt = at;
      // What it can answer for: the files above its cut.
      window.size = files.filter((f) => f.score > at).length;
    }
    return window;
  }

  private async fetchWindow(req: WindowRequest & { repos?: string[] }, query: string, size: number, maxMatches?: number): Promise<Window> {
    const result = await this.zoekt.search({
      query: this.confine(query),
      maxDocs: size,
      contextLines: req.contextLines ?? 0,
      signal: req.signal,
      ...(maxMatches ? { maxMatches } : {}),
      ...(req.shardMatches ? { shardMatches: req.shardMatches } : {}),
      ...(req.repos ? { repos: req.repos } : {}),
      ...(await this.scopeIds(req.signal)),
    });
    // The query already confines the search; this is the second lock. What it catches is left
    // out of the rounds of a capped window too, which would otherwise ask for it again and again.
    const files = result.files.filter((f) => this.scope.allows(f.repo));
    // A skipped file's placeholder is not its text: a match in it is no match (skipped.ts lists them).
    const found = req.placeholders ? files : files.map(withoutPlaceholder);
    const foreign = files.length < result.files.length ? result.files.filter((f) => !this.scope.allows(f.repo)) : [];
    // Cut to fewer files to fit the memory bound, a larger window would be cut the same way: no
    // later page can be had, and the partial note says how to narrow instead.
    const stats = this.scopedStats(result.stats);
    const stopped = stats.stopped;
    const capped = stopped?.cause === 'too_large' && stopped.maxDocs !== undefined;
    const window: Window = { files: found, size, exhausted: !result.truncated || capped, stats };
    if (result.cutAt !== undefined) window.cutAt = result.cutAt;
    if (foreign.length) window.dropped = foreign;
    return window;
  }

  /**
   * The files of `query` that are among `files`, with their matches: one search restricted to
   * those paths, which costs what the page costs rather than what the whole answer does.
   * `versions`: how many files those paths have in all (a path stands once per branch version).
   */
  async filesAmong(req: Omit<WindowRequest, 'size' | 'key'>, files: FileHit[], versions: number): Promise<Window> {
    const byRepo = new Map<string, string[]>();
    for (const f of files) byRepo.set(f.repo, [...new Set([...(byRepo.get(f.repo) ?? []), f.path])]);
    const perRepo = [...byRepo].map(([repo, paths]) => `( ${q.render(q.and(q.repo(`^${q.escapeRegex(repo)}$`), q.or(...paths.map((p) => q.file(`^${q.escapeRegex(p)}$`)))))} )`);
    const restriction = perRepo.length === 1 ? perRepo[0]! : `( ${perRepo.join(' or ')} )`;
    // Keyed by the files themselves, not by the long restricted text: a block is the same block
    // only if it holds the same files.
    const ids = createHash('sha256').update(files.map(fileId).join('\n')).digest('base64url');
    const key = `block\u0000${ids}\u0000${req.contextLines ?? 0}\u0000${req.query}`;
    // Appended, not grouped with the query: a top-level case: or type: must stay top-level.
    return this.window({ ...req, query: `${req.query} ${restriction}`, size: Math.max(versions, files.length) + 1, key, repos: [...byRepo.keys()] });
  }

  /** Files of one repository with their whole content (never cached: get_file reads the index as it is now). */
  async wholeFiles(query: string, maxDocs: number, repo: string, signal?: AbortSignal): Promise<FileHit[]> {
    const result = await this.zoekt.search({ query: this.confine(query), maxDocs, whole: true, signal, repos: [repo], ...(await this.scopeIds(signal)) });
    const files = result.files.filter((f) => this.scope.allows(f.repo));
    const stopped = this.scopedStats(result.stats).stopped;
    // Not found, or held by a backend that did not answer: only the second is worth a retry.
    if (files.length === 0 && stopped?.cause === 'backends_failed') {
      throw new ToolError('UNAVAILABLE', missingBackends(stopped.backends), 'Call again in a few seconds; get_health shows each backend.');
    }
    return files;
  }

  /** Indexed repositories matching `query` (a `repo:` filter, or '' for all), within the scope. */
  async list(query: string, signal?: AbortSignal): Promise<RepoListResult> {
    const result = await this.zoekt.list(this.confine(query), signal);
    const listed: RepoListResult = { ...result, repos: result.repos.filter((r) => this.scope.allows(r.name)) };
    if (result.missing) listed.missing = this.scopedMissing(result.missing);
    return listed;
  }

  /**
   * The backends that did not answer, each with only the repositories of this scope: the fleet
   * names every repository a backend served, and messages must name none outside the caller's
   * scope. A backend's URL is the operator's and stays, with no repositories when none are in scope.
   */
  private scopedMissing(backends: readonly MissingBackend[]): MissingBackend[] {
    const scope = this.scope;
    return backends.map((b) => ({ ...b, repos: b.repos.filter((r) => scope.allows(r)) }));
  }

  /** Stats with a failed backend's repositories confined to this scope (see scopedMissing). */
  private scopedStats(stats: SearchStatsOut): SearchStatsOut {
    const stopped = stats.stopped;
    if (stopped?.cause !== 'backends_failed' || !this.scope.restricted) return stats;
    return { ...stats, stopped: { ...stopped, backends: this.scopedMissing(stopped.backends) } };
  }

  /**
   * How many files match `query` (at least one when any does): what a zero-result hint checks a
   * suspected cause with. Never throws: a variant that fails to run confirms nothing.
   */
  async count(query: string, signal?: AbortSignal): Promise<number> {
    const window = await this.window({ query, size: 1, fresh: true, signal }).catch(() => undefined);
    return window ? Math.max(window.files.length, window.stats.fileCount) : 0;
  }

  /** The cached window of a query, whatever its size, if any. */
  peek(req: Omit<WindowRequest, 'size'>): Window | undefined {
    return req.fresh ? undefined : this.cache.peek(this.keyPrefix + windowKey(req));
  }

  /**
   * One page of files in the stable order, and the last window it was cut from. Only a walk's
   * first page asks Zoekt afresh (`fresh`); later pages may come from the cache.
   */
  /** `whole`: under a match cap, the page is never short (the head of a walk must be all of it). */
  async filePage(query: Omit<WindowRequest, 'size'>, offset: number, limit: number, maxSize?: number, whole = false): Promise<{ page: Page<FileHit>; window: Window }> {
    const req = { ...query, fresh: query.fresh ?? offset === 0 };
    let last = this.peek(req);
    const cached = last && { items: last.files, exhausted: last.exhausted, size: last.size, ...cutOf(last) };
    let fetched = false;
    const page = await fetchPage(
      async (size) => {
        fetched = true;
        last = await this.window({ ...req, size, minFiles: offset + limit + 1, floorFiles: whole ? offset + limit + 1 : offset + 1 });
        return { items: last.files, exhausted: last.exhausted, ...cutOf(last) };
      },
      offset,
      limit,
      FILE_ORDER,
      { prefetchPages: offset === 0 && !query.maxMatches ? 1 : PREFETCH_PAGES, cached, ...(maxSize === undefined ? {} : { maxSize }) },
    );
    // The page was cut from the cached window alone (a miss shows up in window()).
    if (cached && !fetched) this.cache.countHit();
    return { page, window: last! };
  }
}

/**
 * A value worked out once for a searcher's index and kept by the module that makes it (symbol
 * coverage, skipped files, a health probe in flight): of that module's own type, made at the
 * first use for each searcher, and dropped with the searcher. The searcher itself need not know
 * what is kept on it, so the modules above it keep their values without it importing them.
 */
export function keptPerSearcher<T extends object>(make: () => T): (searcher: Searcher) => T {
  const kept = new WeakMap<Searcher, T>();
  return (searcher) => {
    let value = kept.get(searcher);
    if (!value) kept.set(searcher, (value = make()));
    return value;
  };
}
