import { z } from 'zod';
import { CODE_DEFAULTS, CodeSearchOutput, SEARCH_CODE, searchCode } from '../search/code.js';
import { count } from '../search/engine/completeness.js';
import { pageReads } from './freshness.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, queryLine, describedFilterArgs, text, toolInput } from './shared.js';

const input = toolInput({
  query: text(2000),
  literal: z.boolean().optional().describe('Exact text'),
  regex: z.boolean().optional().describe('The query is one RE2 regex'),
  case_sensitive: z.enum(['auto', 'yes', 'no']).optional().describe("'auto' (default): sensitive if the query has uppercase"),
  context_lines: z.number().int().min(0).max(10).optional().describe(`Default ${CODE_DEFAULTS.context_lines}`),
  max_matches_per_file: z.number().int().min(1).max(100).optional().describe(`Default ${CODE_DEFAULTS.max_matches_per_file}`),
  branch: text(200).optional().describe('Default: all'),
  ...describedFilterArgs,
  limit: z.number().int().min(1).max(50).optional().describe(`Files per page, default ${CODE_DEFAULTS.limit}`),
  cursor: cursorArg,
});

export function renderCode(out: CodeSearchOutput): string {
  const lines: string[] = [queryLine(out.zoekt_query)];
  for (const r of out.results) {
    const extra = [r.language, r.path_match ? 'path matches' : ''].filter(Boolean).join(', ');
    lines.push('', `${r.repo}/${r.path}${extra ? ` (${extra})` : ''}`);
    const atLeast = r.omitted_at_least ? 'at least ' : '';
    if (r.binary) lines.push(`binary content: ${atLeast}${r.omitted_matches} matching line(s) not shown`);
    if (r.not_indexed) lines.push(`text not indexed (${r.not_indexed}): its lines were not searched`);
    for (const m of r.matches) {
      (m.before ?? []).forEach((t, i) => lines.push(`${m.line - (m.before!.length - i)}- ${t}`));
      const sym = m.symbol ? `  [${m.symbol.kind} ${m.symbol.parent ? `${m.symbol.parent}.` : ''}${m.symbol.name}]` : '';
      lines.push(`${m.line}:${m.column}: ${m.text}${sym}`);
      // A match over several lines: its own lines as grep -U shows them, then where it ends.
      const continued = m.continued ?? [];
      continued.forEach((t, i) => lines.push(`${m.line + i + 1}: ${t}`));
      if (m.end_line !== undefined && m.line + continued.length < m.end_line) lines.push(`… the match goes on to line ${m.end_line}`);
      const afterFrom = Math.max(m.line + continued.length, m.end_line ?? m.line);
      (m.after ?? []).forEach((t, i) => lines.push(`${afterFrom + i + 1}- ${t}`));
    }
    if (r.omitted_matches > 0 && !r.binary) lines.push(`… ${atLeast}${r.omitted_matches} more matching line(s) in this file`);
    else if (r.omitted_at_least && !r.binary) lines.push('… more matching lines may follow in this file (only its first matches were read)');
  }
  const { files, matches, complete } = out.stats;
  lines.push('', `${out.results.length} file(s) on this page; ${count(files, complete)} file(s), ${count(matches, complete)} match(es) in all; ${out.stats.duration_ms} ms`);
  lines.push(...pagingFooter(out));
  return lines.join('\n');
}

export const searchCodeTool = defineTool({
  name: SEARCH_CODE,
  title: 'Search code',
  description: [
    'Search file contents: ranked files and matched lines (terms in nearly every file: by path).',
    'Query: RE2 regexes split at spaces, ANDed; file:, lang:, repo:, sym:, case:yes; - negates; or; ( ).',
    'regex: true: one regex, spaces and ( ) included; literal: true: exact text.',
    'Lists page: pass next_cursor back as cursor, same arguments.',
    '- {"query": "(async )?function \\w+", "regex": true}',
    '- {"query": "a(b[0])", "literal": true}',
  ].join('\n'),
  input,
  output: CodeSearchOutput,
  handler: (args, ctx, budget) => searchCode(ctx.searcher, args, budget, ctx.signal),
  render: (out) => renderCode(out),
  reads: pageReads('results'),
});
