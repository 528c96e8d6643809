/**
 * Paging over every file of an answer, however large, at the cost of the page asked for.
 *
 * Zoekt has no offset: the only way to reach the 3,000th best file is to ask for the best 3,000,
 * matched lines and all (tens of MB for `err` over Go's source: bench/README.md, "Answer sizes").
 * So a walk has two parts:
 *
 * - the first `rankedFiles` files in relevance order (score, then repo, path), cut from ranked
 *   windows that double as the walk goes deeper;
 * - every other matching file in path order (repo, path), from one cheap listing of the answer's
 *   files (`type:filename`, no matched lines), with the matched lines of a page fetched by a
 *   search restricted to that page's paths, a block at a time.
 *
 * Both parts are fixed by the index alone, so the order is one total order that any replica
 * can resume from an offset. A walk reaches at most `walkFiles` files; past that, and when Zoekt
 * itself stopped early, the page says so in `partial`.
 *
 * The fetch plan of a page with matched lines (search_code) asks Zoekt for what the page shows:
 * - ranked windows carry a match cap (`maxMatches`, Zoekt's MaxMatchDisplayCount), so a file
 *   with thousands of matching lines cannot fill the answer. Zoekt's cap counts the whole answer
 *   and stops sending files where it runs out, so the relevance-ordered part then ends above the
 *   score of the file it ran out in (`cutAt`): that score is fixed by the index and the cap alone
 *   (the files above it, and their matches, are the same in any order Zoekt breaks ties in);
 * - a page in the path-ordered part asks for its own files only, with a cap of
 *   `matchesPerFile` each; a file cut there shows its first matches, and its count of the rest is
 *   a lower bound (`FileHit.matchesCut`). A path's versions on other branches come with it, and
 *   one ranked first can take the cap: a version left short is asked for again without one;
 * - ranked windows carry a match budget of their own (`shardMatches`): Zoekt stops evaluating a
 *   shard's files once it has found that many matches, so a common term costs what its best
 *   files cost, not every match of every file. The relevance-ordered part is then the best of
 *   the files Zoekt evaluated (the same files for every window size, so pages stay one order),
 *   and every other file follows in path order as always: a walk still reaches every file.
 *   The counts of such a page are lower bounds (`complete: false`), not a partial walk. A query
 *   whose first round holds fewer whole files than a page (crowded.ts) has no ranked part: its
 *   files in scope are checked in path order, a page at a time (crowdedWalk);
 * - the counts come from Zoekt's stats, which its display caps do not change.
 */
import * as q from '../../zoekt/query.js';
import type { Chunk, FileHit, SearchStatsOut } from '../../zoekt/wire.js';
import { grouped, NARROW_HINT, zoektPartial, type Partial } from './completeness.js';
import { comparePaths, fileId, FILE_ORDER, type Searcher, type WalkLimits } from './searcher.js';
import { sortRanked } from './paging.js';
import { derived, windowId, type Window } from './window-cache.js';
import { deadlineWithin, withDeadline } from '../../deadline.js';
import { ToolError } from '../../errors.js';

export interface FileWalkRequest {
  query: string;
  contextLines?: number;
  /** Whether pages need the files' matched lines (search_code) or only their names (search_files). */
  content: boolean;
  signal?: AbortSignal | undefined;
  /** Matches one ranked window brings at most, all files together (Zoekt's MaxMatchDisplayCount). */
  maxMatches?: number | undefined;
  /** Matches brought per file of the path-ordered part (the page shows fewer lines than this). */
  matchesPerFile?: number | undefined;
  /** The ranked windows' match budget per shard (see above); absent, the server's whole budget. */
  shardMatches?: number | undefined;
  /** The call goes on from a cursor: even at offset 0, the walk's first round may come from the cache. */
  resumed?: boolean | undefined;
  /**
   * The call's filters alone, without its search term ('' for none): the files a crowded walk
   * goes through by path (see crowdedWalk). Absent, a crowded query ranks under the whole budget.
   */
  scopeQuery?: string | undefined;
}

export interface FileWalkPage {
  files: FileHit[];
  /** Another page follows. */
  more: boolean;
  /** Files with a match, and matches: exact when `complete`, lower bounds otherwise. */
  total: number;
  matches: number;
  complete: boolean;
  partial?: Partial;
  /** The ranked window the walk's relevance-ordered part was cut from. */
  ranked: Window;
  /** Where the next page starts, when this one is short of `limit` files though more follow. */
  nextOffset?: number;
  /** Why the page is short of `limit` files though more follow. */
  short?: string;
  /** How the walk orders its files, when not by relevance first (a crowded query: by path). */
  order?: string;
}

/**
 * How long a crowded walk's page goes on checking files, from the call's start, and how much of
 * the call's deadline it leaves for the reply: a page answers in about two seconds however many
 * matches its files hold, and short, with a cursor, rather than late.
 */
const CROWDED_PAGE_MS = 1_500;
const CROWDED_REPLY_MS = 400;
/** How long a first round may take before the listing a crowded walk needs is started beside it. */
const CROWDED_LISTING_AFTER_MS = 250;
/**
 * The most names a crowded walk lists of its scope: all of them, so that the files it reaches
 * (the first `walkFiles` by path) are the same on every listing and replica. A larger scope is
 * ranked as any other query.
 */
const SCOPE_FILES_MAX = 50_000;
/** The most files one block of a crowded walk checks at once. */
const CROWDED_BLOCK_MAX = 64;

/**
 * Whether a page is whole and what it cannot reach. `sampled`: the ranked window stopped at its
 * own match budget, which makes its counts lower bounds but leaves nothing out of the walk.
 */
function summary(stats: SearchStatsOut[], total: number, limits: WalkLimits, sampled?: SearchStatsOut): Pick<FileWalkPage, 'complete' | 'partial'> {
  const stopped = stats.find((s) => s.stopped && s !== sampled);
  const bound: Partial = {
    reason: `${grouped(total)} files match; paging reaches the first ${grouped(limits.walkFiles)} of them (the best ${limits.rankedFiles} by relevance, then the rest by path)`,
    hint: NARROW_HINT,
  };
  const partial = zoektPartial(stopped) ?? (total > limits.walkFiles ? bound : undefined);
  return { complete: !stopped && !sampled, ...(partial ? { partial } : {}) };
}

/** The path-ordered part of a walk: the listing's files not in the ranked head, by path. */
function tailOf(listing: Window, head: Window, headFiles: FileHit[], walkFiles: number): FileHit[] {
  // Depends on both windows: one per listing and head window.
  return derived(listing, `tail\u0000${windowId(head)}\u0000${walkFiles}`, () => {
    const inHead = new Set(headFiles.map(fileId));
    return listing.files.filter((f) => !inHead.has(fileId(f))).sort(comparePaths).slice(0, walkFiles - headFiles.length);
  });
}

/**
 * A whole answer held in one window, in walk order: the best `rankedFiles` by relevance, the rest
 * by path. The same order a listing gives, whatever size the window happens to have.
 */
function walkOrder(window: Window, rankedFiles: number): FileHit[] {
  return derived(window, `order\u0000${rankedFiles}`, () => {
    const ranked = sortRanked(window.files, FILE_ORDER);
    return [...ranked.slice(0, rankedFiles), ...ranked.slice(rankedFiles).sort(comparePaths)];
  });
}

const pathKey = (f: FileHit) => `${f.repo}\u0000${f.path}`;

export async function walkFiles(searcher: Searcher, req: FileWalkRequest, offset: number, limit: number): Promise<FileWalkPage> {
  const began = Date.now();
  const limits = searcher.walkLimits;
  const ranked = {
    query: req.query,
    contextLines: req.contextLines ?? 0,
    signal: req.signal,
    fresh: offset === 0 && !req.resumed,
    maxMatches: req.maxMatches,
    shardMatches: req.shardMatches,
    sampledFloor: limit + 1,
    crowdedWalk: req.content && req.scopeQuery !== undefined,
  };
  if (ranked.crowdedWalk) {
    // A later page of a crowded walk: the first round that decided it is still cached.
    const decided = offset > 0 || req.resumed ? searcher.peek(ranked) : undefined;
    const walked = decided?.crowded ? await crowdedWalk(searcher, req, ranked, decided, offset, limit, began) : undefined;
    if (walked) return walked;
  }
  const within = offset + limit <= limits.rankedFiles;
  // The ranked part decides the page by itself while the page lies within it, and whenever the
  // whole answer fits in one ranked window.
  const rankedPage = () => searcher.filePage(ranked, within ? offset : 0, within ? limit : limits.rankedFiles, limits.rankedFiles + 1, !within);
  // A first round that takes long is likely a crowded one, which walks the files in scope by
  // name: their listing starts beside it (the answer is the same either way).
  let scopeListing: Promise<Window | undefined> | undefined;
  const early = ranked.crowdedWalk
    ? setTimeout(() => {
        scopeListing = scopeFiles(searcher, req).catch(() => undefined);
      }, CROWDED_LISTING_AFTER_MS)
    : undefined;
  let { page, window: head } = await rankedPage().finally(() => clearTimeout(early));
  // Zoekt stopped at the ranked window's own budget: the files it did not evaluate follow by path.
  let sampled = ranked.shardMatches !== undefined && head.stats.stopped?.cause === 'match_limit' ? head.stats : undefined;
  if (head.crowded) {
    const walked = await crowdedWalk(searcher, req, ranked, head, offset, limit, began, scopeListing);
    if (walked) return walked;
  }
  if (sampled && sampled.fileCount < ranked.sampledFloor) {
    // Too few files within the budget for a page and one more (each has thousands of matches):
    // this query ranks under the whole budget. The same count decides it for every page of the
    // walk (the cursor binds the limit).
    ranked.shardMatches = undefined;
    ({ page, window: head } = await rankedPage());
    sampled = undefined;
  }
  const cut = head.cutAt !== undefined;
  if (sampled && within && page.items.length === limit) {
    return { files: page.items, more: true, total: head.stats.fileCount, matches: head.stats.matchCount, ranked: head, ...summary([head.stats], head.stats.fileCount, limits, sampled) };
  }
  if (within && cut && page.items.length > 0 && page.items.length < limit && !head.exhausted) {
    // Files of thousands of matches each come a few per Zoekt request: the page ends where this
    // call's requests did, and the next one goes on from there.
    const total = head.stats.fileCount;
    const short = `This page has ${page.items.length} of the ${limit} files asked for: their files have thousands of matches each, which Zoekt sends a few files at a time. next_cursor goes on with the next file.`;
    return { files: page.items, more: true, nextOffset: offset + page.items.length, short, total, matches: head.stats.matchCount, ranked: head, ...summary([head.stats], total, limits, sampled) };
  }
  if (!sampled && ((within && !(cut && page.items.length < limit)) || head.exhausted)) {
    const order = within ? undefined : walkOrder(head, limits.rankedFiles);
    const items = order ? order.slice(offset, offset + limit) : page.items;
    const more = order ? order.length > offset + limit : page.hasMore;
    const total = Math.max(head.stats.fileCount, head.exhausted ? head.files.length : 0);
    return { files: items, more, total, matches: head.stats.matchCount, ranked: head, ...summary([head.stats], total, limits) };
  }
  // The match cap or budget ended the ranked part before this page: the whole of it, from the cached window.
  if (within) ({ page, window: head } = await searcher.filePage(ranked, 0, limits.rankedFiles, limits.rankedFiles + 1, true));

  const headFiles = page.items;
  // type:filename keeps the answer's files and drops their lines; Zoekt lifts it to the root,
  // and the query stays ungrouped so its own top-level case: still applies.
  const listing = await searcher.window({
    query: `${q.render(q.fileNamesOnly())} ${req.query}`,
    size: limits.walkFiles + 1,
    signal: req.signal,
    fresh: false,
    key: `listing\u0000${req.query}`,
  });
  const tail = tailOf(listing, head, headFiles, limits.walkFiles);
  const reachable = headFiles.length + tail.length;

  const files: FileHit[] = [...headFiles.slice(offset, Math.min(offset + limit, headFiles.length))];
  const stats = [head.stats, listing.stats];
  let lost = false;
  const from = Math.max(offset, headFiles.length) - headFiles.length;
  const to = Math.min(offset + limit, reachable) - headFiles.length;
  if (from < to) {
    const wanted = tail.slice(from, to);
    if (!req.content) {
      files.push(...wanted);
    } else {
      const hits = await tailMatches(searcher, ranked, wanted, listing, req.matchesPerFile, stats);
      for (const f of wanted) {
        const hit = hits.get(fileId(f));
        if (hit) files.push(hit);
        else lost = true;
      }
    }
  }
  const total = Math.max(listing.stats.fileCount, head.stats.fileCount);
  const done = summary(stats, total, limits, sampled && head.stats);
  // A file of the listing that a search no longer finds: the index changed during the walk.
  if (lost && !done.partial) {
    done.partial = { reason: 'the index changed during this walk, so some files of this page are missing', hint: 'Start again from the first page (call without cursor).' };
  }
  return { files, more: offset + limit < reachable, total, matches: head.stats.matchCount, ranked: head, ...done };
}

type RankedRequest = { query: string; contextLines: number; signal?: AbortSignal | undefined; maxMatches?: number | undefined; shardMatches?: number | undefined; sampledFloor?: number; crowdedWalk?: boolean };

/**
 * The matched lines of a page's files from the path-ordered part: one search restricted to
 * them, with a cap of `perFile` matches each; the files that search could not bring whole (the
 * cap ran out in one of them, and files after it were not sent) are asked for path by path, each
 * with its own cap, at once. A path's versions all come in its search, and one ranked before
 * another can take the whole cap: a version left without its first `perFile` matches is asked for
 * again without a cap (its matches are bounded by its size, and the answer by Zoekt's client).
 */
async function tailMatches(searcher: Searcher, ranked: RankedRequest, wanted: FileHit[], listing: Window, perFile: number | undefined, stats: SearchStatsOut[]): Promise<Map<string, FileHit>> {
  const hits = new Map<string, FileHit>();
  // A path can stand once per branch version: the restricted search returns them all. The
  // listing (thousands of files) is read once for the page's files, not once per request.
  const paths = new Set(wanted.map((f) => f.path));
  const versionsOf = new Map<string, number>();
  for (const f of listing.files) {
    if (!paths.has(f.path)) continue;
    const key = pathKey(f);
    versionsOf.set(key, (versionsOf.get(key) ?? 0) + 1);
  }
  const among = async (block: FileHit[], capped = true) => {
    let versions = 0;
    for (const path of new Set(block.map(pathKey))) versions += versionsOf.get(path) ?? 0;
    const maxMatches = perFile === undefined || !capped ? undefined : perFile * Math.max(versions, block.length);
    // Every file of the block is evaluated: a budget that stopped early would lose some.
    const found = await searcher.filesAmong({ ...ranked, shardMatches: undefined, maxMatches }, block, versions);
    stats.push(found.stats);
    return found;
  };
  const found = await among(wanted);
  const cutAt = found.cutAt;
  for (const f of found.files) if (cutAt === undefined || f.score > cutAt) hits.set(fileId(f), f);
  if (cutAt !== undefined) {
    const rest = wanted.filter((f) => !hits.has(fileId(f)));
    const take = (windows: Window[], over: boolean) => {
      for (const w of windows) for (const f of w.files) if (over || !hits.has(fileId(f))) hits.set(fileId(f), f);
    };
    take(await Promise.all(byPath(rest).map((files) => among(files))), false);
    const short = perFile === undefined ? [] : rest.filter((f) => leftShort(hits.get(fileId(f)), perFile));
    take(await Promise.all(byPath(short).map((files) => among(files, false))), true);
  }
  // Whether a file came whole or cut depends on the files beside it in the request: every file
  // shows its first `perFile` matches at most, so a page is the same whichever way it came.
  if (perFile !== undefined) for (const [key, f] of hits) hits.set(key, firstMatches(f, perFile));
  return hits;
}

/** The files grouped by repository and path: the versions of a path come in one search. */
function byPath(files: FileHit[]): FileHit[][] {
  const groups = new Map<string, FileHit[]>();
  for (const f of files) {
    const group = groups.get(pathKey(f));
    if (group) group.push(f);
    else groups.set(pathKey(f), [f]);
  }
  return [...groups.values()];
}

/** Not sent, or cut before its first `perFile` matches (a version ranked before it took the cap). */
function leftShort(hit: FileHit | undefined, perFile: number): boolean {
  return !hit || (hit.matchesCut === true && matchCount(hit) < perFile);
}

const matchCount = (file: FileHit) => file.chunks.reduce((n, c) => n + c.matchLines.length, 0);

/** The file with its first `n` matches only (marked cut) when it has as many or more. */
export function firstMatches(file: FileHit, n: number): FileHit {
  if (matchCount(file) < n) return file;
  const chunks: Chunk[] = [];
  let left = n;
  for (const c of file.chunks) {
    if (left === 0) break;
    const k = c.matchLines.length;
    if (k <= left) {
      chunks.push(c);
      left -= k;
      continue;
    }
    chunks.push({ startLine: c.startLine, lines: c.lines, ranges: c.ranges.slice(0, left), matchLines: c.matchLines.slice(0, left), fileName: c.fileName, score: c.score });
    left = 0;
  }
  return { ...file, chunks, matchesCut: true };
}

/** The files in scope, by name only (no content evaluated): what a crowded walk checks. */
function scopeFiles(searcher: Searcher, req: FileWalkRequest): Promise<Window> {
  return searcher.window({
    query: `${q.render(q.and(q.fileNamesOnly(), q.file('.')))} ${req.scopeQuery ?? ''}`.trim(),
    size: SCOPE_FILES_MAX + 1,
    signal: req.signal,
    fresh: false,
    key: `scope-files\u0000${req.scopeQuery ?? ''}`,
  });
}

/**
 * The walk of a crowded query (`crowded`): ranking it, or listing its files, would evaluate every
 * match of every file, so it has no ranked part. The files in scope are listed by name (no
 * content evaluated), and a page checks them in path order from its position in that list, a
 * block at a time, each path by a search restricted to it that brings a few of its matches:
 * files that do not match are passed over. Positions are places in the list, so a page that ran
 * out of time ends where its checks did (short, or empty when one file took it all), with a
 * cursor that goes on from there; the order is the list's whatever the timing. Counts are lower
 * bounds.
 */
async function crowdedWalk(searcher: Searcher, req: FileWalkRequest, ranked: RankedRequest, head: Window, offset: number, limit: number, began: number, started?: Promise<Window | undefined>): Promise<FileWalkPage | undefined> {
  const limits = searcher.walkLimits;
  const listing = (await started) ?? (await scopeFiles(searcher, req));
  // A scope too large to list whole: which of its files Zoekt lists is its ranking's choice, not
  // a path order, so it is ranked as any other query (undefined).
  if (listing.files.length > SCOPE_FILES_MAX || !listing.exhausted) return undefined;
  const candidates = derived(listing, `by-path\u0000${limits.walkFiles}`, () => [...listing.files].sort(comparePaths).slice(0, limits.walkFiles));
  // Checks end at the page's time, or earlier where the call's deadline leaves less; the page's
  // first path may take all the call's deadline leaves, less the reply's share.
  const end = deadlineWithin(began + CROWDED_PAGE_MS + CROWDED_REPLY_MS) - CROWDED_REPLY_MS;
  const last = deadlineWithin(Number.MAX_SAFE_INTEGER) - CROWDED_REPLY_MS;
  const stats: SearchStatsOut[] = [listing.stats];
  const files: FileHit[] = [];
  const from = offset;
  let at = from;
  let block = limit;
  let timedOut = false;
  while (files.length < limit && at < candidates.length && !timedOut && (at === from || Date.now() < end)) {
    // A path's versions (one per branch whose content differs) are checked together.
    const paths = byPath(candidates.slice(at, at + block));
    const checks = await Promise.all(
      paths.map(async (versions, i) => {
        const first = files.length === 0 && at === from && i === 0;
        const seen: SearchStatsOut[] = [];
        try {
          const hits = await withDeadline(first ? last : end, () => tailMatches(searcher, ranked, versions, listing, req.matchesPerFile, seen));
          return seen.some((st) => st.stopped?.cause === 'time_limit') ? undefined : { hits, seen };
        } catch (e) {
          if (e instanceof ToolError && e.code === 'TIMEOUT') return undefined;
          throw e;
        }
      }),
    );
    for (let i = 0; i < paths.length && files.length < limit && !timedOut; i++) {
      const checked = checks[i];
      if (!checked) {
        timedOut = true;
        break;
      }
      stats.push(...checked.seen);
      for (const f of paths[i]!) {
        if (files.length === limit) break;
        const hit = checked.hits.get(fileId(f));
        if (hit) files.push(hit);
        at++;
      }
    }
    block = Math.min(block * 2, CROWDED_BLOCK_MAX);
  }
  const more = at < candidates.length;
  const partial =
    zoektPartial(stats.find((st) => st.stopped && st !== head.stats)) ??
    (listing.files.length > limits.walkFiles
      ? { reason: `${grouped(listing.files.length)} files are in scope; paging checks the first ${grouped(limits.walkFiles)} of them by path`, hint: NARROW_HINT }
      : undefined);
  const page: FileWalkPage = {
    files,
    more,
    nextOffset: at,
    total: Math.max(head.stats.fileCount, files.length),
    matches: head.stats.matchCount,
    ranked: head,
    order:
      'This query matches so much of nearly every file that ranking it would mean reading every match of every file: its files come in path order (repository, then path), each with a few of its matches, and the counts are lower bounds. A more specific query is ranked by relevance.',
    complete: false,
    ...(partial ? { partial } : {}),
  };
  if (more && files.length === 0) {
    const slow = candidates[at]!;
    page.short = `This page has no file yet: checking ${slow.repo}/${slow.path} for this query took all of the call's time (its matches are many). next_cursor tries it again, and a later page has more time once the query's first round is cached; a larger --timeout-ms, or a paths filter that leaves it out, gets past it.`;
  } else if (more && files.length < limit) {
    page.short = `This page has ${files.length} of the ${limit} files asked for: this query's files are checked in path order within the page's time, and theirs ran out. next_cursor goes on from the first file not yet checked.`;
  }
  return page;
}
