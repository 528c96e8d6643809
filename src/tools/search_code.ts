import { z } from 'zod';
import { CODE_DEFAULTS, CodeSearchOutput, SEARCH_CODE, searchCode } from '../search/code.js';
import { count } from '../search/completeness.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, queryLine, sharedFilterArgs } from './shared.js';

const input = z.strictObject({
  query: z
    .string()
    .min(1)
    .max(2000)
    .describe(
      'Zoekt query. Bare terms are RE2 regexes, ANDed; `file:`, `lang:`, `repo:`, `sym:`, `case:yes|no|auto`, `-` to negate, `or`, parentheses.',
    ),
  literal: z.boolean().optional().describe('Search the exact text: every regex and query metacharacter is escaped. Default false.'),
  case_sensitive: z
    .enum(['auto', 'yes', 'no'])
    .optional()
    .describe("'auto' (default): case-sensitive only if the query has an uppercase letter. 'yes' or 'no' force it."),
  context_lines: z.number().int().min(0).max(10).optional().describe(`Lines of context before and after each match (0–10, default ${CODE_DEFAULTS.context_lines}).`),
  max_matches_per_file: z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe(`Matched lines shown per file (1–100, default ${CODE_DEFAULTS.max_matches_per_file}); the rest are counted in omitted_matches.`),
  branch: z.string().min(1).max(200).optional().describe('Only this branch (Zoekt matches the name as a substring). Default: all indexed branches.'),
  ...sharedFilterArgs,
  limit: z.number().int().min(1).max(50).optional().describe(`Files per page (1–50, default ${CODE_DEFAULTS.limit}).`),
  cursor: cursorArg,
});

export function renderCode(out: CodeSearchOutput): string {
  const lines: string[] = [queryLine(out.zoekt_query)];
  for (const r of out.results) {
    const extra = [r.language, r.path_match ? 'path matches' : ''].filter(Boolean).join(', ');
    lines.push('', `${r.repo}/${r.path}${extra ? ` (${extra})` : ''}`);
    for (const m of r.matches) {
      (m.before ?? []).forEach((t, i) => lines.push(`${m.line - (m.before!.length - i)}- ${t}`));
      const sym = m.symbol ? `  [${m.symbol.kind} ${m.symbol.parent ? `${m.symbol.parent}.` : ''}${m.symbol.name}]` : '';
      lines.push(`${m.line}:${m.column}: ${m.text}${sym}`);
      (m.after ?? []).forEach((t, i) => lines.push(`${m.line + i + 1}- ${t}`));
    }
    if (r.omitted_matches > 0) lines.push(`… ${r.omitted_matches} more matching line(s) in this file`);
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
    'Search file contents across every indexed repository with Zoekt (trigram index: fast on any size of code base).',
    'The query is Zoekt syntax: bare terms are RE2 regexes and are ANDed; `file:` filters paths by regex, `lang:` by language, `repo:` by repo name,',
    '`sym:` matches symbol definitions, `-` negates, `or` alternates, parentheses group. RE2 has no lookaround and no backreferences.',
    'Set literal: true to search exact text such as `foo(bar[0])`. Results are files ranked by relevance, each with matched lines (1-based line and column) and context.',
    'Pass next_cursor back as cursor, with the same other arguments, for the next page.',
    'Examples:',
    '- {"query": "func\\\\s+NewServer"} — a regex',
    '- {"query": "foo(bar[0])", "literal": true, "paths": ["src/"]} — exact text under src/',
    '- {"query": "TODO -file:test", "repos": ["github.com/acme/*"], "context_lines": 0}',
    '- {"query": "sym:UserService"} — where UserService is defined, with its symbol kind',
  ].join('\n'),
  input,
  output: CodeSearchOutput,
  handler: (args, ctx) => searchCode(ctx.searcher, args, ctx.signal),
  render: (out) => renderCode(out),
});
