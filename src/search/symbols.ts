/**
 * search_symbols: where things are defined, from the symbols Zoekt indexed (`sym:`: the tree-sitter
 * extractor's, or Universal Ctags').
 *
 * The name is matched by Zoekt (a pre-filter); two things only we can check are post-filters:
 * the enclosing type of a qualified name (`Server.start`), and the normalized `kinds`. Order:
 * exact name in exact case, exact name in other case, names that start with the literal prefix,
 * the rest; among exact names, the public ones outside tests and in shallower folders first
 * (prominence.ts); then Zoekt's score. Because that order is not Zoekt's, the whole candidate set
 * is fetched (up to a cap) and ranked here, so every page is a slice of one order and a
 * post-filtered page is full.
 */
import { invalidArgument } from '../errors.js';
import * as q from '../zoekt/query.js';
import { checkRegexBounds } from '../zoekt/query-bounds.js';
import type { FileHit } from '../zoekt/wire.js';
import { z } from 'zod';
import { grouped, NARROW_HINT, zoektPartial } from './completeness.js';
import { describeFilters, filterParts, vendoredPart, type SharedFilters } from './filters.js';
import { isGlob, nameGlobToRegex } from './globs.js';
import { normalizeKind, parseKinds, type Kind } from './kinds.js';
import { completeField, paginate, pagingFields, pagingOutput } from './page.js';
import { indexAgeField } from './freshness.js';
import { compareStrings } from './paging.js';
import type { Searcher } from './searcher.js';
import { NotIndexedInScope, skippedInScope } from './skipped.js';
import { derived, type Window } from './window-cache.js';
import { languagesCoverage, type LanguageCoverage } from './coverage.js';
import { resolveLanguage } from './languages.js';
import { isTest, prominence } from './prominence.js';
import { clip, fitPage, LIST_DIALS, MAX_LINE_CHARS, truncatedField, type Budget } from './budget.js';
import { concept, coverage, descriptionWords, identifierWords, spellings } from './words.js';
import { DOC_LINES, documentationOf } from './documentation.js';
import type { ReferenceOutput } from './references.js';

export const SEARCH_SYMBOLS = 'search_symbols';

export interface SymbolSearchArgs extends SharedFilters {
  /** Exactly one of name and description. */
  name?: string | undefined;
  description?: string | undefined;
  regex?: boolean | undefined;
  case_sensitive?: boolean | undefined;
  kinds?: string[] | undefined;
  include_vendored?: boolean | undefined;
  /** Count each result's usages, as find_references would (a search per result). */
  references?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

const SymbolResult = z.object({
  name: z.string(),
  kind: z.string(),
  raw_kind: z.string(),
  parent: z.string().optional(),
  parent_kind: z.string().optional(),
  qualified_name: z.string(),
  language: z.string(),
  repo: z.string(),
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  signature: z.string(),
  /** A description search: how much of the description the name covers (0–1), and the words it matched. */
  score: z.number().optional(),
  matched_words: z.array(z.string()).optional(),
  /** A description search: the enclosing type and a few symbols beside it. */
  related: z.object({ parent: z.string().optional(), siblings: z.array(z.string()) }).optional(),
  /** The doc comment or docstring of the definition, trimmed (documentation.ts). */
  documentation: z.string().optional(),
  /** On request: the usage lines find_references counts for it; `complete` false makes it a lower bound. */
  references: z.object({ count: z.number().int(), complete: z.boolean() }).optional(),
});
export type SymbolResult = z.infer<typeof SymbolResult>;

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

/** File windows tried in turn until Zoekt has nothing more; the last one caps the work. */
// A window of 5,000 files of symbols is an answer past the cap for Zoekt to build (bench/README.md, "Zoekt's memory").
const FILE_WINDOWS = [500, 2000];

/** What the `name` argument asks for. */
export interface NamePattern {
  /** The regex sent in `sym:`, anchored. */
  symRegex: string;
  /** The enclosing type's name segments (`acme::UserService::find` → ['acme', 'UserService']). */
  parent?: string[];
  /** The member part of a qualified name, as written; the whole name otherwise. */
  member: string;
  /** A dotted name may also be one symbol's whole name (Markdown headings, Java packages). */
  wholeName?: string;
  /** The literal text a name starts with, for the prefix rank. */
  literalPrefix: string;
  /** `::name`: only definitions with no enclosing type. */
  global?: boolean;
  /** No exact name matched, so the name is looked for inside names (case-insensitive): the hint says so. */
  substring?: boolean;
}

const SEPARATOR = /::|\./;

function memberRegex(text: string, asRegex: boolean): string {
  if (asRegex) return text;
  return isGlob(text) ? nameGlobToRegex(text) : `^${q.escapeRegex(text)}$`;
}

function stripAnchors(re: string): string {
  return re.replace(/^\^/, '').replace(/\$$/, '');
}

export function parseName(name: string, asRegex: boolean): NamePattern {
  const text = name.trim();
  if (text === '') throw invalidArgument('name is empty', "Give a symbol name ('UserService'), a glob ('get*'), or a qualified name ('Server.start').");
  if (asRegex) {
    checkRegexBounds(text, 'the name regex');
    return { symRegex: text, member: text, literalPrefix: '' };
  }
  if (text.startsWith('::') && !/^(?:::|[.:])+$/.test(text)) {
    // `::main`: a global definition, one with no enclosing type.
    const member = text.slice(2);
    if (SEPARATOR.test(member)) throw invalidArgument(`'${text}' names a member after '::'`, "'::name' finds a global (unparented) definition: give one name after '::' ('::main'); for a member, give its type first ('Server.start').");
    return { symRegex: memberRegex(member, false), member, literalPrefix: literalPrefixOf(member), global: true };
  }
  if (/^(?:::|[.:])+$/.test(text)) {
    throw invalidArgument(
      `name '${text}' has only separators, no name`,
      "Give a symbol name ('start'), a qualified name ('Server.start', 'UserService::find'), or a type and a separator to list its members ('Server.', 'UserService::'). To match names by pattern, set regex: true.",
    );
  }
  const match = /^(.*?)(?:::|\.)((?:(?!::|\.).)*)$/.exec(text);
  if (!match || match[1] === '') {
    return { symRegex: memberRegex(text, false), member: text, literalPrefix: literalPrefixOf(text) };
  }
  const parent = match[1]!.split(SEPARATOR).filter(Boolean);
  if (parent.length === 0) {
    throw invalidArgument(
      `the type part of '${text}' is only separators`,
      `Put the type's name before the separator ('Server.${match[2] || 'start'}'), or drop the separators to search the bare name ('${match[2] || 'start'}').`,
    );
  }
  const listing = match[2] === '';
  const member = listing ? '*' : match[2]!;
  if (parent.some(isGlob)) {
    throw invalidArgument(`the type part of '${text}' is a glob`, "Globs work in the member part only: 'Server.get*', 'UserService::*'. For other patterns set regex: true.");
  }
  const memberRe = memberRegex(member, false);
  const whole = listing || isGlob(text) ? undefined : text;
  // Also accept a symbol whose whole name is the dotted text (Markdown headings, Java packages).
  const symRegex = whole ? `^(?:${stripAnchors(memberRe)}|${q.escapeRegex(whole)})$` : memberRe;
  const pattern: NamePattern = { symRegex, parent, member, literalPrefix: literalPrefixOf(member) };
  if (whole) pattern.wholeName = whole;
  return pattern;
}

function literalPrefixOf(glob: string): string {
  const at = glob.search(/[*?[\\]/);
  return at < 0 ? glob : glob.slice(0, at);
}

/** The segments of a symbol's scope: `acme::UserService`, `server.Server`, `Outer.Inner`. */
function scopeSegments(scope: string): string[] {
  return scope.split(/::|\.|#|\//).filter(Boolean);
}

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

const SCOPE_SEPARATOR: Record<string, string> = { 'C++': '::', Rust: '::', PHP: '::', 'Objective-C++': '::' };

interface Ranked {
  symbol: SymbolResult;
  tier: number;
  /** Among exact names (tiers 0 and 1): public, outside tests, shallow first (prominence.ts). */
  prominence: number;
  score: number;
}

/** The identifier as a whole word; `\b` only where the identifier starts or ends with a word character. */
export function wordRegex(identifier: string): string {
  const body = q.escapeRegex(identifier);
  return `${/^\w/.test(identifier) ? '\\b' : ''}${body}${/\w$/.test(identifier) ? '\\b' : ''}`;
}

function rankTier(name: string, pattern: NamePattern): number {
  const asked = pattern.member;
  if (name === asked || name === pattern.wholeName) return 0;
  if (name.toLowerCase() === asked.toLowerCase()) return 1;
  if (pattern.literalPrefix && name.toLowerCase().startsWith(pattern.literalPrefix.toLowerCase())) return 2;
  return 3;
}

function compareRanked(a: Ranked, b: Ranked): number {
  return (
    a.tier - b.tier ||
    a.prominence - b.prominence ||
    b.score - a.score ||
    compareStrings(a.symbol.repo, b.symbol.repo) ||
    compareStrings(a.symbol.path, b.symbol.path) ||
    a.symbol.line - b.symbol.line ||
    a.symbol.column - b.symbol.column ||
    compareStrings(a.symbol.name, b.symbol.name)
  );
}

/** What stands before a name in an expression: `x = f(`, `=> f(`, `return f(`, `a && f(`. */
const EXPRESSION_BEFORE = /(?:=>?|[!?]|&&|\|\||\b(?:return|await|new|yield|throw))\s*$/;
/** A call: the name, maybe type arguments, then `(`. */
const CALL_AFTER = /^\s*(?:<[^()]*>)?\s*\(/;

/**
 * Whether the line really defines `name`. Universal Ctags sometimes tags a name that is only called on
 * the line (`const c = f(o)` tagged as a definition of `f`); a line defines the name when one of
 * its whole-word occurrences is not such a call. (Zoekt points at the first occurrence, which on a
 * minified line may be a call before the real `function f(`.)
 */
export function definesAt(line: string, name: string): boolean {
  // Called for every candidate symbol of a window (thousands per call): plain string search, no
  // regex built per name.
  let seen = false;
  for (let at = name === '' ? -1 : line.indexOf(name); at >= 0; at = line.indexOf(name, at + 1)) {
    const end = at + name.length;
    if (isIdentifierChar(codePointBefore(line, at)) || isIdentifierChar(line.codePointAt(end))) continue;
    seen = true;
    if (!(CALL_AFTER.test(line.slice(end)) && EXPRESSION_BEFORE.test(line.slice(0, at)))) return true;
    at = end - 1;
  }
  // A name a parser reported that the line does not spell out (a generated or renamed tag): keep it.
  return !seen;
}

/** A character that continues an identifier: a letter or digit of any script, `_` or `$`. */
export const IDENTIFIER_CHAR = /[\p{L}\p{N}_$]/u;
const IDENTIFIER_WORD = /^[\p{L}\p{N}_$]+$/u;

function isIdentifierChar(codePoint: number | undefined): boolean {
  return codePoint !== undefined && IDENTIFIER_CHAR.test(String.fromCodePoint(codePoint));
}

/** The code point that ends just before `at` (a surrogate pair read whole). */
function codePointBefore(s: string, at: number): number | undefined {
  if (at === 0) return undefined;
  const low = s.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = s.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return s.codePointAt(at - 2);
  }
  return low;
}

/** Every symbol definition in a file hit, with kinds normalized and parents bare. */
export function symbolsOf(file: FileHit): { symbol: SymbolResult; scope: string }[] {
  const out: { symbol: SymbolResult; scope: string }[] = [];
  const seen = new Set<string>();
  for (const chunk of file.chunks) {
    if (chunk.fileName) continue;
    for (const range of chunk.ranges) {
      const sym = range.symbol;
      if (!sym) continue;
      const key = `${range.line}:${range.column}:${sym.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const lineText = chunk.lines[range.line - chunk.startLine] ?? '';
      if (!definesAt(lineText, sym.name)) continue;
      // A Go or Java package is the scope of every symbol in it, not an enclosing type.
      const scoped = sym.parent !== '' && sym.parentKind !== 'package';
      const kind = normalizeKind(sym.kind, file.language, scoped ? sym.parentKind : undefined);
      const parent = scoped ? scopeSegments(sym.parent).pop() ?? sym.parent : undefined;
      const separator = SCOPE_SEPARATOR[file.language] ?? '.';
      const symbol: SymbolResult = {
        name: sym.name,
        kind: kind ?? sym.kind,
        raw_kind: sym.kind,
        qualified_name: parent ? `${parent}${separator}${sym.name}` : sym.name,
        language: file.language,
        repo: file.repo,
        path: file.path,
        line: range.line,
        column: range.column,
        signature: lineText.trim(),
      };
      if (parent) {
        symbol.parent = parent;
        if (sym.parentKind) symbol.parent_kind = sym.parentKind;
      }
      out.push({ symbol, scope: scoped ? sym.parent : '' });
    }
  }
  return out;
}

export function buildSymbolQuery(args: SymbolSearchArgs, pattern: NamePattern): string {
  const caseSensitive = args.case_sensitive ?? false;
  const parts: q.QueryPart[] = [q.caseMode(caseSensitive ? 'yes' : 'no'), q.sym(pattern.symRegex)];
  // A member's file mentions its type (so does a symbol named by the whole dotted text): a cheap
  // pre-filter that keeps `Parent::` listings small.
  if (pattern.parent) parts.push(q.regex(wordRegex(pattern.parent[pattern.parent.length - 1]!)));
  parts.push(...filterParts(args));
  if (!args.include_vendored) parts.push(q.not(vendoredPart()));
  return q.render(q.and(...parts));
}

/** Every file with a matching symbol, up to the last window's cap. */
export async function candidateFiles(searcher: Searcher, query: string, fresh: boolean, signal?: AbortSignal): Promise<{ files: FileHit[]; window: Window }> {
  let window: Window | undefined;
  for (const size of FILE_WINDOWS) {
    window = await searcher.window({ query, size, signal, fresh });
    if (window.exhausted) break;
  }
  return { files: window!.files, window: window! };
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
      if (r) all.push(r);
    }
  }
  return all.sort(compareRanked);
}

/** How one search_symbols call picks and orders symbols among the candidates Zoekt returns. */
interface Matcher {
  query: string;
  /**
   * Queries whose best files are candidates too: one per word of a description, so that a word
   * common in names (`string`, `read`) cannot crowd out the files of a rarer one (`split`).
   */
  alsoQueries?: string[];
  /** What the ranking depends on beyond the window, for the memo of a window's ranking. */
  memoKey: string;
  rank(symbol: SymbolResult, scope: string, fileScore: number): Ranked | undefined;
}

function nameMatcher(args: SymbolSearchArgs, pattern: NamePattern, kinds: Set<Kind> | undefined): Matcher {
  const caseSensitive = args.case_sensitive ?? false;
  return {
    query: buildSymbolQuery(args, pattern),
    memoKey: JSON.stringify([args.name, args.regex, caseSensitive, args.kinds, pattern.substring]),
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
  };
}

/** What surrounds a definition: its parent and folder (a package, often), and its file's name. */
function contextWords(symbol: SymbolResult): { near: string[]; around: string[] } {
  const parts = symbol.path.split('/');
  const file = (parts.pop() ?? '').replace(/\.[^.]*$/, '').replace(/_test$/, '');
  return { near: [symbol.parent ?? '', parts.pop() ?? ''], around: [file] };
}

/** How many tenths of coverage a definition in a test or an example counts less. */
const TEST_TIERS = 5;

/** Kinds that are an answer to "what does X": code, and the types that hold it. */
const DOING_KINDS = new Set(['function', 'method', 'constructor', 'class', 'struct', 'interface', 'trait', 'type', 'enum', 'module', 'namespace']);

function descriptionMatcher(args: SymbolSearchArgs, words: string[], kinds: Set<Kind> | undefined): Matcher {
  const queryOf = (some: string[]) => {
    const parts: q.QueryPart[] = [q.caseMode('yes'), q.sym(descriptionRegex(some)), ...filterParts(args)];
    if (!args.include_vendored) parts.push(q.not(vendoredPart()));
    return q.render(q.and(...parts));
  };
  return {
    query: queryOf(words),
    ...(words.length > 1 ? { alsoQueries: words.map((w) => queryOf([w])) } : {}),
    memoKey: JSON.stringify(['description', words, args.kinds]),
    rank(symbol, _scope, fileScore) {
      if (kinds && !kinds.has(symbol.kind as Kind)) return undefined;
      const { near, around } = contextWords(symbol);
      const { score, matched, extra } = coverage(words, symbol.name, near, around);
      // Only a name that has a word of the description: its file or parent alone is not a match.
      if (!matched.some((w) => identifierWords(symbol.name).some((n) => concept(n) === concept(w)))) return undefined;
      // Coverage first, in steps so that close calls go to what comes next, and TEST_TIERS steps
      // lower in tests and examples (an agent asking what code does means the code, not its tests);
      // then kind fit, then the definition ranking (public, shallow), then the fewest words unasked for.
      const fit = DOING_KINDS.has(symbol.kind) ? 0 : 2 ** 26;
      return {
        symbol: { ...symbol, score, matched_words: matched },
        tier: 10 - Math.floor(score * 10) + (isTest(symbol.path) ? TEST_TIERS : 0),
        prominence: fit + prominence(symbol) * 16 + Math.min(extra, 15),
        score: fileScore,
      };
    },
  };
}

/**
 * The `sym:` regex of a description: any spelling of any of its words, where an identifier word
 * starts (after a non-letter, or as the capital of a camelCase word), so `db` meets `dbConn` and
 * `openDB` but not `sandbox`. Case is spelled out in the regex; the query is case:yes.
 */
export function descriptionRegex(words: readonly string[]): string {
  const alternatives = new Set<string>();
  for (const word of words) {
    for (const spelling of spellings(word)) {
      const lower = q.escapeRegex(spelling.toLowerCase());
      const capital = q.escapeRegex(spelling.charAt(0).toUpperCase() + spelling.slice(1).toLowerCase());
      const upper = q.escapeRegex(spelling.toUpperCase());
      alternatives.add(`(?:^|[^A-Za-z])(?:${lower}|${capital}|${upper})`);
      alternatives.add(`[a-z0-9](?:${capital}|${upper})`);
    }
  }
  return [...alternatives].join('|');
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
  let matcher = pattern ? nameMatcher(args, pattern, kinds) : descriptionMatcher(args, words, kinds);
  let fellBack = false;
  let ranked: Ranked[] = [];
  // The first page says which files in scope the indexer skipped (their symbols are not indexed either).
  const skipped = args.cursor === undefined ? skippedInScope(searcher, filterParts(args), signal).catch(() => undefined) : Promise.resolve(undefined);
  const rankWindow = async (m: Matcher, offset: number) => {
    const [main, ...more] = await Promise.all([
      candidateFiles(searcher, m.query, offset === 0, signal),
      ...(m.alsoQueries ?? []).map((query) => searcher.window({ query, size: FILE_WINDOWS[0]!, signal, fresh: offset === 0 })),
    ]);
    const { window } = main!;
    if (more.length) {
      // The best files of each word, beside those of all words: each symbol once.
      const files = [main!.files, ...more.map((w) => w.files)].flat();
      return { files, window, out: rankFiles(m, files, new Set()) };
    }
    const { files } = main!;
    // Later pages of a walk rank the same cached window again: once per window and matcher.
    const out = derived(window, `symbols\u0000${m.memoKey}`, () => rankFiles(m, files));
    return { files, window, out };
  };
  const page = await paginate({
    tool: SEARCH_SYMBOLS,
    cursors: searcher.cursors,
    args: { ...args },
    limit,
    fetch: async (offset) => {
      let { files, window, out } = await rankWindow(matcher, offset);
      // No symbol has this name: look for it inside names, and say so (the same on every page).
      if (out.length === 0 && pattern && bareName(args, pattern)) {
        const inside = { ...pattern, symRegex: `(?i)${q.escapeRegex(pattern.member)}`, literalPrefix: '', substring: true };
        const fallback = nameMatcher({ ...args, case_sensitive: false }, inside, kinds);
        const second = await rankWindow(fallback, offset);
        if (second.out.length) {
          ({ files, window, out } = second);
          matcher = fallback;
          fellBack = true;
        }
      }
      ranked = out;
      return {
        items: ranked.slice(offset, offset + limit).map((r) => r.symbol),
        more: ranked.length > offset + limit,
        complete: window.exhausted && !window.stats.stopped,
        partial: zoektPartial(window.stats) ?? (window.exhausted ? undefined : candidatesBound()),
        hadCandidates: files.length > 0,
      };
    },
    emptyHint: async (fetched) =>
      pattern
        ? zeroSymbolHint(searcher, args, pattern, fetched.hadCandidates, await unindexedLanguages(searcher, args), signal)
        : `No symbol name has any of the words ${JSON.stringify(descriptionWords(args.description!))} (or their usual abbreviations). Try other words for the same thing, fewer filters, or search_code for the words in comments and strings.`,
    narrowHint: "Ask for less: a longer name or a prefix glob ('get*') instead of a broad regex, kinds, or languages, paths or repos filters.",
  });
  const notIndexed = await skipped;
  // Documentation and neighbours are a bonus: an answer without them beats no answer.
  const [around, references] = await Promise.all([
    aroundOf(searcher, page.items, args.description !== undefined, signal).catch(() => undefined),
    args.references ? referencesOf(searcher, page.items, signal) : undefined,
  ]);
  const stats = {
    symbols: ranked.length,
    files: new Set(ranked.map((r) => `${r.symbol.repo}\0${r.symbol.path}`)).size,
    duration_ms: Date.now() - started,
    complete: page.complete,
  };
  const fallbackHint = fellBack ? `No symbol is named exactly '${pattern!.member}'; these are the symbols whose names contain it (any case).` : undefined;
  const make = (s: Record<'results' | 'line_chars', number>, truncated: SymbolSearchOutput['truncated']): SymbolSearchOutput => {
    const paging = pagingOutput(page);
    const hint = [fallbackHint, paging.hint].filter(Boolean).join(' ');
    return {
      zoekt_query: searcher.confine(matcher.query),
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

/** Siblings named per result, at most. */
const SIBLINGS = 4;

interface Around {
  related?: { parent?: string; siblings: string[] };
  documentation?: string;
}

/**
 * What the lines around each result say: its documentation and, for a description search, its
 * parent and a few symbols beside it (same parent, else the file's top level). One search for
 * every symbol of the page's files, with the lines around them.
 */
async function aroundOf(searcher: Searcher, symbols: SymbolResult[], withRelated: boolean, signal?: AbortSignal): Promise<Map<SymbolResult, Around>> {
  const out = new Map<SymbolResult, Around>();
  if (symbols.length === 0) return out;
  const files = uniqueFiles(symbols);
  const window = await searcher.filesAmong({ query: q.render(q.sym('.')), contextLines: DOC_LINES, once: true, signal }, files, files.length);
  const byFile = new Map<string, { symbols: SymbolResult[]; lines: Map<number, string> }>();
  for (const f of window.files) {
    const lines = new Map<number, string>();
    for (const chunk of f.chunks) if (!chunk.fileName) chunk.lines.forEach((l, i) => lines.set(chunk.startLine + i, l));
    byFile.set(`${f.repo}\0${f.path}`, { symbols: symbolsOf(f).map((x) => x.symbol), lines });
  }
  for (const sym of symbols) {
    const file = byFile.get(`${sym.repo}\0${sym.path}`);
    if (!file) continue;
    const around: Around = {};
    const documentation = documentationOf((n) => file.lines.get(n), sym.line, sym.language);
    if (documentation) around.documentation = documentation;
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
  // Imported here: find_references builds on this module.
  const { findReferences } = await import('./references.js');
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
