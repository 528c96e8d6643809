/**
 * Zoekt's JSON wire format (zoekt-webserver -rpc: /api/search, /api/list) as zod schemas, and
 * the decoding into plain domain types. Nothing outside src/zoekt/ sees Zoekt's field names.
 *
 * Field meanings follow zoekt's api.go. Unknown fields are ignored (zod strips them), so newer
 * Zoekt versions that add fields keep working; missing required fields fail loudly.
 */
import { isUtf8 } from 'node:buffer';
import { z } from 'zod';

/** A position in a file. LineNumber and Column are 1-based; Column counts runes. */
const Location = z.object({
  ByteOffset: z.number(),
  LineNumber: z.number(),
  Column: z.number(),
});

const Range = z.object({ Start: Location, End: Location });

/** ctags information for a match that hit a symbol definition (`sym:` queries). */
const SymbolInfo = z
  .object({
    Sym: z.string(),
    Kind: z.string(),
    Parent: z.string(),
    ParentKind: z.string(),
  })
  .nullable();

/** A run of whole lines (base64) holding one or more matched ranges, with context lines. */
const ChunkMatch = z.object({
  Content: z.string(),
  ContentStart: Location,
  FileName: z.boolean(),
  Ranges: z.array(Range),
  /** Parallel to Ranges when the query had a sym: atom; null otherwise. */
  SymbolInfo: z.array(SymbolInfo).nullish(),
  Score: z.number(),
});

const FileMatch = z.object({
  FileName: z.string(),
  Repository: z.string(),
  Language: z.string().default(''),
  Branches: z.array(z.string()).nullish(),
  Version: z.string().nullish(),
  Score: z.number(),
  ChunkMatches: z.array(ChunkMatch).nullish(),
  /** The whole file (base64), only when the search asked for Whole. */
  Content: z.string().nullish(),
});

const SearchStats = z.object({
  /** Shards that failed, plus one while the webserver is still loading its shards. */
  Crashes: z.number().default(0),
  Duration: z.number().default(0),
  /** Files with a match among those evaluated (before MaxDocDisplayCount cuts the list). */
  FileCount: z.number().default(0),
  /** Non-overlapping matches among those files. */
  MatchCount: z.number().default(0),
  ShardsScanned: z.number().default(0),
  /** Shards never searched: the search was cancelled (MaxWallTime) before their turn. */
  ShardsSkipped: z.number().default(0),
  /**
   * Candidate files never evaluated: a shard stopped at ShardMaxMatchCount or at MaxWallTime.
   * Non-zero means more matches may exist than FileCount and MatchCount say.
   */
  FilesSkipped: z.number().default(0),
  /**
   * Why a streaming search flushed (1 timer, 2 final, 4 max size). The non-streaming
   * /api/search never sets it, and none of its values means results were lost.
   */
  FlushReason: z.union([z.number(), z.string()]).default(0),
});

export const SearchReply = z.object({
  Result: SearchStats.extend({
    Files: z.array(FileMatch).nullish(),
    RepoURLs: z.record(z.string(), z.string()).nullish(),
  }),
});

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
  IndexMetadata: z.object({ IndexTime: z.string().optional() }).partial().nullish(),
  Stats: RepoStats.partial().nullish(),
});

export const ListReply = z.object({
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
}

/** What Zoekt stores instead of the text of a file it skipped (index/shard_builder.go, document.go). */
const NOT_INDEXED = /^NOT-INDEXED: (exceeds the maximum size limit|contains too few trigrams|contains binary content|contains too many trigrams|object missing from repository)$/;

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
}

export interface RepoInfo {
  /** Zoekt's repository ID (0: none was given at indexing); what a search's RepoIDs restriction names. */
  id: number;
  name: string;
  url: string;
  branches: { name: string; version: string }[];
  hasSymbols: boolean;
  indexTime?: string;
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
function columnOf(contentBytes: Buffer, chunkStartByte: number, lineStartByte: number, byteOffset: number): number {
  const from = lineStartByte - chunkStartByte;
  const to = byteOffset - chunkStartByte;
  if (from < 0 || to < from || to > contentBytes.length) return 1;
  return [...contentBytes.subarray(from, to).toString('utf8')].length + 1;
}

function decodeChunk(raw: z.infer<typeof ChunkMatch>): Chunk {
  const bytes = Buffer.from(raw.Content, 'base64');
  const text = bytes.toString('utf8');
  const startLine = raw.ContentStart.LineNumber;
  // Byte offset (relative to the file) at which each chunk line starts.
  const lineStarts: number[] = [raw.ContentStart.ByteOffset];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) lineStarts.push(raw.ContentStart.ByteOffset + i + 1);
  const lineStartOf = (line: number) => lineStarts[line - startLine] ?? raw.ContentStart.ByteOffset;
  const ranges: MatchRange[] = raw.Ranges.map((r, i) => {
    const sym = raw.SymbolInfo?.[i];
    const range: MatchRange = {
      line: r.Start.LineNumber,
      column: raw.FileName
        ? r.Start.Column
        : columnOf(bytes, raw.ContentStart.ByteOffset, lineStartOf(r.Start.LineNumber), r.Start.ByteOffset),
      endLine: r.End.LineNumber,
      endColumn: raw.FileName
        ? r.End.Column
        : columnOf(bytes, raw.ContentStart.ByteOffset, lineStartOf(r.End.LineNumber), r.End.ByteOffset),
    };
    if (sym) range.symbol = { name: sym.Sym, kind: sym.Kind, parent: sym.Parent, parentKind: sym.ParentKind };
    return range;
  });
  return { startLine, lines: splitLines(text), ranges, fileName: raw.FileName, score: raw.Score };
}

/**
 * Reads every signal Zoekt gives of an incomplete answer (search/shards.go, index/eval.go):
 * Crashes (failed shards, or shards still loading), FilesSkipped (a shard stopped early),
 * ShardsSkipped (cancelled before a shard's turn), and a MatchCount past the total budget (then
 * shards not yet started were never searched, and nothing else says so).
 */
function stopCause(r: z.infer<typeof SearchStats>, limits: MatchLimits): StopCause | undefined {
  if (r.Crashes > 0) return { cause: 'shards_failed', shards: r.Crashes };
  if (r.MatchCount >= limits.total) return { cause: 'match_limit', limit: limits.total };
  if (r.FilesSkipped > 0 || r.ShardsSkipped > 0) {
    // A shard that reached its budget stops with at least that many matches of its own.
    return r.MatchCount >= limits.shard ? { cause: 'match_limit', limit: limits.shard } : { cause: 'time_limit' };
  }
  return undefined;
}

/** The match budget a search was sent with (ShardMaxMatchCount, TotalMaxMatchCount). */
export interface MatchLimits {
  shard: number;
  total: number;
}

export function decodeSearch(reply: z.infer<typeof SearchReply>, limits: MatchLimits): SearchResult {
  const r = reply.Result;
  const files: FileHit[] = (r.Files ?? []).map((f) => {
    const hit: FileHit = {
      repo: f.Repository,
      path: f.FileName,
      language: f.Language,
      branches: f.Branches ?? [],
      score: f.Score,
      chunks: (f.ChunkMatches ?? []).map(decodeChunk),
    };
    if (f.Version) hit.version = f.Version;
    if (typeof f.Content === 'string') {
      const bytes = Buffer.from(f.Content, 'base64');
      const text = bytes.toString('utf8');
      const skipped = bytes.length < 100 ? NOT_INDEXED.exec(text)?.[1] : undefined;
      if (skipped) hit.notIndexed = skipped;
      else hit.content = text;
      if (!skipped && !isUtf8(bytes)) hit.contentNotUtf8 = true;
    }
    return hit;
  });
  const stats: SearchStatsOut = { fileCount: r.FileCount, matchCount: r.MatchCount, durationMs: Math.round(r.Duration / 1e6) };
  const stopped = stopCause(r, limits);
  if (stopped) stats.stopped = stopped;
  return { files, stats, truncated: false };
}

/** Go's zero time marshals as 0001-01-01; treat it as unknown. */
function goTime(t: string | undefined): string | undefined {
  if (!t || t.startsWith('0001-01-01')) return undefined;
  return t;
}

export function decodeList(reply: z.infer<typeof ListReply>): RepoListResult {
  const l = reply.List;
  const repos: RepoInfo[] = (l.Repos ?? []).map((e) => {
    const info: RepoInfo = {
      id: e.Repository.ID,
      name: e.Repository.Name,
      url: e.Repository.URL,
      branches: (e.Repository.Branches ?? []).map((b) => ({ name: b.Name, version: b.Version })),
      hasSymbols: e.Repository.HasSymbols,
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
