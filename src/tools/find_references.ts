import { z } from 'zod';
import { KINDS } from '../search/kinds.js';
import { count } from '../search/completeness.js';
import { FIND_REFERENCES, findReferences, REFERENCE_DEFAULTS, ReferenceOutput } from '../search/references.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, sharedFilterArgs } from './shared.js';

const input = z.strictObject({
  symbol: z
    .string()
    .min(1)
    .max(300)
    .describe("One identifier ('parseConfig', '$scope'), or qualified ('Server.start', 'UserService::find'). Matched whole-word and case-sensitively."),
  kind: z.string().min(1).max(50).optional().describe(`Only definitions of this kind: ${KINDS.join(', ')}.`),
  include_definitions: z.boolean().optional().describe('List the definitions on the first page (default true). Definition sites are never listed as usages.'),
  context_lines: z.number().int().min(0).max(5).optional().describe(`Lines of context around each usage (0–5, default ${REFERENCE_DEFAULTS.context_lines}).`),
  ...sharedFilterArgs,
  limit: z.number().int().min(1).max(200).optional().describe(`Usage lines per page (1–200, default ${REFERENCE_DEFAULTS.limit}).`),
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
    'Definitions and usages of one identifier across the index: definitions from ctags symbols (exact name and case),',
    "usages from a whole-word, case-sensitive text search (so 'foo' never matches foobar, foo_bar or xfoo). Both are asked of Zoekt at once.",
    'Definitions are labelled with their kind and come first, all on the first page; pages run over usage lines; a definition line is never repeated as a usage.',
    'When every definition is in one language family (e.g. TypeScript/JavaScript, C/C++) and no language filter is given, usages are limited to that family and `scope` says how to widen it.',
    'Examples:',
    '- {"symbol": "NewServer"}',
    '- {"symbol": "UserService.find", "context_lines": 1}',
    '- {"symbol": "getUser", "repos": ["github.com/acme/webapp"], "include_definitions": false}',
  ].join('\n'),
  input,
  output: ReferenceOutput,
  handler: (args, ctx) => findReferences(ctx.searcher, args, ctx.signal),
  render: (out) => renderReferences(out),
});
