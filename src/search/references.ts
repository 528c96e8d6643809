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
import { partialReason, toFileResult } from './code.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { describeFilters, filterParts, type SharedFilters } from './filters.js';
import { parseKinds, type Kind } from './kinds.js';
import { familyLanguages, languageByName } from './languages.js';
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

export interface Definition {
  repo: string;
  path: string;
  line: number;
  column: number;
  kind: string;
  text: string;
}

export interface Usage {
  repo: string;
  path: string;
  line: number;
  column: number;
  text: string;
  before?: string[];
  after?: string[];
}

export interface ReferenceOutput {
  symbol: string;
  zoekt_queries: { definitions: string; usages: string };
  definitions: Definition[];
  usages: Usage[];
  stats: { definition_count: number; usage_count: number; files: number; duration_ms: number };
  scope?: string;
  partial?: { reason: string };
  next_cursor?: string;
  hint?: string;
}

export const REFERENCE_DEFAULTS = { include_definitions: true, context_lines: 0, limit: 50 };

/** Usage windows grow this many times (×4 each) while filtered lines leave the page undecided. */
const MAX_GROWTH_ROUNDS = 3;
const MAX_USAGE_FILES = 5000;
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
  const offset = args.cursor ? decodeCursor(FIND_REFERENCES, { ...args }, args.cursor).offset : 0;
  const pattern = parseName(symbol, false);

  const filters: SharedFilters = { repos: args.repos, paths: args.paths, exclude_paths: args.exclude_paths, languages: args.languages, exclude_languages: args.exclude_languages, source_code_only: args.source_code_only };
  const definitionsQuery = buildSymbolQuery({ ...filters, name: symbol, case_sensitive: true, include_vendored: true }, pattern);
  const usagesQuery = q.render(q.and(q.caseMode('yes'), q.content(wordRegex(pattern.member)), ...filterParts(filters)));

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
    .filter(({ symbol: s, scope }) => {
      if (pattern.wholeName !== undefined && s.name === pattern.wholeName) return true;
      if (s.name !== pattern.member) return false;
      if (pattern.parent && !parentEndsWith(scope, pattern.parent)) return false;
      return true;
    })
    .map(({ symbol: s }) => s)
    .sort((a, b) => compareStrings(a.repo, b.repo) || compareStrings(a.path, b.path) || a.line - b.line || a.column - b.column);
  // A definition of another kind than the one asked for is still a definition, not a usage.
  const sites = new Set(namedSymbols.map((s) => siteKey(s.repo, s.path, s.line)));
  const definitionSymbols = namedSymbols.filter((s) => !kinds || kinds.has(s.kind as Kind));

  let scope: string | undefined;
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
  let lines = usageLines(window.files, contextLines, keep, sites);
  for (let round = 0; round < MAX_GROWTH_ROUNDS && !decided(window, lines, offset, limit) && size < MAX_USAGE_FILES; round++) {
    size = Math.min(MAX_USAGE_FILES, size * 4);
    window = await searcher.window({ ...usageRequest, size });
    lines = usageLines(window.files, contextLines, keep, sites);
  }

  const page = lines.slice(offset, offset + limit).map((l) => l.usage);
  const includeDefinitions = args.include_definitions ?? REFERENCE_DEFAULTS.include_definitions;
  const definitions = offset === 0 && includeDefinitions ? definitionSymbols.map(toDefinition) : [];
  const out: ReferenceOutput = {
    symbol,
    zoekt_queries: { definitions: searcher.confine(definitionsQuery), usages: searcher.confine(usagesQuery) },
    definitions,
    usages: page,
    stats: {
      definition_count: definitionSymbols.length,
      usage_count: lines.length,
      files: new Set(lines.map((l) => `${l.usage.repo}\u0000${l.usage.path}`)).size,
      duration_ms: Date.now() - started,
    },
  };
  if (scope) out.scope = scope;
  const partial = partialReason(window) ?? partialReason(candidates.window);
  if (partial) out.partial = { reason: partial };
  if (lines.length > offset + limit || (!window.exhausted && page.length === limit)) {
    out.next_cursor = encodeCursor(FIND_REFERENCES, { ...args }, { offset: offset + limit, pageSize: limit });
  }
  const hint = referencesHint(args, pattern.member, definitionSymbols.length, lines.length, offset, scope, searcher.scope.note());
  if (hint) out.hint = hint;
  return out;
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

function referencesHint(args: ReferenceArgs, member: string, definitions: number, usages: number, offset: number, scope: string | undefined, scopeNote: string | undefined): string | undefined {
  if (offset > 0 && usages <= offset) return 'This page is past the last usage; the results ended on an earlier page.';
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
