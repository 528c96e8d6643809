/** Argument schemas and rendering pieces that several tools share. */
import { z } from 'zod';

const globList = (what: string) => z.array(z.string().min(1).max(500)).min(1).max(50).optional().describe(what);

export const sharedFilterArgs = {
  repos: globList("Repository name globs, OR-ed: 'github.com/acme/*', or a bare name like 'webapp' (matches the last segment)."),
  paths: globList(
    "Only paths matching these gitignore-style globs, OR-ed: 'src/**/*.ts' and '/main.go' are anchored at the repo root, '*.go' or 'Makefile' match at any depth, 'test/' is a directory and everything under it.",
  ),
  exclude_paths: globList('Leave out paths matching these globs (same syntax as paths).'),
  languages: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(30)
    .optional()
    .describe("Only these languages, OR-ed: Linguist names or aliases, any case ('TypeScript' or 'ts', 'Go' or 'golang', 'C++' or 'cpp', 'Python' or 'py'). TSX is its own language: list it beside TypeScript for .tsx files."),
  exclude_languages: z.array(z.string().min(1).max(100)).min(1).max(30).optional().describe('Leave out these languages (same names as languages).'),
  source_code_only: z
    .boolean()
    .optional()
    .describe('Leave out prose, config and data files (Markdown, Text, JSON, YAML, TOML, XML, INI, CSV, …). Not together with languages.'),
};

export const cursorArg = z
  .string()
  .min(1)
  .max(2000)
  .optional()
  .describe('next_cursor from the previous page; send it with the same other arguments.');

/** The lines after a list: partial results, the next page, the hint. */
export function pagingFooter(out: { partial?: { reason: string; hint: string } | undefined; next_cursor?: string | undefined; hint?: string | undefined }): string[] {
  const lines: string[] = [];
  if (out.partial) lines.push(`partial: ${out.partial.reason}. ${out.partial.hint}`);
  if (out.next_cursor) lines.push(`more results: call again with cursor "${out.next_cursor}"`);
  if (out.hint) lines.push(`hint: ${out.hint}`);
  return lines;
}

/** Queries with many language terms (source_code_only) are long: the text block shows their start, structuredContent all of it. */
const MAX_QUERY_CHARS = 400;

export function queryLine(query: string): string {
  if (query.length <= MAX_QUERY_CHARS) return `zoekt query: ${query}`;
  return `zoekt query (${query.length} chars, full text in zoekt_query): ${query.slice(0, MAX_QUERY_CHARS)}…`;
}
