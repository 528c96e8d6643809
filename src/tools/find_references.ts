import { z } from 'zod';
import { count } from '../search/engine/completeness.js';
import { FIND_REFERENCES, findReferences, REFERENCE_DEFAULTS, ReferenceOutput } from '../search/references.js';
import { pageReads } from './freshness.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, sharedFilterArgs, text, toolInput } from './shared.js';

const input = toolInput({
  symbol: text(300).describe("'parseConfig', or 'Server.start', 'A::find'"),
  kind: text(50).optional().describe('Definitions of this kind only'),
  include_definitions: z.boolean().optional().describe('Default true'),
  context_lines: z.number().int().min(0).max(5).optional().describe(`Default ${REFERENCE_DEFAULTS.context_lines}`),
  ...sharedFilterArgs,
  limit: z.number().int().min(1).max(200).optional().describe(`Usage lines per page, default ${REFERENCE_DEFAULTS.limit}`),
  cursor: cursorArg,
});

export function renderReferences(out: ReferenceOutput): string {
  const lines: string[] = [];
  if (out.definitions.length) {
    lines.push(`definitions of ${out.symbol} (${out.definitions.length}):`);
    for (const d of out.definitions) lines.push(`${d.repo}/${d.path}:${d.line}:${d.column}: ${d.text}  [${d.kind}]`);
    lines.push('');
  }
  lines.push(`usages of ${out.symbol}:`);
  let lastFile = '';
  for (const u of out.usages) {
    const file = `${u.repo}/${u.path}`;
    if (file !== lastFile) lines.push('', file);
    lastFile = file;
    (u.before ?? []).forEach((t, i) => lines.push(`${u.line - (u.before!.length - i)}- ${t}`));
    lines.push(`${u.line}:${u.column}: ${u.text}`);
    (u.after ?? []).forEach((t, i) => lines.push(`${u.line + i + 1}- ${t}`));
  }
  lines.push(
    '',
    `${out.usages.length} usage line(s) on this page; ${out.stats.definition_count} definition(s), ${count(out.stats.usage_count, out.stats.complete)} usage line(s) in ${count(out.stats.files, out.stats.complete)} file(s) in all; ${out.stats.duration_ms} ms`,
  );
  if (out.scope) lines.push(`scope: ${out.scope}`);
  lines.push(...pagingFooter(out));
  return lines.join('\n');
}

export const findReferencesTool = defineTool({
  name: FIND_REFERENCES,
  title: 'Find references',
  description: [
    'Definitions (indexed symbols) and whole-word usages of one identifier: definitions on page 1, then usages, in the definitions\' language family unless languages is given.',
    'Examples:',
    '- {"symbol": "NewServer"}',
    '- {"symbol": "UserService.find", "include_definitions": false}',
  ].join('\n'),
  input,
  output: ReferenceOutput,
  handler: (args, ctx, budget) => findReferences(ctx.searcher, args, budget, ctx.signal),
  render: (out) => renderReferences(out),
  reads: pageReads('definitions', 'usages'),
});
