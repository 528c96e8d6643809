/**
 * get_file: the text of one indexed file, by exact repository and path, through a Zoekt search
 * that asks for the whole content. Lines are cut from the content as it is, so a range of a UTF-8
 * file comes back byte for byte (CRLF, non-ASCII and all); other encodings are flagged in `hint`.
 */
import { z } from 'zod';
import { invalidArgument, ToolError } from '../errors.js';
import * as q from '../zoekt/query.js';
import type { FileHit } from '../zoekt/wire.js';
import { bareName } from './code.js';
import { compareStrings } from './engine/paging.js';
import { resolveBranch } from './vocab/branches.js';
import type { Searcher } from './engine/searcher.js';
import { closest, editDistance } from './vocab/text-distance.js';
import { fewer, fitToBudget, shorterLines, Truncated, type Budget } from './engine/budget.js';
import { OUTPUT_CHARS_BOUNDS } from '../config.js';
import { definitionSpan } from './definitions/definition-span.js';
import { symbolsOf } from './definitions/symbol.js';

export const GET_FILE = 'get_file';

export interface GetFileArgs {
  repo: string;
  path: string;
  start_line?: number | undefined;
  end_line?: number | undefined;
  branch?: string | undefined;
  /** A definition's name (or Parent.name): its lines instead of a range. */
  symbol?: string | undefined;
}

export const GetFileOutput = z.object({
  repo: z.string(),
  path: z.string(),
  language: z.string(),
  branches: z.array(z.string()).optional(),
  version: z.string().optional(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  total_lines: z.number().int(),
  /** More lines follow end_line. */
  truncated: z.boolean(),
  content: z.string(),
  /** The file is binary (NUL bytes): its content is not shown. */
  binary: z.boolean().optional(),
  /** What the output budget cut: fewer lines (end_line says where it stopped), then long lines shortened. */
  budget: Truncated.optional(),
  hint: z.string().optional(),
});
export type GetFileOutput = z.infer<typeof GetFileOutput>;

export const FILE_LIMITS = { defaultLines: 400, maxLines: 2000 };

const exact = (text: string) => `^${q.escapeRegex(text)}$`;

/** Where each line starts, and how many lines the text has (a final newline does not open a line). */
function lineStarts(content: string): number[] {
  const starts = [0];
  for (let i = content.indexOf('\n'); i >= 0; i = content.indexOf('\n', i + 1)) starts.push(i + 1);
  if (starts.length > 1 && starts[starts.length - 1] === content.length) starts.pop();
  if (content.length === 0) return [];
  return starts;
}

export async function getFile(searcher: Searcher, args: GetFileArgs, budget: Budget<GetFileOutput>, signal?: AbortSignal): Promise<GetFileOutput> {
  const path = args.path.replace(/^\/+/, '');
  if (path === '') throw invalidArgument('path is empty', 'Give the path inside the repository, e.g. src/main.go (search_files finds paths).');
  if (args.start_line !== undefined && args.end_line !== undefined && args.end_line < args.start_line) {
    throw invalidArgument(`end_line ${args.end_line} is before start_line ${args.start_line}`, 'Give end_line >= start_line, or leave end_line out.');
  }
  if (args.symbol !== undefined && (args.start_line !== undefined || args.end_line !== undefined)) {
    throw invalidArgument('give symbol or start_line/end_line, not both', 'symbol reads one definition; start_line and end_line read a range.');
  }
  const { file, choice } = await findFile(searcher, { ...args, path }, signal, args.symbol === undefined ? undefined : q.sym('.'));
  const skipped = file.notIndexed;
  if (skipped) {
    throw new ToolError(
      'NOT_FOUND',
      `'${path}' is in the index of ${args.repo} without its content: Zoekt skipped it because it ${skipped}`,
      'Zoekt keeps no text for binary files, files over its size limit (-file_limit: 2 MiB by default, 4 MiB as zoekt-config/index indexes), files with too many distinct trigrams (-max_trigram_count: 20,000 by default, 50,000 there) or files under 3 bytes. Read it from the repository itself.',
    );
  }
  // Zoekt leaves Content out for an empty file.
  const content = file.content ?? '';
  const starts = lineStarts(content);
  const total = starts.length;
  const picked = args.symbol === undefined ? undefined : pickDefinition(file, args.symbol, content);
  const start = picked?.start ?? args.start_line ?? 1;
  if (total > 0 && start > total) {
    throw invalidArgument(`start_line ${start} is past the end of the file (${total} lines)`, `Ask for lines 1–${total}.`);
  }
  const wanted = picked?.end ?? args.end_line ?? (args.start_line !== undefined ? start + FILE_LIMITS.defaultLines - 1 : FILE_LIMITS.defaultLines);
  const end = Math.min(total, wanted, start + FILE_LIMITS.maxLines - 1);
  const base: GetFileOutput = {
    repo: file.repo,
    path: file.path,
    language: file.language,
    start_line: total === 0 ? 0 : start,
    end_line: end,
    total_lines: total,
    truncated: end < total,
    content: '',
  };
  if (file.branches.length) base.branches = file.branches;
  if (file.version) base.version = file.version;
  // Zoekt indexes a file that starts with a NUL byte (WebAssembly, some images) as text.
  if (content.includes('\u0000')) {
    return { ...base, start_line: 0, end_line: 0, truncated: false, binary: true, hint: [choice?.note, `The file is binary (it holds NUL bytes; ${content.length} characters): its content is not shown. Read it from the repository itself.`].filter(Boolean).join(' ') };
  }
  const notUtf8 = file.contentNotUtf8
    ? 'The file is not valid UTF-8 (perhaps Latin-1 or another legacy encoding): bytes that are not UTF-8 are shown as U+FFFD, so this text is not byte-exact.'
    : undefined;
  // Each line with its line ending, so a range comes back byte for byte.
  const lines = Array.from({ length: end - start + 1 }, (_, i) => content.slice(starts[start - 1 + i]!, start + i >= total ? content.length : starts[start + i]!));
  const longest = Math.max(0, ...lines.map((l) => l.length));
  const make = (s: Record<'lines' | 'line_chars', number>, cut: Truncated | undefined): GetFileOutput => {
    const shown = lines.slice(0, s.lines);
    const last = total === 0 ? 0 : start + shown.length - 1;
    const out: GetFileOutput = { ...base, end_line: last, truncated: last < total, content: shown.map((l) => shortened(l, s.line_chars)).join('') };
    if (cut) out.budget = cut;
    const long = cut && s.line_chars < longest ? shown.filter((l) => lineLength(l) > s.line_chars).length : 0;
    const hints = [choice?.note, picked?.note, notUtf8, long ? `${long} line(s) longer than ${s.line_chars} characters are cut, marked […]; pass a larger max_output_chars (up to ${OUTPUT_CHARS_BOUNDS.max}) to read them whole, or search_code with paths ["${file.path}"] to find text in them.` : undefined];
    const hint = hints.filter(Boolean).join(' ');
    if (hint) out.hint = hint;
    return out;
  };
  const dials = [
    { name: 'lines' as const, down: fewer(1) },
    { name: 'line_chars' as const, down: shorterLines },
  ];
  return fitToBudget(make, { lines: lines.length, line_chars: longest }, dials, budget);
}

/**
 * One indexed file, by exact repository and path, with its whole content, on the asked branch or
 * else its repository's first; NOT_FOUND with the nearest names when it is not there. `also`: a
 * query part the file must match too (`sym:.` for its symbols); a file that does not is `undefined`.
 */
export async function findFile(
  searcher: Searcher,
  args: { repo: string; path: string; branch?: string | undefined },
  signal?: AbortSignal,
  also?: q.QueryPart,
): Promise<{ file: FileHit; choice: Awaited<ReturnType<typeof resolveBranch>> | undefined }> {
  searcher.scope.check(args.repo);
  // A repository indexed as HEAD is read there when asked for its branch by name.
  const choice = args.branch === undefined ? undefined : await resolveBranch(searcher, args.branch, [q.repo(exact(args.repo))], signal);
  const branch = choice?.branch;
  const locate = async (part?: q.QueryPart) => {
    const query = q.render(q.and(q.repo(exact(args.repo)), q.file(exact(args.path)), branch !== undefined && q.branch(branch), part));
    const hits = (await searcher.wholeFiles(query, 10, args.repo, signal)).filter(
      (f) => f.repo === args.repo && f.path === args.path && (branch === undefined || f.branches.includes(branch)),
    );
    return hits.length > 1 ? await onFirstBranch(searcher, args.repo, hits, signal) : hits[0];
  };
  const file = (also && (await locate(also))) || (await locate());
  if (!file) throw await notFound(searcher, args, args.path, signal);
  return { file, choice };
}

/**
 * The lines of the definition `symbol` names in `file` (a qualified name picks by parent), or
 * NOT_FOUND naming the definitions the file has. With several, the first, and a note naming the others.
 */
function pickDefinition(file: FileHit, symbol: string, content: string): { start: number; end: number; note?: string } {
  const parts = symbol.split(/::|\./).filter(Boolean);
  const name = parts.pop() ?? '';
  const parent = parts.pop();
  const all = symbolsOf(file).map((x) => x.symbol);
  const named = all.filter((s) => s.name === name && (parent === undefined || s.parent === parent)).sort((a, b) => a.line - b.line);
  if (named.length === 0) {
    const names = [...new Set(all.map((s) => s.qualified_name))].slice(0, 10);
    throw new ToolError(
      'NOT_FOUND',
      `'${file.path}' has no definition named '${symbol}' in the index`,
      names.length
        ? `It defines ${names.map((n) => `'${n}'`).join(', ')}${all.length > 10 ? ' …' : ''}; get_file_outline lists them all. search_symbols finds where '${name}' is defined.`
        : `No symbols are indexed for this file; read it by lines (start_line, end_line), or search_symbols finds where '${name}' is defined.`,
    );
  }
  const first = named[0]!;
  const span = definitionSpan(content.split('\n'), first.line, file.language);
  const others = named.slice(1).map((s) => `${s.qualified_name} at line ${s.line}`);
  return { ...span, ...(others.length ? { note: `'${symbol}' is also defined here: ${others.join(', ')}; start_line reads those.` } : {}) };
}

/** A line's length without its line ending. */
function lineLength(line: string): number {
  return line.replace(/\r?\n$/, '').length;
}

/** A line cut to `max` characters, its line ending kept, with a marker saying how much is left out. */
function shortened(line: string, max: number): string {
  const body = line.replace(/\r?\n$/, '');
  if (body.length <= max) return line;
  return `${body.slice(0, max)}[… ${body.length - max} more characters]${line.slice(body.length)}`;
}

/**
 * A path whose content differs between branches is one document per version, in no set order;
 * without a branch argument the version on the repository's first branch (its default) wins.
 */
async function onFirstBranch(searcher: Searcher, repo: string, hits: FileHit[], signal?: AbortSignal): Promise<FileHit | undefined> {
  const listed = await searcher.list(q.render(q.repo(exact(repo))), signal);
  const order = listed.repos.find((r) => r.name === repo)?.branches.map((b) => b.name) ?? [];
  const rank = (f: FileHit) => Math.min(...f.branches.map((b) => (order.includes(b) ? order.indexOf(b) : order.length)));
  return [...hits].sort((a, b) => rank(a) - rank(b))[0];
}

async function notFound(searcher: Searcher, args: { repo: string; branch?: string | undefined }, path: string, signal?: AbortSignal): Promise<ToolError> {
  const repos = await searcher.list('', signal);
  const names = repos.repos.map((r) => r.name);
  if (!names.includes(args.repo)) {
    const best = Math.min(...names.map((n) => editDistance(args.repo, n)));
    const near = closest(args.repo, names, 3).filter((n) => editDistance(args.repo, n) <= best + 2);
    const byLastPart = names.filter((n) => bareName(n).toLowerCase() === bareName(args.repo).toLowerCase() && !near.includes(n));
    const suggestions = [...byLastPart, ...near].slice(0, 3);
    return new ToolError(
      'NOT_FOUND',
      `repository '${args.repo}' is not indexed`,
      suggestions.length
        ? `Did you mean ${suggestions.map((n) => `'${n}'`).join(', ')}? Repository names are full names as list_repos shows them.`
        : 'Call list_repos to see the indexed repository names (full names, e.g. github.com/acme/webapp).',
    );
  }
  const base = path.split('/').pop()!;
  const stem = base.replace(/\.[^.]*$/, '') || base;
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '';
  // Files named alike, files in the same directory, and files whose name starts the same.
  const alike = [q.file(q.escapeRegex(stem)), q.file(`(?:^|/)${q.escapeRegex(stem.slice(0, 4))}[^/]*$`)];
  if (dir) alike.push(q.file(`^${q.escapeRegex(dir)}[^/]*$`));
  const query = q.render(q.and(q.caseMode('no'), q.fileNamesOnly(), q.repo(exact(args.repo)), q.or(...alike)));
  const candidates = await searcher
    .window({ query, size: 500, fresh: true, signal })
    .then((w) => w.files)
    .catch(() => [] as FileHit[]);
  const near = [...new Set(candidates.map((f) => f.path))]
    .map((p) => ({ p, d: Math.min(editDistance(path, p), editDistance(base, p.split('/').pop()!)) }))
    .filter(({ p }) => p !== path)
    .sort((a, b) => a.d - b.d || compareStrings(a.p, b.p))
    .slice(0, 5)
    .map(({ p }) => p);
  const onBranch = args.branch !== undefined ? ` on branch '${args.branch}'` : '';
  // One document per distinct version: the path's branches are spread over all of them.
  const otherBranches = [...new Set(candidates.filter((f) => f.path === path).flatMap((f) => f.branches))];
  return new ToolError(
    'NOT_FOUND',
    `'${path}' is not an indexed file of ${args.repo}${onBranch}`,
    otherBranches?.length && args.branch !== undefined
      ? `It exists on ${otherBranches.map((b) => `'${b}'`).join(', ')}: call again with one of those branches, or without branch.`
      : near.length
        ? `Did you mean ${near.map((p) => `'${p}'`).join(', ')}? Paths are relative to the repository root; search_files finds files by name.`
        : `search_files with {"pattern": "${base}", "repos": ["${args.repo}"]} finds files by name.`,
  );
}
