import { z } from 'zod';
import { count } from '../search/completeness.js';
import { FILE_DEFAULTS, FileSearchOutput, SEARCH_FILES, searchFiles } from '../search/files.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, queryLine, sharedFilterArgs } from './shared.js';

const input = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(1000)
    .describe(
      "A gitignore-style glob over paths: '**/*.test.ts', 'Makefile' (any depth), 'src/' (everything under src/), '/go.mod' (repo root); or an RE2 regex over the path with regex: true.",
    ),
  regex: z.boolean().optional().describe('Treat pattern as an RE2 regex over the path inside the repo. Default false.'),
  ...sharedFilterArgs,
  limit: z.number().int().min(1).max(200).optional().describe(`Files per page (1–200, default ${FILE_DEFAULTS.limit}).`),
  cursor: cursorArg,
});

export function renderFiles(out: FileSearchOutput): string {
  const lines: string[] = [queryLine(out.zoekt_query), ''];
  const seen = new Map<string, number>();
  for (const f of out.files) seen.set(`${f.repo}/${f.path}`, (seen.get(`${f.repo}/${f.path}`) ?? 0) + 1);
  for (const f of out.files) {
    // A path listed twice differs between branches: say which version each line is.
    const on = (seen.get(`${f.repo}/${f.path}`) ?? 0) > 1 && f.branches ? ` @${f.branches.join(',')}` : '';
    lines.push(`${f.repo}/${f.path}${on}${f.language ? ` (${f.language})` : ''}`);
  }
  lines.push('', `${out.files.length} file(s) on this page; ${count(out.stats.files, out.stats.complete)} in all; ${out.stats.duration_ms} ms`);
  lines.push(...pagingFooter(out));
  return lines.join('\n');
}

export const searchFilesTool = defineTool({
  name: SEARCH_FILES,
  title: 'Search files',
  description: [
    'Find files by name or path (not by content: use search_code for that).',
    "The pattern is a gitignore-style glob: without a '/' it matches a file or directory name at any depth ('*.go', 'Makefile');",
    "with a '/' it is anchored at the repository root ('src/**/*.ts', '/go.mod'); '*' stays in one directory, '**' crosses directories;",
    "a trailing '/' means everything under a directory ('test/'). Set regex: true for an RE2 regex over the path.",
    'A pattern with an uppercase letter matches case-sensitively, otherwise case is ignored.',
    'Examples:',
    '- {"pattern": "**/*.test.ts"}',
    '- {"pattern": "Makefile", "repos": ["github.com/acme/*"]}',
    '- {"pattern": "src/", "languages": ["go"]}',
    '- {"pattern": "(^|/)docker-compose\\\\.ya?ml$", "regex": true}',
  ].join('\n'),
  input,
  output: FileSearchOutput,
  handler: (args, ctx) => searchFiles(ctx.searcher, args, ctx.signal),
  render: (out) => renderFiles(out),
});
