/**
 * What both searches of search_symbols (by name, by description) share: the arguments, a
 * symbol as ranked, the order of ranked symbols, and the Matcher each search is read through.
 */
import { grouped, NARROW_HINT, type Partial as PartialNote } from '../engine/completeness.js';
import { compareStrings } from '../engine/paging.js';
import { compareProminent, markTwins, twinKey } from '../definitions/prominence.js';
import { FILE_WINDOWS, type SymbolQueryArgs } from '../definitions/by-name.js';
import { symbolsOf, type SymbolResult } from '../definitions/symbol.js';
import type { FileHit } from '../../zoekt/wire.js';

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

export interface Ranked {
  symbol: SymbolResult;
  tier: number;
  /** Among exact names (tiers 0 and 1): public, outside tests, top-level, with a body, not a twin, shallow first (prominence.ts). */
  prominence: number;
  score: number;
  /** What its copies in duplicated files share (prominence.ts, twinKey), among exact names. */
  copy?: string;
}

export function compareRanked(a: Ranked, b: Ranked): number {
  return a.tier - b.tier || compareProminent(a, b) || compareStrings(a.symbol.name, b.symbol.name);
}

/** The symbols of `files` that `m` keeps, in its order; with `seen`, each symbol once across files read twice. */
export function rankFiles(m: Matcher, files: readonly FileHit[], seen?: Set<string>): Ranked[] {
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

/** How one search_symbols call picks and orders symbols among the candidates Zoekt returns. */
export interface Matcher {
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
  };
}

/** The ranked symbols a page is cut from. */
export interface Ranking {
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

export function candidatesBound(): { reason: string; hint: string } {
  const most = grouped(FILE_WINDOWS[FILE_WINDOWS.length - 1]!);
  return { reason: `more than ${most} files define matching symbols; the symbols of the best-ranked ${most} were read`, hint: `Use a longer name or prefix, or kinds. ${NARROW_HINT}` };
}
