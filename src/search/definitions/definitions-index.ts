/**
 * The definitions index, as search/ sees it (a port): every definition of the indexed code with
 * the text that says what it does (its name's words, kind, parent, signature and doc comment),
 * searched by meaning (vector similarity) and by words (BM25), the two fused. src/definitions-index/
 * builds and serves it beside Zoekt's index; the entries wire one in. Without one, description
 * search stays lexical over Zoekt's symbols and says so.
 */

/** One definition as the index holds it: what a SymbolResult needs, from the same file Zoekt indexed. */
export interface IndexedDefinition {
  repo: string;
  path: string;
  /** 1-based line of the name. */
  line: number;
  /** 1-based column of the name on its line. */
  column: number;
  name: string;
  /** Normalized kind (vocab/kinds.ts). */
  kind: string;
  /** The extractor's own kind word. */
  raw_kind: string;
  parent?: string;
  parent_kind?: string;
  /** Zoekt's language name (`Go`, `Python`, `TypeScript`). */
  language: string;
  /** The line that defines it, trimmed (an engine may leave it to Zoekt, which confirms every page). */
  signature?: string;
  /** Its doc comment or docstring, cleaned of comment markers (documentation.ts). */
  documentation?: string;
  /** Under a vendored directory (vocab/filters.ts). */
  vendored: boolean;
}

/** A description search: filters apply inside the search, before anything ranks. */
export interface DefinitionsQuery {
  /** The description, as the caller wrote it. */
  text: string;
  /**
   * Whether a repository takes part: the caller's scope and the repos filter; undefined: all. An
   * engine that filters by names asks it of each repository it holds.
   */
  repo?: (repo: string) => boolean;
  /** Only these languages (Zoekt names, compared in lower case); undefined: all. */
  languages?: ReadonlySet<string>;
  /** Not these languages (lower case). */
  excludeLanguages?: ReadonlySet<string>;
  /** Only these normalized kinds; undefined: all. */
  kinds?: ReadonlySet<string>;
  /** Whether a path passes the paths / exclude_paths filters; undefined: every path. */
  path?: (path: string) => boolean;
  includeVendored: boolean;
  /**
   * Other words the description stands for, for full-text relevance: code's short forms and
   * acronyms of its words (`inc`, `gte`), and words related to them; each with how much it counts
   * against 1 for a word of the description.
   */
  alsoWords?: readonly { word: string; weight: number }[];
  /** How many of the best to return. */
  limit: number;
}

/** How many related names a hit carries, whatever the engine. */
export const RELATED_NAMES = 4;

export interface ScoredDefinition {
  definition: IndexedDefinition;
  /** The fused score, higher is better (0–1). */
  score: number;
  /** 1-based ranks in each list it came from; absent when it was not among that list's best. */
  vectorRank?: number;
  textRank?: number;
  /** Other definitions beside it (at most RELATED_NAMES): of the same parent, or of the same file when it has none. */
  related: string[];
}

export interface DefinitionsAnswer {
  hits: ScoredDefinition[];
  /** Definitions that passed the filters (every one is scored; the hits are the best `limit`). */
  considered: number;
  /** Of those, how many either list ranks (the fused order's length, what a walk reaches), and in how many files. */
  ranked: number;
  rankedFiles: number;
  /** The generation (indexed commit or content hash) of each repository searched. */
  generations: ReadonlyMap<string, string>;
}

/** One repository in the definitions index. */
export interface DefinitionsRepoStatus {
  repo: string;
  /** What was indexed: a commit, or a hash of the files' contents. */
  generation: string;
  built_at: string;
  /** Definitions in the definitions index, and of them those with documentation. */
  definitions: number;
  documented: number;
  /** Definitions the extractor found in the repository's files (the index holds `definitions` of them). */
  extracted: number;
  /** Files whose definitions could not be read (too large, binary, a parse that timed out). */
  skipped_files: number;
}

/** How description searches have gone since the server started. */
export interface DefinitionsSearchFigures {
  searches: number;
  p50_ms?: number;
  p95_ms?: number;
  p99_ms?: number;
  /** Of the descriptions embedded, the share whose vector was already known. */
  embedding_cache_hit_rate?: number;
}

export interface DefinitionsIndexStatus {
  /** The embedding model: its name, its dimensions, where it came from. */
  model: { name: string; dimensions: number; source: string };
  /**
   * building: a build is under way; current: the index is what its last build made, and none is
   * under way; failed: the last build failed (the previous generation answers); unavailable: the
   * index cannot be read (error says why).
   */
  state: 'building' | 'current' | 'failed' | 'unavailable';
  /** Why the whole index cannot answer (never names a repository: a caller may see it whatever its scope). */
  error?: string;
  /** Repositories whose last build failed or whose files cannot be read, with why: shown only within a caller's scope. */
  repoErrors?: { repo: string; error: string }[];
  /** Where it is: a folder, or an engine's URL. */
  location: string;
  repos: DefinitionsRepoStatus[];
  figures: DefinitionsSearchFigures;
}

/**
 * The index cannot answer now (not built yet, its model missing, its engine unreachable): a
 * description search then matches names, and its hint carries this message.
 */
export class DefinitionsIndexUnavailable extends Error {
  override name = 'DefinitionsIndexUnavailable';
}

export interface DefinitionsIndex {
  search(query: DefinitionsQuery, signal?: AbortSignal): Promise<DefinitionsAnswer>;
  status(): Promise<DefinitionsIndexStatus>;
  close(): Promise<void>;
}
