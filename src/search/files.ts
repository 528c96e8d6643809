/**
 * search_files: files by name or path. The pattern becomes a `file:` regex under `type:filename`
 * (which alone would still match file contents, so the path constraint is what makes this a
 * file-name search).
 */
import { invalidArgument } from '../errors.js';
import * as q from '../zoekt/query.js';
import { partialReason } from './code.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { describeFilters, filterParts, type SharedFilters } from './filters.js';
import { pathGlobToRegex } from './globs.js';
import type { Searcher } from './searcher.js';

export const SEARCH_FILES = 'search_files';

export interface FileSearchArgs extends SharedFilters {
  pattern: string;
  regex?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface FileSearchOutput {
  zoekt_query: string;
  files: { repo: string; path: string; language: string }[];
  stats: { files: number; duration_ms: number };
  partial?: { reason: string };
  next_cursor?: string;
  hint?: string;
}

export const FILE_DEFAULTS = { limit: 50 };

export function buildFileQuery(args: FileSearchArgs): string {
  const pattern = args.pattern.trim();
  if (pattern === '') throw invalidArgument('pattern is empty', "Give a glob such as '**/*.test.ts', 'Makefile' or 'src/', or a regex with regex: true.");
  const re = args.regex ? pattern : pathGlobToRegex(pattern);
  return q.render(q.and(q.fileNamesOnly(), q.file(re), ...filterParts(args)));
}

export async function searchFiles(searcher: Searcher, args: FileSearchArgs, signal?: AbortSignal): Promise<FileSearchOutput> {
  const started = Date.now();
  const limit = args.limit ?? FILE_DEFAULTS.limit;
  const offset = args.cursor ? decodeCursor(SEARCH_FILES, { ...args }, args.cursor).offset : 0;
  const query = buildFileQuery(args);

  const { page, window: last } = await searcher.filePage({ query, signal }, offset, limit);
  const out: FileSearchOutput = {
    zoekt_query: searcher.confine(query),
    files: page.items.map((f) => ({ repo: f.repo, path: f.path, language: f.language })),
    stats: { files: Math.max(last.stats.fileCount, page.window.items.length), duration_ms: Date.now() - started },
  };
  const partial = partialReason(last);
  if (partial) out.partial = { reason: partial };
  if (page.hasMore) out.next_cursor = encodeCursor(SEARCH_FILES, { ...args }, { offset: offset + limit, pageSize: limit });
  if (out.files.length === 0) out.hint = zeroFileHint(args, offset, searcher.scope.note());
  return out;
}

function zeroFileHint(args: FileSearchArgs, offset: number, scopeNote: string | undefined): string {
  if (offset > 0) return 'This page is past the last result; the results ended on an earlier page.';
  const tips: string[] = [];
  const pattern = args.pattern.trim();
  if (!args.regex) {
    if (pattern.includes('/')) {
      tips.push(`a glob with a '/' is anchored at the repository root: try '**/${pattern.replace(/^\/+/, '')}' to match at any depth`);
    }
    if (/[A-Z]/.test(pattern)) tips.push('a pattern with an uppercase letter matches case-sensitively: try it in lower case');
    tips.push("'*' stays within one directory, '**' crosses directories, 'dir/' is a directory and everything under it");
  } else {
    tips.push('the regex is matched against the path inside the repository (e.g. src/app/main.go)');
  }
  const filters = describeFilters(args);
  if (filters.length) tips.push(`the filters ${filters.join(', ')} may exclude the files`);
  if (scopeNote) tips.push(scopeNote);
  return `No files matched. ${tips.join('; ')}.`;
}
