/**
 * search_files: files by name or path. The pattern becomes a `file:` regex under `type:filename`
 * (which alone would still match file contents, so the path constraint is what makes this a
 * file-name search).
 */
import { invalidArgument } from '../errors.js';
import * as q from '../zoekt/query.js';
import { checkRegexBounds } from '../zoekt/query-bounds.js';
import { z } from 'zod';
import { walkFiles } from './engine/file-walk.js';
import { describeFilters, filterParts, type SharedFilters } from './vocab/filters.js';
import { completeField, paginate, pagingFields, pagingOutput } from './engine/page.js';
import { indexAgeField } from './vocab/freshness.js';
import { pathGlobToRegex } from '../patterns/globs.js';
import type { Searcher } from './engine/searcher.js';
import { NotIndexedInScope, skippedInScope } from './engine/skipped.js';
import { fitPage, RESULTS_DIAL, truncatedField, type Budget } from './engine/budget.js';

export const SEARCH_FILES = 'search_files';

export interface FileSearchArgs extends SharedFilters {
  pattern: string;
  regex?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export const FileSearchOutput = z.object({
  zoekt_query: z.string(),
  /** `branches` tells apart the versions of a path whose content differs between branches. */
  files: z.array(z.object({ repo: z.string(), path: z.string(), language: z.string(), branches: z.array(z.string()).optional() })),
  stats: z.object({ files: z.number().int(), duration_ms: z.number(), complete: completeField }),
  /** Files found whose text the indexer skipped (too large, too many trigrams): get_file cannot read them. First page only. */
  not_indexed: NotIndexedInScope.optional(),
  ...truncatedField,
  ...pagingFields,
  ...indexAgeField,
});
export type FileSearchOutput = z.infer<typeof FileSearchOutput>;

export const FILE_DEFAULTS = { limit: 50 };

export function buildFileQuery(args: FileSearchArgs): string {
  const pattern = args.pattern.trim();
  if (pattern === '') throw invalidArgument('pattern is empty', "Give a glob such as '**/*.test.ts', 'Makefile' or 'src/', or a regex with regex: true.");
  if (args.regex) checkRegexBounds(pattern, 'the pattern regex');
  const re = args.regex ? pattern : pathGlobToRegex(pattern);
  return q.render(q.and(q.fileNamesOnly(), q.file(re), ...filterParts(args)));
}

export async function searchFiles(searcher: Searcher, args: FileSearchArgs, budget: Budget<FileSearchOutput>, signal?: AbortSignal): Promise<FileSearchOutput> {
  const started = Date.now();
  const limit = args.limit ?? FILE_DEFAULTS.limit;
  const query = buildFileQuery(args);
  // The first page says which of the files found the indexer kept by name only.
  const pattern = args.regex ? args.pattern.trim() : pathGlobToRegex(args.pattern.trim());
  const skipped = args.cursor === undefined ? skippedInScope(searcher, [q.file(pattern), ...filterParts(args)], signal).catch(() => undefined) : Promise.resolve(undefined);
  const page = await paginate({
    tool: SEARCH_FILES,
    cursors: searcher.cursors,
    args: { ...args },
    limit,
    fetch: async (offset) => {
      const walked = await walkFiles(searcher, { query, content: false, signal }, offset, limit);
      return { ...walked, items: walked.files.map((f) => ({ repo: f.repo, path: f.path, language: f.language, ...(f.branches.length ? { branches: f.branches } : {}) })) };
    },
    emptyHint: () => zeroFileHint(searcher, args, signal),
    narrowHint: 'Ask for less: a more specific pattern, a lower limit, or paths, languages or repos filters.',
  });
  const notIndexed = await skipped;
  const stats = { files: page.total, duration_ms: Date.now() - started, complete: page.complete };
  const make = (s: Record<'results', number>, truncated: FileSearchOutput['truncated']): FileSearchOutput => ({
    zoekt_query: searcher.confine(query),
    files: page.items.slice(0, s.results),
    stats,
    ...(notIndexed ? { not_indexed: notIndexed } : {}),
    ...(truncated ? { truncated } : {}),
    ...pagingOutput(page),
  });
  return fitPage(page, make, {}, RESULTS_DIAL, budget);
}

/**
 * Why no file matched, from what the index holds: a cause (a glob anchored at the root, case, the
 * filters) is named only when the search without it finds files.
 */
async function zeroFileHint(searcher: Searcher, args: FileSearchArgs, signal?: AbortSignal): Promise<string> {
  const pattern = args.pattern.trim();
  const re = args.regex ? pattern : pathGlobToRegex(pattern);
  const count = (...parts: (q.QueryPart | false)[]) => searcher.count(q.render(q.and(q.fileNamesOnly(), ...parts)), signal);
  const anchored = !args.regex && pattern.includes('/') && !pattern.startsWith('**/');
  const deeper = `**/${pattern.replace(/^\/+/, '')}`;
  const filters = describeFilters(args);
  const [atAnyDepth, caseless, unfiltered] = await Promise.all([
    anchored ? count(q.file(pathGlobToRegex(deeper)), ...filterParts(args)) : 0,
    /[A-Z]/.test(pattern) ? count(q.caseMode('no'), q.file(re), ...filterParts(args)) : 0,
    filters.length ? count(q.file(re)) : 0,
  ]);
  const causes: string[] = [];
  if (atAnyDepth) causes.push(`a glob with a '/' is anchored at the repository root, and '${deeper}' finds ${atAnyDepth} file(s) at any depth`);
  if (caseless) causes.push(`a pattern with an uppercase letter matches case-sensitively, and in any case it finds ${caseless} file(s): try it in lower case`);
  if (unfiltered) causes.push(`the filters ${filters.join(', ')} exclude every match: without them ${unfiltered} file(s) match`);
  const scopeNote = searcher.scope.note();
  const globs = args.regex
    ? 'The regex is matched against the path inside the repository (e.g. src/app/main.go).'
    : "Globs: '*' stays within one directory, '**' crosses directories, 'dir/' is a directory and everything under it.";
  const checked = [anchored && 'at any depth', /[A-Z]/.test(pattern) && 'in any case', filters.length > 0 && 'without the filters'].filter(Boolean);
  const found = causes.length ? `: ${causes.join('; ')}.` : checked.length ? `, nor does one ${checked.join(' or ')}.` : '.';
  return `No files matched${found} ${globs}${scopeNote ? ` Note that ${scopeNote}.` : ''}`;
}
