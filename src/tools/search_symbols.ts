import { z } from 'zod';
import { KINDS } from '../search/vocab/kinds.js';
import { count } from '../search/engine/completeness.js';
import { clip } from '../search/engine/budget.js';
import { SEARCH_SYMBOLS, SYMBOL_DEFAULTS, searchSymbols, SymbolSearchOutput } from '../search/symbols.js';
import { pageReads } from './freshness.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, queryLine, sharedFilterArgs, stringList, text, toolInput } from './shared.js';

const input = toolInput({
  name: text(500).optional().describe("Exact ('UserService'), glob ('get*'), qualified ('Server.start', 'A::find'); 'Parent::' lists members; '::main' a global"),
  description: text(300).optional().describe("Or what it does, in a sentence ('close idle db connections'): ranked by doc comments and meaning where a definitions index is set up, else by name words"),
  regex: z.boolean().optional().describe('name is an RE2 regex'),
  case_sensitive: z.boolean().optional(),
  kinds: stringList(KINDS.length, 50).describe(KINDS.join(', ')),
  include_vendored: z.boolean().optional().describe('Also vendor/, node_modules/…'),
  references: z.boolean().optional().describe('Count usages (find_references)'),
  ...sharedFilterArgs,
  limit: z.number().int().min(1).max(100).optional().describe(`Default ${SYMBOL_DEFAULTS.limit}`),
  cursor: cursorArg,
});

const DOC_SUMMARY_CHARS = 120;

export function renderSymbols(out: SymbolSearchOutput): string {
  const lines: string[] = [queryLine(out.zoekt_query)];
  let lastFile = '';
  for (const s of out.symbols) {
    const file = `${s.repo}/${s.path}`;
    if (file !== lastFile) lines.push('', `${file} (${s.language})`);
    lastFile = file;
    // The parser's own word only where it says more than the normalized kind (`method (func)`, not `method (Method)`).
    const kind = s.kind === s.raw_kind.toLowerCase() ? s.kind : `${s.kind} (${s.raw_kind})`;
    const why = s.matched_words ? ` score ${s.score} (${s.matched_words.join(', ')})` : s.score !== undefined ? ` score ${s.score}` : '';
    const beside = s.related?.siblings.length ? `; beside: ${s.related.siblings.join(', ')}` : '';
    const used = s.references ? `; ${s.references.complete ? '' : 'at least '}${s.references.count} usage line(s)` : '';
    lines.push(`${s.line}:${s.column}: ${s.signature}  [${kind} ${s.qualified_name}${why}${beside}${used}]`);
    // The summary line only; structuredContent has the whole (trimmed) documentation.
    if (s.documentation) lines.push(`    ${clip(s.documentation.split('\n')[0]!, 1, DOC_SUMMARY_CHARS)}`);
  }
  lines.push('', `${out.symbols.length} symbol(s) on this page; ${count(out.stats.symbols, out.stats.complete)} in ${count(out.stats.files, out.stats.complete)} file(s) in all; ${out.stats.duration_ms} ms`);
  lines.push(...pagingFooter(out));
  return lines.join('\n');
}

export const searchSymbolsTool = defineTool({
  name: SEARCH_SYMBOLS,
  title: 'Search symbols',
  description: [
    'Where functions, types, classes, variables are defined (indexed symbols). Case-insensitive; exact names first, then public, non-test. Result: kind, parent, line, signature.',
    'Examples:',
    '- {"name": "UserService"}',
    '- {"name": "get*", "kinds": ["function"]}',
    '- {"description": "retry request"}',
  ].join('\n'),
  input,
  output: SymbolSearchOutput,
  handler: (args, ctx, budget) => searchSymbols(ctx.searcher, args, budget, ctx.signal),
  render: (out) => renderSymbols(out),
  reads: pageReads('symbols'),
});
