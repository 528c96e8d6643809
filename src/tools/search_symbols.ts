import { z } from 'zod';
import { KINDS } from '../search/kinds.js';
import { count } from '../search/completeness.js';
import { SEARCH_SYMBOLS, SYMBOL_DEFAULTS, searchSymbols, SymbolSearchOutput } from '../search/symbols.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, queryLine, sharedFilterArgs } from './shared.js';

const input = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(500)
    .describe(
      "Symbol name: exact ('UserService'), a glob with * and ? ('get*', '*Handler'), or qualified ('Server.start', 'UserService::find'); 'Parent::' or 'Parent.*' lists the members of Parent.",
    ),
  regex: z.boolean().optional().describe('Treat name as an RE2 regex over symbol names (unanchored). Default false.'),
  case_sensitive: z.boolean().optional().describe('Match the name with exact case. Default false.'),
  kinds: z
    .array(z.string().min(1).max(50))
    .min(1)
    .max(KINDS.length)
    .optional()
    .describe(`Only these kinds, normalized across languages: ${KINDS.join(', ')}.`),
  include_vendored: z
    .boolean()
    .optional()
    .describe('Also search vendored code (vendor/, node_modules/, third_party/ …). Default false.'),
  ...sharedFilterArgs,
  limit: z.number().int().min(1).max(100).optional().describe(`Symbols per page (1–100, default ${SYMBOL_DEFAULTS.limit}).`),
  cursor: cursorArg,
});

export function renderSymbols(out: SymbolSearchOutput): string {
  const lines: string[] = [queryLine(out.zoekt_query)];
  let lastFile = '';
  for (const s of out.symbols) {
    const file = `${s.repo}/${s.path}`;
    if (file !== lastFile) lines.push('', `${file} (${s.language})`);
    lastFile = file;
    const kind = s.kind === s.raw_kind ? s.kind : `${s.kind} (${s.raw_kind})`;
    lines.push(`${s.line}:${s.column}: ${s.signature}  [${kind} ${s.qualified_name}]`);
  }
  lines.push('', `${out.symbols.length} symbol(s) on this page; ${count(out.stats.symbols, out.stats.complete)} in ${count(out.stats.files, out.stats.complete)} file(s) in all; ${out.stats.duration_ms} ms`);
  lines.push(...pagingFooter(out));
  return lines.join('\n');
}

export const searchSymbolsTool = defineTool({
  name: SEARCH_SYMBOLS,
  title: 'Search symbols',
  description: [
    'Find where functions, methods, classes, types, variables and constants are defined (ctags symbols indexed by Zoekt).',
    'Case-insensitive by default. Results are ranked: exact name first (exact case before other case), then names starting with it, then the rest.',
    "Each result has its normalized kind, ctags' raw_kind, the bare parent type for members, 1-based line and column, and the definition line as signature.",
    'Vendored code (vendor/, node_modules/, third_party/) is left out unless include_vendored is true. Not for text: use search_code for usages.',
    'Examples:',
    '- {"name": "UserService"} — every definition named UserService',
    '- {"name": "get*", "kinds": ["function", "method"], "languages": ["go"]}',
    '- {"name": "Server.start"} — the start method of Server (Go receiver, Python/TS/Java class); "UserService::find" in C++',
    '- {"name": "UserService::"} — the members of UserService',
  ].join('\n'),
  input,
  output: SymbolSearchOutput,
  handler: (args, ctx) => searchSymbols(ctx.searcher, args, ctx.signal),
  render: (out) => renderSymbols(out),
});
