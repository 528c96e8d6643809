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
 * order is not Zoekt's: a search by name (symbols/by-name.ts) reads every definition of an exact
 * name with the lines around it in one request, its own case first (exactInOne), and for other
 * names the files that can hold a page (planNames, the fetch plan); a search by description
 * (symbols/by-description.ts) the best files of each word; every page is a slice of one order,
 * and a post-filtered page is full. This file assembles the page: the order read through a Matcher (symbols/ranking.ts), the
 * documentation and neighbours of its symbols, their usage counts, and why a page is empty.
 */
import { invalidArgument } from '../errors.js';
import * as q from '../zoekt/query.js';
import type { FileHit } from '../zoekt/wire.js';
import { z } from 'zod';
import { zoektPartial } from './engine/completeness.js';
import { describeFilters, filterParts } from './vocab/filters.js';
import { isGlob } from '../patterns/globs.js';
import { parseKinds } from './vocab/kinds.js';
import { completeField, paginate, pagingFields, pagingOutput } from './engine/page.js';
import { indexAgeField } from './vocab/freshness.js';
import type { Searcher } from './engine/searcher.js';
import { NotIndexedInScope, skippedInScope } from './engine/skipped.js';
import { derived } from './engine/window-cache.js';
import { languagesCoverage, type LanguageCoverage } from './definitions/coverage.js';
import { resolveLanguage } from './vocab/languages.js';
import { clip, fitPage, LIST_DIALS, MAX_LINE_CHARS, truncatedField, type Budget } from './engine/budget.js';
import { acronymsOf, descriptionWords, relatedWords } from './definitions/words.js';
import { loadVocabulary, MAX_RELATED, relatedTo } from './definitions/vocabulary.js';
import { DOC_LINES, DOC_MAX_READ_LINES, DOC_READ_LINES, documentationOf } from './definitions/documentation.js';
import { buildSymbolQuery, candidateFiles, FILE_WINDOWS, parseName, wordRegex, type NamePattern } from './definitions/by-name.js';
import { IDENTIFIER_WORD, SymbolResult, symbolsOf } from './definitions/symbol.js';
import { findReferences, type ReferenceOutput } from './references.js';
import { candidatesBound, rankFiles, type Matcher, type Ranked, type Ranking, type SymbolSearchArgs } from './symbols/ranking.js';
import { exactInOne, nameMatcher, PLAN_SHARE, planNames } from './symbols/by-name.js';
import { checkedDescription, descriptionMatcher } from './symbols/by-description.js';
import { meaningPage, type MeaningPage } from './symbols/by-meaning.js';
import { DefinitionsIndexUnavailable, type DefinitionsIndex } from './definitions/definitions-index.js';

export type { SymbolSearchArgs } from './symbols/ranking.js';
export { nameQueries, rankByName } from './symbols/by-name.js';
export { descriptionSymbols } from './symbols/by-description.js';

export const SEARCH_SYMBOLS = 'search_symbols';

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
  const index = searcher.definitions;
  let unavailable: string | undefined;
  if (args.description !== undefined && index) {
    try {
      return await searchByMeaning(searcher, index, args, kinds, limit, budget, started, signal);
    } catch (e) {
      if (!(e instanceof DefinitionsIndexUnavailable)) throw e;
      unavailable = e.message;
    }
  }
  const namesOnlyHint = namesOnly(unavailable);
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
        : `No symbol name has any of the words ${JSON.stringify(descriptionWords(args.description!))} (or their usual abbreviations)${matcher.unsearched ? ` searched for (${matcher.unsearched.reason})` : ''}. Try other words for the same thing, fewer filters, or search_code for the words in comments and strings. ${namesOnlyHint}`,
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
  const allWords = args.description === undefined ? [] : descriptionWords(args.description);
  const wordsLeft = allWords.length > words.length ? `Only the first ${words.length} of the description's words were searched for (${JSON.stringify(words)}); with a definitions index the whole sentence counts.` : undefined;
  const lexical = args.description !== undefined && page.items.length > 0 ? [wordsLeft, namesOnlyHint].filter(Boolean).join(' ') : undefined;
  const make = (s: Record<'results' | 'line_chars', number>, truncated: SymbolSearchOutput['truncated']): SymbolSearchOutput => {
    const paging = pagingOutput(page);
    const hint = [fallbackHint, caseHint, paging.hint, lexical].filter(Boolean).join(' ');
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

/** What a description search without a definitions index says: it read names, not documentation. */
function namesOnly(unavailable: string | undefined): string {
  return unavailable
    ? `These are matched by the words of their names only: ${unavailable}.`
    : 'These are matched by the words of their names only: this server has no definitions index, which would rank definitions by what their documentation says and by meaning (build one with `zoekt-mcp definitions build`, see docs/definitions.md).';
}

/**
 * A description search ranked by the definitions index (symbols/by-meaning.ts): pages of its
 * fused order, each confirmed by Zoekt, with the documentation of the lines Zoekt sent.
 */
async function searchByMeaning(
  searcher: Searcher,
  index: DefinitionsIndex,
  args: SymbolSearchArgs,
  kinds: ReturnType<typeof parseKinds>,
  limit: number,
  budget: Budget<SymbolSearchOutput>,
  started: number,
  signal?: AbortSignal,
): Promise<SymbolSearchOutput> {
  let got: MeaningPage | undefined;
  const page = await paginate({
    tool: SEARCH_SYMBOLS,
    cursors: searcher.cursors,
    // A cursor of this walk never pages the walk by names (an index gone or come between pages).
    args: { ...args, walk: 'meaning' },
    limit,
    fetch: async (offset) => {
      got = await meaningPage(searcher, index, args, kinds, offset, limit, signal);
      const named = got.unindexed.slice(0, 5).join(', ') + (got.unindexed.length > 5 ? ` and ${got.unindexed.length - 5} more` : '');
      const n = got.unindexed.length;
      const reasons = [
        n ? `${n} repositor${n === 1 ? 'y' : 'ies'} in scope ha${n === 1 ? 's' : 've'} nothing in the definitions index yet (${named}): their definitions are not ranked` : '',
        got.unlisted ? "Zoekt's repositories could not be listed, so any the definitions index lacks are not named" : '',
        got.stale ? `${got.stale} of this page's definitions are no longer in Zoekt's index (the definitions index is behind it) and were left out` : '',
        got.cut ? `the walk ends after the ${got.ranked} definitions ranked by meaning or by words, of the ${got.considered} that pass the filters` : '',
      ].filter(Boolean);
      const hints = [
        n ? 'Search those by name, or build their definitions index (zoekt-mcp definitions build; get_health lists what it holds).' : '',
        got.stale ? 'Call again shortly: the definitions index is rebuilt after each index build.' : '',
        got.cut ? 'Add kinds, languages, paths or repos, or other words, to reach others.' : '',
      ].filter(Boolean);
      const partial = reasons.length ? { reason: reasons.join('; '), hint: hints.join(' ') || 'Call again shortly.' } : undefined;
      const complete = got.considered <= got.ranked && got.stale === 0 && got.unindexed.length === 0 && !got.unlisted;
      return { items: got.items, more: got.more, complete, partial };
    },
    emptyHint: () =>
      got?.considered
        ? `None of the ${got.considered} definitions that pass the filters matches these words or their meaning. Try other words for the same thing, or search by name.`
        : `No definition passes these filters${describeFilters(args).length ? ` (${describeFilters(args).join(', ')})` : ''}${kinds ? ` and kinds ${JSON.stringify([...kinds])}` : ''}. Drop a filter, or list_repos to see what is indexed.`,
    narrowHint: 'Ask for less: kinds, or languages, paths or repos filters.',
  });
  const around = await aroundOf(searcher, page.items, false, signal, got?.withLines).catch(() => undefined);
  const references = args.references ? await referencesOf(searcher, page.items, signal) : undefined;
  const stats = { symbols: got?.ranked ?? 0, files: got?.rankedFiles ?? 0, duration_ms: Date.now() - started, complete: page.complete };
  const make = (s: Record<'results' | 'line_chars', number>, truncated: SymbolSearchOutput['truncated']): SymbolSearchOutput => ({
    // What Zoekt was asked: the page's definitions, to confirm them (the ranking is the definitions index's).
    zoekt_query: searcher.confine(got?.query ?? ''),
    symbols: page.items.slice(0, s.results).map((sym) => ({
      ...sym,
      signature: clip(sym.signature, sym.signature.indexOf(sym.name) + 1, s.line_chars),
      ...(around?.get(sym)?.documentation ? { documentation: around.get(sym)!.documentation } : {}),
      ...(references?.has(sym) ? { references: references.get(sym)! } : {}),
    })),
    stats,
    ...(truncated ? { truncated } : {}),
    ...pagingOutput(page),
  });
  // A page cut short resumes at the fused place of its first result not shown.
  return fitPage(page, make, { line_chars: MAX_LINE_CHARS }, LIST_DIALS, budget, (shown) => got?.positions[shown] ?? page.offset + limit);
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
