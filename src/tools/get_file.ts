import { z } from 'zod';
import { FILE_LIMITS, GET_FILE, getFile, GetFileOutput } from '../search/file.js';
import { fileReads } from './freshness.js';
import { defineTool } from './define.js';
import { text, toolInput } from './shared.js';
import { truncatedLine } from '../search/engine/budget.js';

/** Past any file Zoekt indexes (4 MiB at most), and a short number in the schema. */
const MAX_LINE_NUMBER = 10_000_000;

const input = toolInput({
  repo: text(500),
  path: text(2000),
  start_line: z.number().int().min(1).max(MAX_LINE_NUMBER).optional(),
  end_line: z.number().int().min(1).max(MAX_LINE_NUMBER).optional(),
  branch: text(200).optional().describe('Default: the first branch with the file'),
  symbol: text(300).optional().describe("A definition's lines ('Server.start')"),
});


export function renderFile(out: GetFileOutput): string {
  const lines = out.content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const width = String(out.end_line).length;
  const header = `${out.repo}/${out.path} (${out.language || 'unknown language'}) lines ${out.start_line}–${out.end_line} of ${out.total_lines}`;
  const body = out.content === '' ? [] : lines.map((l, i) => `${String(out.start_line + i).padStart(width)}  ${l.replace(/\r$/, '')}`);
  const footer = out.truncated ? [`… ${out.total_lines - out.end_line} more line(s): call again with start_line ${out.end_line + 1}`] : [];
  const binary = out.binary ? ['binary content: not shown'] : [];
  return [header, ...binary, ...body, ...truncatedLine(out.budget), ...footer, ...(out.hint ? [`hint: ${out.hint}`] : [])].join('\n');
}

export const getFileTool = defineTool({
  name: GET_FILE,
  title: 'Read a file',
  description: [
    `Read a file with line numbers: the first ${FILE_LIMITS.defaultLines} lines or start_line–end_line (at most ${FILE_LIMITS.maxLines}); truncated says there is more.`,
    'Examples:',
    '- {"repo": "github.com/acme/webapp", "path": "src/app.ts"}',
    '- {"repo": "github.com/acme/gosvc", "path": "main.go", "start_line": 40}',
  ].join('\n'),
  input,
  output: GetFileOutput,
  handler: (args, ctx, budget) => getFile(ctx.searcher, args, budget, ctx.signal),
  render: (out) => renderFile(out),
  reads: fileReads,
});
