/**
 * search_symbols: where things are defined, from the symbols Zoekt indexed (`sym:`: the tree-sitter
 * extractor's, or Universal Ctags').
 *
 * The name is matched by Zoekt (a pre-filter); two things only we can check are post-filters:
 * the enclosing type of a qualified name (`Server.start`), and the normalized `kinds`. Order:
 * exact name in exact case, exact name in other case, names that start with the literal prefix,
 * the rest; among exact names, the public ones, outside tests, top-level, with a body, one copy
 * of a duplicated file and in shallower folders first (prominence.ts); then Zoekt's score (for
 * a bare name in any case, the exact spelling's score in its own query: Matcher.byCase; a glob
 * in any case puts its matches in its own case first, the same way). That
 * order is not Zoekt's: a search by name reads the files that can hold a page of it (planNames,
 * the fetch plan), a search by description the best files of each word; every page is a slice
 * of one order, and a post-filtered page is full.
 */
import { invalidArgument } from '../errors.js';
import * as q from '../zoekt/query.js';
import type { Chunk, FileHit } from '../zoekt/wire.js';
import { scoreWithout } from '../zoekt/score.js';
import { z } from 'zod';
import { grouped, NARROW_HINT, zoektPartial, type Partial as PartialNote } from './engine/completeness.js';
import { describeFilters, filterParts, vendoredPart } from './vocab/filters.js';
import { isGlob, nameGlobToRegex } from '../patterns/globs.js';
import { parseKinds, type Kind } from './vocab/kinds.js';
import { completeField, paginate, pagingFields, pagingOutput } from './engine/page.js';
import { indexAgeField } from './vocab/freshness.js';
import { compareStrings } from './engine/paging.js';
import { fileId, type Searcher } from './engine/searcher.js';
import { NotIndexedInScope, skippedInScope } from './engine/skipped.js';
import { derived, type Window } from './engine/window-cache.js';
import { languagesCoverage, type LanguageCoverage } from './definitions/coverage.js';
import { resolveLanguage } from './vocab/languages.js';
import { compareProminent, isTest, markTwins, neverPublic, peersOf, prominence, PROMINENCE_LIMIT, rivalsOf, twinKey, type PathClass } from './definitions/prominence.js';
import { clip, fitPage, LIST_DIALS, MAX_LINE_CHARS, truncatedField, type Budget } from './engine/budget.js';
import { acronymsOf, coverage, descriptionWords, relatedWords, shortForms, spellings } from './definitions/words.js';
import { loadVocabulary, MAX_RELATED, relatedTo } from './definitions/vocabulary.js';
import { DOC_LINES, DOC_MAX_READ_LINES, DOC_READ_LINES, documentationOf } from './definitions/documentation.js';
import { buildSymbolQuery, candidateFiles, exactCaseQuery, FILE_WINDOWS, parseName, wordRegex, type NamePattern, type SymbolQueryArgs } from './definitions/by-name.js';
import { IDENTIFIER_WORD, scopeSegments, SymbolResult, symbolsOf } from './definitions/symbol.js';
import { findReferences, type ReferenceOutput } from './references.js';

export const SEARCH_SYMBOLS = 'search_symbols';

export interface SymbolSearchArgs extends SymbolQueryArgs {
  /** Exactly one of name and description. */
  name?: string | undefined;
  description?: string | undefined;
  regex?: boolean | undefined;
  kinds?: string[] | undefined;
  /** Count each result's usages, as find_references would (a search per result). */
  references?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export const SymbolSearchOutput = z.object({
  zoekt_query: z.string(),
  symbols: z.array(SymbolResult),
  stats: z.object({ symbols: z.number().int(), files: z.number().int(), duration_ms: z.number(), complete: completeField }),
  /** Files in scope the indexer skipped (too large, too many trigrams): they have no symbols. First page only. */
  not_indexed: NotIndexedInScope.optional(),
  ...truncatedField,
  ...pagingFields,
  ...indexAgeField,
});
export type SymbolSearchOutput = z.infer<typeof SymbolSearchOutput>;

export const SYMBOL_DEFAULTS = { limit: 20 };

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

interface Ranked {
  symbol: SymbolResult;
  tier: number;
  /** Among exact names (tiers 0 and 1): public, outside tests, top-level, with a body, not a twin, shallow first (prominence.ts). */
  prominence: number;
  score: number;
  /** What its copies in duplicated files share (prominence.ts, twinKey), among exact names. */
  copy?: string;
}

function rankTier(name: string, pattern: NamePattern): number {
  const asked = pattern.member;
  if (!pattern.glob && (name === asked || name === pattern.wholeName)) return 0;
  if (!pattern.glob && name.toLowerCase() === asked.toLowerCase()) return 1;
  if (pattern.literalPrefix && name.toLowerCase().startsWith(pattern.literalPrefix.toLowerCase())) return 2;
  return 3;
}

function compareRanked(a: Ranked, b: Ranked): number {
  return a.tier - b.tier || compareProminent(a, b) || compareStrings(a.symbol.name, b.symbol.name);
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
const PLAN_SHARE = 4;
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

async function planNames(searcher: Searcher, m: Matcher, need: number, fresh: boolean, signal?: AbortSignal): Promise<Plan | GaveWay> {
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
 * An exact name's whole order, and the lines around each definition, from one request: Q (the
 * name in any case, with the filters) for every file that defines it (up to the last fixed
 * window), with DOC_LINES lines around each match. Zoekt's time for a `sym:` regex is that of
 * evaluating every candidate file, whatever the window and the context lines, so this costs
 * about what the request for a page's files alone does; the plan's requests (the name in its own
 * case, then in the others, then the lines of the page's definitions) each cost as much again
 * (bench/README.md, "The fetch plan"). Undefined when Zoekt did not send every file (more than
 * the window, an early stop): the plan reads them then.
 *
 * A bare name in any case ranks its own case first, each part as the plan ranks it (Matcher.
 * byCase): the head's symbols by their file's score in the head's own query. A file scores in Q
 * what it scores there unless it also holds the name in another case (Zoekt scores a file by its
 * best matched line); such a file's score in the head's query is read from its chunks' scores,
 * and only when that cannot be done (a chunk holds both spellings) and the score decides the page
 * is the file asked for again through the head's query: one request more.
 */
async function exactInOne(searcher: Searcher, m: Matcher, pageEnd: number, fresh: boolean, signal?: AbortSignal): Promise<Ranking | undefined> {
  const w = await searcher.window({ query: m.query, size: FILE_WINDOWS[FILE_WINDOWS.length - 1]!, contextLines: DOC_LINES, signal, fresh });
  if (!w.exhausted || w.stats.stopped) return undefined;
  const whole = (ranked: Ranked[]): Ranking => ({ ranked, exact: ranked.length, complete: true, partial: undefined, hadCandidates: w.files.length > 0, withLines: w.files });
  if (!m.byCase) return whole(derived(w, `symbols\u0000${m.memoKey}`, () => rankFiles(m, w.files)));
  const { head, tail, ownCase } = m.byCase;
  const rest = derived(w, `symbols\u0000${tail.memoKey}`, () => rankFiles(tail, w.files));
  // A file that holds the name in another case too may score less in the head's query than in
  // Q (Zoekt scores a file by its best matched line): its score there is read from its chunks
  // (zoekt/score.ts), unless one chunk holds both spellings.
  const kinds = (c: Chunk) => {
    const own = c.ranges.some((r) => r.symbol && ownCase(r.symbol.name));
    const other = c.ranges.some((r) => !r.symbol || !ownCase(r.symbol.name));
    return own && other ? undefined : own;
  };
  const where = (x: { repo: string; path: string }) => `${x.repo}\u0000${x.path}`;
  const unknown = new Set<string>();
  const files = w.files.map((f) => {
    if (f.chunks.every((c) => c.fileName || kinds(c) === true) || f.chunks.every((c) => c.fileName || kinds(c) === false)) return f;
    const score = scoreWithout(f, kinds);
    if (score === undefined) unknown.add(where(f));
    return score === undefined || score === f.score ? f : { ...f, score };
  });
  const first = rankFiles(head, files);
  // Where such a score could not be read, it can only be lower than in Q, which only moves the
  // file's definitions later among those as prominent (or makes another copy of one the first:
  // prominence.ts, step 5). Past the page's end, the page is the same either way; before it,
  // those files are asked for again through the head's query.
  const filesOf = new Map<number, Set<string>>();
  const copies = new Map<string, number>();
  for (const r of first) {
    const p = prominence(r.symbol);
    filesOf.set(p, (filesOf.get(p) ?? new Set()).add(where(r.symbol)));
    if (r.copy !== undefined) copies.set(r.copy, (copies.get(r.copy) ?? 0) + 1);
  }
  const unsure = (r: Ranked) => unknown.has(where(r.symbol)) && (filesOf.get(prominence(r.symbol))!.size > 1 || (r.copy !== undefined && copies.get(r.copy)! > 1));
  const firstUnsure = first.findIndex(unsure);
  if (firstUnsure < 0 || firstUnsure >= pageEnd) return whole([...first, ...rest]);
  const again = new Set(first.filter(unsure).map((r) => where(r.symbol)));
  const scored = await searcher.window({ query: `${head.query} ${onlyThese(w.files.filter((f) => again.has(where(f))))}`, size: 2 * again.size + 2, signal, fresh });
  const scores = new Map(scored.files.map((f) => [fileId(f), f.score]));
  const rescored = files.map((f) => (scores.has(fileId(f)) ? { ...f, score: scores.get(fileId(f))! } : f));
  return whole([...rankFiles(head, rescored), ...rest]);
}

/** The symbols of `files` that `m` keeps, in its order; with `seen`, each symbol once across files read twice. */
function rankFiles(m: Matcher, files: readonly FileHit[], seen?: Set<string>): Ranked[] {
  const all: Ranked[] = [];
  for (const file of files) {
    for (const { symbol, scope } of symbolsOf(file)) {
      if (seen) {
        const key = `${symbol.repo}\0${symbol.path}\0${symbol.line}\0${symbol.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      const r = m.rank(symbol, scope, file.score);
      if (r) all.push(m.twins && r.tier <= 1 ? { ...r, copy: twinKey(r.symbol, file.checksum) } : r);
    }
  }
  // Among exact names only (tiers 0 and 1), each tier apart.
  if (m.twins) markTwins(all, compareRanked, (r) => r.tier);
  return all.sort(compareRanked);
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

/** How one search_symbols call picks and orders symbols among the candidates Zoekt returns. */
interface Matcher {
  query: string;
  /**
   * Queries whose best files are candidates too: one per word of a description, so that a word
   * common in names (`string`, `read`) cannot crowd out the files of a rarer one (`split`).
   */
  alsoQueries?: string[];
  /**
   * A description's words that no candidate's name has, as queries for their short forms and
   * the acronyms they are part of (words.ts: shortForms, acronymsOf): asked only then, as a name
   * like `inc` or `gte` is found by no longer word.
   */
  shortFormQueries?(ranked: readonly Ranked[]): string[];
  /** The candidate windows, smallest first (FILE_WINDOWS unless said), and each of alsoQueries' window. */
  windows?: readonly number[];
  wordWindow?: number;
  /** Why the candidates were cut, when they were: candidatesBound() unless said. */
  bound?: () => { reason: string; hint: string };
  /** Words of a description its queries leave out: no answer is complete without them. */
  unsearched?: { reason: string; hint: string };
  /** What the ranking depends on beyond the window, for the memo of a window's ranking. */
  memoKey: string;
  rank(symbol: SymbolResult, scope: string, fileScore: number): Ranked | undefined;
  /**
   * A search by name: how to find every file of `query` that holds a symbol of a tier below
   * `tier` (see planNames): `restrict`, a part that restricts `query` to them without changing a
   * score, or `find`, a query that finds at least those files. Absent: the whole candidate set is
   * ranked (the fixed windows).
   */
  tiers?(tier: number): { restrict: string } | { find: string };
  /** The languages where no symbol of tier 0 (the exact name) can be public (prominence.ts). */
  neverPublic?: readonly string[];
  /** No symbol it keeps has a tier below this (a glob has no exact name: 2). */
  firstTier?: number;
  /**
   * The files the plan's first request asks for when more than the page needs: Zoekt evaluates
   * a `sym:` regex over every candidate file whatever the window, so one request that holds
   * every definition of an exact name costs what one for the page does, and each request a plan
   * adds to read fewer files costs as much again (bench/README.md, "The fetch plan").
   */
  firstWindow?: number;
  /** The later copies of a definition in duplicated files rank after the first (prominence.ts, step 5). */
  twins?: boolean;
  /**
   * An exact name (bare, qualified or global; not a glob, a regex or a search inside names):
   * every definition in any case, with the lines around each, comes from one request
   * (exactInOne), ranked in memory.
   */
  exactName?: boolean;
  /**
   * A bare name in any case, read in two parts: `head`, the name in its own case (tier 0) from
   * a case-sensitive query, which Zoekt evaluates over a fraction of the files (exactCaseQuery);
   * then `tail`, the other tiers from the query itself, read only when a page reaches past the
   * head. Tier 0 is ordered by its scores in the head's query, the rest by theirs in `query`.
   * When the head is more than the last fixed window holds, the whole order is `query`'s alone.
   */
  byCase?: {
    head: Matcher;
    tail: Matcher;
    /**
     * The head is ranked by a plan of its own (a glob: ordered by score, a page's files decide
     * it) rather than read whole (an exact name, whose definitions are ordered by prominence).
     */
    planned: boolean;
    /** Whether a name is one the head holds (the pattern's own case). */
    ownCase: (name: string) => boolean;
  };
}

/**
 * A bare name or a glob in any case splits its order by case (Matcher.byCase); other searches by
 * name do not. A glob's matches in its own case (`New*`: `NewReader`, not `newline`) come before
 * those that match only in another case, as an exact name's do: `case:yes sym:"^New"` took 49 ms
 * over the benchmark corpus where `case:no` took 172 (bench/README.md, "The fetch plan").
 */
function nameMatcher(args: SymbolSearchArgs, pattern: NamePattern, kinds: Set<Kind> | undefined): Matcher {
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
  return { ...all, byCase: { head, tail, planned: pattern.glob === true, ownCase } };
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

/** What surrounds a definition: its parent and folder (a package, often), and its file's name. */
function contextWords(symbol: SymbolResult): { near: string[]; around: string[] } {
  const parts = symbol.path.split('/');
  const file = (parts.pop() ?? '').replace(/\.[^.]*$/, '').replace(/_test$/, '');
  return { near: [symbol.parent ?? '', parts.pop() ?? ''], around: [file] };
}

/**
 * The files a description reads: the best 200 of all its words and the best 200 of each word.
 * Zoekt ranks files with names that hold more of the words first, and the best definitions are
 * among those. For the 22 descriptions of test/integration/describe-symbols.test.ts this finds
 * the same answers at 1 and at 3 as 500 and then 2,000 files (and 500 of each word) did, over
 * Go's tree and over the four trees of bench/fetch-plan.sh, in a third to two thirds of the time
 * (bench/README.md, "search_symbols by description"). 100 of each word lost two of them over the
 * four trees, a rare word's files crowded out by a common one's.
 */
const DESCRIPTION_WINDOWS = [200] as const;
const DESCRIPTION_WORD_WINDOW = 200;

function descriptionBound(eachWord: boolean): { reason: string; hint: string } {
  return {
    reason: `more than ${DESCRIPTION_WINDOWS[0]} files have names with these words; the symbols of the best-ranked ${DESCRIPTION_WINDOWS[0]}${eachWord ? `, and of the best ${DESCRIPTION_WORD_WINDOW} for each word,` : ''} were read`,
    hint: 'Add a word the names would have, or kinds, languages or paths.',
  };
}

/** Why an answer is not complete when numbers of the description were not searched for (descriptionSymbols). */
function unsearchedNumbers(numbers: readonly string[]): { reason: string; hint: string } {
  return {
    reason: `names with only ${numbers.map((n) => `'${n}'`).join(' or ')} of the description's words were not searched for (a number of one or two digits: Zoekt would read every symbol of every file for it); names with the other words were`,
    hint: `To find names by the number too, search by name with a glob ('*${numbers[0]}*').`,
  };
}

/** How many tenths of coverage a definition in a test or an example counts less. */
const TEST_TIERS = 5;

/** Kinds that are an answer to "what does X": code, and the types that hold it. */
const DOING_KINDS = new Set(['function', 'method', 'constructor', 'class', 'struct', 'interface', 'trait', 'type', 'enum', 'module', 'namespace']);

function descriptionMatcher(
  args: SymbolSearchArgs,
  words: string[],
  related: ReadonlyMap<string, readonly string[]>,
  acronyms: ReadonlyMap<string, readonly string[]>,
  kinds: Set<Kind> | undefined,
): Matcher {
  const queryWith = (symbols: q.QueryPart) => {
    const parts: q.QueryPart[] = [q.caseMode('yes'), symbols, ...filterParts(args)];
    if (!args.include_vendored) parts.push(q.not(vendoredPart()));
    return q.render(q.and(...parts));
  };
  const queryOf = (some: string[]) => queryWith(descriptionSymbols(some, related));
  // One query per word Zoekt can find by its trigrams: a short word's own query would read every
  // symbol of every file (it is in the query of all words, unless it is a number).
  const alone = words.filter((w) => findable(w, related));
  const eachWord = alone.length > 1;
  const unsearched = unsearchedIn(words, related);
  const shorterForms = (word: string) => [...new Set([...shortForms(word), ...[...acronyms].filter(([, covered]) => covered.includes(word)).map(([a]) => a)])];
  return {
    query: queryOf(words),
    ...(eachWord ? { alsoQueries: alone.map((w) => queryOf([w])) } : {}),
    shortFormQueries(ranked) {
      const met = new Set(ranked.flatMap((r) => r.symbol.matched_words ?? []));
      const forms = words.filter((w) => !met.has(w)).map(shorterForms);
      return forms.filter((f) => f.length > 0).map((f) => queryWith(symbolLiterals(f)));
    },
    windows: DESCRIPTION_WINDOWS,
    wordWindow: DESCRIPTION_WORD_WINDOW,
    memoKey: JSON.stringify(['description', words, [...related], [...acronyms], args.kinds]),
    bound: () => descriptionBound(eachWord),
    ...(unsearched.length ? { unsearched: unsearchedNumbers(unsearched) } : {}),
    rank(symbol, _scope, fileScore) {
      if (kinds && !kinds.has(symbol.kind as Kind)) return undefined;
      const { near, around } = contextWords(symbol);
      const { score, matched, extra, named } = coverage(words, symbol.name, near, around, related, acronyms);
      // Only a name that has a word of the description (or a related one): its file or parent alone is not a match.
      if (!named) return undefined;
      // Coverage first, in steps so that close calls go to what comes next, and TEST_TIERS steps
      // lower in tests and examples (an agent asking what code does means the code, not its tests);
      // then kind fit, then the fewest words unasked for (the closest fit: `sort` before
      // `sortVersions` for "sort versions"), then the definition ranking (public, shallow). The
      // definition ranking went before the fit until the held-out set of describe-heldout.test.ts
      // showed public declarations of a `.d.ts` (`anchorIsValid`) outranking the plain function
      // (`valid`): 10 of 33 in the top 3 then, 15 after, the Go set the same (bench/README.md).
      const fit = DOING_KINDS.has(symbol.kind) ? 0 : PROMINENCE_LIMIT * 16;
      return {
        symbol: { ...symbol, score, matched_words: matched },
        tier: 10 - Math.floor(score * 10) + (isTest(symbol.path) ? TEST_TIERS : 0),
        prominence: fit + Math.min(extra, 15) * PROMINENCE_LIMIT + prominence(symbol),
        score: fileScore,
      };
    },
  };
}

/**
 * The `sym:` part of a description: any spelling of any of its words or of the words related to
 * them, in lower case, capitalized or upper case, each a substring of a symbol name. Zoekt finds a
 * literal `sym:` through its trigrams in a few tens of ms; a regex that also says where an
 * identifier word starts took it 0.3–6 s over 21,000 files (bench/README.md, "search_symbols by
 * description"), as it is run on every symbol of every candidate file. So `db` also finds
 * `sandbox` here; the ranking keeps only names that have the word as a word (coverage).
 * The query is case:yes.
 */
export function descriptionSymbols(words: readonly string[], related: ReadonlyMap<string, readonly string[]> = new Map()): q.QueryPart {
  const searchable = words.flatMap((w) => formsOf(w, related)).filter((f) => !unsearchable(f));
  return searchable.length ? symbolLiterals(searchable) : q.or(...[...new Set(words.flatMap((w) => formsOf(w, related)))].map((l) => q.sym(q.escapeRegex(l))));
}

/** Any of the spellings as a `sym:` literal, each in lower case, capitalized and upper case. */
function symbolLiterals(spellings: readonly string[]): q.QueryPart {
  const literals = new Set<string>();
  for (const spelling of spellings) {
    literals.add(spelling.toLowerCase());
    literals.add(spelling.charAt(0).toUpperCase() + spelling.slice(1).toLowerCase());
    literals.add(spelling.toUpperCase());
  }
  return q.or(...[...literals].map((l) => q.sym(q.escapeRegex(l))));
}

/** The spellings a description word is looked for by: its own and those of its related words. */
function formsOf(word: string, related: ReadonlyMap<string, readonly string[]>): string[] {
  return [word, ...(related.get(word) ?? [])].flatMap((w) => spellings(w));
}

/**
 * Zoekt finds a literal through its trigrams; one of fewer than three characters has none and
 * is looked for in every symbol of every file: `sym:"64"` (of "base64") took 100–200 ms over Go's
 * tree, where a literal with trigrams takes 10–40. A number that short is left out of the query
 * of a description with other words (they find `Base64` or `Int64`; the number still counts in
 * the ranking); a short word (`ip`, `io`, `os`) is a name's word and is kept.
 */
function hasTrigram(literal: string): boolean {
  return literal.length >= 3;
}

function unsearchable(spelling: string): boolean {
  return !hasTrigram(spelling) && /^\d+$/.test(spelling);
}

/** The numbers a description's query leaves out (none when nothing else is left to search for). */
function unsearchedIn(words: readonly string[], related: ReadonlyMap<string, readonly string[]>): string[] {
  const spelled = words.flatMap((w) => formsOf(w, related));
  const numbers = spelled.filter(unsearchable);
  return numbers.length === spelled.length ? [] : [...new Set(numbers)];
}

/** Whether a word (or a word related to it) has a spelling Zoekt can find by its trigrams. */
function findable(word: string, related: ReadonlyMap<string, readonly string[]>): boolean {
  return formsOf(word, related).some(hasTrigram);
}

/** The words of a description, or why it has none that can be searched for. */
function checkedDescription(description: string): string[] {
  const words = descriptionWords(description);
  if (words.length === 0) {
    throw invalidArgument(
      `the description '${description.slice(0, 100)}' has no word that could be part of a name`,
      "Describe what the code does in a few words that would appear in its names: 'database connection', 'retry request', 'parse config file'.",
    );
  }
  if (words.length > MAX_DESCRIPTION_WORDS) {
    throw invalidArgument(`the description has ${words.length} words; at most ${MAX_DESCRIPTION_WORDS} are used`, 'Keep the words that would appear in the names you look for.');
  }
  return words;
}

const MAX_DESCRIPTION_WORDS = 8;

/** The name or the description: exactly one. */
function oneOfNameOrDescription(args: SymbolSearchArgs): void {
  if ((args.name === undefined) === (args.description === undefined)) {
    throw invalidArgument(
      args.name === undefined ? 'give name or description' : 'give name or description, not both',
      "name finds definitions by name ('UserService', 'get*', 'Server.start'); description finds them by what they do, in words ('database connection handling').",
    );
  }
  if (args.description !== undefined && args.regex) throw invalidArgument('regex applies to name, not to description', 'Drop regex, or search by name.');
}

/** A bare name: what may fall back to a search inside names when no symbol has it exactly. */
function bareName(args: SymbolSearchArgs, pattern: NamePattern): boolean {
  // A case-sensitive search asked for that case: it gets the hint, not other names.
  return !args.regex && !args.case_sensitive && !pattern.parent && !pattern.global && !isGlob(pattern.member) && IDENTIFIER_WORD.test(pattern.member);
}

export async function searchSymbols(searcher: Searcher, args: SymbolSearchArgs, budget: Budget<SymbolSearchOutput>, signal?: AbortSignal): Promise<SymbolSearchOutput> {
  const started = Date.now();
  oneOfNameOrDescription(args);
  const limit = args.limit ?? SYMBOL_DEFAULTS.limit;
  const kinds = parseKinds(args.kinds);
  const pattern = args.name === undefined ? undefined : parseName(args.name, args.regex ?? false);
  const words = args.description === undefined ? [] : checkedDescription(args.description);
  const vocabulary = args.description === undefined ? undefined : await loadVocabulary();
  const related = vocabulary ? relatedWords(words, (w) => relatedTo(vocabulary, w), MAX_RELATED) : new Map<string, string[]>();
  const acronyms = vocabulary ? acronymsOf(args.description!, words, (text) => vocabulary.has(text)) : new Map<string, string[]>();
  let matcher = pattern ? nameMatcher(args, pattern, kinds) : descriptionMatcher(args, words, related, acronyms, kinds);
  let fellBack = false;
  let otherCasesUnread = false;
  let withLines: readonly FileHit[] | undefined;
  let ranked: Ranked[] = [];
  // The first page says which files in scope the indexer skipped (their symbols are not indexed either).
  const skipped = args.cursor === undefined ? skippedInScope(searcher, filterParts(args), signal).catch(() => undefined) : Promise.resolve(undefined);
  /**
   * `need`: the symbols up to the page's end and one more (is there a next page?). A first page
   * reads for itself only (most searches read no further); a later one for the page after it too,
   * so that a walk's every other page comes from the window cache by the same requests.
   */
  const rankWindow = async (m: Matcher, offset: number, need = offset + limit + 1 + (offset === 0 ? 0 : limit)): Promise<Ranking> => {
    const fresh = offset === 0;
    if (m.exactName) {
      const one = await exactInOne(searcher, m, offset + limit, fresh, signal);
      if (one) return one;
    }
    if (m.byCase?.planned) {
      const { head, tail } = m.byCase;
      const first = await rankWindow(head, offset, need);
      // The page within the head, or a head cut at the last fixed window (the walk ends with it, partial).
      if (first.exact > offset + limit || !first.complete) return { ...first, complete: false, otherCasesUnread: first.exact > offset + limit };
      const rest = await rankWindow(tail, offset, need - first.ranked.length);
      return { ...rest, ranked: [...first.ranked, ...rest.ranked], exact: first.ranked.length + rest.exact, hadCandidates: first.hadCandidates || rest.hadCandidates };
    }
    if (m.byCase) {
      const { head, tail } = m.byCase;
      const w = await searcher.window({ query: head.query, size: FILE_WINDOWS[FILE_WINDOWS.length - 1]!, signal, fresh });
      if (w.exhausted && !w.stats.stopped) {
        const first = derived(w, `symbols\u0000${head.memoKey}`, () => rankFiles(head, w.files));
        // The page and one more symbol within the head: the other spellings are not read just
        // to serve the next page from the cache (that page reads them if it reaches past the head).
        if (first.length > offset + limit) return { ranked: first, exact: first.length, complete: false, partial: undefined, hadCandidates: true, otherCasesUnread: true };
        const rest = await rankWindow(tail, offset, need - first.length);
        return { ...rest, ranked: [...first, ...rest.ranked], exact: first.length + rest.exact, hadCandidates: first.length > 0 || rest.hadCandidates };
      }
    }
    let total: number | undefined;
    if (m.tiers) {
      // Deep in a walk (past page 2), where a plan would read much of the files again for every
      // page, the fixed windows read them all once, and the window cache serves the pages after it.
      const cached = offset <= limit ? undefined : searcher.peek({ query: m.query });
      const whole = cached !== undefined && cached.exhausted && !cached.stats.stopped;
      if (cached && !whole && need * PLAN_SHARE > cached.stats.fileCount) total = cached.stats.fileCount;
      else if (!whole) {
        const plan = await planNames(searcher, m, need, fresh, signal);
        if ('ranked' in plan) return { ranked: plan.ranked, exact: plan.exact, complete: plan.whole, partial: plan.bounded ? candidatesBound() : undefined, hadCandidates: plan.files > 0 };
        total = plan.total;
      }
    }
    // The best files of each word, beside those of all words, asked for at the same time. Every
    // word's files are among those of all words, each with its symbols of that word: when the
    // window of all words holds all of them, the words add nothing and their answers are not read.
    const windows = m.windows ?? FILE_WINDOWS;
    const words = (m.alsoQueries ?? []).map((query) => searcher.window({ query, size: m.wordWindow ?? FILE_WINDOWS[0]!, signal, fresh }));
    const askedWords = Promise.all(words);
    askedWords.catch(() => undefined);
    const main = await candidateFiles(searcher, m.query, fresh, signal, total, windows);
    const { files, window } = main;
    const more = words.length && (!window.exhausted || window.stats.stopped) ? await askedWords : [];
    const whole = (out: Ranked[]): Ranking => ({
      ranked: out,
      exact: out.length,
      complete: window.exhausted && !window.stats.stopped && !m.unsearched,
      partial: zoektPartial(window.stats) ?? (window.exhausted ? m.unsearched : (m.bound ?? candidatesBound)()),
      hadCandidates: files.length > 0 || more.some((w) => w.files.length > 0),
    });
    // Each symbol once.
    const ranked = more.length
      ? rankFiles(m, [files, ...more.map((w) => w.files)].flat(), new Set())
      : // Later pages of a walk rank the same cached window again: once per window and matcher.
        derived(window, `symbols\u0000${m.memoKey}`, () => rankFiles(m, files));
    // A word no name found is looked for by its short forms (`inc` for increment), once the rest is known.
    const shorter = m.shortFormQueries?.(ranked) ?? [];
    if (!shorter.length) return whole(ranked);
    const found = await Promise.all(shorter.map((query) => searcher.window({ query, size: m.wordWindow ?? FILE_WINDOWS[0]!, signal, fresh })));
    const all = whole(rankFiles(m, [files, ...more.map((w) => w.files), ...found.map((w) => w.files)].flat(), new Set()));
    return { ...all, hadCandidates: all.hadCandidates || found.some((w) => w.files.length > 0) };
  };
  const page = await paginate({
    tool: SEARCH_SYMBOLS,
    cursors: searcher.cursors,
    args: { ...args },
    limit,
    fetch: async (offset) => {
      let ranking = await rankWindow(matcher, offset);
      // No symbol has this name: look for it inside names, and say so (the same on every page).
      if (ranking.ranked.length === 0 && pattern && bareName(args, pattern)) {
        const inside = { ...pattern, symRegex: `(?i)${q.escapeRegex(pattern.member)}`, literalPrefix: '', substring: true };
        const fallback = nameMatcher({ ...args, case_sensitive: false }, inside, kinds);
        const second = await rankWindow(fallback, offset);
        if (second.ranked.length) {
          ranking = second;
          matcher = fallback;
          fellBack = true;
        }
      }
      ranked = ranking.ranked;
      otherCasesUnread = ranking.otherCasesUnread ?? false;
      withLines = ranking.withLines;
      return {
        items: ranked.slice(offset, offset + limit).map((r) => r.symbol),
        more: ranking.exact > offset + limit,
        complete: ranking.complete,
        partial: ranking.partial,
        hadCandidates: ranking.hadCandidates,
      };
    },
    emptyHint: async (fetched) =>
      pattern
        ? zeroSymbolHint(searcher, args, pattern, fetched.hadCandidates, await unindexedLanguages(searcher, args), signal)
        : `No symbol name has any of the words ${JSON.stringify(descriptionWords(args.description!))} (or their usual abbreviations)${matcher.unsearched ? ` searched for (${matcher.unsearched.reason})` : ''}. Try other words for the same thing, fewer filters, or search_code for the words in comments and strings.`,
    narrowHint: "Ask for less: a longer name or a prefix glob ('get*') instead of a broad regex, kinds, or languages, paths or repos filters.",
  });
  const notIndexed = await skipped;
  // Documentation and neighbours are a bonus: an answer without them beats no answer.
  const [around, references] = await Promise.all([
    aroundOf(searcher, page.items, args.description !== undefined, signal, withLines).catch(() => undefined),
    args.references ? referencesOf(searcher, page.items, signal) : undefined,
  ]);
  const stats = {
    symbols: ranked.length,
    files: new Set(ranked.map((r) => `${r.symbol.repo}\0${r.symbol.path}`)).size,
    duration_ms: Date.now() - started,
    complete: page.complete,
  };
  const fallbackHint = fellBack ? `No symbol is named exactly '${pattern!.member}'; these are the symbols whose names contain it (any case).` : undefined;
  const caseHint = otherCasesUnread
    ? pattern!.glob
      ? `The counts are of names that match '${pattern!.member}' in its own case; those that match only in another case come after them, on later pages, and are not counted yet.`
      : `The counts are of definitions spelled exactly '${pattern!.member}'; those in another case come after them, on later pages, and are not counted yet.`
    : undefined;
  const make = (s: Record<'results' | 'line_chars', number>, truncated: SymbolSearchOutput['truncated']): SymbolSearchOutput => {
    const paging = pagingOutput(page);
    const hint = [fallbackHint, caseHint, paging.hint].filter(Boolean).join(' ');
    return {
      // The query sent: the name in its own case alone when the page came from it (Matcher.byCase).
      zoekt_query: searcher.confine(otherCasesUnread && matcher.byCase ? matcher.byCase.head.query : matcher.query),
      symbols: page.items.slice(0, s.results).map((sym) => ({
        ...sym,
        signature: clip(sym.signature, sym.signature.indexOf(sym.name) + 1, s.line_chars),
        ...around?.get(sym),
        ...(references?.has(sym) ? { references: references.get(sym)! } : {}),
      })),
      stats,
      ...(notIndexed ? { not_indexed: notIndexed } : {}),
      ...(truncated ? { truncated } : {}),
      ...paging,
      ...(hint ? { hint } : {}),
    };
  };
  return fitPage(page, make, { line_chars: MAX_LINE_CHARS }, LIST_DIALS, budget);
}

/** The ranked symbols a page is cut from. */
interface Ranking {
  /** In order; the first `exact` are those of the whole order (all of them unless a plan stopped early). */
  ranked: Ranked[];
  exact: number;
  /** Every candidate was read: the counts are exact. */
  complete: boolean;
  partial: PartialNote | undefined;
  hadCandidates: boolean;
  /** The name in its own case filled the page; its other spellings were not read (Matcher.byCase). */
  otherCasesUnread?: boolean;
  /** Files read with DOC_LINES lines around each match: the documentation of the page's symbols is read from them first. */
  withLines?: readonly FileHit[];
}

/** Siblings named per result, at most. */
const SIBLINGS = 4;

interface Around {
  related?: { parent?: string; siblings: string[] };
  documentation?: string;
}

/**
 * What the lines around each result say: its documentation and, for a description search, its
 * parent and a few symbols beside it (same parent, else the file's top level). A description
 * search reads every symbol of the page's files with the lines around them; a search by name
 * the page's names only, and more lines around a name whose comment reaches past those read.
 */
async function aroundOf(searcher: Searcher, symbols: SymbolResult[], withRelated: boolean, signal?: AbortSignal, withLines?: readonly FileHit[]): Promise<Map<SymbolResult, Around>> {
  const out = new Map<SymbolResult, Around>();
  if (symbols.length === 0) return out;
  const linesOf = (files: readonly FileHit[]) => {
    const byFile = new Map<string, { symbols: SymbolResult[]; lines: Map<number, string> }>();
    for (const f of files) {
      const lines = new Map<number, string>();
      for (const chunk of f.chunks) if (!chunk.fileName) chunk.lines.forEach((l, i) => lines.set(chunk.startLine + i, l));
      byFile.set(`${f.repo}\0${f.path}`, { symbols: withRelated ? symbolsOf(f).map((x) => x.symbol) : [], lines });
    }
    return byFile;
  };
  const read = async (query: string, files: FileHit[], contextLines = DOC_LINES) =>
    linesOf((await searcher.filesAmong({ query, contextLines, once: true, signal }, files, files.length)).files);
  let byFile: Awaited<ReturnType<typeof read>>;
  const documentation = new Map<SymbolResult, string | undefined>();
  if (withRelated) {
    // Every symbol of the files, with the lines around each: the neighbours a description search shows.
    byFile = await read(q.render(q.sym('.')), uniqueFiles(symbols));
  } else {
    // Only the page's names, with the lines around them. A comment that reaches past those lines
    // is read again with more lines around its name: as many as documentationOf reads of a block
    // comment or a docstring, then enough for a long run of line comments. A few KB: reading every
    // symbol of the file instead cost hundreds for a large one, and still missed the start of a
    // comment that no other symbol's lines reached.
    const names = [...new Set(symbols.map((s) => s.name))].map(q.escapeRegex);
    const byName = q.render(q.and(q.caseMode('yes'), q.sym(`^(?:${names.join('|')})$`)));
    // The lines the page's symbols were read with, when they were (an exact name: exactInOne).
    const page = new Set(symbols.map((s) => `${s.repo}\0${s.path}`));
    byFile = withLines ? linesOf(withLines.filter((f) => page.has(`${f.repo}\0${f.path}`))) : await read(byName, uniqueFiles(symbols));
    let todo = symbols;
    // After the lines of an exact name's one request, a comment that runs past them is read
    // with the most lines at once: one request more, not two.
    for (const lines of withLines ? [DOC_MAX_READ_LINES] : [DOC_READ_LINES, DOC_MAX_READ_LINES]) {
      const short: SymbolResult[] = [];
      for (const sym of todo) {
        const had = byFile.get(`${sym.repo}\0${sym.path}`)?.lines;
        let missed = had === undefined;
        const doc = documentationOf((n) => had?.get(n) ?? void (missed ||= n >= 1), sym.line, sym.language);
        if (missed) short.push(sym);
        else documentation.set(sym, doc);
      }
      if (!short.length) break;
      for (const [key, file] of await read(byName, uniqueFiles(short), lines)) byFile.set(key, file);
      todo = short;
    }
  }
  for (const sym of symbols) {
    const file = byFile.get(`${sym.repo}\0${sym.path}`);
    if (!file) continue;
    const around: Around = {};
    const doc = documentation.has(sym) ? documentation.get(sym) : documentationOf((n) => file.lines.get(n), sym.line, sym.language);
    if (doc) around.documentation = doc;
    if (withRelated) {
      const siblings = file.symbols.filter((o) => o.parent === sym.parent && o.name !== sym.name).map((o) => o.name);
      around.related = { ...(sym.parent ? { parent: sym.parent } : {}), siblings: [...new Set(siblings)].slice(0, SIBLINGS) };
    }
    out.set(sym, around);
  }
  return out;
}

/** Results whose references are counted, at most: each count is a find_references of its own. */
export const MAX_REFERENCE_COUNTS = 20;
const REFERENCE_COUNTS_AT_ONCE = 4;

/**
 * The usage count find_references gives each result, asked by its qualified name:
 * the same searches, so the same number.
 */
async function referencesOf(searcher: Searcher, symbols: SymbolResult[], signal?: AbortSignal): Promise<Map<SymbolResult, { count: number; complete: boolean }>> {
  const out = new Map<SymbolResult, { count: number; complete: boolean }>();
  const budget: Budget<ReferenceOutput> = { maxChars: Number.MAX_SAFE_INTEGER, render: () => '' };
  const todo = symbols.slice(0, MAX_REFERENCE_COUNTS);
  for (let i = 0; i < todo.length; i += REFERENCE_COUNTS_AT_ONCE) {
    await Promise.all(
      todo.slice(i, i + REFERENCE_COUNTS_AT_ONCE).map(async (sym) => {
        const name = sym.parent ? `${sym.parent}.${sym.name}` : sym.name;
        const r = await findReferences(searcher, { symbol: name, limit: 1 }, budget, signal);
        out.set(sym, { count: r.stats.usage_count, complete: r.stats.complete });
      }),
    );
  }
  return out;
}

function uniqueFiles(symbols: SymbolResult[]): FileHit[] {
  const seen = new Map<string, FileHit>();
  for (const s of symbols) {
    const key = `${s.repo}\0${s.path}`;
    if (!seen.has(key)) seen.set(key, { repo: s.repo, path: s.path } as FileHit);
  }
  return [...seen.values()];
}

function candidatesBound(): { reason: string; hint: string } {
  const most = grouped(FILE_WINDOWS[FILE_WINDOWS.length - 1]!);
  return { reason: `more than ${most} files define matching symbols; the symbols of the best-ranked ${most} were read`, hint: `Use a longer name or prefix, or kinds. ${NARROW_HINT}` };
}

/**
 * Of the languages asked for, those whose files in the index have no symbols at all: the
 * reason an answer is empty, better than any other guess. Empty when none was asked for.
 */
async function unindexedLanguages(searcher: Searcher, args: SymbolSearchArgs): Promise<LanguageCoverage[]> {
  if (!args.languages?.length) return [];
  const names = [...new Set(args.languages.map((l) => resolveLanguage(l, 'languages').name))];
  const coverage = await languagesCoverage(searcher, names).catch(() => []);
  return coverage.filter((c) => c.files_with_symbols === 0);
}

/**
 * Why no symbol was found, from what the index holds: each suspected cause (case, an exact name
 * where a prefix was meant, vendored paths, the filters) is named only when the search without it
 * finds symbols; otherwise the hint says which of those were checked.
 */
async function zeroSymbolHint(
  searcher: Searcher,
  args: SymbolSearchArgs,
  pattern: NamePattern,
  hadCandidates: boolean,
  unindexed: LanguageCoverage[],
  signal?: AbortSignal,
): Promise<string> {
  if (unindexed.length) {
    const which = unindexed.map((c) => (c.files ? `${c.language} (${c.files} files, none with symbols)` : `${c.language} (no files)`)).join(', ');
    const noFiles = unindexed.every((c) => c.files === 0);
    return noFiles
      ? `No symbol definitions found: the index has no ${which} files in scope. Check the language name, or call list_repos to see each repository's languages.`
      : `No symbol definitions found: ${which} has no symbols in this index (no symbol parser reads it, or its repositories were indexed without one). search_code with query '${(args.name ?? '').replace(/'/g, '')}' and languages finds the text; get_health lists the symbol coverage of every language.`;
  }
  const causes: string[] = [];
  if (hadCandidates && args.kinds?.length) causes.push(`symbols named like that exist, but none of kinds ${JSON.stringify(args.kinds)}: drop kinds to see their kinds`);
  if (hadCandidates && pattern.parent) causes.push(`symbols named '${pattern.member}' exist, but none inside '${pattern.parent.join('.')}': search the bare name to see their parents`);
  const count = (variant: Partial<SymbolSearchArgs>, name = pattern) => searcher.count(buildSymbolQuery({ ...args, ...variant }, name), signal);
  const prefix = !args.regex && !isGlob(pattern.member) && !pattern.parent ? parseName(`${pattern.member}*`, false) : undefined;
  const filters = describeFilters(args);
  const noFilters: Partial<SymbolSearchArgs> = { repos: undefined, paths: undefined, exclude_paths: undefined, languages: undefined, exclude_languages: undefined, source_code_only: undefined };
  const word = args.regex ? undefined : pattern.member.replace(/[*?]/g, '');
  const [caseless, byPrefix, vendored, unfiltered, text] = await Promise.all([
    args.case_sensitive ? count({ case_sensitive: false }) : 0,
    prefix ? count({}, prefix) : 0,
    args.include_vendored ? 0 : count({ include_vendored: true }),
    filters.length ? count(noFilters) : 0,
    word && IDENTIFIER_WORD.test(word) ? searcher.count(q.render(q.and(q.caseMode('no'), q.content(wordRegex(word)), ...filterParts(args))), signal) : 0,
  ]);
  if (caseless) causes.push(`the search is case-sensitive, and without case_sensitive ${caseless} file(s) define such symbols`);
  if (byPrefix) causes.push(`no symbol is named exactly '${pattern.member}', but '${pattern.member}*' finds symbols in ${byPrefix} file(s)`);
  if (vendored) causes.push(`vendored paths (vendor/, node_modules/, third_party/ …) are left out, and include_vendored: true finds symbols in ${vendored} file(s)`);
  if (unfiltered) causes.push(`the filters ${filters.join(', ')} exclude them: without the filters ${unfiltered} file(s) define such symbols`);
  const scopeNote = searcher.scope.note();
  const textNote = text
    ? ` The word appears in ${text} file(s) as text (search_code finds it): it may be defined in a language without symbols (get_health lists each language's coverage), or only used there.`
    : word
      ? ' The word appears in no indexed file as text either.'
      : '';
  if (causes.length) return `No symbol definitions found: ${causes.join('; ')}.${textNote}${scopeNote ? ` Note that ${scopeNote}.` : ''}`;
  const checked = [args.case_sensitive && 'case-insensitively', prefix && `as a prefix ('${pattern.member}*')`, !args.include_vendored && 'in vendored paths', filters.length > 0 && 'without the filters'].filter(Boolean);
  return `No symbol definitions found${checked.length ? `, nor any ${checked.join(', ')}` : ''}.${textNote}${scopeNote ? ` Note that ${scopeNote}.` : ''} Check the spelling; list_repos and get_health show what is indexed.`;
}
