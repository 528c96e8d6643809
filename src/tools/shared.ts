/** Argument schemas and rendering pieces that several tools share. */
import { z } from 'zod';

const globList = (what: string) => z.array(z.string().min(1).max(500)).min(1).max(50).optional().describe(what);

export const sharedFilterArgs = {
  repos: globList("Repository name globs, OR-ed: 'github.com/acme/*', or a bare name like 'webapp' (matches the last segment)."),
  paths: globList(
    "Only paths matching these gitignore-style globs, OR-ed: 'src/**/*.ts' and '/main.go' are anchored at the repo root, '*.go' or 'Makefile' match at any depth, 'test/' is a directory and everything under it.",
  ),
  exclude_paths: globList('Leave out paths matching these globs (same syntax as paths).'),
};

export const cursorArg = z
  .string()
  .min(1)
  .max(2000)
  .optional()
  .describe('next_cursor from the previous page; send it with the same other arguments.');

export function pagingFooter(out: { next_cursor?: string | undefined; hint?: string | undefined }): string[] {
  const lines: string[] = [];
  if (out.next_cursor) lines.push(`more results: call again with cursor "${out.next_cursor}"`);
  if (out.hint) lines.push(`hint: ${out.hint}`);
  return lines;
}
