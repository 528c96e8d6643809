/**
 * Definitions asked for by name: what the `name` argument means (a name, a glob, a qualified
 * name, `::name`), the `sym:` query that finds them, and the windows of files that hold them.
 * search_symbols ranks what these find; find_references finds an identifier's definitions
 * with them.
 */
import { invalidArgument } from '../../errors.js';
import * as q from '../../zoekt/query.js';
import { checkRegexBounds } from '../../zoekt/query-bounds.js';
import type { FileHit } from '../../zoekt/wire.js';
import type { Searcher } from '../engine/searcher.js';
import type { Window } from '../engine/window-cache.js';
import { filterParts, vendoredPart, type SharedFilters } from '../vocab/filters.js';
import { isGlob, nameGlobToRegex } from '../../patterns/globs.js';

/** File windows tried in turn until Zoekt has nothing more; the last one caps the work. */
// A window of 5,000 files of symbols is an answer past the cap for Zoekt to build (bench/README.md, "Zoekt's memory").
export const FILE_WINDOWS = [500, 2000];

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
  /** The member is a glob: a pattern of names, never a name itself (no symbol ranks as the exact name). */
  glob?: boolean;
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
    return { symRegex: memberRegex(member, false), member, literalPrefix: literalPrefixOf(member), global: true, ...globFlag(member) };
  }
  if (/^(?:::|[.:])+$/.test(text)) {
    throw invalidArgument(
      `name '${text}' has only separators, no name`,
      "Give a symbol name ('start'), a qualified name ('Server.start', 'UserService::find'), or a type and a separator to list its members ('Server.', 'UserService::'). To match names by pattern, set regex: true.",
    );
  }
  const match = /^(.*?)(?:::|\.)((?:(?!::|\.).)*)$/.exec(text);
  if (!match || match[1] === '') {
    return { symRegex: memberRegex(text, false), member: text, literalPrefix: literalPrefixOf(text), ...globFlag(text) };
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
  const pattern: NamePattern = { symRegex, parent, member, literalPrefix: literalPrefixOf(member), ...globFlag(member) };
  if (whole) pattern.wholeName = whole;
  return pattern;
}

const globFlag = (member: string): { glob?: true } => (isGlob(member) ? { glob: true } : {});

function literalPrefixOf(glob: string): string {
  const at = glob.search(/[*?[\\]/);
  return at < 0 ? glob : glob.slice(0, at);
}

/** The identifier as a whole word; `\b` only where the identifier starts or ends with a word character. */
export function wordRegex(identifier: string): string {
  const body = q.escapeRegex(identifier);
  return `${/^\w/.test(identifier) ? '\\b' : ''}${body}${/\w$/.test(identifier) ? '\\b' : ''}`;
}

/** What a query by name depends on besides the name: the shared filters, case and vendored files. */
export interface SymbolQueryArgs extends SharedFilters {
  case_sensitive?: boolean | undefined;
  include_vendored?: boolean | undefined;
}

export function buildSymbolQuery(args: SymbolQueryArgs, pattern: NamePattern): string {
  const caseSensitive = args.case_sensitive ?? false;
  const parts: q.QueryPart[] = [q.caseMode(caseSensitive ? 'yes' : 'no'), q.sym(pattern.symRegex)];
  // A member's file mentions its type (so does a symbol named by the whole dotted text): a
  // pre-filter. For one member name, under a double negation: Zoekt then neither scores it nor
  // sends every mention as a match, which hid a definition tagged inside one (`func (b *Reader)
  // Read(`), filled a fifth of the answer for `Reader.Read` over Go's tree and took `Buffer.Write`
  // 277 ms against 134 over the benchmark corpus. A glob's listing (`Parent::`) keeps it scored:
  // its order is Zoekt's score, the files that mention the type most first. Either way the type
  // is text, not a word: the enclosing type is checked on each symbol after (parentMatches), and
  // Zoekt matched `\bBuffer\b` in any case on every candidate file's content, which doubled the
  // time of `Buffer.Write` over the benchmark corpus (223 ms, 75 ms with the text; 24 files more
  // of 186) and took `Buffer::` 3.6 s (1.1 s with the text).
  if (pattern.parent) {
    const type = pattern.parent[pattern.parent.length - 1]!;
    parts.push(pattern.glob ? q.literal(type) : q.not(q.not(q.literal(type))));
  }
  parts.push(...filterParts(args));
  if (!args.include_vendored) parts.push(q.not(vendoredPart()));
  return q.render(q.and(...parts));
}

/**
 * find_references' query for an identifier's definitions: the name in its case, in any file,
 * vendored too. Zoekt runs a `sym:` regex on every symbol of every file that holds the name's
 * text; with the name beside it as a `sym:` literal, which it checks first, only on the files
 * where a symbol holds it: `join` over the benchmark corpus took 21 ms, 10 with it, and `malloc`
 * 34 and 10 (bench/README.md, "The fetch plan"). Zoekt then also sends the symbols that merely
 * hold the name (`joinPath`), which find_references leaves out by name; more bytes for a name
 * many files define (`Close`: 173 KB, 310 with it), which search_symbols, reading those files
 * whole, does not take. A qualified name already reads few files (its type is a filter).
 */
export function definitionsQuery(filters: SharedFilters, pattern: NamePattern): string {
  const query = buildSymbolQuery({ ...filters, case_sensitive: true, include_vendored: true }, pattern);
  const literal = !pattern.parent && !pattern.glob && pattern.member.length >= 3 ? pattern.member : undefined;
  return literal === undefined ? query : `${query} ${q.render(q.sym(q.escapeRegex(literal)))}`;
}

/**
 * A glob's literal start as a `sym:` literal beside its regex (`sym:"get"` beside `sym:"^get"`):
 * Zoekt checks it first and runs the regex on the symbols of only the files where a symbol holds
 * it (`get*` over the benchmark corpus: 7,681 files evaluated in 193 ms, 3,363 in 155 with it;
 * `New*` 49 and 23 ms). It also sends the symbols that merely hold it (`target`), which the
 * ranking leaves out; a glob reads about the files of a page, so those are few. An exact name
 * reads every file that defines it, where they would be many (find_references: definitionsQuery).
 */
function globLiteral(pattern: NamePattern): q.QueryPart[] {
  return pattern.glob && pattern.literalPrefix.length >= 3 ? [q.sym(q.escapeRegex(pattern.literalPrefix))] : [];
}

/**
 * The name (or a glob's matches) in its own case only, in the files a case-insensitive
 * buildSymbolQuery searches: what search_symbols ranks first. Zoekt finds a case-sensitive
 * `sym:` regex through one spelling's trigrams, so it evaluates a third to a ninth of the files
 * `case:no` does (`String` over the benchmark corpus: 3,813 files and 63 ms against 8,300 and
 * 185 ms; bench/README.md). Path patterns keep matching in any case (filterParts' foldPaths). Not
 * for a qualified name: its type's mention is content, which Zoekt cannot match in any case under
 * `case:yes`.
 */
export function exactCaseQuery(args: SymbolQueryArgs, pattern: NamePattern): string {
  if (pattern.parent) throw new Error('exactCaseQuery: a qualified name has no exact-case query');
  const parts: q.QueryPart[] = [q.caseMode('yes'), q.sym(pattern.symRegex), ...globLiteral(pattern), ...filterParts(args, true)];
  if (!args.include_vendored) parts.push(q.not(vendoredPart(true)));
  return q.render(q.and(...parts));
}

/** Every file with a matching symbol, up to the last window's cap. */
export async function candidateFiles(
  searcher: Searcher,
  query: string,
  fresh: boolean,
  signal?: AbortSignal,
  /** How many files match, when an earlier search said: windows too small for them are skipped. */
  total?: number,
  windows: readonly number[] = FILE_WINDOWS,
): Promise<{ files: FileHit[]; window: Window }> {
  let window: Window | undefined;
  for (const size of windows) {
    if (total !== undefined && total >= size && size !== windows[windows.length - 1]) continue;
    window = await searcher.window({ query, size, signal, fresh });
    if (window.exhausted) break;
  }
  return { files: window!.files, window: window! };
}
