/**
 * Zoekt's JSON wire format (zoekt-webserver -rpc: /api/search, /api/list) and its decoding into
 * plain domain types. Nothing outside src/zoekt/ sees Zoekt's field names. /api/list is read
 * through a zod schema; /api/search, whose answers run to megabytes, by hand (decodeSearch).
 *
 * Field meanings follow zoekt's api.go. Unknown fields are ignored, so newer Zoekt versions that
 * add fields keep working; missing required fields fail loudly.
 */
import { isUtf8 } from 'node:buffer';
import { z } from 'zod';

const RepositoryBranch = z.object({ Name: z.string(), Version: z.string() });

const Repository = z.object({
  /** Set by the indexer (git config zoekt.repoid); 0 when it was not given. */
  ID: z.number().default(0),
  Name: z.string(),
  URL: z.string().default(''),
  Branches: z.array(RepositoryBranch).nullish(),
  HasSymbols: z.boolean().default(false),
  /** Go time; zero time means unknown. */
  IndexTime: z.string().optional(),
  LatestCommitDate: z.string().optional(),
});

const RepoStats = z.object({
  Repos: z.number().default(0),
  Shards: z.number().default(0),
  Documents: z.number().default(0),
  IndexBytes: z.number().default(0),
  ContentBytes: z.number().default(0),
});

const RepoListEntry = z.object({
  Repository,
  /** LanguageMap: the languages of the shard's files (Linguist names), to their IDs in the shard. */
  IndexMetadata: z.object({ IndexTime: z.string().optional(), LanguageMap: z.record(z.string(), z.number()).nullish() }).partial().nullish(),
  Stats: RepoStats.partial().nullish(),
});

const ListReply = z.object({
  List: z.object({
    Repos: z.array(RepoListEntry).nullish(),
    Stats: RepoStats.nullish(),
    Crashes: z.number().default(0),
  }),
});

/** Zoekt's error body: {"Error": "..."}. */
export const ErrorReply = z.object({ Error: z.string() });

// ---------------------------------------------------------------------------------------------
// Domain types: decoded, 1-based, no base64, no Zoekt field names.

export interface SymbolHit {
  name: string;
  /** ctags' kind word, as ctags reported it. */
  kind: string;
  /** Enclosing scope as ctags reported it (may be qualified, e.g. `main.Server`). */
  parent: string;
  parentKind: string;
}

export interface MatchRange {
  /** 1-based line of the start of the match. */
  line: number;
  /** 1-based column in characters (code points) of the start of the match. */
  column: number;
  /** 1-based line and column where the match ends (exclusive column). */
  endLine: number;
  endColumn: number;
  symbol?: SymbolHit;
}

export interface Chunk {
  /** 1-based number of the first line of `lines`. */
  startLine: number;
  /** The chunk's lines without line terminators, context lines included. */
  lines: string[];
  ranges: MatchRange[];
  /** The line each of `ranges` starts on, readable without decoding the chunk. */
  readonly matchLines: number[];
  /** True when the match is on the file's path rather than its content. */
  fileName: boolean;
  score: number;
}

export interface FileHit {
  repo: string;
  path: string;
  language: string;
  branches: string[];
  version?: string;
  score: number;
  chunks: Chunk[];
  /** The whole file as UTF-8 text, when the search asked for it. */
  content?: string;
  /** The file is not valid UTF-8: `content` has U+FFFD where its bytes were not. */
  contentNotUtf8?: boolean;
  /** Why Zoekt kept no text of this file (binary, too large, too small …); `content` is then absent. */
  notIndexed?: string;
  /** Zoekt's Checksum of the file's content (CRC-64, base64): files with the same one are copies. */
  checksum?: string;
  /**
   * Zoekt sent only some of this file's matches: the answer's match cap (MaxMatchDisplayCount)
   * ran out in it. How many more it has is not known.
   */
  matchesCut?: boolean;
}

/** What Zoekt stores instead of the text of a file it skipped (index/shard_builder.go, document.go). */
const NOT_INDEXED = /^NOT-INDEXED: (exceeds the maximum size limit|contains too few trigrams|contains binary content|contains too many trigrams|object missing from repository)$/;

/**
 * The file as a search of its content found it, without the match in the placeholder Zoekt
 * stores for a file it skipped (`e`, `limit` or `the` match "NOT-INDEXED: exceeds the maximum
 * size limit", which is not the file's text): marked `notIndexed` instead. Whether its name
 * matched is not known (Zoekt reports the content match), so the file stays, without lines. The
 * placeholder is the document's one line: a file whose only match is a first line reading the
 * same, with no line around it, is taken for one.
 */
export function withoutPlaceholder(file: FileHit): FileHit {
  const content = file.chunks.filter((c) => !c.fileName);
  const only = content.length === 1 ? content[0]! : undefined;
  const reason = only && only.startLine === 1 && only.lines.length === 1 ? NOT_INDEXED.exec(only.lines[0]!)?.[1] : undefined;
  return reason === undefined ? file : { ...file, chunks: file.chunks.filter((c) => c.fileName), notIndexed: reason };
}

export interface SearchStatsOut {
  /** Files with a match: exact when `stopped` is absent, a lower bound otherwise. */
  fileCount: number;
  matchCount: number;
  durationMs: number;
  /** Why Zoekt did not evaluate every candidate file; absent when it did. */
  stopped?: StopCause;
}

/**
 * What made Zoekt stop before evaluating every candidate: failed or still-loading shards, the
 * match budget of the search options, or its time limit (MaxWallTime).
 */
export type StopCause =
  | { cause: 'shards_failed'; shards: number }
  | { cause: 'match_limit'; limit: number }
  | { cause: 'time_limit' }
  /**
   * The answer would have passed the memory bound (`capBytes`), so it was asked again for less
   * (`steps`); `maxDocs` when that meant fewer files than asked for.
   */
  | { cause: 'too_large'; capBytes: number; steps: string[]; maxDocs?: number }
  /** With several backends: some did not answer, so their repositories are missing. */
  | { cause: 'backends_failed'; backends: MissingBackend[] };

/** A backend that did not answer, and the repositories it was last seen to serve. */
export interface MissingBackend {
  url: string;
  repos: string[];
  reason: string;
}

export interface SearchResult {
  files: FileHit[];
  stats: SearchStatsOut;
  /** Zoekt had more matching files than these (it cut the ranked list at MaxDocDisplayCount). */
  truncated: boolean;
  /**
   * The match cap ran out in a file of this score: it holds only its first matches, and no file
   * ranked after it was sent (Zoekt's display cap is one count over the whole answer). Files of
   * a higher score are whole; of this score or lower, any may be missing or cut.
   */
  cutAt?: number;
}

export interface RepoInfo {
  /** Zoekt's repository ID (0: none was given at indexing); what a search's RepoIDs restriction names. */
  id: number;
  name: string;
  url: string;
  branches: { name: string; version: string }[];
  hasSymbols: boolean;
  indexTime?: string;
  /** The languages of its files (as Zoekt detected them), sorted. */
  languages: string[];
  stats: { shards: number; documents: number; indexBytes: number; contentBytes: number };
  /** With several backends: the one that serves this repository. */
  backend?: string;
}

export interface RepoListResult {
  repos: RepoInfo[];
  stats: { repos: number; shards: number; documents: number; indexBytes: number; contentBytes: number };
  crashes: number;
  /** With several backends: those that did not answer; their repositories are not listed. */
  missing?: MissingBackend[];
}

/** Splits content into lines the way Zoekt counts them: on \n, with a trailing \r dropped. */
export function splitLines(content: string): string[] {
  const lines = content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * Zoekt reports Column in runes; we recompute it from the byte offset so the figure is right
 * however the server counts, and so that it counts characters (code points) as the contract says.
 */
function columnOf(contentBytes: Buffer, chunkStartByte: number, lineStartByte: number, byteOffset: number, ascii: boolean): number {
  const from = lineStartByte - chunkStartByte;
  const to = byteOffset - chunkStartByte;
  if (from < 0 || to < from || to > contentBytes.length) return 1;
  // All ASCII (the common case): a character is a byte, so a column is a byte distance.
  return (ascii ? to - from : [...contentBytes.subarray(from, to).toString('utf8')].length) + 1;
}

/** A chunk's content and ranges as Zoekt sent them: base64, byte offsets. */
export interface EncodedChunk {
  content: string;
  startByte: number;
  /** Per range: start line, byte offset, column, then end line, byte offset, column. */
  ranges: number[];
  symbols: (SymbolHit | null)[] | undefined;
}

const RANGE_FIELDS = 6;

/**
 * A chunk of a Zoekt answer, decoded on first read of its lines or ranges. An answer holds every
 * chunk of every file of the window (thousands for a common word) while a page shows a few per
 * file: decoding only those is most of what a search costs this process.
 */
export class ZoektChunk implements Chunk {
  /** Until decoded; dropped then. */
  encoded: EncodedChunk | undefined;
  private decodedLines: string[] | undefined = undefined;
  private decodedRanges: MatchRange[] | undefined = undefined;

  constructor(
    readonly startLine: number,
    readonly fileName: boolean,
    readonly score: number,
    encoded: EncodedChunk,
  ) {
    this.encoded = encoded;
  }

  get matchLines(): number[] {
    const e = this.encoded;
    if (!e) return this.decodedRanges!.map((r) => r.line);
    const lines = new Array<number>(e.ranges.length / RANGE_FIELDS);
    for (let i = 0; i < lines.length; i++) lines[i] = e.ranges[i * RANGE_FIELDS]!;
    return lines;
  }

  get lines(): string[] {
    this.decode();
    return this.decodedLines!;
  }

  get ranges(): MatchRange[] {
    this.decode();
    return this.decodedRanges!;
  }

  /** Decodes the chunk, once: its lines and ranges replace what Zoekt sent. */
  decode(): void {
    const e = this.encoded;
    if (!e) return;
    const bytes = Buffer.from(e.content, 'base64');
    const text = bytes.toString('utf8');
    const ascii = text.length === bytes.length;
    let lineStarts: number[] | undefined;
    // Byte offset (relative to the file) at which a chunk line starts.
    const lineStartOf = (line: number) => {
      if (!lineStarts) {
        lineStarts = [e.startByte];
        for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) lineStarts.push(e.startByte + i + 1);
      }
      return lineStarts[line - this.startLine] ?? e.startByte;
    };
    const column = (line: number, byteOffset: number, zoektColumn: number) => {
      return this.fileName ? zoektColumn : columnOf(bytes, e.startByte, lineStartOf(line), byteOffset, ascii);
    };
    const r = e.ranges;
    const ranges = new Array<MatchRange>(r.length / RANGE_FIELDS);
    for (let k = 0; k < ranges.length; k++) {
      const i = k * RANGE_FIELDS;
      const range: MatchRange = { line: r[i]!, column: column(r[i]!, r[i + 1]!, r[i + 2]!), endLine: r[i + 3]!, endColumn: column(r[i + 3]!, r[i + 4]!, r[i + 5]!) };
      const sym = e.symbols?.[k];
      if (sym) range.symbol = sym;
      ranges[k] = range;
    }
    this.decodedLines = splitLines(text);
    this.decodedRanges = ranges;
    this.encoded = undefined;
  }
}

/** A Zoekt answer without the shape of Zoekt's API; the message names the field. */
export class WireShapeError extends Error {}

type Json = Record<string, unknown>;

function shapeError(path: string, want: string): never {
  throw new WireShapeError(`${path}: expected ${want}`);
}
function objectAt(v: unknown, path: string): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : shapeError(path, 'an object');
}
/** A number field; absent takes `absent` when given (null is never a number). */
function numberAt(o: Json, key: string, path: string, absent?: number): number {
  const v = o[key];
  if (typeof v === 'number') return v;
  return v === undefined && absent !== undefined ? absent : shapeError(`${path}.${key}`, 'a number');
}
function stringAt(o: Json, key: string, path: string, absent?: string): string {
  const v = o[key];
  if (typeof v === 'string') return v;
  return v === undefined && absent !== undefined ? absent : shapeError(`${path}.${key}`, 'a string');
}
function booleanAt(o: Json, key: string, path: string): boolean {
  const v = o[key];
  return typeof v === 'boolean' ? v : shapeError(`${path}.${key}`, 'true or false');
}
/** An array field that may be null or absent (Go's nil slice). */
function listAt(o: Json, key: string, path: string): unknown[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : shapeError(`${path}.${key}`, 'an array');
}

/** Writes a location's line, byte offset and column into `out` at `at`. */
function locationInto(out: number[], at: number, v: unknown, path: string): void {
  const loc = objectAt(v, path);
  out[at] = numberAt(loc, 'LineNumber', path);
  out[at + 1] = numberAt(loc, 'ByteOffset', path);
  out[at + 2] = numberAt(loc, 'Column', path);
}

/** ctags information for a match that hit a symbol definition (`sym:` queries); null otherwise. */
function symbolAt(v: unknown, path: string): SymbolHit | null {
  if (v === null || v === undefined) return null;
  const o = objectAt(v, path);
  return { name: stringAt(o, 'Sym', path), kind: stringAt(o, 'Kind', path), parent: stringAt(o, 'Parent', path), parentKind: stringAt(o, 'ParentKind', path) };
}

const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a || b === 0x0b || b === 0x0c;

/**
 * Moves the ends of multi-line ranges off blank lines. A regex whose `\s` or class crosses line
 * breaks (`^\s*const` after an empty line) matches from the line before, and Zoekt reports the
 * match there, on a line with nothing of it to show. A match that starts on a blank line (empty
 * or whitespace only) is placed at the first line after it that is not blank, and one that ends on
 * blank lines ends at its last character that is not whitespace; a match of nothing but line breaks and spaces only loses its leading line
 * breaks. Only chunks holding a multi-line range are read, as bytes: the rest stay encoded.
 */
function trimBlankLines(ranges: number[], content: string, startByte: number): void {
  let bytes: Buffer | undefined;
  for (let i = 0; i < ranges.length; i += RANGE_FIELDS) {
    if (ranges[i + 3]! <= ranges[i]!) continue;
    bytes ??= Buffer.from(content, 'base64');
    const from = ranges[i + 1]! - startByte;
    const to = ranges[i + 4]! - startByte;
    if (from < 0 || to > bytes.length || to <= from) continue;
    // The leading whitespace, and the byte after its last line break. The match leaves its first
    // line only when it starts at its line break or the line is blank: a match that starts in the
    // trailing spaces of a line with text (`\s+const` after `x = 1;  `) starts there.
    let k = from;
    let afterBreak = -1;
    for (; k < to && isSpace(bytes[k]); k++) if (bytes[k] === 0x0a) afterBreak = k + 1;
    let lineStart = from;
    while (lineStart > 0 && bytes[lineStart - 1] !== 0x0a) lineStart--;
    const firstLineBlank = bytes[from] === 0x0a || bytes[from] === 0x0d || bytes.subarray(lineStart, from).every((b) => isSpace(b));
    let start = k < to && firstLineBlank ? afterBreak : from;
    if (k >= to) while (start < to && (bytes[start] === 0x0a || bytes[start] === 0x0d)) start++;
    if (start <= from || start >= to) start = from;
    // The trailing whitespace, and its first line break (a \r before it goes too).
    let t = to;
    let firstBreak = -1;
    for (; t > start && isSpace(bytes[t - 1]); t--) if (bytes[t - 1] === 0x0a) firstBreak = t - 1;
    let end = t > start && firstBreak >= 0 ? firstBreak : to;
    // Nothing but whitespace: only the line break it ends with goes.
    if (end === to && bytes[to - 1] === 0x0a && to - 1 > start) end = to - 1;
    if (end < to && end > start && bytes[end - 1] === 0x0d) end--;
    if (end <= start) end = to;
    if (start === from && end === to) continue;
    const breaks = (a: number, b: number) => {
      let n = 0;
      for (let j = a; j < b; j++) if (bytes![j] === 0x0a) n++;
      return n;
    };
    // Columns are worked out again from the byte offsets when the chunk is decoded.
    if (start > from) {
      ranges[i] = ranges[i]! + breaks(from, start);
      ranges[i + 1] = startByte + start;
      ranges[i + 2] = 1;
    }
    if (end < to) {
      ranges[i + 3] = ranges[i + 3]! - breaks(end, to);
      ranges[i + 4] = startByte + end;
    }
  }
}

/** A run of whole lines (base64) holding one or more matched ranges, with context lines. */
function chunkAt(v: unknown, path: string): ZoektChunk {
  const c = objectAt(v, path);
  const start = objectAt(c.ContentStart, `${path}.ContentStart`);
  const list = listAt(c, 'Ranges', path);
  // Sized up front: an array grown by push keeps half again its length in spare room.
  const ranges = new Array<number>(list.length * RANGE_FIELDS);
  list.forEach((r, i) => {
    const range = objectAt(r, `${path}.Ranges[${i}]`);
    locationInto(ranges, i * RANGE_FIELDS, range.Start, `${path}.Ranges[${i}].Start`);
    locationInto(ranges, i * RANGE_FIELDS + 3, range.End, `${path}.Ranges[${i}].End`);
  });
  const content = stringAt(c, 'Content', path);
  const startByte = numberAt(start, 'ByteOffset', `${path}.ContentStart`);
  trimBlankLines(ranges, content, startByte);
  // Parallel to Ranges when the query had a sym: atom; null otherwise.
  const symbols = c.SymbolInfo == null ? undefined : listAt(c, 'SymbolInfo', path).map((s, i) => symbolAt(s, `${path}.SymbolInfo[${i}]`));
  return new ZoektChunk(numberAt(start, 'LineNumber', `${path}.ContentStart`), booleanAt(c, 'FileName', path), numberAt(c, 'Score', path), {
    content,
    startByte,
    ranges,
    symbols: symbols?.some((x) => x !== null) ? symbols : undefined,
  });
}

function fileAt(v: unknown, path: string): FileHit {
  const f = objectAt(v, path);
  const branches = listAt(f, 'Branches', path).map((b, i) => (typeof b === 'string' ? b : shapeError(`${path}.Branches[${i}]`, 'a string')));
  const hit: FileHit = {
    repo: stringAt(f, 'Repository', path),
    path: stringAt(f, 'FileName', path),
    language: stringAt(f, 'Language', path, ''),
    branches,
    score: numberAt(f, 'Score', path),
    chunks: listAt(f, 'ChunkMatches', path).map((c, i) => chunkAt(c, `${path}.ChunkMatches[${i}]`)),
  };
  const version = f.Version;
  if (typeof version === 'string' && version) hit.version = version;
  const checksum = f.Checksum;
  if (typeof checksum === 'string' && checksum) hit.checksum = checksum;
  // The whole file (base64), only when the search asked for Whole.
  const content = f.Content;
  if (typeof content === 'string') {
    const bytes = Buffer.from(content, 'base64');
    const text = bytes.toString('utf8');
    const skipped = bytes.length < 100 ? NOT_INDEXED.exec(text)?.[1] : undefined;
    if (skipped) hit.notIndexed = skipped;
    else hit.content = text;
    if (!skipped && !isUtf8(bytes)) hit.contentNotUtf8 = true;
  }
  return hit;
}

/** What Zoekt tells of how the search went (api.go Stats). */
interface WireStats {
  /** Shards that failed, plus one while the webserver is still loading its shards. */
  crashes: number;
  /** Files with a match among those evaluated (before MaxDocDisplayCount cuts the list). */
  fileCount: number;
  /** Non-overlapping matches among those files. */
  matchCount: number;
  /** Shards never searched: the search was cancelled (MaxWallTime) before their turn. */
  shardsSkipped: number;
  /**
   * Candidate files never evaluated: a shard stopped at ShardMaxMatchCount or at MaxWallTime.
   * Non-zero means more matches may exist than FileCount and MatchCount say.
   */
  filesSkipped: number;
}

/**
 * Reads every signal Zoekt gives of an incomplete answer (search/shards.go, index/eval.go):
 * Crashes (failed shards, or shards still loading), FilesSkipped (a shard stopped early),
 * ShardsSkipped (cancelled before a shard's turn), and a MatchCount past the total budget (then
 * shards not yet started were never searched, and nothing else says so).
 */
function stopCause(r: WireStats, limits: MatchLimits): StopCause | undefined {
  if (r.crashes > 0) return { cause: 'shards_failed', shards: r.crashes };
  if (r.matchCount >= limits.total) return { cause: 'match_limit', limit: limits.total };
  if (r.filesSkipped > 0 || r.shardsSkipped > 0) {
    // A shard that reached its budget stops with at least that many matches of its own.
    return r.matchCount >= limits.shard ? { cause: 'match_limit', limit: limits.shard } : { cause: 'time_limit' };
  }
  return undefined;
}

/** The match budget a search was sent with (ShardMaxMatchCount, TotalMaxMatchCount). */
export interface MatchLimits {
  shard: number;
  total: number;
}

/**
 * An /api/search answer (api.go SearchResult), checked field by field as it is read: unknown
 * fields are ignored, so newer Zoekt versions that add fields keep working; a missing or mistyped
 * field we read throws WireShapeError naming it. (By hand rather than with a schema: answers run
 * to megabytes, and this is the hot path.)
 */
export function decodeSearch(json: unknown, limits: MatchLimits): SearchResult {
  const r = objectAt(objectAt(json, 'reply').Result, 'Result');
  const files = listAt(r, 'Files', 'Result').map((f, i) => fileAt(f, `Result.Files[${i}]`));
  const wire: WireStats = {
    crashes: numberAt(r, 'Crashes', 'Result', 0),
    fileCount: numberAt(r, 'FileCount', 'Result', 0),
    matchCount: numberAt(r, 'MatchCount', 'Result', 0),
    shardsSkipped: numberAt(r, 'ShardsSkipped', 'Result', 0),
    filesSkipped: numberAt(r, 'FilesSkipped', 'Result', 0),
  };
  const stats: SearchStatsOut = { fileCount: wire.fileCount, matchCount: wire.matchCount, durationMs: Math.round(numberAt(r, 'Duration', 'Result', 0) / 1e6) };
  const stopped = stopCause(wire, limits);
  if (stopped) stats.stopped = stopped;
  return { files, stats, truncated: false };
}

/** Go's zero time marshals as 0001-01-01; treat it as unknown. */
function goTime(t: string | undefined): string | undefined {
  if (!t || t.startsWith('0001-01-01')) return undefined;
  return t;
}

/** An /api/list answer; throws WireShapeError when it does not have Zoekt's shape. */
export function decodeListReply(json: unknown): RepoListResult {
  const parsed = ListReply.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WireShapeError(issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid');
  }
  return decodeList(parsed.data);
}

function decodeList(reply: z.infer<typeof ListReply>): RepoListResult {
  const l = reply.List;
  const repos: RepoInfo[] = (l.Repos ?? []).map((e) => {
    const info: RepoInfo = {
      id: e.Repository.ID,
      name: e.Repository.Name,
      url: e.Repository.URL,
      branches: (e.Repository.Branches ?? []).map((b) => ({ name: b.Name, version: b.Version })),
      hasSymbols: e.Repository.HasSymbols,
      languages: Object.keys(e.IndexMetadata?.LanguageMap ?? {}).filter(Boolean).sort(),
      stats: {
        shards: e.Stats?.Shards ?? 0,
        documents: e.Stats?.Documents ?? 0,
        indexBytes: e.Stats?.IndexBytes ?? 0,
        contentBytes: e.Stats?.ContentBytes ?? 0,
      },
    };
    const indexTime = goTime(e.IndexMetadata?.IndexTime) ?? goTime(e.Repository.IndexTime);
    if (indexTime) info.indexTime = indexTime;
    return info;
  });
  const s = l.Stats;
  return {
    repos,
    stats: {
      repos: s?.Repos ?? repos.length,
      shards: s?.Shards ?? 0,
      documents: s?.Documents ?? 0,
      indexBytes: s?.IndexBytes ?? 0,
      contentBytes: s?.ContentBytes ?? 0,
    },
    crashes: l.Crashes,
  };
}

/** What we send in /api/search Opts (zoekt api.go SearchOptions). Durations are nanoseconds. */
export interface SearchOptionsWire {
  /** Matches as chunks of whole lines (with their line numbers) rather than single lines. */
  ChunkMatches?: boolean;
  /** Return each file's whole content in FileMatch.Content. */
  Whole?: boolean;
  /** Lines of context around each chunk. */
  NumContextLines?: number;
  /** Files returned, after ranking; does not limit the search itself. */
  MaxDocDisplayCount: number;
  /** Matches returned (all files together), after ranking; does not limit the search itself. */
  MaxMatchDisplayCount?: number;
  /** A shard stops evaluating a repository's files after this many matches of it. */
  ShardRepoMaxMatchCount?: number;
  /** Zoekt cancels the search after this long and answers with what it found. */
  MaxWallTime: number;
  /**
   * A shard stops evaluating files after this many matches. Always sent: when it is 0, the
   * JSON API derives one from MaxDocDisplayCount (about 5 per file asked for on a large
   * corpus), which cut a broad search off after a few files.
   */
  ShardMaxMatchCount: number;
  /** No new shard is searched once this many matches were found across shards. */
  TotalMaxMatchCount: number;
}
