/**
 * find_references: the definitions of one identifier (indexed symbols, exact name and case) and
 * its usages (whole-word, case-sensitive content matches), asked of Zoekt at the same time.
 * Pages run over usage lines, read file by file along the same walk search_code pages through
 * (so a page costs what it shows); definitions are all on the first page and never repeated as
 * usages. When every definition is in one language family and no language filter was given,
 * usages are kept to that family (a Go `Server` is not a TypeScript `Server`).
 */
import { invalidArgument } from '../errors.js';
import * as q from '../zoekt/query.js';
import type { Chunk, FileHit } from '../zoekt/wire.js';
import { z } from 'zod';
import { toFileResult } from './code.js';
import { walkFiles, type FileWalkPage } from './engine/file-walk.js';
import { derived } from './engine/window-cache.js';
import { zoektPartial } from './engine/completeness.js';
import { describeFilters, filterParts, type SharedFilters } from './vocab/filters.js';
import { parseKinds, type Kind } from './vocab/kinds.js';
import { familyLanguages, languageByName } from './vocab/languages.js';
import { completeField, paginate, pagingFields, pagingOutput } from './engine/page.js';
import { indexAgeField } from './vocab/freshness.js';
import type { Searcher } from './engine/searcher.js';
import { NotIndexedInScope, skippedInScope } from './engine/skipped.js';
import { clip, fewer, fitToBudget, lessOne, MAX_LINE_CHARS, shorterLines, truncatedField, type Budget } from './engine/budget.js';
import { buildSymbolQuery, candidateFiles, definitionsQuery, parseName, wordRegex } from './definitions/by-name.js';
import { compareProminent, markTwins, prominence, twinKey, type Prominent } from './definitions/prominence.js';
import { IDENTIFIER_CHAR, symbolsOf, type SymbolResult } from './definitions/symbol.js';

export const FIND_REFERENCES = 'find_references';

export interface ReferenceArgs extends SharedFilters {
  symbol: string;
  kind?: string | undefined;
  include_definitions?: boolean | undefined;
  context_lines?: number | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

const location = { repo: z.string(), path: z.string(), line: z.number().int(), column: z.number().int(), text: z.string() };
const Definition = z.object({ ...location, kind: z.string() });
type Definition = z.infer<typeof Definition>;
const Usage = z.object({ ...location, before: z.array(z.string()).optional(), after: z.array(z.string()).optional() });
type Usage = z.infer<typeof Usage>;

export const ReferenceOutput = z.object({
  symbol: z.string(),
  zoekt_queries: z.object({ definitions: z.string(), usages: z.string() }),
  definitions: z.array(Definition),
  usages: z.array(Usage),
  stats: z.object({
    definition_count: z.number().int(),
    usage_count: z.number().int(),
    files: z.number().int(),
    duration_ms: z.number(),
    complete: completeField,
  }),
  scope: z.string().optional(),
  /** Files in scope the indexer skipped (too large, too many trigrams): their text was not searched. First page only. */
  not_indexed: NotIndexedInScope.optional(),
  ...truncatedField,
  ...pagingFields,
  ...indexAgeField,
});
export type ReferenceOutput = z.infer<typeof ReferenceOutput>;

export const REFERENCE_DEFAULTS = { include_definitions: true, context_lines: 0, limit: 50 };

/**
 * Usages in up to this many files are counted exactly (one search fetches them all); above it,
 * the count is a lower bound from the files the walk read. Zoekt's stats count occurrences, not
 * usage lines less the definitions, so an exact count means reading every file: about 2.5 KB of
 * Zoekt's JSON a file (`join` over the benchmark corpus: 741 files, 1.9 MB, some 60 ms of the
 * adapter's CPU a call at 1,000), for a figure the page does not need.
 */
const EXACT_COUNT_FILES = 200;
/**
 * Files read at a time while filling a page of usage lines: at most this many, and after the
 * first step about as many as the lines per file seen so far say the page still needs. Reading 50
 * at a time, a walk of `err` over Go's source, where files of hundreds of usage lines follow one
 * another (zsyscall_*.go), read about a megabyte of Zoekt's JSON a page, up to 4.6 MB, for pages of
 * one or two files (bench/README.md, "The test suite").
 */
const FILES_PER_STEP = 50;
/**
 * The first step of a page that starts at a file's first line. One that starts inside a file reads
 * that file alone first: the page before ended in it, so it has lines enough for much of this one.
 */
const FIRST_STEP = 8;

function nextStep(needed: number, linesSeen: number, filesSeen: number): number {
  const perFile = filesSeen > 0 ? linesSeen / filesSeen : 0;
  if (perFile <= 0) return FILES_PER_STEP;
  return Math.max(1, Math.min(FILES_PER_STEP, Math.ceil((needed / perFile) * 1.5)));
}
/**
 * A page starts at a usage line given as (file, line within the file) of the walk over files,
 * packed into the cursor's offset: no file has a million matching lines (Zoekt indexes files
 * of at most 2 MiB).
 */
const LINES_PER_FILE = 1 << 20;
/**
 * A page's offset says where it starts. 0: the first page, definitions and then usages. From
 * USAGES_FROM: usages only, from that usage position on. From DEFINITIONS_FROM (above any usage
 * position): a page the output budget cut inside the definitions goes on with them, from the
 * first it left out, and then the usages from the first.
 */
const USAGES_FROM = 1;
const DEFINITIONS_FROM = 2 ** 52;

function usagePosition(offset: number): number {
  return offset === 0 || offset >= DEFINITIONS_FROM ? 0 : offset - USAGES_FROM;
}
const IDENTIFIER = /^[\p{L}\p{N}_$]+(?:(?:::|\.)[\p{L}\p{N}_$]+)*$/u;

const siteKey = (repo: string, path: string, line: number) => `${repo}\u0000${path}\u0000${line}`;

/** Keeps the matches that are the whole identifier: `\b` alone would let `$scope` match in `a$scope`. */
function wholeIdentifierRanges(file: FileHit): FileHit {
  const chunks: Chunk[] = file.chunks
    .filter((c) => !c.fileName)
    .map((c) => {
      const ranges = c.ranges.filter((r) => {
        const chars = [...(c.lines[r.line - c.startLine] ?? '')];
        const before = chars[r.column - 2];
        const after = r.endLine === r.line ? chars[r.endColumn - 1] : undefined;
        return !(before && IDENTIFIER_CHAR.test(before)) && !(after && IDENTIFIER_CHAR.test(after));
      });
      // A new plain chunk: a decoded chunk's lines and ranges are read through getters.
      return { startLine: c.startLine, lines: c.lines, ranges, matchLines: ranges.map((r) => r.line), fileName: c.fileName, score: c.score };
    });
  return { ...file, chunks };
}

/** The usage lines of one file, whole lines: whole-identifier matches, definition sites left out. */
function fileUsages(file: FileHit, contextLines: number, definitionSites: Set<string>): Usage[] {
  const out: Usage[] = [];
  const result = toFileResult(wholeIdentifierRanges(file), contextLines, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  for (const m of result.matches) {
    if (definitionSites.has(siteKey(file.repo, file.path, m.line))) continue;
    const usage: Usage = { repo: file.repo, path: file.path, line: m.line, column: m.column, text: m.text };
    if (m.before) usage.before = m.before;
    if (m.after) usage.after = m.after;
    out.push(usage);
  }
  return out;
}

interface RankedDefinition extends Prominent {
  symbol: SymbolResult;
  copy: string;
}

/**
 * The definitions of the name in search_symbols' order for an exact name (prominence.ts): the
 * implementation before declarations and copies, public, outside tests, top-level before nested,
 * shallower folders first; then repo, path and line.
 */
function rankDefinitions(all: RankedDefinition[]): SymbolResult[] {
  markTwins(all, compareProminent);
  return all.sort(compareProminent).map((r) => r.symbol);
}

/** A usage as a page shows it: at most `contextLines` around it, lines cut to `lineChars`. */
function shownUsage(u: Usage, contextLines: number, lineChars: number): Usage {
  const shown: Usage = { repo: u.repo, path: u.path, line: u.line, column: u.column, text: clip(u.text, u.column, lineChars) };
  const before = u.before?.slice(Math.max(0, u.before.length - contextLines)).map((t) => clip(t, 1, lineChars));
  const after = u.after?.slice(0, contextLines).map((t) => clip(t, 1, lineChars));
  if (before?.length) shown.before = before;
  if (after?.length) shown.after = after;
  return shown;
}

function hasFilters(args: SharedFilters): boolean {
  return Boolean(args.languages?.length || args.exclude_languages?.length || args.source_code_only);
}

export async function findReferences(searcher: Searcher, args: ReferenceArgs, budget: Budget<ReferenceOutput>, signal?: AbortSignal): Promise<ReferenceOutput> {
  const started = Date.now();
  const symbol = args.symbol.trim();
  if (!IDENTIFIER.test(symbol)) {
    throw invalidArgument(
      `symbol '${args.symbol}' is not an identifier`,
      "Give one identifier ('parseConfig', '$scope', '_helper') or a qualified name ('Server.start', 'UserService::find'). For other text use search_code; for patterns use search_symbols.",
    );
  }
  const limit = args.limit ?? REFERENCE_DEFAULTS.limit;
  const contextLines = args.context_lines ?? REFERENCE_DEFAULTS.context_lines;
  const kinds = args.kind ? parseKinds([args.kind]) : undefined;
  const pattern = parseName(symbol, false);

  const filters: SharedFilters = { repos: args.repos, paths: args.paths, exclude_paths: args.exclude_paths, languages: args.languages, exclude_languages: args.exclude_languages, source_code_only: args.source_code_only };
  // Definitions are listed by path and line, not by score.
  const definitionsSearch = definitionsQuery(filters, pattern);
  const usagesQuery = q.render(q.and(q.caseMode('yes'), q.content(wordRegex(pattern.member)), ...filterParts(filters)));

  let definitionSymbols: SymbolResult[] = [];
  let scope: string | undefined;
  let counted = { lines: 0, files: 0, exact: false };
  const walk = { query: usagesQuery, contextLines, content: true, signal };
  // Every usage line is counted when the files with matches are few enough to fetch in one
  // search (often the window the walk already holds); otherwise the lines of the best-ranked
  // files the walk fetched are a lower bound.
  const countUsages = async (step: FileWalkPage, usagesOf: (f: FileHit) => Usage[], definitions: string) => {
    const window =
      step.ranked.exhausted || step.total > EXACT_COUNT_FILES
        ? step.ranked
        : await searcher.window({ query: usagesQuery, contextLines, signal, size: step.total + 1 });
    // Later pages count the same window again: once per window and set of definitions is enough.
    const counts = derived(window, `usages\u0000${definitions}`, () => {
      const c = { lines: 0, files: 0 };
      for (const f of window.files) {
        const n = usagesOf(f).length;
        c.lines += n;
        if (n > 0) c.files++;
      }
      return c;
    });
    return { ...counts, exact: window.exhausted };
  };
  // The first page says which files in scope the indexer skipped; asked while the page is fetched.
  const skipped = args.cursor === undefined ? skippedInScope(searcher, filterParts(filters), signal).catch(() => undefined) : Promise.resolve(undefined);
  const page = await paginate({
    tool: FIND_REFERENCES,
    cursors: searcher.cursors,
    args: { ...args },
    limit,
    fetch: async (offset) => {
      const position = usagePosition(offset);
      const startFile = Math.floor(position / LINES_PER_FILE);
      const startLine = position % LINES_PER_FILE;
      // Both questions go to Zoekt at once; which usages count depends on the definitions.
      const [candidates, firstStep] = await Promise.all([
        candidateFiles(searcher, definitionsSearch, offset === 0, signal),
        walkFiles(searcher, walk, startFile, startLine > 0 ? 1 : FIRST_STEP),
      ]);

      const namedSymbols = rankDefinitions(
        candidates.files.flatMap((file) =>
          symbolsOf(file)
            .filter(({ symbol: s, scope: parentScope }) => {
              if (pattern.wholeName !== undefined && s.name === pattern.wholeName) return true;
              if (s.name !== pattern.member) return false;
              if (pattern.parent && !parentEndsWith(parentScope, pattern.parent)) return false;
              return true;
            })
            .map(({ symbol }) => ({ symbol, prominence: prominence(symbol), score: file.score, copy: twinKey(symbol, file.checksum) })),
        ),
      );
      // A definition of another kind than the one asked for is still a definition, not a usage.
      const sites = new Set(namedSymbols.map((s) => siteKey(s.repo, s.path, s.line)));
      definitionSymbols = namedSymbols.filter((s) => !kinds || kinds.has(s.kind as Kind));

      let keep: (f: FileHit) => boolean = () => true;
      if (!hasFilters(args) && definitionSymbols.length > 0) {
        const families = new Set(definitionSymbols.map(familyOf));
        if (families.size === 1) {
          const family = [...families][0]!;
          const members = familyLanguages(family);
          const allowed = new Set(members.length ? members : [family]);
          keep = (f) => allowed.has(f.language);
          const shown = [...allowed].slice(0, 6).join(', ');
          scope =
            `usages are limited to the ${family} language family (${shown}${allowed.size > 6 ? ', …' : ''}) because every definition is in it; ` +
            'to search other languages too, pass languages with the ones you want, or source_code_only: true for all source code';
        }
      }
      const usagesOf = (f: FileHit) => (keep(f) ? fileUsages(f, contextLines, sites) : []);

      // Walk the files from the page's start, a step at a time, until the page is full and one
      // more usage line is seen (so `more` is exact), or the files run out.
      const items: Usage[] = [];
      const positions: number[] = [];
      let next: number | undefined;
      let step = firstStep;
      let at = startFile;
      for (;;) {
        for (const file of step.files) {
          const lines = usagesOf(file);
          const from = at === startFile ? startLine : 0;
          for (let i = from; i < lines.length && next === undefined; i++) {
            if (items.length < limit) {
              items.push(lines[i]!);
              positions.push(at * LINES_PER_FILE + i);
            } else next = at * LINES_PER_FILE + i;
          }
          at++;
          if (next !== undefined) break;
        }
        if (next !== undefined || !step.more) break;
        step = await walkFiles(searcher, walk, at, nextStep(limit + 1 - items.length, items.length, at - startFile));
      }

      counted = await countUsages(step, usagesOf, [scope ?? '', ...sites].join('\u0000'));
      return {
        items,
        positions,
        more: next !== undefined,
        ...(next === undefined ? {} : { nextOffset: USAGES_FROM + next }),
        complete: counted.exact && step.complete && candidates.window.exhausted && !candidates.window.stats.stopped,
        partial: step.partial ?? zoektPartial(candidates.window.stats),
      };
    },
    emptyHint: () => '',
    narrowHint: 'Ask for less: fewer context_lines, a lower limit, or languages, paths or repos filters.',
  });
  const notIndexed = await skipped;
  const includeDefinitions = args.include_definitions ?? REFERENCE_DEFAULTS.include_definitions;
  // Definitions are all on the first page, unless the output budget cut them there: then the
  // pages after it go on with them.
  const definitionsFrom = page.offset === 0 ? 0 : page.offset >= DEFINITIONS_FROM ? page.offset - DEFINITIONS_FROM : undefined;
  const definitions = includeDefinitions && definitionsFrom !== undefined ? definitionSymbols.slice(definitionsFrom).map(toDefinition) : [];
  const stats = {
    definition_count: definitionSymbols.length,
    usage_count: counted.lines,
    files: counted.files,
    duration_ms: Date.now() - started,
    complete: page.complete,
  };
  // The page protocol's note (past the end, or an unfinished search) comes first; the first page
  // also says what is missing when definitions or usages are.
  const hint = [page.hint, page.offset === 0 ? await referencesHint(searcher, args, pattern.member, definitionSymbols.length, counted.lines + page.items.length, scope, signal) : undefined]
    .filter(Boolean)
    .join(' ');
  const make = (s: Record<ReferenceDial, number>, truncated: ReferenceOutput['truncated']): ReferenceOutput => {
    const out: ReferenceOutput = {
      symbol,
      zoekt_queries: { definitions: searcher.confine(definitionsSearch), usages: searcher.confine(usagesQuery) },
      definitions: definitions.slice(0, s.definitions).map((d) => ({ ...d, text: clip(d.text, d.column, s.line_chars) })),
      usages: page.items.slice(0, s.results).map((u) => shownUsage(u, s.context_lines, s.line_chars)),
      stats,
      ...(scope ? { scope } : {}),
      ...(notIndexed ? { not_indexed: notIndexed } : {}),
      ...(truncated ? { truncated } : {}),
      ...pagingOutput(page),
    };
    if (s.definitions < definitions.length) out.next_cursor = page.resume(DEFINITIONS_FROM + definitionsFrom! + s.definitions);
    else if (s.results < page.items.length) out.next_cursor = page.resume(USAGES_FROM + page.positions[s.results]!);
    if (hint) out.hint = hint;
    else delete out.hint;
    return out;
  };
  // Usages go before definitions: a page cut inside the definitions shows no usages.
  const dials = [
    { name: 'context_lines' as const, down: lessOne(0) },
    { name: 'results' as const, down: fewer(definitions.length ? 0 : 1) },
    { name: 'definitions' as const, down: fewer(1) },
    { name: 'line_chars' as const, down: shorterLines },
  ];
  const start = { context_lines: contextLines, results: page.items.length, definitions: definitions.length, line_chars: MAX_LINE_CHARS };
  return fitToBudget(make, start, dials, budget);
}

type ReferenceDial = 'context_lines' | 'results' | 'definitions' | 'line_chars';

function familyOf(s: SymbolResult): string {
  return languageByName(s.language)?.family ?? s.language;
}

function parentEndsWith(scope: string, asked: string[]): boolean {
  const have = scope.split(/::|\.|#|\//).filter(Boolean);
  if (have.length < asked.length) return false;
  return asked.every((seg, i) => seg === have[have.length - asked.length + i]);
}

function toDefinition(s: SymbolResult): Definition {
  return { repo: s.repo, path: s.path, line: s.line, column: s.column, kind: s.kind, text: s.signature };
}

async function referencesHint(
  searcher: Searcher,
  args: ReferenceArgs,
  member: string,
  definitions: number,
  usages: number,
  scope: string | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (definitions > 0 && usages > 0) return undefined;
  const filters = describeFilters(args);
  const scopeNote = searcher.scope.note();
  const confined = scopeNote ? ` Note that ${scopeNote}.` : '';
  // The filters are named as a cause only when the word is found without them.
  const unfiltered = filters.length ? await searcher.count(q.render(q.and(q.caseMode('yes'), q.content(wordRegex(member)))), signal) : 0;
  const narrowing = `${unfiltered ? ` Without the filters ${filters.join(', ')}, ${unfiltered} file(s) hold the whole word.` : ''}${confined}`;
  if (definitions === 0 && usages === 0) {
    // What the index holds of the word otherwise: in another case, or inside longer words.
    const [otherCase, inWords] = await Promise.all([
      searcher.count(buildSymbolQuery({ ...args, case_sensitive: false, include_vendored: true }, parseName(member, false)), signal),
      searcher.count(q.render(q.and(q.caseMode('no'), q.content(q.escapeRegex(member)), ...filterParts(args))), signal),
    ]);
    const found = [
      otherCase ? `search_symbols with {"name": "${member}"} (any case) finds definitions in ${otherCase} file(s)` : undefined,
      inWords ? `the text '${member}' appears in ${inWords} file(s) in some case or inside longer words (search_code finds it)` : undefined,
    ].filter(Boolean);
    return (
      `Neither definitions nor whole-word usages of '${member}' (case-sensitive).${narrowing} ` +
      (found.length ? `${found.join('; ')}.` : `The index holds '${member}' nowhere, in any case or inside other words: check the spelling.`)
    );
  }
  if (definitions === 0) {
    return `No definition of '${member}' is indexed (its language may have no symbols in the index (get_health lists each language's coverage), or it is defined outside the indexed repositories${args.kind ? ` or is not a ${args.kind}` : ''}); the usages are whole-word matches.${narrowing}`;
  }
  return `'${member}' is defined but has no other whole-word usages${scope ? ' in its language family' : ''}.${narrowing}`;
}
