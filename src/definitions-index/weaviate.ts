/**
 * The definitions index kept in a Weaviate server, which every adapter replica reaches (the Helm
 * deployment). A search is one of Weaviate's hybrid queries: BM25 over each definition's text
 * (its concepts, as the in-process engine reads them: bm25.ts) and the nearest vectors to the
 * description's embedding, fused by Weaviate; the filters are its `where`, applied inside both
 * searches before anything ranks. Each repository is searched at the generation its record in
 * `<Name>Repos` names, read once per search: a generation being pushed is never seen, nor half
 * of one (weaviate-push.ts switches that record only once the whole generation is in).
 */
import { ToolError } from '../errors.js';
import type { Logger } from '../log.js';
import {
  RELATED_NAMES,
  type DefinitionsAnswer,
  type DefinitionsIndex,
  type DefinitionsIndexStatus,
  type DefinitionsQuery,
  type ScoredDefinition,
} from '../search/definitions/definitions-index.js';
import { queryWords } from './memory-engine.js';
import { SearchFigures } from './search-figures.js';
import { MissingClass, WeaviateClient } from './weaviate-client.js';
import {
  andOf,
  checkCollection,
  DEFAULT_COLLECTION,
  DEFINITION_FIELDS,
  definitionOf,
  generationRepo,
  gqlString,
  REPO_FIELDS,
  repoRecordOf,
  reposClass,
  scopeOf,
  statsClass,
  statusOf,
  textIn,
  type GenerationStats,
  type RepoRecord,
} from './weaviate-schema.js';

/** What the engine needs of the embedding model (src/model/embedder.ts's Embedder). */
export interface QueryEmbedder {
  readonly info: { name: string; dimensions: number; source: string };
  embed(texts: readonly string[]): Float32Array[];
}

/**
 * How Weaviate fuses its two lists. `ranked`: reciprocal rank (k = 60), as the in-process engine;
 * `relative`: each list's scores scaled to 0–1 and summed.
 *
 * Measured on Go's source tree (386,827 definitions) with test/support/describe-go.json's 22
 * descriptions, the engine's own order (bench/definitions-weaviate.mjs), top-1/top-3/top-10:
 * ranked at alpha 0.3: 2/4/9, 0.5: 3/6/12, 0.7: 5/9/12, 0.8: 6/10/12, 0.9: 7/11/13; relative at
 * 0.5: 2/6/10, 0.7: 5/10/11, 0.8: 6/10/12; BM25 alone 2/3/5, vectors alone 7/11/14. BM25 over
 * these texts puts short definitions (tests' helpers and tables) first; the vectors do not. Ranked
 * fusion at 0.8: as good as relative, with each list's rank known (ranksOf), and BM25's first
 * still worth a vector's twentieth.
 */
export type Fusion = 'ranked' | 'relative';

export interface WeaviateIndexOptions {
  url: string;
  /** Deadline of each call to Weaviate, retries included. */
  timeoutMs: number;
  /** Embeds each description; must be the model the index was pushed with. */
  embedder: QueryEmbedder;
  /** The index's class name (DEFAULT_COLLECTION). */
  collection?: string;
  fusion?: Fusion;
  /** The vector list's weight, the BM25 list's is 1 − alpha (DEFAULT_ALPHA). */
  alpha?: number;
  logger?: Logger;
}

/** The vector list's weight (see Fusion). */
export const DEFAULT_ALPHA = 0.8;

/** At most this many repositories are read from the record class (one Get). */
const MAX_REPOS = 10_000;
/** The siblings read for a page's related names: a page's files, bounded. */
const RELATED_READ = 5_000;
/**
 * A paths filter is a predicate over paths, which Weaviate cannot run. The paths that pass are
 * found first (one aggregation grouped by path, which also counts what passed) and named in the
 * `where` when they are at most this many; past that, the hits are filtered here after the
 * search, fetched OVER_FETCH times the page (and again with more while the page is short), so a
 * page can hold fewer than `limit` hits when the paths that pass rank far below the rest.
 */
const PATHS_IN_QUERY = 2_000;
const OVER_FETCH = 4;
/**
 * How much of the fused order a search asks for: its length and its files are counts a page
 * reports, and a walk by meaning reaches 400 at most. Weaviate's lists then hold the larger of
 * this and QUERY_HYBRID_MAXIMUM_RESULTS each (the in-process engine's hold 200), so a definition
 * ranked 201st to 400th in one list still counts in the fusion here.
 */
const FUSED_DEPTH = 400;
const MAX_FETCH = 2_000;
const MAX_PATH_GROUPS = 200_000;

interface Hit {
  props: Record<string, unknown>;
  score: number;
  explain: string;
}

export class WeaviateDefinitionsIndex implements DefinitionsIndex {
  readonly client: WeaviateClient;
  readonly collection: string;
  private readonly embedder: QueryEmbedder;
  private readonly fusion: Fusion;
  private readonly alpha: number;
  private readonly figures = new SearchFigures();
  private readonly stats = new Map<string, GenerationStats>();

  constructor(opts: WeaviateIndexOptions) {
    this.client = new WeaviateClient({ url: opts.url, timeoutMs: opts.timeoutMs, ...(opts.logger ? { logger: opts.logger } : {}) });
    this.collection = checkCollection(opts.collection ?? DEFAULT_COLLECTION);
    this.embedder = opts.embedder;
    this.fusion = opts.fusion ?? 'ranked';
    this.alpha = opts.alpha ?? DEFAULT_ALPHA;
  }

  /** Every repository's record; none when nothing was pushed yet. */
  async records(signal?: AbortSignal): Promise<RepoRecord[]> {
    try {
      const data = (await this.client.graphql(`{ Get { ${reposClass(this.collection)}(limit: ${MAX_REPOS}) { ${REPO_FIELDS} } } }`, signal)) as { Get?: Record<string, unknown[]> };
      const rows = data?.Get?.[reposClass(this.collection)] ?? [];
      return rows.map((r) => repoRecordOf(r as Record<string, unknown>)).sort((a, b) => (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : 0));
    } catch (err) {
      if (err instanceof MissingClass) return [];
      throw err;
    }
  }

  async search(query: DefinitionsQuery, signal?: AbortSignal): Promise<DefinitionsAnswer> {
    const started = performance.now();
    const answer = await this.searchOnce(query, signal);
    this.figures.took(performance.now() - started);
    return answer;
  }

  private async searchOnce(query: DefinitionsQuery, signal?: AbortSignal): Promise<DefinitionsAnswer> {
    const records = (await this.records(signal)).filter((r) => r.generation && (!query.repo || query.repo(r.repo)));
    const generations = new Map(records.map((r) => [r.repo, r.generation]));
    const empty: DefinitionsAnswer = { hits: [], considered: 0, ranked: 0, rankedFiles: 0, generations };
    if (records.length === 0) return empty;
    this.checkModel(records);

    const where: string[] = [textIn('generation_repo', 'ContainsAny', records.map((r) => generationRepo(r.repo, r.generation)))];
    if (query.languages) where.push(textIn('language_key', 'ContainsAny', [...query.languages]));
    if (query.excludeLanguages?.size) where.push(textIn('language_key', 'ContainsNone', [...query.excludeLanguages]));
    if (query.kinds) where.push(textIn('kind', 'ContainsAny', [...query.kinds]));
    if (!query.includeVendored) where.push('{path: ["vendored"], operator: Equal, valueBoolean: false}');
    if ((query.languages && query.languages.size === 0) || (query.kinds && query.kinds.size === 0)) return empty;

    let considered: number;
    let postFilter: ((path: string) => boolean) | undefined;
    let counting: Promise<number>;
    const counted = countFromStats(await this.statsOf(records.map((r) => generationRepo(r.repo, r.generation)), signal), query);
    if (counted) {
      considered = counted.considered;
      if (considered === 0) return empty;
      if (query.path) {
        if (counted.paths.length <= PATHS_IN_QUERY) where.push(textIn('path', 'ContainsAny', counted.paths));
        else postFilter = query.path;
      }
      counting = Promise.resolve(considered);
    } else if (query.path) {
      // Pushed before the counts were kept: Weaviate counts (slowly, on large indexes).
      const passing = await this.passingPaths(andOf(where), query.path, signal);
      if (passing.paths.length === 0) return empty;
      if (passing.paths.length <= PATHS_IN_QUERY) where.push(textIn('path', 'ContainsAny', passing.paths));
      else postFilter = query.path;
      counting = Promise.resolve(passing.count);
    } else {
      counting = this.count(andOf(where), signal);
      // Awaited below; a failure while the search is under way is that search's failure, not an unhandled one.
      counting.catch(() => undefined);
    }
    const filter = andOf(where);

    // Other words the description stands for count in full-text relevance as its own do; those
    // weighted below 1 (related words) are left out: Weaviate's BM25 weighs every word alike.
    const { words: all, weights } = queryWords(query);
    const words = all.filter((w) => (weights.get(w) ?? 0) >= 1).join(' ');
    const vector = this.figures.vectorOf(query.text, (text) => this.embedder.embed([text])[0]!);
    const hasVector = vector.some((x) => x !== 0);
    if (!words && !hasVector) return { ...empty, considered: await counting };
    // Without words BM25 has nothing to rank, and a zero vector has no direction: one list only.
    const alpha = !hasVector ? 0 : !words ? 1 : this.alpha;

    const depth = Math.max(query.limit, FUSED_DEPTH);
    let fetch = postFilter ? Math.min(MAX_FETCH, Math.max(depth * OVER_FETCH, 50)) : depth;
    let fused: Hit[];
    for (;;) {
      const found = await this.hybrid(filter, words, hasVector ? vector : undefined, alpha, fetch, signal);
      fused = postFilter ? found.filter((h) => postFilter!(String(h.props.path ?? ''))) : found;
      if (!postFilter || fused.length >= depth || found.length < fetch || fetch >= MAX_FETCH) break;
      fetch = Math.min(MAX_FETCH, fetch * OVER_FETCH);
    }
    const hits = fused.slice(0, query.limit);
    const rankedFiles = new Set(fused.map((h) => `${String(h.props.repo)}\u0000${String(h.props.path)}`)).size;
    const [total, related] = await Promise.all([counting, this.related(hits, signal)]);
    return { hits: hits.map((h, i) => this.scored(h, related[i]!, alpha)), considered: total, ranked: fused.length, rankedFiles, generations };
  }

  /** What the records say; a server that cannot be read is `unavailable`, with why, never an exception. */
  async status(): Promise<DefinitionsIndexStatus> {
    const { name, dimensions, source } = this.embedder.info;
    const base = { model: { name, dimensions, source }, location: `${this.client.url} (Weaviate class ${this.collection})`, figures: this.figures.figures() };
    let records: RepoRecord[];
    try {
      records = await this.records();
    } catch (err) {
      return { ...base, state: 'unavailable', error: err instanceof Error ? err.message : String(err), repos: [] };
    }
    const pending = records.filter((r) => r.pending);
    const failed = records.filter((r) => r.error);
    return {
      ...base,
      state: pending.length ? 'building' : failed.length ? 'failed' : 'current',
      ...(failed.length ? { repoErrors: failed.map((r) => ({ repo: r.repo, error: r.error! })) } : {}),
      repos: records.filter((r) => r.generation).map(statusOf),
    };
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /**
   * The counts of each repository generation (weaviate-schema.ts statsOf), read once per
   * generation; undefined when one of them has none (pushed by an earlier version).
   */
  private async statsOf(keys: readonly string[], signal?: AbortSignal): Promise<GenerationStats[] | undefined> {
    const missing = keys.filter((k) => !this.stats.has(k));
    if (missing.length) {
      const cls = statsClass(this.collection);
      let rows: { generation_repo?: string; stats?: string }[] = [];
      try {
        const data = (await this.client.graphql(`{ Get { ${cls}(where: ${textIn('generation_repo', 'ContainsAny', missing)}, limit: ${missing.length}) { generation_repo stats } } }`, signal)) as { Get?: Record<string, typeof rows> };
        rows = data?.Get?.[cls] ?? [];
      } catch (err) {
        if (!(err instanceof MissingClass)) throw err;
      }
      for (const row of rows) {
        try {
          if (row.generation_repo && row.stats) this.stats.set(row.generation_repo, JSON.parse(row.stats) as GenerationStats);
        } catch {
          // Unreadable counts: Weaviate counts instead.
        }
      }
      // Only the current generations are kept.
      const current = new Set(keys);
      if (this.stats.size > keys.length) for (const k of this.stats.keys()) if (!current.has(k)) this.stats.delete(k);
    }
    const out: GenerationStats[] = [];
    for (const k of keys) {
      const st = this.stats.get(k);
      if (!st) return undefined;
      out.push(st);
    }
    return out;
  }

  /** An index pushed with another model holds vectors this adapter's descriptions cannot be compared with. */
  private checkModel(records: readonly RepoRecord[]): void {
    const { name, dimensions } = this.embedder.info;
    const other = records.find((r) => r.model_dimensions !== dimensions || (r.model_name && r.model_name !== name));
    if (!other) return;
    throw new ToolError(
      'BACKEND_MISCONFIGURED',
      `the definitions index at ${this.client.url} holds ${other.repo} embedded by ${other.model_name} (${other.model_dimensions} dimensions); this server embeds descriptions with ${name} (${dimensions})`,
      'Build and push the definitions index again with this version of zoekt-mcp (zoekt-mcp definitions push), or run the version that built it.',
      { retryable: false },
    );
  }

  private async count(where: string, signal?: AbortSignal): Promise<number> {
    const data = (await this.client.graphql(`{ Aggregate { ${this.collection}(where: ${where}) { meta { count } } } }`, signal)) as { Aggregate?: Record<string, { meta?: { count?: number } }[]> };
    return data?.Aggregate?.[this.collection]?.[0]?.meta?.count ?? 0;
  }

  /** The paths among the filtered definitions that `keep` lets through, and how many definitions they hold. */
  private async passingPaths(where: string, keep: (path: string) => boolean, signal?: AbortSignal): Promise<{ paths: string[]; count: number }> {
    const data = (await this.client.graphql(`{ Aggregate { ${this.collection}(where: ${where}, groupBy: ["path"], limit: ${MAX_PATH_GROUPS}) { groupedBy { value } meta { count } } } }`, signal)) as {
      Aggregate?: Record<string, { groupedBy?: { value?: string }; meta?: { count?: number } }[]>;
    };
    const paths: string[] = [];
    let count = 0;
    for (const g of data?.Aggregate?.[this.collection] ?? []) {
      const path = g.groupedBy?.value;
      if (typeof path !== 'string' || !keep(path)) continue;
      paths.push(path);
      count += g.meta?.count ?? 0;
    }
    return { paths, count };
  }

  private async hybrid(where: string, words: string, vector: Float32Array | undefined, alpha: number, limit: number, signal?: AbortSignal): Promise<Hit[]> {
    const args = [`query: ${gqlString(words)}`, `alpha: ${alpha}`, `fusionType: ${this.fusion === 'ranked' ? 'rankedFusion' : 'relativeScoreFusion'}`, 'properties: ["text"]'];
    if (vector) args.push(`vector: [${Array.from(vector, (x) => x.toFixed(6)).join(',')}]`);
    const q = `{ Get { ${this.collection}(hybrid: {${args.join(', ')}}, where: ${where}, limit: ${limit}) { ${DEFINITION_FIELDS} _additional { score explainScore } } } }`;
    const data = (await this.client.graphql(q, signal)) as { Get?: Record<string, Record<string, unknown>[]> };
    return (data?.Get?.[this.collection] ?? []).map((props) => {
      const extra = (props._additional ?? {}) as { score?: string | number; explainScore?: string };
      return { props, score: Number(extra.score ?? 0), explain: extra.explainScore ?? '' };
    });
  }

  /** The names beside each hit: the definitions of its file under the same parent, nearest first. */
  private async related(hits: readonly Hit[], signal?: AbortSignal): Promise<string[][]> {
    if (hits.length === 0) return [];
    const scopes = hits.map((h) => scopeOf(String(h.props.repo), String(h.props.generation), String(h.props.path), typeof h.props.parent === 'string' && h.props.parent ? h.props.parent : undefined));
    const data = (await this.client.graphql(`{ Get { ${this.collection}(where: ${textIn('scope', 'ContainsAny', [...new Set(scopes)])}, limit: ${RELATED_READ}) { name line scope } } }`, signal)) as {
      Get?: Record<string, { name?: string; line?: number; scope?: string }[]>;
    };
    const byScope = new Map<string, { name: string; line: number }[]>();
    for (const o of data?.Get?.[this.collection] ?? []) {
      if (typeof o.scope !== 'string' || typeof o.name !== 'string') continue;
      const list = byScope.get(o.scope) ?? [];
      list.push({ name: o.name, line: o.line ?? 0 });
      byScope.set(o.scope, list);
    }
    return hits.map((h, i) => {
      const line = Number(h.props.line ?? 0);
      const out: string[] = [];
      const siblings = (byScope.get(scopes[i]!) ?? []).sort((a, b) => Math.abs(a.line - line) - Math.abs(b.line - line) || a.line - b.line);
      for (const s of siblings) {
        if (out.length >= RELATED_NAMES) break;
        if (s.name !== h.props.name && !out.includes(s.name)) out.push(s.name);
      }
      return out;
    });
  }

  private scored(h: Hit, related: string[], alpha: number): ScoredDefinition {
    // Ranked fusion adds weight / (60 + rank − 1) per list: at best 1/60 in all.
    const best = this.fusion === 'ranked' ? 1 / 60 : 1;
    const out: ScoredDefinition = { definition: definitionOf(h.props), score: Math.round(Math.min(1, h.score / best) * 1000) / 1000, related };
    const ranks = ranksOf(h.explain, alpha);
    if (ranks.vector) out.vectorRank = ranks.vector;
    if (ranks.keyword) out.textRank = ranks.keyword;
    return out;
  }
}

/**
 * What the filters other than the repositories let through, from the generations' counts: how
 * many definitions, and (with a paths filter) which paths hold any. Undefined without counts.
 */
export function countFromStats(stats: readonly GenerationStats[] | undefined, query: DefinitionsQuery): { considered: number; paths: string[] } | undefined {
  if (!stats) return undefined;
  let considered = 0;
  const paths = new Set<string>();
  for (const st of stats) {
    const ok = st.cells.map((cell) => {
      const [language = '', kind = '', vendored] = cell.split('\t');
      return (!query.languages || query.languages.has(language)) && !query.excludeLanguages?.has(language) && (!query.kinds || query.kinds.has(kind)) && (query.includeVendored || vendored === '0');
    });
    for (const [path, pairs] of Object.entries(st.paths)) {
      if (query.path && !query.path(path)) continue;
      let n = 0;
      for (const [cell, count] of pairs) if (ok[cell]) n += count;
      if (n === 0) continue;
      considered += n;
      if (query.path) paths.add(path);
    }
  }
  return { considered, paths: [...paths] };
}

/**
 * Each list's rank of a hit, from Weaviate's explanation of its score. Ranked fusion says what
 * each list contributed (weight / (60 + rank − 1)), from which the rank follows; relative-score
 * fusion says only that a list held it, so its ranks stay unknown.
 */
export function ranksOf(explain: string, alpha: number): { keyword?: number; vector?: number } {
  const out: { keyword?: number; vector?: number } = {};
  for (const m of explain.matchAll(/Result Set (keyword|vector)[^)]*\) Document \S+ contributed ([0-9.eE+-]+) to the score/g)) {
    const weight = m[1] === 'keyword' ? 1 - alpha : alpha;
    const contributed = Number(m[2]);
    if (!(contributed > 0) || !(weight > 0)) continue;
    out[m[1] as 'keyword' | 'vector'] = Math.max(1, Math.round(weight / contributed - 60 + 1));
  }
  return out;
}
