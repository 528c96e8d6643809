import { z } from 'zod';
import { FILE_LIMITS, GET_FILE, getFile, GetFileOutput } from '../search/file.js';
import { defineTool } from './define.js';

const input = z.strictObject({
  repo: z.string().min(1).max(500).describe("The repository's full name, as list_repos and search results give it (github.com/acme/webapp)."),
  path: z.string().min(1).max(2000).describe('The path inside the repository (src/main.go).'),
  start_line: z.number().int().min(1).optional().describe('First line to return (1-based). Default 1.'),
  end_line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Last line to return. At most ${FILE_LIMITS.maxLines} lines per call; without a range, the first ${FILE_LIMITS.defaultLines}.`),
  branch: z.string().min(1).max(200).optional().describe('Read the file as indexed on this branch. Default: the first indexed branch that has it.'),
});


export function renderFile(out: GetFileOutput): string {
  const lines = out.content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const width = String(out.end_line).length;
  const header = `${out.repo}/${out.path} (${out.language || 'unknown language'}) lines ${out.start_line}–${out.end_line} of ${out.total_lines}`;
  const body = out.content === '' ? [] : lines.map((l, i) => `${String(out.start_line + i).padStart(width)}  ${l.replace(/\r$/, '')}`);
  const footer = out.truncated ? [`… ${out.total_lines - out.end_line} more line(s): call again with start_line ${out.end_line + 1}`] : [];
  return [header, ...body, ...footer, ...(out.hint ? [`hint: ${out.hint}`] : [])].join('\n');
}

export const getFileTool = defineTool({
  name: GET_FILE,
  title: 'Read a file',
  description: [
    `Read an indexed file by exact repository and path, with line numbers. Without a range you get the first ${FILE_LIMITS.defaultLines} lines; at most ${FILE_LIMITS.maxLines} per call.`,
    'total_lines and truncated tell whether to read on. An unknown repository or path is NOT_FOUND with the nearest names.',
    'Examples:',
    '- {"repo": "github.com/acme/webapp", "path": "src/services/UserService.ts"}',
    '- {"repo": "github.com/acme/gosvc", "path": "internal/server/server.go", "start_line": 40, "end_line": 80}',
  ].join('\n'),
  input,
  output: GetFileOutput,
  handler: (args, ctx) => getFile(ctx.searcher, args, ctx.signal),
  render: (out) => renderFile(out),
});
