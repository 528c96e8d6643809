/**
 * find_references: the definitions of one identifier (ctags symbols, exact name and case) and
 * its usages (whole-word, case-sensitive content matches), asked of Zoekt at the same time.
 * Pages run over usage lines; definitions are all on the first page and never repeated as
 * usages. When every definition is in one language family and no language filter was given,
 * usages are kept to that family (a Go `Server` is not a TypeScript `Server`).
 */
import { invalidArgument } from '../errors.js';
import * as q from '../zoekt/query.js';
import type { Chunk, FileHit } from '../zoekt/wire.js';
import { z } from 'zod';
import { toFileResult } from './code.js';
import { NARROW_HINT, zoektPartial } from './completeness.js';
import { describeFilters, filterParts, type SharedFilters } from './filters.js';
import { parseKinds, type Kind } from './kinds.js';
import { familyLanguages, languageByName } from './languages.js';
import { completeField, paginate, pagingFields, pagingOutput } from './page.js';
import { compareStrings, sortRanked } from './paging.js';
import { FILE_ORDER, type Searcher } from './searcher.js';
import { buildSymbolQuery, candidateFiles, parseName, symbolsOf, wordRegex, type SymbolResult } from './symbols.js';
import type { Window } from './window-cache.js';

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
  ...pagingFields,
});
export type ReferenceOutput = z.infer<typeof ReferenceOutput>;

export const REFERENCE_DEFAULTS = { include_definitions: true, context_lines: 0, limit: 50 };

/** Usage windows grow this many times (×4 each) while filtered lines leave the page undecided. */
const MAX_GROWTH_ROUNDS = 3;
/** The most files whose usages one walk over pages reaches. */
const MAX_USAGE_FILES = 5000;
/** Usages in up to this many files are all fetched on the first page, so their count is exact. */
const EXACT_COUNT_FILES = 1000;
const IDENTIFIER = /^[\p{L}\p{N}_$]+(?:(?:::|\.)[\p{L}\p{N}_$]+)*$/u;
const IDENTIFIER_CHAR = /[\p{L}\p{N}_$]/u;

const siteKey = (repo: string, path: string, line: number) => `${repo}\u0000${path}\u0000${line}`;

/** Keeps the matches that are the whole identifier: `\b` alone would let `$scope` match in `a$scope`. */
function wholeIdentifierRanges(file: FileHit): FileHit {
  const chunks: Chunk[] = file.chunks
    .filter((c) => !c.fileName)
    .map((c) => ({
      ...c,
      ranges: c.ranges.filter((r) => {
        const chars = [...(c.lines[r.line - c.startLine] ?? '')];
        const before = chars[r.column - 2];
        const after = r.endLine === r.line ? chars[r.endColumn - 1] : undefined;
        return !(before && IDENTIFIER_CHAR.test(before)) && !(after && IDENTIFIER_CHAR.test(after));
      }),
    }));
  return { ...file, chunks };
}

interface UsageLine {
  usage: Usage;
  score: number;
}

function usageLines(files: FileHit[], contextLines: number, keep: (f: FileHit) => boolean, definitionSites: Set<string>): UsageLine[] {
  const out: UsageLine[] = [];
  for (const file of sortRanked(files, FILE_ORDER)) {
    if (!keep(file)) continue;
    const result = toFileResult(wholeIdentifierRanges(file), contextLines, Number.MAX_SAFE_INTEGER);
    for (const m of result.matches) {
      if (definitionSites.has(siteKey(file.repo, file.path, m.line))) continue;
      const usage: Usage = { repo: file.repo, path: file.path, line: m.line, column: m.column, text: m.text };
      if (m.before) usage.before = m.before;
      if (m.after) usage.after = m.after;
      out.push({ usage, score: file.score });
    }
  }
  return out;
}

/** Whether the lines of `window` decide the page [offset, offset+limit) and whether more follow. */
function decided(window: Window, lines: UsageLine[], offset: number, limit: number): boolean {
  if (window.exhausted) return true;
  // Files not fetched score at most the lowest fetched score, so only lines above it are certain.
  const lowest = Math.min(...window.files.map((f) => f.score));
  return lines.filter((l) => l.score > lowest).length > offset + limit;
}

function hasFilters(args: SharedFilters): boolean {
  return Boolean(args.languages?.length || args.exclude_languages?.length || args.source_code_only);
}

export async function findReferences(searcher: Searcher, args: ReferenceArgs, signal?: AbortSignal): Promise<ReferenceOutput> {
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
  const definitionsQuery = buildSymbolQuery({ ...filters, name: symbol, case_sensitive: true, include_vendored: true }, pattern);
  const usagesQuery = q.render(q.and(q.caseMode('yes'), q.content(wordRegex(pattern.member)), ...filterParts(filters)));

  let definitionSymbols: SymbolResult[] = [];
  let scope: string | undefined;
  let lines: UsageLine[] = [];
  const page = await paginate({
    tool: FIND_REFERENCES,
    args: { ...args },
    limit,
    fetch: async (offset) => {
      // Both questions go to Zoekt at once; the usage window is refined afterwards if needed. A
      // window cached by an earlier page is tried first (it usually holds this page too).
      const usageRequest = { query: usagesQuery, contextLines, signal, fresh: offset === 0 };
      const cachedUsages = searcher.peek(usageRequest);
      let size = Math.max(cachedUsages?.size ?? 0, Math.min(MAX_USAGE_FILES, offset + limit * 2 + 1));
      const [candidates, firstUsages] = await Promise.all([
        candidateFiles(searcher, definitionsQuery, offset === 0, signal),
        cachedUsages ?? searcher.window({ ...usageRequest, size }),
      ]);

      const namedSymbols = candidates.files
        .flatMap(symbolsOf)
        .filter(({ symbol: s, scope: parentScope }) => {
          if (pattern.wholeName !== undefined && s.name === pattern.wholeName) return true;
          if (s.name !== pattern.member) return false;
          if (pattern.parent && !parentEndsWith(parentScope, pattern.parent)) return false;
          return true;
        })
        .map(({ symbol: s }) => s)
        .sort((a, b) => compareStrings(a.repo, b.repo) || compareStrings(a.path, b.path) || a.line - b.line || a.column - b.column);
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

      let window = firstUsages;
      // Zoekt counts the files exactly: when there are few enough, fetch them all now, so the
      // usage count is exact from the first page on.
      const files = window.stats.fileCount;
      if (!window.exhausted && !window.stats.stopped && files <= EXACT_COUNT_FILES && files + 1 > size) {
        size = files + 1;
        window = await searcher.window({ ...usageRequest, size });
      }
      lines = usageLines(window.files, contextLines, keep, sites);
      for (let round = 0; round < MAX_GROWTH_ROUNDS && !decided(window, lines, offset, limit) && size < MAX_USAGE_FILES; round++) {
        size = Math.min(MAX_USAGE_FILES, size * 4);
        window = await searcher.window({ ...usageRequest, size });
        lines = usageLines(window.files, contextLines, keep, sites);
      }
      const bounded = !window.exhausted && size >= MAX_USAGE_FILES;
      return {
        items: lines.slice(offset, offset + limit).map((l) => l.usage),
        more: lines.length > offset + limit || (!window.exhausted && !bounded && lines.length === offset + limit),
        complete: window.exhausted && !window.stats.stopped && candidates.window.exhausted && !candidates.window.stats.stopped,
        partial: zoektPartial(window.stats) ?? zoektPartial(candidates.window.stats) ?? (bounded ? usageBound(window.stats.fileCount) : undefined),
      };
    },
    emptyHint: () => '',
  });
  const includeDefinitions = args.include_definitions ?? REFERENCE_DEFAULTS.include_definitions;
  const out: ReferenceOutput = {
    symbol,
    zoekt_queries: { definitions: searcher.confine(definitionsQuery), usages: searcher.confine(usagesQuery) },
    definitions: page.offset === 0 && includeDefinitions ? definitionSymbols.map(toDefinition) : [],
    usages: page.items,
    stats: {
      definition_count: definitionSymbols.length,
      usage_count: lines.length,
      files: new Set(lines.map((l) => `${l.usage.repo}\u0000${l.usage.path}`)).size,
      duration_ms: Date.now() - started,
      complete: page.complete,
    },
    ...(scope ? { scope } : {}),
    ...pagingOutput(page),
  };
  // The page protocol's note (past the end, or an unfinished search) comes first; the first page
  // also says what is missing when definitions or usages are.
  const hint = [page.hint, page.offset === 0 ? referencesHint(args, pattern.member, definitionSymbols.length, lines.length, scope, searcher.scope.note()) : undefined]
    .filter(Boolean)
    .join(' ');
  if (hint) out.hint = hint;
  else delete out.hint;
  return out;
}

function usageBound(files: number): { reason: string; hint: string } {
  return {
    reason: `usages are in ${files.toLocaleString('en-US')} files; paging reaches those in the best-ranked ${MAX_USAGE_FILES.toLocaleString('en-US')}`,
    hint: NARROW_HINT,
  };
}

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

function referencesHint(args: ReferenceArgs, member: string, definitions: number, usages: number, scope: string | undefined, scopeNote: string | undefined): string | undefined {
  if (definitions > 0 && usages > 0) return undefined;
  const filters = describeFilters(args);
  const confined = scopeNote ? ` Note that ${scopeNote}.` : '';
  const narrowing = `${filters.length ? ` The filters ${filters.join(', ')} may exclude them.` : ''}${confined}`;
  if (definitions === 0 && usages === 0) {
    return (
      `Neither definitions nor whole-word usages of '${member}' (case-sensitive).${narrowing} ` +
      `Check the spelling and case: search_symbols with {"name": "${member}"} is case-insensitive, and search_code finds partial words.`
    );
  }
  if (definitions === 0) {
    return `No definition of '${member}' is indexed (its language may have no ctags symbols, or it is defined outside the indexed repositories${args.kind ? ` or is not a ${args.kind}` : ''}); the usages are whole-word matches.${narrowing}`;
  }
  return `'${member}' is defined but has no other whole-word usages${scope ? ' in its language family' : ''}.${narrowing}`;
}
