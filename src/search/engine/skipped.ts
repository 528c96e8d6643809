/**
 * Files the indexer skipped. Zoekt keeps such a file as a document whose whole text is
 * "NOT-INDEXED: <reason>": found by its name, never by its content. Nothing else in Zoekt's API
 * says they exist, so they are found by that text (one cheap search) and reported: per
 * repository by list_repos, in all by get_health, and by a search whose scope holds some.
 *
 * The search runs once per generation of the index, over the whole index in scope; a search's
 * own scope is then worked out in memory from that list (see `Generation`, `compileFilters`).
 */
import { z } from 'zod';
import { deadlineWithin, withDeadline } from '../../deadline.js';
import * as q from '../../zoekt/query.js';
import type { FileHit, RepoInfo } from '../../zoekt/wire.js';
import { keptPerSearcher, type Searcher } from './searcher.js';
import { compareStrings } from './paging.js';

/** Zoekt's explanations (index/document.go) and the names this server gives them. */
const REASONS = {
  'exceeds the maximum size limit': 'too_large',
  'contains too many trigrams': 'too_many_trigrams',
  'contains binary content': 'binary',
  'contains too few trigrams': 'too_small',
  'object missing from repository': 'missing',
} as const;
export type SkipReason = (typeof REASONS)[keyof typeof REASONS];

/**
 * The reasons whose files may hold text a search is after: a binary file or one of two bytes
 * would not have matched anyway, and naming them on every search would drown the others.
 */
const TEXT_REASONS: ReadonlySet<SkipReason> = new Set(['too_large', 'too_many_trigrams', 'missing']);

/** Whole-text match of a placeholder: `(?-m)` makes ^ and $ the ends of the file. */
const PLACEHOLDER = q.content(`(?-m)^NOT-INDEXED: (?:${Object.keys(REASONS).map(q.escapeRegex).join('|')})$`);

/** Placeholders listed at most (their count is exact beyond it). */
const LISTED_MAX = 20_000;
/** Placeholders listed at most by a scan within a search's filters (when those are not worked out in memory). */
const SCOPED_MAX = 1000;
/** Files a search names as examples. */
const EXAMPLES = 3;

export const NotIndexedCounts = z.object({
  /** Files the indexer skipped: their names are indexed, their text is not. */
  files: z.number().int(),
  /** By reason: too_large, too_many_trigrams, binary, too_small, missing. */
  reasons: z.record(z.string(), z.number().int()),
});
export type NotIndexedCounts = z.infer<typeof NotIndexedCounts>;

export const NotIndexedInScope = z.object({
  /** Files in the search's scope whose text was not indexed (too large, too many trigrams). */
  files: z.number().int(),
  examples: z.array(z.object({ repo: z.string(), path: z.string(), reason: z.string() })),
});
export type NotIndexedInScope = z.infer<typeof NotIndexedInScope>;

export interface SkippedFile {
  repo: string;
  path: string;
  reason: SkipReason;
}

/** A placeholder as the whole-index scan keeps it: what the filters of a search are evaluated on. */
export interface Placeholder extends SkippedFile {
  /** The language Zoekt stored for it (go-enry's guess from the name): what `lang:` compares. */
  language: string;
  /** Every branch the document is on (no branch: atom in the scan, so Zoekt names them all). */
  branches: string[];
}

/** The name this server gives a reason Zoekt wrote in a placeholder ('contains binary content' → binary). */
export function skipReason(zoektReason: string): SkipReason | string {
  return REASONS[zoektReason as keyof typeof REASONS] ?? zoektReason;
}

function reasonOf(file: FileHit): SkipReason | undefined {
  for (const chunk of file.chunks) {
    if (chunk.fileName) continue;
    const m = /^NOT-INDEXED: (.*)$/.exec(chunk.lines[0] ?? '');
    if (m) return REASONS[m[1] as keyof typeof REASONS];
  }
  return undefined;
}

interface Listed {
  files: Placeholder[];
  total: number;
  /** Zoekt listed every placeholder that matched: none left out by the window or a stop. */
  listedAll: boolean;
  /** A backend or a shard did not answer: the list is short for a reason that may pass. */
  failed: boolean;
}

async function placeholders(searcher: Searcher, parts: q.QueryPart[], size: number, signal?: AbortSignal): Promise<Listed> {
  const query = q.render(q.and(q.caseMode('yes'), PLACEHOLDER, ...parts));
  // Kept here, not in the window cache: a window cached there would outlive the index it was read from.
  const window = await searcher.window({ query, size, signal, fresh: true, once: true, placeholders: true });
  const files = window.files
    .map((f) => ({ repo: f.repo, path: f.path, reason: reasonOf(f), language: f.language, branches: f.branches }))
    .filter((f): f is Placeholder => f.reason !== undefined)
    .sort((a, b) => compareStrings(a.repo, b.repo) || compareStrings(a.path, b.path));
  const cause = window.stats.stopped?.cause;
  return {
    files,
    total: Math.max(window.stats.fileCount, files.length),
    listedAll: window.exhausted && cause === undefined,
    failed: cause === 'backends_failed' || cause === 'shards_failed',
  };
}

export function countByReason(files: SkippedFile[]): NotIndexedCounts {
  const reasons: Record<string, number> = {};
  for (const f of files) reasons[f.reason] = (reasons[f.reason] ?? 0) + 1;
  return { files: files.length, reasons };
}

export interface IndexSkipped {
  total: NotIndexedCounts;
  byRepo: Map<string, NotIndexedCounts>;
  /** False when there were more placeholders than were listed: per-repository counts are then lower bounds. */
  complete: boolean;
}

/**
 * Which files the indexer skipped changes only when the index does, so the placeholders are read
 * once per generation of the index: the repositories in scope, each with its index time, shards,
 * documents and branch versions, as /api/list gives them. A listing a caller already has
 * (get_health, list_repos) is that generation at no cost; a search reads it at most once a second
 * (GENERATION_TTL_MS), shared by every call, and an index changed within that second shows after it.
 */
export interface Generation {
  key: string;
  /** Per repository: its branches in Zoekt's order (`branch:HEAD` means a repository's first). */
  branches: Map<string, string[]>;
}

export function generationOf(scope: readonly string[], repos: readonly RepoInfo[]): Generation {
  const rows = repos
    .map((r) => [r.backend ?? '', r.name, r.id, r.indexTime ?? '', r.stats.shards, r.stats.documents, r.branches.map((b) => `${b.name}@${b.version}`).join(',')].join('\u0000'))
    .sort();
  return { key: [scope.join('\u0000'), ...rows].join('\u0001'), branches: new Map(repos.map((r) => [r.name, r.branches.map((b) => b.name)])) };
}

/** How long a read generation is trusted before a search reads it again. */
const GENERATION_TTL_MS = 1000;
/** The shared reads run on a deadline of their own: a caller that cannot wait answers without them. */
const READ_DEADLINE_MS = 60_000;
/** Scans within a filter kept per generation when the filter cannot be worked out in memory. */
const SCOPED_KEPT = 200;

interface Scan extends Listed {
  generation: string;
  /** Its counts per repository, worked out at the first call that asks. */
  summary?: IndexSkipped;
}

/**
 * The skipped files of one searcher's index, kept between calls: the last generation read (one
 * read in flight), the whole-index scan of that generation (one scan in flight: a new one waits
 * for the one before), and, for filters that cannot be evaluated here, scans per filter.
 */
class SkippedMemo {
  private check: { at: number; pending: boolean; reading: Promise<Generation> } | undefined;
  private scan: { generation: string; reading: Promise<Scan> } | undefined;
  private scoped = { generation: '', scans: new Map<string, Promise<Listed>>() };

  static of(searcher: Searcher): SkippedMemo {
    return skippedMemos(searcher);
  }

  /** A listing of the whole index in scope, just read by the caller: the current generation. */
  seen(generation: Generation): void {
    this.check = { at: Date.now(), pending: false, reading: Promise.resolve(generation) };
  }

  generation(searcher: Searcher): Promise<Generation> {
    const now = Date.now();
    if (this.check && (this.check.pending || now - this.check.at < GENERATION_TTL_MS)) return this.check.reading;
    const reading = withDeadline(now + READ_DEADLINE_MS, () => searcher.list('')).then((l) => generationOf(searcher.scope.globs, l.repos));
    const check = { at: now, pending: true, reading };
    // A failed read is kept for its second too: a Zoekt that is down is not asked once per call.
    reading.then(
      () => (check.pending = false),
      () => (check.pending = false),
    );
    this.check = check;
    return reading;
  }

  /** The whole-index scan of `generation`. */
  placeholders(searcher: Searcher, generation: Generation): Promise<Scan> {
    const kept = this.scan;
    if (kept?.generation === generation.key) return kept.reading;
    const reading = (kept?.reading.then(noop, noop) ?? Promise.resolve()).then(() =>
      withDeadline(Date.now() + READ_DEADLINE_MS, async (): Promise<Scan> => ({ ...(await placeholders(searcher, [], LISTED_MAX)), generation: generation.key })),
    );
    this.scan = { generation: generation.key, reading };
    const forget = () => {
      if (this.scan?.reading === reading) this.scan = undefined;
    };
    // A failed scan is not kept: the next call tries again. One cut short by a failed backend is
    // kept for a second, as a generation is.
    reading.then((s) => s.failed && setTimeout(forget, GENERATION_TTL_MS).unref(), forget);
    return reading;
  }

  /** A scan within `filters` (the query as it is sent), kept for `generation`. */
  placeholdersWithin(searcher: Searcher, generation: Generation, filters: q.QueryPart[]): Promise<Listed> {
    if (this.scoped.generation !== generation.key) this.scoped = { generation: generation.key, scans: new Map() };
    const scans = this.scoped.scans;
    const key = q.render(q.and(...filters));
    let reading = scans.get(key);
    if (!reading) {
      reading = withDeadline(Date.now() + READ_DEADLINE_MS, () => placeholders(searcher, filters, SCOPED_MAX));
      scans.set(key, reading);
      const r = reading;
      r.then((l) => l.failed && scans.delete(key), () => scans.get(key) === r && scans.delete(key));
      if (scans.size > SCOPED_KEPT) scans.delete(scans.keys().next().value!);
    }
    return reading;
  }
}

const skippedMemos = keptPerSearcher(() => new SkippedMemo());

const noop = () => undefined;

function summarize(scan: Scan): IndexSkipped {
  if (scan.summary) return scan.summary;
  const byRepo = new Map<string, SkippedFile[]>();
  for (const f of scan.files) {
    const of = byRepo.get(f.repo);
    if (of) of.push(f);
    else byRepo.set(f.repo, [f]);
  }
  const counts = countByReason(scan.files);
  return (scan.summary = {
    total: { ...counts, files: scan.total },
    byRepo: new Map([...byRepo].map(([r, fs]) => [r, countByReason(fs)])),
    complete: scan.listedAll,
  });
}

/**
 * Every skipped file of the index in scope, counted per repository; read once per generation of
 * the index. `repos`: the whole index in scope as the caller just listed it (`searcher.list('')`),
 * which is then the generation; without it the generation is read (at most once a second).
 */
export async function indexSkipped(searcher: Searcher, repos?: readonly RepoInfo[]): Promise<IndexSkipped> {
  const memo = SkippedMemo.of(searcher);
  let generation: Generation;
  if (repos) memo.seen((generation = generationOf(searcher.scope.globs, repos)));
  else generation = await memo.generation(searcher);
  return summarize(await memo.placeholders(searcher, generation));
}

/** What a call waits for a shared read: until the read ends, the call's deadline passes or it is cancelled. */
async function forCall<T>(reading: Promise<T>, signal?: AbortSignal): Promise<T | undefined> {
  const left = deadlineWithin(Number.POSITIVE_INFINITY) - Date.now();
  if (left <= 0 || signal?.aborted) return undefined;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      reading,
      new Promise<undefined>((resolve) => {
        if (Number.isFinite(left)) timer = setTimeout(() => resolve(undefined), left);
        onAbort = () => resolve(undefined);
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Files within a search's filters whose text the indexer skipped and a text search could have
 * wanted; undefined when none, or when they cannot be read now (Zoekt failed: never an error).
 *
 * Worked out in memory from the generation's whole-index scan when the scan listed every
 * placeholder and every filter can be evaluated here exactly as Zoekt would (see `compileFilters`);
 * otherwise Zoekt is asked within the filters, once per generation and filter. (In memory the
 * count is exact past SCOPED_MAX files, where a scan within the filters lists no more.)
 */
export async function skippedInScope(searcher: Searcher, filters: q.QueryPart[], signal?: AbortSignal): Promise<NotIndexedInScope | undefined> {
  try {
    const memo = SkippedMemo.of(searcher);
    const generation = await forCall(memo.generation(searcher), signal);
    if (!generation) return undefined;
    const scan = await forCall(memo.placeholders(searcher, generation), signal);
    if (!scan) return undefined;
    const test = scan.listedAll ? compileFilters(filters, generation) : undefined;
    const files = test ? scan.files.filter(test) : (await forCall(memo.placeholdersWithin(searcher, generation, filters), signal))?.files;
    return files && inScope(files);
  } catch {
    return undefined;
  }
}

/**
 * The same answer asked of Zoekt within the filters, every time (what each first page did before
 * the scan was kept per generation; the tests compare the two).
 */
export async function skippedAskingZoekt(searcher: Searcher, filters: q.QueryPart[], signal?: AbortSignal): Promise<NotIndexedInScope | undefined> {
  return inScope((await placeholders(searcher, filters, SCOPED_MAX, signal)).files);
}

/** The files of a search's scope whose text was not indexed (a binary file could not have matched text). */
function inScope(files: SkippedFile[]): NotIndexedInScope | undefined {
  const text = files.filter((f) => TEXT_REASONS.has(f.reason));
  if (!text.length) return undefined;
  return { files: text.length, examples: text.slice(0, EXAMPLES).map((f) => ({ repo: f.repo, path: f.path, reason: f.reason })) };
}

/**
 * The filters of a search evaluated on a placeholder in memory, as Zoekt evaluates them
 * (index/matchtree.go at the pinned version): `repo:` and `file:` are RE2 regexes over the
 * repository name and the path, case-sensitive here because the scan says `case:yes`; `lang:`
 * is the language Zoekt stored for the document, compared exactly (our names are go-enry's
 * canonical ones, which Zoekt's alias lookup maps to themselves; shards older than index format
 * 12 match by extension instead, and are not handled); `branch:` is a substring of one of the
 * document's branches, and `branch:HEAD` the repository's first branch. Parts are ANDed; `or`,
 * `-` and `( … )` as the query builders write them.
 *
 * Undefined when the filters hold anything else, or a regex outside the part of RE2 that
 * `re2ToJs` translates exactly: the caller then asks Zoekt.
 */
export function compileFilters(filters: readonly q.QueryPart[], generation: Generation): ((f: Placeholder) => boolean) | undefined {
  const tokens = tokenize(filters.map((p) => q.render(p)).join(' '));
  if (!tokens) return undefined;
  let at = 0;
  type Test = (f: Placeholder) => boolean;
  // expr := and ('or' and)*; and := term+; term := '-'? (atom | '(' expr ')')
  const expr = (): Test | undefined => {
    const alternatives: Test[] = [];
    for (;;) {
      const all: Test[] = [];
      while (at < tokens.length && tokens[at]!.kind !== 'or' && tokens[at]!.kind !== ')') {
        const t = term();
        if (!t) return undefined;
        all.push(t);
      }
      if (!all.length) return undefined;
      alternatives.push(all.length === 1 ? all[0]! : (f) => all.every((t) => t(f)));
      if (tokens[at]?.kind !== 'or') break;
      at++;
    }
    return alternatives.length === 1 ? alternatives[0]! : (f) => alternatives.some((t) => t(f));
  };
  const term = (): Test | undefined => {
    const token = tokens[at++];
    if (!token) return undefined;
    if (token.kind === '-') {
      const inner = term();
      return inner && ((f) => !inner(f));
    }
    if (token.kind === '(') {
      const inner = expr();
      if (!inner || tokens[at++]?.kind !== ')') return undefined;
      return inner;
    }
    if (token.kind !== 'atom') return undefined;
    const { field, value } = token;
    if (field === 'repo' || field === 'file') {
      // Zoekt compiles repo: with Go's Perl flags (^ and $ are the ends of the text) and file:
      // without OneLine (^ and $ are the ends of lines); a path holds no newline, but say it.
      const re = re2ToJs(value, field === 'file' ? 'lines' : 'text');
      if (!re) return undefined;
      return field === 'repo' ? (f) => re.test(f.repo) : (f) => re.test(f.path);
    }
    if (field === 'lang') return (f) => f.language === value;
    if (field === 'branch') {
      if (value === 'HEAD') return (f) => f.branches.includes(generation.branches.get(f.repo)?.[0] ?? '\u0000');
      return (f) => f.branches.some((b) => b.includes(value));
    }
    return undefined;
  };
  if (!tokens.length) return () => true;
  const test = expr();
  return test && at === tokens.length ? test : undefined;
}

type Token = { kind: '(' | ')' | '-' | 'or' } | { kind: 'atom'; field: string; value: string };

/** The tokens of a query as the builders in zoekt/query.ts write filters; undefined for anything else. */
function tokenize(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ') {
      i++;
    } else if (c === '(' && (text[i + 1] ?? ' ') === ' ') {
      tokens.push({ kind: '(' });
      i++;
    } else if (c === ')') {
      tokens.push({ kind: ')' });
      i++;
    } else if (c === '-') {
      tokens.push({ kind: '-' });
      i++;
    } else if (text.startsWith('or ', i)) {
      tokens.push({ kind: 'or' });
      i += 2;
    } else {
      // field:"value", the value quoted by q.quote (a backslash escapes the next character).
      const m = /^(repo|file|lang|branch):"/.exec(text.slice(i));
      if (!m) return undefined;
      let value = '';
      let j = i + m[0].length;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\') j++;
        if (j < text.length) value += text[j];
      }
      if (j >= text.length) return undefined;
      tokens.push({ kind: 'atom', field: m[1]!, value });
      i = j + 1;
      if (i < text.length && text[i] !== ' ') return undefined;
    }
  }
  return tokens;
}

/** Characters that stand for themselves in RE2 but need a backslash in a JavaScript `u` regex. */
const JS_SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);
const literal = (c: string, inClass: boolean): string => (JS_SYNTAX.has(c) || (inClass && c === '-') ? `\\${c}` : c === '\n' ? '\\n' : c);

const translated = new Map<string, RegExp | null>();
/** What `^` and `$` match: the ends of the text (Go's OneLine flag), or of any line. */
type Anchors = 'text' | 'lines';
/** Regexes translated at most, kept for the next call (filters repeat). */
const TRANSLATED_KEPT = 1000;

/**
 * An RE2 regex, as Zoekt compiles it (`.` does not match `\n`; `anchors`: what `^` and `$` match),
 * as a JavaScript regex that matches exactly the same strings; undefined when it uses anything
 * outside a plain part of the syntax (flags, named groups, `\pN`, `\b`, `\s`, `\Q…\E`, POSIX
 * classes, an escaped letter or non-ASCII character, repeats over 1000): the caller then asks
 * Zoekt instead of guessing.
 */
export function re2ToJs(re: string, anchors: Anchors): RegExp | undefined {
  const key = `${anchors}\u0000${re}`;
  const known = translated.get(key);
  if (known !== undefined) return known ?? undefined;
  const out = translate(re, anchors);
  let compiled: RegExp | null = null;
  try {
    compiled = out === undefined ? null : new RegExp(out, 'u');
  } catch {
    compiled = null;
  }
  if (translated.size >= TRANSLATED_KEPT) translated.clear();
  translated.set(key, compiled);
  return compiled ?? undefined;
}

function translate(re: string, anchors: Anchors): string | undefined {
  const chars = [...re];
  let out = '';
  const escape = (n: string | undefined, inClass: boolean): string | undefined => {
    if (n === undefined) return undefined;
    if (n === 'n' || n === 't') return `\\${n}`;
    if (n === 'd' || n === 'D' || n === 'w' || n === 'W') return inClass ? undefined : `\\${n}`;
    // RE2 lets a backslash escape ASCII punctuation only.
    if (!/^[!-/:-@[-`{-~ ]$/.test(n) || n === '_') return undefined;
    return literal(n, inClass);
  };
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') {
      const e = escape(chars[++i], false);
      if (e === undefined) return undefined;
      out += e;
    } else if (c === '[') {
      out += '[';
      if (chars[i + 1] === '^') {
        out += '^';
        i++;
      }
      // In RE2 a ']' first in a class is a member.
      let first = true;
      for (i++; ; i++) {
        const d = chars[i];
        if (d === undefined) return undefined;
        if (d === ']' && !first) break;
        if (d === '[' && chars[i + 1] === ':') return undefined;
        if (d === '\\') {
          const e = escape(chars[++i], true);
          if (e === undefined) return undefined;
          out += e;
        } else {
          out += d === '-' ? '-' : literal(d, true);
        }
        first = false;
      }
      out += ']';
    } else if (c === '(') {
      if (chars[i + 1] === '?') {
        if (chars[i + 2] !== ':') return undefined;
        i += 2;
      }
      out += '(?:';
    } else if (c === '{') {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(chars.slice(i, i + 24).join(''));
      if (!m) {
        out += '\\{';
      } else {
        // RE2 refuses a count over 1000 (Zoekt answers a query error).
        if (Number(m[1]) > 1000 || (m[2] ? Number(m[2]) : 0) > 1000) return undefined;
        out += m[0];
        i += m[0].length - 1;
      }
    } else if (c === '.') {
      out += '[^\\n]';
    } else if (c === '^') {
      out += anchors === 'text' ? '^' : '(?<![^\\n])';
    } else if (c === '$') {
      out += anchors === 'text' ? '$' : '(?![^\\n])';
    } else if ('|)*+?'.includes(c)) {
      out += c;
    } else {
      out += literal(c, false);
    }
  }
  return out;
}

const REASON_TEXT: Record<SkipReason, string> = {
  too_large: 'too large',
  too_many_trigrams: 'too many trigrams',
  binary: 'binary',
  too_small: 'too small',
  missing: 'missing from the repository',
};

/** `3 too many trigrams, 1 too large`. */
export function describeReasons(counts: NotIndexedCounts): string {
  return Object.entries(counts.reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${n} ${REASON_TEXT[r as SkipReason] ?? r}`)
    .join(', ');
}

/** The line a search shows when its scope holds files the indexer skipped. */
export function notIndexedLine(n: NotIndexedInScope): string {
  const names = n.examples.map((e) => `${e.repo}/${e.path} (${REASON_TEXT[e.reason as SkipReason] ?? e.reason})`).join(', ');
  return (
    `not indexed: ${n.files} file(s) in scope are kept by name only (their text and symbols are not searched): ${names}${n.files > n.examples.length ? ', …' : ''}. ` +
    'Read them from the repository itself, or index with higher limits (-file_limit, -max_trigram_count).'
  );
}
