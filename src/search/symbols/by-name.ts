/**
 * search_symbols by name: which symbols a name, a glob or a qualified name keeps and in what
 * order (nameMatcher), and which files are read from Zoekt for a page of that order: an exact
 * name's every definition in one request (exactInOne), otherwise the fetch plan (planNames).
 */
import * as q from '../../zoekt/query.js';
import type { FileHit } from '../../zoekt/wire.js';
import { nameGlobToRegex } from '../../patterns/globs.js';
import { parseKinds, type Kind } from '../vocab/kinds.js';
import { fileId, type Searcher } from '../engine/searcher.js';
import { derived, type Window } from '../engine/window-cache.js';
import { neverPublic, peersOf, prominence, rivalsOf, type PathClass } from '../definitions/prominence.js';
import { DOC_LINES } from '../definitions/documentation.js';
import { buildSymbolQuery, exactCaseQuery, FILE_WINDOWS, parseName, type NamePattern } from '../definitions/by-name.js';
import { scopeSegments, type SymbolResult } from '../definitions/symbol.js';
import { rankFiles, type Matcher, type Ranked, type Ranking, type SymbolSearchArgs } from './ranking.js';

function sameText(a: string, b: string, caseSensitive: boolean): boolean {
  return caseSensitive ? a === b : a.toLowerCase() === b.toLowerCase();
}

/** Whether the enclosing scope ends with the asked segments (`Server` matches `server.Server`). */
function parentMatches(asked: string[], scope: string, caseSensitive: boolean): boolean {
  const have = scopeSegments(scope);
  if (have.length < asked.length) return false;
  const tail = have.slice(have.length - asked.length);
  return asked.every((seg, i) => sameText(seg, tail[i]!, caseSensitive));
}

export function rankTier(name: string, pattern: NamePattern): number {
  const asked = pattern.member;
  if (!pattern.glob && (name === asked || name === pattern.wholeName)) return 0;
  if (!pattern.glob && name.toLowerCase() === asked.toLowerCase()) return 1;
  if (pattern.literalPrefix && name.toLowerCase().startsWith(pattern.literalPrefix.toLowerCase())) return 2;
  return 3;
}

/**
 * The fetch plan of a search by name: which files to read from Zoekt so that a page is the page
 * of the whole order (tier, then prominence among exact names, then Zoekt's file score; see
 * compareRanked), reading about as many files as the page shows rather than every file that
 * defines the name.
 *
 * Q is the search's query (`sym:` with the name's regex, and the filters). Every request below is
 * Q with negated parts appended (`-file:…`, `-lang:…`, `-( repo:… file:… )`). Zoekt scores a
 * file by the matches and atoms it visits and visits nothing under a negation, so every file read
 * comes with the score it has in Q and all of Q's symbols, whichever request brought it.
 *   1. Q, the best `need` files, `need` being the symbols up to the page's end and one more (for
 *      `next_cursor`; a later page also reads for the page after it, which then comes from the
 *      window cache through the same requests). For an exact name, the last fixed window (2,000 files)
 *      instead: Zoekt's time for a `sym:` regex is that of evaluating every candidate file,
 *      whatever the window, so reading every definition at once is cheaper than the requests
 *      below (each costs as much again); only past 2,000 files do they follow. A glob has no
 *      exact name (no tier 0 or 1), so its order is Zoekt's score after prominence-free tiers,
 *      and the page's own files usually decide it. Its file count says how many files define
 *      the name; when the rest must be read past the last fixed window (2,000), the plan gives
 *      way (below).
 *   2. Let L be the `need`-th symbol of the files read. Zoekt returned the files in score order,
 *      so a symbol outside them can only rank before L with a better tier, or a more prominent
 *      definition, or an equal one in a file scored as high. While one may exist, one request
 *      that can only find such symbols (the files already read left out by name):
 *      a. a better tier than L's (L is the name in another case, a prefix match or the rest):
 *         Q restricted to the files with such a name by a double negation,
 *         `-( -sym:"^(?:Name)$" )`; when that takes another case than Q's (the name in its case,
 *         L in another), `case:yes sym:"^(?:Name)$"` (less the parts of Q that could miss a file
 *         in that case) finds the files, which are then read through Q restricted to them. These
 *         leave the files read out only when some of them hold such a name;
 *      b. among exact names, a more prominent definition: one in a shallower folder (a
 *         definition's prominence is at least its depth), or a public one, which can only be in
 *         a language where the name may be public (not Go for `init`): Q with
 *         `-file:"^(?:[^/]*\/){d}"` and `-lang:…`, until no such file is left (prominence.ts,
 *         rivalsOf). The steps of prominence read from a definition's line rather than its path
 *         (nested, a declaration) and from its path but not as a folder depth (a test) are bits
 *         above the depth: when L has one, a definition without it may be in any folder, and
 *         the plan reads every folder (of the languages where it can be public, if L is);
 *         nesting only makes a definition not public, which keeps the language bound. A twin
 *         (step 5) is decided among the files read (rankFiles): a copy read later can only
 *         make a symbol read a twin, which moves it later, never earlier. So the bounds are
 *         taken for each unread definition at its best (not a twin), and when the plan stops,
 *         the first copy of every symbol up to L has been read (it ranks before L at its best,
 *         so it lies where the plan read), which makes the twins among them the same as in the
 *         whole order;
 *      c. an equally prominent definition, or for prefix and other matches any symbol of L's
 *         tier, in a file scored at least as high as L's: more of Q (in the folders and languages
 *         where such definitions can be, peersOf) down past L's score;
 *      d. fewer than `need` symbols read (a kinds filter, a parent): more of Q.
 *      Each request of a kind asks twice as many files as the one before it. When no more than
 *      `need` files are left unread, or too many were read to leave them out by name (400), one
 *      request reads all that is left.
 *      A window of n files that Zoekt cut holds every file scored above its (n-1)-th best score
 *      (Zoekt may lift one file of another extension into third place from further down).
 *   3. Files left out by name must be only those read, not also a file that shares a name in
 *      another case or another branch's version. A request for more of all of Q checks it with
 *      Zoekt's count (the files of Q less those read); otherwise one count at the end: Q
 *      restricted to the names of the files read that such a twin could have been lost for (not
 *      those deeper than a request's folders, as a twin is as deep) must count exactly them.
 *      Otherwise the plan gives way.
 * The plan gives way to the fixed windows (500 files, then 2,000, all ranked: the order of every
 * page, as before) when Zoekt stops early, with several backends (each cuts its own list), past
 * 2,000 files, and after 12 requests; and a later page whose symbols are more than a quarter of
 * the files (as a cached window counted them) reads them all once, for every page after it to
 * come from the window cache. Counts are exact only when every file was read.
 */
interface Plan {
  /** The symbols of the files read, in order: the first `exact` are those of the whole order. */
  ranked: Ranked[];
  exact: number;
  /** Every file that defines a matching symbol was read: the counts are exact. */
  whole: boolean;
  files: number;
  /** More files define it than the last fixed window holds: a walk over pages ends there. */
  bounded: boolean;
}

/** A plan gives way to the fixed windows after this many requests. */
const PLAN_REQUESTS = 12;
/** Later pages are planned while the symbols they need are at most this share of the files (1/4). */
export const PLAN_SHARE = 4;
/** Past this many files read, the files read are no longer left out by name: the rest is read whole. */
const LEFT_OUT_BY_NAME = 400;

class GiveWay extends Error {}

/** The files as one part per repository: `repo:"^r$" file:"^(?:a|b)$"`. */
function byName(files: Iterable<FileHit>): q.QueryPart[] {
  const byRepo = new Map<string, Set<string>>();
  for (const f of files) byRepo.set(f.repo, (byRepo.get(f.repo) ?? new Set()).add(f.path));
  return [...byRepo].map(([repo, paths]) => q.and(q.repo(`^${q.escapeRegex(repo)}$`), q.file(`^(?:${[...paths].map(q.escapeRegex).join('|')})$`)));
}
/** These files left out. */
const leaveOut = (files: Iterable<FileHit>): string => byName(files).map((p) => q.render(q.not(p))).join(' ');
/** Only these files, without an atom Zoekt would score: the negation of their negations. */
const onlyThese = (files: Iterable<FileHit>): string => q.render(q.not(q.and(...byName(files).map(q.not))));
/** Files of a path class: folders `maxDepth` deep and deeper left out, and the languages skipped. */
const inClass = (c: PathClass): string =>
  [...(Number.isFinite(c.maxDepth) ? [q.not(q.file(`^(?:[^/]*/){${c.maxDepth}}`))] : []), ...c.skip.map((l) => q.not(q.lang(l)))].map(q.render).join(' ');
/** Whether every file of class `inner` is one of class `outer`. */
const within = (inner: PathClass, outer: PathClass): boolean => inner.maxDepth <= outer.maxDepth && outer.skip.every((l) => inner.skip.includes(l));

/** What a window of Q says of the files it did not hold: none is scored above this. */
function floorOf(files: readonly FileHit[], exhausted: boolean): number {
  if (exhausted) return Number.NEGATIVE_INFINITY;
  const scores = files.map((f) => f.score).sort((a, b) => b - a);
  return scores.length >= 2 ? scores[scores.length - 2]! : Number.POSITIVE_INFINITY;
}

/** The files of Q in a path class that were read: all of those scored above `floor`. */
interface Region extends PathClass {
  floor: number;
  /** Files the last request for it asked for. */
  size: number;
}

const EVERYWHERE: PathClass = { maxDepth: Number.POSITIVE_INFINITY, skip: [] };

/** The plan gave way to the fixed windows; `total`: how many files match, when Zoekt said. */
interface GaveWay {
  total?: number;
}

export async function planNames(searcher: Searcher, m: Matcher, need: number, fresh: boolean, signal?: AbortSignal): Promise<Plan | GaveWay> {
  if (searcher.zoekt.several || !m.tiers) return {};
  const tiers = m.tiers.bind(m);
  const read = new Map<string, FileHit>();
  let requests = 0;
  /**
   * Files left out by name whose twin (a path in another case, another branch's version of it)
   * a request could have lost: counted at the end. A twin is as deep as its file, so a request
   * for shallower folders than a file's cannot lose the file's twin.
   */
  const suspects = new Map<string, FileHit>();
  const readLeftOut = (c: PathClass) => {
    for (const f of read.values()) if (f.path.split('/').length - 1 < c.maxDepth) suspects.set(fileId(f), f);
    return leaveOut(read.values());
  };
  const ask = async (query: string, size: number) => {
    if (++requests > PLAN_REQUESTS) throw new GiveWay();
    const w = await searcher.window({ query, size, signal, fresh });
    if (w.stats.stopped) throw new GiveWay();
    return w;
  };
  const take = (files: readonly FileHit[]) => {
    for (const f of files) if (!read.has(fileId(f))) read.set(fileId(f), f);
  };
  let total: number | undefined;
  try {
    const first = await ask(m.query, Math.max(need, m.firstWindow ?? 0));
    const all = (total = first.stats.fileCount);
    take(first.files);
    const regions: Region[] = [{ ...EVERYWHERE, floor: floorOf(first.files, first.exhausted), size: need }];
    const everything = () => regions[0]!.floor === Number.NEGATIVE_INFINITY;
    // Every file with a symbol of a tier below this one has been read.
    let tiersRead = m.firstTier ?? 0;
    let tierSize = need / 2;
    /** The rest of Q in one request, when little is left or the names to leave out are too many. */
    const rest = async () => {
      // Past the last fixed window, reading the rest is the fixed windows' work, not a plan's.
      if (all > FILE_WINDOWS[FILE_WINDOWS.length - 1]!) throw new GiveWay();
      regions[0]!.floor = Number.NEGATIVE_INFINITY;
      if (read.size <= LEFT_OUT_BY_NAME) {
        const unread = all - read.size;
        const w = await ask(`${m.query} ${leaveOut(read.values())}`, unread + 1);
        // Zoekt counted the files not left out: exactly those unread, so every file left out was one read.
        if (w.exhausted && w.stats.fileCount === unread) {
          take(w.files);
          suspects.clear();
          return;
        }
      }
      const w = await ask(m.query, all + 1);
      if (!w.exhausted) throw new GiveWay();
      read.clear();
      take(w.files);
      suspects.clear();
    };
    const fewLeft = () => all - read.size <= need || read.size > LEFT_OUT_BY_NAME;
    /** More of Q in a path class, the files read left out. */
    const more = async (c: PathClass) => {
      if (fewLeft()) return rest();
      let region = regions.find((r) => r.maxDepth === c.maxDepth && r.skip.join() === c.skip.join());
      if (!region) regions.push((region = { ...c, floor: Number.POSITIVE_INFINITY, size: need / 2 }));
      if (c.maxDepth === 0) return void (region.floor = Number.NEGATIVE_INFINITY);
      region.size *= 2;
      const everywhere = c === EVERYWHERE;
      const unread = all - read.size;
      const w = await ask([m.query, inClass(c), everywhere ? leaveOut(read.values()) : readLeftOut(c)].filter(Boolean).join(' '), Math.ceil(region.size));
      // All of Q but the files read: Zoekt counts exactly the others, or a twin was left out.
      if (everywhere && w.stats.fileCount !== unread) throw new GiveWay();
      take(w.files);
      region.floor = floorOf(w.files, w.exhausted);
    };
    /**
     * More of the files with a symbol of a tier below `tier`, read through Q. The files read are
     * left out by name only when some of them would be sent again (the twin of any of them could
     * hold such a symbol).
     */
    const betterTiers = async (tier: number, ranked: Ranked[]) => {
      if (fewLeft()) return rest();
      tierSize *= 2;
      const leftOut = ranked.some((r) => r.tier < tier) ? readLeftOut(EVERYWHERE) : '';
      const how = tiers(tier);
      if ('restrict' in how) {
        const w = await ask([m.query, how.restrict, leftOut].filter(Boolean).join(' '), Math.ceil(tierSize));
        take(w.files);
        if (w.exhausted) tiersRead = tier;
        return;
      }
      const found = await ask([how.find, leftOut].filter(Boolean).join(' '), Math.ceil(tierSize));
      const unread = found.files.filter((f) => !read.has(fileId(f)));
      if (unread.length) {
        // Read again through Q, for their score in Q and all of Q's symbols.
        const through = await ask(`${m.query} ${onlyThese(unread)}`, 2 * unread.length + 2);
        if (!through.exhausted) throw new GiveWay();
        take(through.files);
      }
      if (found.exhausted) tiersRead = tier;
    };
    for (;;) {
      const ranked = rankFiles(m, [...read.values()]);
      const L = ranked[need - 1];
      if (everything() || !L) {
        if (!everything()) {
          await more(EVERYWHERE);
          continue;
        }
        if (suspects.size) await checkLeftOut(ask, m.query, suspects);
        return { ranked, exact: ranked.length, whole: true, files: read.size, bounded: false };
      }
      if (L.tier > tiersRead) {
        await betterTiers(L.tier, ranked);
        continue;
      }
      // Among exact names, prominence comes before the score (prominence.ts).
      const hidden = L.tier === 0 ? m.neverPublic ?? [] : [];
      const rivals = L.tier <= 1 ? rivalsOf(L.prominence, hidden) : [];
      const peers = L.tier <= 1 ? peersOf(L.prominence, hidden) : EVERYWHERE;
      const unread = [
        ...rivals.filter((c) => !regions.some((r) => r.floor === Number.NEGATIVE_INFINITY && within(c, r))),
        ...(regions.some((r) => r.floor < L.score && within(peers, r)) ? [] : [peers]),
      ];
      if (unread.length) {
        // Asked together: what one finds only makes L better, which the next round checks.
        const once = new Map(unread.map((c) => [`${c.maxDepth}\0${c.skip.join()}`, c]));
        if (fewLeft()) await rest();
        else await Promise.all([...once.values()].map(more));
        continue;
      }
      if (suspects.size) await checkLeftOut(ask, m.query, suspects);
      return { ranked, exact: need, whole: false, files: read.size, bounded: all > FILE_WINDOWS[FILE_WINDOWS.length - 1]! };
    }
  } catch (err) {
    if (err instanceof GiveWay) return total === undefined ? {} : { total };
    throw err;
  }
}

/**
 * Files left out by name were only those read: Q restricted to their names counts exactly them.
 * A path in another case (a query in any case matches file names in any case) or another
 * branch's version of a path read would count more.
 */
async function checkLeftOut(ask: (query: string, size: number) => Promise<Window>, query: string, files: Map<string, FileHit>): Promise<void> {
  const w = await ask(`${query} ${onlyThese(files.values())}`, 1);
  if (Math.max(w.stats.fileCount, w.files.length) !== files.size) throw new GiveWay();
}

/**
 * An exact name's whole order, and the lines around each definition, from one request: for
 * every file that defines it (up to the last fixed window), with DOC_LINES lines around each
 * match. Zoekt's time for a `sym:` regex is that of evaluating every candidate file, whatever the
 * window and the context lines, so this costs about what the request for a page's files alone
 * does; the plan's requests (the definitions, then the lines of the page's) each cost as much
 * again (bench/README.md, "The fetch plan"). Undefined when Zoekt did not send every file (more
 * than the window, an early stop): the plan reads them then.
 *
 * A bare name in any case is read in its own case first (Matcher.byCase): a case-sensitive
 * `sym:` regex is evaluated over a fraction of the files, and its files come with the scores its
 * order is by. When they hold the page and one more symbol, that is the one request; otherwise
 * Q (the name in any case) is the second, for the other spellings, ranked by their scores in Q.
 * Q alone would be one request for both, but it costs Zoekt twice the time of the own case for a
 * common name and sends its other spellings too (bench/README.md, "The fetch plan"), and the
 * own case's order would have to be read from Q's scores.
 */
export async function exactInOne(searcher: Searcher, m: Matcher, pageEnd: number, fresh: boolean, signal?: AbortSignal): Promise<Ranking | undefined> {
  const size = FILE_WINDOWS[FILE_WINDOWS.length - 1]!;
  const read = async (query: string) => {
    const w = await searcher.window({ query, size, contextLines: DOC_LINES, signal, fresh });
    return w.exhausted && !w.stats.stopped ? w : undefined;
  };
  if (!m.byCase) {
    const w = await read(m.query);
    if (!w) return undefined;
    const ranked = derived(w, `symbols\u0000${m.memoKey}`, () => rankFiles(m, w.files));
    return { ranked, exact: ranked.length, complete: true, partial: undefined, hadCandidates: w.files.length > 0, withLines: w.files };
  }
  const { head, tail } = m.byCase;
  const own = await read(head.query);
  if (!own) return undefined;
  const first = derived(own, `symbols\u0000${head.memoKey}`, () => rankFiles(head, own.files));
  // The page and one more symbol within the own case: the other spellings are not read just to
  // count them (a later page reads them when it reaches past the own case).
  if (first.length > pageEnd) return { ranked: first, exact: first.length, complete: false, partial: undefined, hadCandidates: true, otherCasesUnread: true, withLines: own.files };
  const w = await read(m.query);
  if (!w) return undefined;
  const rest = derived(w, `symbols\u0000${tail.memoKey}`, () => rankFiles(tail, w.files));
  // Q's lines: it matches the own case too, so it holds every line the own case's request did.
  const ranked = [...first, ...rest];
  return { ranked, exact: ranked.length, complete: true, partial: undefined, hadCandidates: ranked.length > 0 || w.files.length > 0, withLines: w.files };
}

/**
 * The whole order of a search by name, each symbol once: what a page of search_symbols is cut
 * from when every candidate file is read (tests and benchmarks check pages against it). `files`:
 * every file of nameQueries' `query`; `exactCase`: every file of its `exactCase` query, when it
 * has one and that holds no more files than the last fixed window (else the order is `query`'s).
 */
export function rankByName(args: SymbolSearchArgs, files: readonly FileHit[], exactCase?: readonly FileHit[]): SymbolResult[] {
  const m = nameMatcher(args, parseName(args.name ?? '', args.regex ?? false), parseKinds(args.kinds));
  const split = m.byCase && exactCase && exactCase.length <= FILE_WINDOWS[FILE_WINDOWS.length - 1]! ? m.byCase : undefined;
  if (m.byCase && !exactCase) throw new Error(`rankByName: ${JSON.stringify(args.name)} is read by case; give the files of its exactCase query`);
  const ranked = split ? [...rankFiles(split.head, exactCase!), ...rankFiles(split.tail, files)] : rankFiles(m, files);
  return ranked.map((r) => r.symbol);
}

/** The queries a search by name reads: `exactCase` first when it splits its order by case (Matcher.byCase). */
export function nameQueries(args: SymbolSearchArgs): { query: string; exactCase?: string } {
  const m = nameMatcher(args, parseName(args.name ?? '', args.regex ?? false), parseKinds(args.kinds));
  return { query: m.query, ...(m.byCase ? { exactCase: m.byCase.head.query } : {}) };
}

/**
 * A bare name or a glob in any case splits its order by case (Matcher.byCase); other searches by
 * name do not. A glob's matches in its own case (`New*`: `NewReader`, not `newline`) come before
 * those that match only in another case, as an exact name's do: `case:yes sym:"^New"` took 49 ms
 * over the benchmark corpus where `case:no` took 172 (bench/README.md, "The fetch plan").
 */
export function nameMatcher(args: SymbolSearchArgs, pattern: NamePattern, kinds: Set<Kind> | undefined): Matcher {
  const all = oneQueryMatcher(args, pattern, kinds);
  if (args.regex || args.case_sensitive || pattern.parent || pattern.substring) return all;
  const ownCase = inOwnCase(pattern);
  const exact = oneQueryMatcher({ ...args, case_sensitive: true }, pattern, kinds);
  const head: Matcher = {
    ...exact,
    query: exactCaseQuery(args, pattern),
    // The head's query may also bring names that only hold the glob's literal start (exactCaseQuery).
    rank: (symbol, scope, fileScore) => (ownCase(symbol.name) ? exact.rank(symbol, scope, fileScore) : undefined),
  };
  const tail: Matcher = {
    ...all,
    memoKey: `${all.memoKey}\u0000other cases`,
    ...(pattern.glob ? {} : { firstTier: 1 }),
    rank(symbol, scope, fileScore) {
      return ownCase(symbol.name) ? undefined : all.rank(symbol, scope, fileScore);
    },
  };
  return { ...all, byCase: { head, tail, planned: pattern.glob === true } };
}

/** Whether a name is one the pattern matches in the pattern's own case: what the head of Matcher.byCase holds. */
function inOwnCase(pattern: NamePattern): (name: string) => boolean {
  if (pattern.glob) {
    let re: RegExp;
    try {
      re = new RegExp(nameGlobToRegex(pattern.member));
    } catch {
      // An RE2 class JavaScript cannot read: every match then ranks as another case's, none is lost.
      return () => false;
    }
    return (name) => re.test(name);
  }
  return (name) => rankTier(name, pattern) === 0;
}

function oneQueryMatcher(args: SymbolSearchArgs, pattern: NamePattern, kinds: Set<Kind> | undefined): Matcher {
  const caseSensitive = args.case_sensitive ?? false;
  return {
    query: buildSymbolQuery(args, pattern),
    memoKey: JSON.stringify([args.name, args.regex, caseSensitive, args.kinds, pattern.substring]),
    twins: true,
    rank(symbol, scope, fileScore) {
      if (pattern.parent) {
        const isWhole = pattern.wholeName !== undefined && sameText(symbol.name, pattern.wholeName, caseSensitive);
        if (!isWhole && !parentMatches(pattern.parent, scope, caseSensitive)) return undefined;
      }
      if (pattern.global && scope !== '') return undefined;
      if (kinds && !kinds.has(symbol.kind as Kind)) return undefined;
      const tier = rankTier(symbol.name, pattern);
      return { symbol, tier, prominence: tier <= 1 ? prominence(symbol) : 0, score: fileScore };
    },
    ...(pattern.glob ? { firstTier: 2 } : { firstWindow: FILE_WINDOWS[FILE_WINDOWS.length - 1] }),
    ...(!pattern.glob && !args.regex && !pattern.substring ? { exactName: true } : {}),
    neverPublic: [pattern.member, ...(pattern.wholeName === undefined ? [] : [pattern.wholeName])]
      .map(neverPublic)
      .reduce((a, b) => a.filter((l) => b.includes(l))),
    tiers(tier) {
      // rankTier: tier 0 is the name (or the whole dotted name) in its case, tier 1 the name in
      // another case, tier 2 names that start with the literal prefix, in any case.
      const names = `(?:${[pattern.member, ...(pattern.wholeName === undefined ? [] : [pattern.wholeName])].map(q.escapeRegex).join('|')})`;
      const prefix = tier >= 3 && pattern.literalPrefix ? `${q.escapeRegex(pattern.literalPrefix)}|` : '';
      const symRegex = `^(?:${prefix}${names}$)`;
      // In Q's own case (case: holds for the whole query): Q restricted to the files with such a
      // symbol. In any case, tiers below 1 are tier 0 alone; a case-sensitive name (not a
      // regex, which may say (?i)) has no tier 1 among Q's symbols.
      if (caseSensitive ? !args.regex : tier >= 2) return { restrict: q.render(q.not(q.not(q.sym(symRegex)))) };
      // Otherwise a query in the other case, which must not miss Q's files: in case:yes a file:
      // or regex: part matches fewer files, a -file: part leaves fewer out; the parts that would
      // miss some are dropped (it may find files that are not Q's, never fewer).
      if (!caseSensitive) return { find: buildSymbolQuery({ ...args, paths: undefined, case_sensitive: true }, { ...pattern, symRegex, parent: undefined }) };
      return { find: buildSymbolQuery({ ...args, exclude_paths: undefined, include_vendored: true, case_sensitive: false }, { ...pattern, symRegex }) };
    },
  };
}
