import { z } from 'zod';
import { fileOutline, GET_FILE_OUTLINE, OUTLINE_DEFAULTS, OutlineOutput, type OutlineSymbol } from '../search/outline.js';
import { fileReads } from './freshness.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, text, toolInput } from './shared.js';

const input = toolInput({
  repo: text(500),
  path: text(2000),
  branch: text(200).optional(),
  limit: z.number().int().min(1).max(500).optional().describe(`Default ${OUTLINE_DEFAULTS.limit}`),
  cursor: cursorArg,
});

function renderNodes(nodes: OutlineSymbol[], depth: number, lines: string[]): void {
  for (const n of nodes) {
    const kind = n.kind === n.raw_kind.toLowerCase() ? n.kind : `${n.kind} (${n.raw_kind})`;
    lines.push(`${'  '.repeat(depth)}${n.line}: ${n.signature}  [${kind} ${n.parent ? `${n.parent}.` : ''}${n.name}]`);
    if (n.children) renderNodes(n.children, depth + 1, lines);
  }
}

export function renderOutline(out: OutlineOutput): string {
  const lines = [`${out.repo}/${out.path} (${out.language || 'unknown language'})`];
  renderNodes(out.symbols, 0, lines);
  lines.push('', `${out.stats.symbols} symbol(s) in the file`);
  lines.push(...pagingFooter(out));
  return lines.join('\n');
}

export const getFileOutlineTool = defineTool({
  name: GET_FILE_OUTLINE,
  title: 'Outline a file',
  description: ['A file\'s symbols in line order, members under their type.', 'Examples:', '- {"repo": "github.com/acme/webapp", "path": "src/app.ts"}', '- {"repo": "x/y", "path": "main.go", "limit": 20}'].join('\n'),
  input,
  output: OutlineOutput,
  handler: (args, ctx, budget) => fileOutline(ctx.searcher, args, budget, ctx.signal),
  render: (out) => renderOutline(out),
  reads: fileReads,
});
