/** Argument schemas and rendering pieces that several tools share. */
import { z } from 'zod';
import { OUTPUT_CHARS_BOUNDS } from '../config.js';
import { truncatedLine, type Truncated } from '../search/engine/budget.js';
import { notIndexedLine, type NotIndexedInScope } from '../search/engine/skipped.js';

/**
 * A list of short strings. Its bounds guard the server and are checked here, not advertised:
 * an agent never comes near them, and tools/list is read in every conversation.
 */
export function stringList(maxItems: number, maxChars: number) {
  return z
    .array(z.string())
    .refine((a) => a.length >= 1 && a.length <= maxItems, `give 1 to ${maxItems} entries`)
    .refine((a) => a.every((v) => v.length >= 1 && v.length <= maxChars), `each entry takes 1 to ${maxChars} characters`)
    .optional();
}

/** A string argument whose length bounds are checked, not advertised (see stringList). */
export function text(maxChars: number) {
  return z.string().refine((v) => v.length >= 1 && v.length <= maxChars, `takes 1 to ${maxChars} characters`);
}

/** The filters of every search tool; what they take is said once, in search_code's schema. */
export const sharedFilterArgs = {
  repos: stringList(50, 500),
  paths: stringList(50, 500),
  exclude_paths: stringList(50, 500),
  languages: stringList(30, 100),
  exclude_languages: stringList(30, 100),
  source_code_only: z.boolean().optional(),
};

/** The filters with what they take, for search_code (the first tool listed). */
export const describedFilterArgs = {
  ...sharedFilterArgs,
  repos: sharedFilterArgs.repos.describe("Repo globs ('github.com/acme/*', 'webapp'); filters work alike in every tool"),
  paths: sharedFilterArgs.paths.describe("Path globs, gitignore-style ('src/**/*.ts', '*.go', 'test/')"),
  languages: sharedFilterArgs.languages.describe("Names or aliases ('ts', 'go'); TSX is its own"),
  source_code_only: sharedFilterArgs.source_code_only.describe('No prose, config or data files'),
};

/**
 * The text an answer may have (every tool takes it; search_code's description says so once). Its
 * bounds are checked, not advertised, like the lists' above.
 */
export const outputCharsArg = z
  .number()
  .refine((v) => Number.isInteger(v) && v >= OUTPUT_CHARS_BOUNDS.min && v <= OUTPUT_CHARS_BOUNDS.max, `takes a whole number from ${OUTPUT_CHARS_BOUNDS.min} to ${OUTPUT_CHARS_BOUNDS.max}`)
  .optional();

/**
 * A tool's arguments: unknown keys refused. Its JSON Schema leaves `$schema` out (tools/list
 * assumes one dialect for all) to keep tools/list short.
 */
export function toolInput<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject({ ...shape, max_output_chars: outputCharsArg }).meta({ $schema: undefined });
}

/** next_cursor of the previous page (how paging works is said once, in search_code's description). */
export const cursorArg = text(2000).optional();

/** The lines after a list: files not searched, what the output budget cut, partial results, the next page, the hint. */
export function pagingFooter(out: {
  not_indexed?: NotIndexedInScope | undefined;
  truncated?: Truncated | undefined;
  partial?: { reason: string; hint: string } | undefined;
  next_cursor?: string | undefined;
  hint?: string | undefined;
}): string[] {
  const lines: string[] = [...(out.not_indexed ? [notIndexedLine(out.not_indexed)] : []), ...truncatedLine(out.truncated)];
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
