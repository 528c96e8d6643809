/**
 * search_code: text and regex search over file contents, one page of files at a time.
 */
import { invalidArgument, ToolError } from '../errors.js';
import * as q from '../zoekt/query.js';
import { checkQueryBounds, checkRegexBounds } from '../zoekt/query-bounds.js';
import { checkNoLookaround, liftCase, liftCaseFlag, normalizeWhitespace, oneRegexTip, splitRegexHint } from '../zoekt/query-syntax.js';
import { z } from 'zod';
import type { Chunk, FileHit } from '../zoekt/wire.js';
import { walkFiles } from './engine/file-walk.js';
import { describeFilters, filterParts, type SharedFilters } from './vocab/filters.js';
import { normalizeKind } from './vocab/kinds.js';
import { completeField, paginate, pagingFields, pagingOutput } from './engine/page.js';
import { clip, fewer, fitPage, halve, lessOne, looksBinary, MAX_LINE_CHARS, shorterLines, truncatedField, type Budget } from './engine/budget.js';
import { indexAgeField } from './vocab/freshness.js';
import type { Searcher } from './engine/searcher.js';
import { resolveBranch, type BranchChoice } from './vocab/branches.js';
import { NotIndexedInScope, skippedInScope, skipReason } from './engine/skipped.js';

export const SEARCH_CODE = 'search_code';

export type CaseMode = 'auto' | 'yes' | 'no';

export interface CodeSearchArgs extends SharedFilters {
  query: string;
  literal?: boolean | undefined;
  /** The query is one RE2 regex, its spaces and groups its own. */
  regex?: boolean | undefined;
  case_sensitive?: CaseMode | undefined;
  context_lines?: number | undefined;
  max_matches_per_file?: number | undefined;
  branch?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

const CodeMatch = z.object({
  line: z.number().int(),
  column: z.number().int(),
  text: z.string(),
  /** The match goes on past `line` (a regex that crosses line breaks): the last line it reaches. */
  end_line: z.number().int().optional(),
  /** The match's own lines after `line`, through end_line: at most a few, and none past the next match's line. */
  continued: z.array(z.string()).optional(),
  before: z.array(z.string()).optional(),
  after: z.array(z.string()).optional(),
  symbol: z.object({ name: z.string(), kind: z.string(), parent: z.string().optional() }).optional(),
});
export type CodeMatch = z.infer<typeof CodeMatch>;

const CodeFileResult = z.object({
  repo: z.string(),
  path: z.string(),
  language: z.string(),
  branches: z.array(z.string()).optional(),
  version: z.string().optional(),
  score: z.number(),
  /** True when the file matched by its path (a bare term matches paths too). */
  path_match: z.boolean().optional(),
  /** The file's text is binary (NUL bytes, or bytes that are not text): its lines are not shown. */
  binary: z.boolean().optional(),
  /** The indexer kept no text of this file (too_large, binary, …): found by its name or the index's stand-in for its text, no line shown. */
  not_indexed: z.string().optional(),
  matches: z.array(CodeMatch),
  omitted_matches: z.number().int(),
  /** Zoekt was asked for this file's first matches only: `omitted_matches` is a lower bound. */
  omitted_at_least: z.literal(true).optional(),
});
export type CodeFileResult = z.infer<typeof CodeFileResult>;

export const CodeSearchOutput = z.object({
  zoekt_query: z.string(),
  results: z.array(CodeFileResult),
  stats: z.object({ files: z.number().int(), matches: z.number().int(), duration_ms: z.number(), complete: completeField }),
  /** Files in scope the indexer skipped (too large, too many trigrams): their text was not searched. First page only. */
  not_indexed: NotIndexedInScope.optional(),
  ...truncatedField,
  ...pagingFields,
  ...indexAgeField,
});
export type CodeSearchOutput = z.infer<typeof CodeSearchOutput>;

export const CODE_DEFAULTS = { case_sensitive: 'auto' as CaseMode, context_lines: 1, max_matches_per_file: 5, limit: 10 };

/**
 * Matches Zoekt sends per matched line a page shows: a line holds several matches of a short
 * term, and the first `max_matches_per_file` lines of a file need all of theirs.
 */
const MATCHES_PER_LINE = 10;
/**
 * A ranked window's match cap, in pages of files at `max_matches_per_file` lines each: room for
 * the page and the next (the window cache serves it) before the cap ends the relevance order.
 */
const RANKED_CAP_PAGES = 10;
/** The most matches one ranked window brings (about 2.5 MB of Zoekt's JSON), whatever the page asks. */
const RANKED_CAP_MAX = 20_000;

/**
 * The ranked windows' match budget per shard: Zoekt ranks the files it finds before a shard has
 * this many matches, and the rest of the walk goes by path. Enough for the 200 files a walk
 * ranks on a common term in a 10k-file shard, at a twentieth of what evaluating every match of
 * `err` over Go's source costs (bench/README.md, "The fetch plan").
 */
export const RANKED_SHARD_MATCHES = 5_000;

/** What one page asks Zoekt for (file-walk.ts has the plan): matches per file, per window, per shard. */
export function matchCaps(limit: number, maxPerFile: number): { matchesPerFile: number; maxMatches: number; shardMatches: number } {
  const matchesPerFile = maxPerFile * MATCHES_PER_LINE;
  return { matchesPerFile, maxMatches: Math.min(RANKED_CAP_MAX, matchesPerFile * limit * RANKED_CAP_PAGES), shardMatches: RANKED_SHARD_MATCHES };
}

export function buildCodeQuery(args: CodeSearchArgs): string {
  if (args.query.trim() === '') throw invalidArgument('query is empty', "Give a search term, e.g. 'parseConfig' or 'func\\s+main'.");
  if (args.literal && args.regex) {
    throw invalidArgument(
      'literal and regex are both true',
      "Pass one: regex: true searches the query as one RE2 regex (spaces and groups its own, e.g. 'export (async )?function'); literal: true searches it as exact text.",
    );
  }
  // Literal text and a regex are searched exactly as given, spaces at either end included.
  let text = args.literal || args.regex ? args.query : args.query.trim();
  let mode = args.case_sensitive ?? 'auto';
  if (args.regex) {
    checkRegexBounds(text, 'the regex');
    checkNoLookaround(text);
  } else if (!args.literal) {
    const normalized = normalizeWhitespace(text);
    checkQueryBounds(normalized);
    // Before the grouping check: a lookaround holding a space reads as unbalanced parentheses.
    checkNoLookaround(normalized);
    const lifted = liftCase(normalized);
    if (lifted.mode !== undefined) {
      if (args.case_sensitive !== undefined && args.case_sensitive !== 'auto' && args.case_sensitive !== lifted.mode) {
        throw invalidArgument(
          `the query says case:${lifted.mode} but case_sensitive is '${args.case_sensitive}'`,
          'Use one of them: drop case: from the query, or drop the case_sensitive argument.',
        );
      }
      mode = lifted.mode;
      text = lifted.rest;
      if (text === '') throw invalidArgument('the query has nothing to search besides case:', "Add a search term, e.g. 'case:yes Config'.");
    }
  }
  if (!args.literal) {
    const flag = liftCaseFlag(text, args.regex);
    if (flag.fold) {
      if (mode === 'yes') {
        throw invalidArgument("the query asks for (?i) but the search is case-sensitive (case_sensitive 'yes' or case:yes)", "Drop (?i) for a case-sensitive search, or drop case_sensitive 'yes' / case:yes.");
      }
      mode = 'no';
      text = args.regex ? flag.rest : flag.rest.trim();
      if (text.trim() === '') throw invalidArgument('the query has nothing to search besides (?i)', "Add a search term, e.g. '(?i)config'.");
    }
  }
  return q.render(
    q.and(
      mode !== 'auto' && q.caseMode(mode),
      // One regex is one quoted atom: nothing in it reaches Zoekt's query syntax.
      args.literal ? q.literal(text) : args.regex ? q.regex(text) : q.raw(text),
      ...filterParts(args),
      args.branch !== undefined && q.branch(args.branch),
    ),
  );
}

export async function searchCode(searcher: Searcher, args: CodeSearchArgs, budget: Budget<CodeSearchOutput>, signal?: AbortSignal): Promise<CodeSearchOutput> {
  try {
    return await searchCodePage(searcher, args, budget, signal);
  } catch (e) {
    // A regex written with spaces or groups, cut by the query syntax, fails there with an error
    // about a piece of it (`?function`): the hint says first how to search it whole.
    const tip = e instanceof ToolError && e.code === 'QUERY_ERROR' && !args.literal && !args.regex ? oneRegexTip(args.query) : undefined;
    if (tip) throw new ToolError('QUERY_ERROR', (e as ToolError).message, `${tip} Otherwise: ${(e as ToolError).hint}`, { cause: e, retryable: false });
    throw e;
  }
}

async function searchCodePage(searcher: Searcher, args: CodeSearchArgs, budget: Budget<CodeSearchOutput>, signal?: AbortSignal): Promise<CodeSearchOutput> {
  const started = Date.now();
  const limit = args.limit ?? CODE_DEFAULTS.limit;
  const contextLines = args.context_lines ?? CODE_DEFAULTS.context_lines;
  const maxPerFile = args.max_matches_per_file ?? CODE_DEFAULTS.max_matches_per_file;
  buildCodeQuery(args);
  const branch = args.branch === undefined ? undefined : await resolveBranch(searcher, args.branch, filterParts({ repos: args.repos }), signal);
  const query = buildCodeQuery({ ...args, branch: branch?.branch });
  // The first page says which files in scope the indexer skipped; asked while the page is fetched.
  const scopeParts = [...filterParts(args), branch && q.branch(branch.branch)].filter((p): p is q.QueryPart => Boolean(p));
  const skipped = args.cursor === undefined ? skippedInScope(searcher, scopeParts, signal).catch(() => undefined) : Promise.resolve(undefined);
  // A crowded query is walked over the files of the call's filters; filters written in the query
  // itself (file:, lang:, -repo: …) would leave that walk over files that cannot match.
  const fieldsInQuery = !args.literal && !args.regex && /(^|[\s(])-?[a-z]+:/i.test(args.query);
  const scopeQuery = fieldsInQuery ? undefined : q.render(q.and(...scopeParts));
  const page = await paginate({
    tool: SEARCH_CODE,
    cursors: searcher.cursors,
    args: { ...args },
    limit,
    fetch: async (offset) => {
      const walked = await walkFiles(searcher, { query, contextLines, content: true, signal, scopeQuery, resumed: args.cursor !== undefined, ...matchCaps(limit, maxPerFile) }, offset, limit);
      return { ...walked, items: walked.files };
    },
    emptyHint: async () => zeroResultHint(searcher, args, branch, await skipped, signal),
    narrowHint: 'Ask for less: a more specific query, fewer context_lines or max_matches_per_file, a lower limit, or paths, languages or repos filters.',
  });
  const notIndexed = await skipped;
  const notes = [args.literal || args.regex || page.offset > 0 ? undefined : splitRegexHint(args.query), page.offset > 0 ? undefined : branch?.note, page.offset > 0 ? undefined : page.order, page.short];
  const stats = { files: page.total, matches: page.matches, duration_ms: Date.now() - started, complete: page.complete };
  const make = (s: Record<CodeDial, number>, truncated: CodeSearchOutput['truncated']): CodeSearchOutput => {
    const out: CodeSearchOutput = {
      zoekt_query: searcher.confine(query),
      results: page.items.slice(0, s.results).map((f) => toFileResult(f, s.context_lines, s.matches_per_file, s.line_chars)),
      stats,
      ...(notIndexed ? { not_indexed: notIndexed } : {}),
      ...(truncated ? { truncated } : {}),
      ...pagingOutput(page),
    };
    const hint = [...notes, out.hint].filter(Boolean).join(' ');
    if (hint) out.hint = hint;
    return out;
  };
  return fitPage(page, make, { context_lines: contextLines, matches_per_file: maxPerFile, line_chars: MAX_LINE_CHARS }, CODE_DIALS, budget);
}

type CodeDial = 'context_lines' | 'matches_per_file' | 'results' | 'line_chars';

/**
 * The order a page too large for the output budget is cut in (search/engine/budget.ts). Context
 * goes first, but a line of it before and after each match is kept until the page has shed its
 * extra matched lines and its later files: a match with the line around it is what tells an agent
 * whether the file is the one it wants, while the files cut from the page are not lost (the
 * cursor goes on with them) and the context cut is. The last context line goes only when one
 * file with its first match would still not fit; line length last.
 */
const CODE_DIALS = [
  { name: 'context_lines' as const, down: lessOne(1) },
  { name: 'matches_per_file' as const, down: halve(1) },
  { name: 'results' as const, down: fewer(1) },
  { name: 'context_lines' as const, down: lessOne(0) },
  { name: 'line_chars' as const, down: shorterLines },
];

/** The last segment of a qualified scope: `main.Server` → `Server`, `acme::UserService` → `UserService`. */
export function bareName(scope: string): string {
  const parts = scope.split(/::|\.|#|\//).filter(Boolean);
  return parts[parts.length - 1] ?? scope;
}

/** The lines of a multi-line match shown after its first: enough to read it, while end_line says where it ends. */
const CONTINUED_LINES = 3;

/** One entry per matched line (first match on the line gives the column), with context that never repeats a line. */
export function toFileResult(file: FileHit, contextLines: number, maxPerFile: number, lineChars: number = MAX_LINE_CHARS): CodeFileResult {
  // The lines with a match, and the chunks holding them, read without decoding any chunk: only
  // the chunks of the lines shown are decoded (a file may have thousands).
  const chunksOfLine = new Map<number, Chunk[]>();
  let pathMatch = false;
  for (const chunk of file.chunks) {
    if (chunk.fileName) {
      pathMatch = true;
      continue;
    }
    for (const line of chunk.matchLines) {
      const held = chunksOfLine.get(line);
      if (!held) chunksOfLine.set(line, [chunk]);
      else if (!held.includes(chunk)) held.push(chunk);
    }
  }
  const matchLines = [...chunksOfLine.keys()].sort((a, b) => a - b);
  const shown = matchLines.slice(0, maxPerFile);
  const lineText = new Map<number, string>();
  const firstOnLine = new Map<number, { column: number; chunk: Chunk; rangeIndex: number }>();
  // The last line the matches starting on a line reach (a regex may cross line breaks).
  const endOfLine = new Map<number, number>();
  for (const chunk of new Set(shown.flatMap((line) => chunksOfLine.get(line)!))) {
    chunk.lines.forEach((text, i) => lineText.set(chunk.startLine + i, text));
    chunk.ranges.forEach((r, rangeIndex) => {
      const seen = firstOnLine.get(r.line);
      if (!seen || r.column < seen.column) firstOnLine.set(r.line, { column: r.column, chunk, rangeIndex });
      endOfLine.set(r.line, Math.max(endOfLine.get(r.line) ?? r.line, r.endLine));
    });
  }
  const matches: CodeMatch[] = [];
  let lastEmitted = 0;
  for (const line of shown) {
    const hit = firstOnLine.get(line)!;
    const m: CodeMatch = { line, column: hit.column, text: clip(lineText.get(line) ?? '', hit.column, lineChars) };
    const next = matchLines[matchLines.indexOf(line) + 1] ?? Number.POSITIVE_INFINITY;
    const end = endOfLine.get(line) ?? line;
    let l = line + 1;
    if (end > line) {
      m.end_line = end;
      // The match's own lines, a few: end_line says how far it goes; a later match's line is its own.
      const continued: string[] = [];
      for (; l <= Math.min(end, line + CONTINUED_LINES) && l < next; l++) {
        const t = lineText.get(l);
        if (t === undefined) break;
        continued.push(clip(t, 1, lineChars));
      }
      if (continued.length) m.continued = continued;
      // Context after a long match follows its end, not the lines it left unshown.
      if (l <= end) l = end + 1;
    }
    const shownTo = l - 1;
    if (contextLines > 0) {
      const before: string[] = [];
      for (let b = Math.max(line - contextLines, lastEmitted + 1, 1); b < line; b++) {
        const t = lineText.get(b);
        if (t !== undefined) before.push(clip(t, 1, lineChars));
      }
      const after: string[] = [];
      for (; l <= shownTo + contextLines && l < next; l++) {
        const t = lineText.get(l);
        if (t === undefined) break;
        after.push(clip(t, 1, lineChars));
      }
      if (before.length) m.before = before;
      if (after.length) m.after = after;
      lastEmitted = l - 1;
    } else {
      lastEmitted = shownTo;
    }
    const sym = hit.chunk.ranges[hit.rangeIndex]?.symbol;
    if (sym) {
      // A Go or Java package is the scope of every symbol in it: not an enclosing type worth naming.
      const scoped = sym.parent !== '' && sym.parentKind !== 'package';
      // The kind in search_symbols' vocabulary; the parser's own word when it has no counterpart.
      m.symbol = { name: sym.name, kind: normalizeKind(sym.kind, file.language, scoped ? sym.parentKind : undefined) ?? sym.kind };
      if (scoped) m.symbol.parent = bareName(sym.parent);
    }
    matches.push(m);
  }
  // Binary bytes are never shown: the file is named, its matching lines counted.
  const binary = [...lineText.values()].some(looksBinary);
  const result: CodeFileResult = {
    repo: file.repo,
    path: file.path,
    language: file.language,
    score: file.score,
    matches: binary ? [] : matches,
    omitted_matches: binary ? matchLines.length : matchLines.length - shown.length,
  };
  if (binary) result.binary = true;
  if (file.notIndexed) result.not_indexed = skipReason(file.notIndexed);
  if (file.matchesCut) result.omitted_at_least = true;
  if (file.branches.length) result.branches = file.branches;
  if (file.version) result.version = file.version;
  if (pathMatch) result.path_match = true;
  return result;
}

const REGEX_META = /[.()[\]{}*+?|^$\\]/;

/** How many files a variant of the search finds: a zero-result hint only names a cause it has checked. */
async function finds(searcher: Searcher, args: CodeSearchArgs, signal?: AbortSignal): Promise<number> {
  let query: string;
  try {
    query = buildCodeQuery(args);
  } catch {
    return 0;
  }
  return searcher.count(query, signal);
}

/**
 * Why nothing matched, from what the index really holds: each likely cause (case, regex syntax,
 * the filters, the branch) is named only when the search without it finds files, and files the
 * indexer skipped are named when the scope holds some.
 */
async function zeroResultHint(searcher: Searcher, args: CodeSearchArgs, branch: BranchChoice | undefined, skipped: NotIndexedInScope | undefined, signal?: AbortSignal): Promise<string> {
  if (args.repos?.length) {
    const known = await searcher.list(q.render(q.or(...filterParts({ repos: args.repos }))), signal).catch(() => undefined);
    if (known && known.repos.length === 0) {
      return `No ${searcher.scope.restricted ? 'allowed ' : ''}indexed repository matches repos ${JSON.stringify(args.repos)}. Call list_repos to see the indexed names (globs like 'github.com/acme/*' or a bare name like 'webapp' work).`;
    }
  }
  const base = { ...args, cursor: undefined, branch: branch?.branch };
  const mode = args.case_sensitive ?? 'auto';
  const caseBound = mode === 'yes' || (mode === 'auto' && /[A-Z]/.test(args.query)) || /\bcase:yes\b/.test(args.query);
  const noFilters = { query: args.query, literal: args.literal, regex: args.regex, case_sensitive: args.case_sensitive };
  // Repositories indexed from plain folders have no branches at all: no branch name can match.
  const branchless = args.branch !== undefined && branch !== undefined && branch.indexed.length === 0;
  const cutRegex = !args.literal && !args.regex && oneRegexTip(args.query) !== undefined;
  const [caseless, literal, oneRegex, unfiltered, withoutBranch] = await Promise.all([
    caseBound ? finds(searcher, { ...base, case_sensitive: 'no', query: args.query.replace(/\bcase:yes\b/g, '') }, signal) : 0,
    !args.literal && REGEX_META.test(args.query) ? finds(searcher, { ...base, literal: true, regex: undefined }, signal) : 0,
    cutRegex ? finds(searcher, { ...base, regex: true }, signal) : 0,
    describeFilters(args).length || args.branch !== undefined ? finds(searcher, noFilters, signal) : 0,
    branchless ? finds(searcher, { ...base, branch: undefined }, signal) : 0,
  ]);
  const causes: string[] = [];
  if (caseless) causes.push(`the search is case-sensitive${mode === 'auto' ? ' (the query has uppercase letters)' : ''}, and case_sensitive: 'no' finds ${caseless} file(s)`);
  if (oneRegex) causes.push(`the query was cut at its spaces into several terms, and as one regex (regex: true) it finds ${oneRegex} file(s)`);
  if (literal) causes.push(`${args.regex ? 'the query is an RE2 regex' : 'bare terms are RE2 regexes'} ('.' matches any character, '(' groups), and literal: true finds ${literal} file(s)`);
  if (withoutBranch) {
    causes.push(`the repositories in scope were indexed from plain folders and have no branches, so branch ${JSON.stringify(args.branch)} matches nothing there: leave branch out (without it the query finds ${withoutBranch} file(s))`);
  } else if (unfiltered) {
    const filters = describeFilters(args);
    if (args.branch !== undefined) filters.push(`branch ${JSON.stringify(args.branch)}${branch && branch.indexed.length ? ` (indexed branches: ${branch.indexed.slice(0, 10).join(', ')})` : branchless ? ' (the repositories in scope have no branches)' : ''}`);
    causes.push(`the filters ${filters.join(', ')} exclude every match: without them the query finds ${unfiltered} file(s); drop them one at a time`);
  }
  const scoped = searcher.scope.note();
  const notSearched = skipped ? ` ${skipped.files} file(s) in scope were not indexed and so not searched (see not_indexed).` : '';
  if (causes.length) return `No matches. ${causes.join('; ')}.${notSearched}${scoped ? ` Note that ${scoped}.` : ''}`;
  const checked = [caseBound ? 'case-insensitively' : undefined, !args.literal && REGEX_META.test(args.query) ? 'as literal text' : undefined, describeFilters(args).length || args.branch !== undefined ? 'without the filters' : undefined].filter(Boolean);
  return (
    `No indexed file matches${checked.length ? `, nor does one ${checked.join(' or ')}` : ''}.${notSearched}` +
    `${scoped ? ` Note that ${scoped}.` : ''} Try a shorter or more general term; list_repos shows what is indexed.`
  );
}
