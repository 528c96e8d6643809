import { z } from 'zod';
import { count } from '../search/engine/completeness.js';
import { FILE_DEFAULTS, FileSearchOutput, SEARCH_FILES, searchFiles } from '../search/files.js';
import { pageReads } from './freshness.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, queryLine, sharedFilterArgs, text, toolInput } from './shared.js';

const input = toolInput({
  pattern: text(1000).describe('Path glob, or an RE2 regex with regex: true'),
  regex: z.boolean().optional(),
  ...sharedFilterArgs,
  limit: z.number().int().min(1).max(200).optional().describe(`Default ${FILE_DEFAULTS.limit}`),
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
    'Find files by path glob (not content): *.go and Makefile match at any depth, src/**/*.ts from the repo root, test/ a directory.',
    'Examples:',
    '- {"pattern": "**/*.test.ts"}',
    '- {"pattern": "(^|/)Dockerfile$", "regex": true}',
  ].join('\n'),
  input,
  output: FileSearchOutput,
  handler: (args, ctx, budget) => searchFiles(ctx.searcher, args, budget, ctx.signal),
  render: (out) => renderFiles(out),
  reads: pageReads('files'),
});
