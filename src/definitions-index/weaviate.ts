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
import type {
  DefinitionsAnswer,
  DefinitionsIndex,
  DefinitionsIndexStatus,
  DefinitionsQuery,
  ScoredDefinition,
} from '../search/definitions/definitions-index.js';
import { concepts } from './bm25.js';
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
  statusOf,
  textIn,
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
  /** The vector list's weight, the BM25 list's is 1 − alpha. */
  alpha?: number;
  logger?: Logger;
}

/** How many related names a hit carries (as the in-process engine). */
const RELATED = 4;
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

  constructor(opts: WeaviateIndexOptions) {
    this.client = new WeaviateClient({ url: opts.url, timeoutMs: opts.timeoutMs, ...(opts.logger ? { logger: opts.logger } : {}) });
    this.collection = checkCollection(opts.collection ?? DEFAULT_COLLECTION);
    this.embedder = opts.embedder;
    this.fusion = opts.fusion ?? 'ranked';
    this.alpha = opts.alpha ?? 0.5;
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
    const empty: DefinitionsAnswer = { hits: [], considered: 0, generations };
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
    if (query.path) {
      const passing = await this.passingPaths(andOf(where), query.path, signal);
      considered = passing.count;
      if (passing.paths.length === 0) return empty;
      if (passing.paths.length <= PATHS_IN_QUERY) where.push(textIn('path', 'ContainsAny', passing.paths));
      else postFilter = query.path;
    } else {
      considered = -1;
    }
    const filter = andOf(where);
    const counting = considered >= 0 ? Promise.resolve(considered) : this.count(filter, signal);
    // Awaited below; a failure while the search is under way is that search's failure, not an unhandled one.
    counting.catch(() => undefined);

    const words = concepts(query.text).join(' ');
    const vector = this.figures.vectorOf(query.text, (text) => this.embedder.embed([text])[0]!);
    const hasVector = vector.some((x) => x !== 0);
    if (!words && !hasVector) return { ...empty, considered: await counting };
    // Without words BM25 has nothing to rank, and a zero vector has no direction: one list only.
    const alpha = !hasVector ? 0 : !words ? 1 : this.alpha;

    let fetch = postFilter ? Math.min(MAX_FETCH, Math.max(query.limit * OVER_FETCH, 50)) : query.limit;
    let hits: Hit[];
    for (;;) {
      const found = await this.hybrid(filter, words, hasVector ? vector : undefined, alpha, fetch, signal);
      hits = postFilter ? found.filter((h) => postFilter!(String(h.props.path ?? ''))) : found;
      if (!postFilter || hits.length >= query.limit || found.length < fetch || fetch >= MAX_FETCH) break;
      fetch = Math.min(MAX_FETCH, fetch * OVER_FETCH);
    }
    hits = hits.slice(0, query.limit);
    const [total, related] = await Promise.all([counting, this.related(hits, signal)]);
    return { hits: hits.map((h, i) => this.scored(h, related[i]!, alpha)), considered: total, generations };
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
      ...(failed.length ? { error: failed.map((r) => `${r.repo}: ${r.error}`).join('; ') } : {}),
      repos: records.filter((r) => r.generation).map(statusOf),
    };
  }

  async close(): Promise<void> {
    await this.client.close();
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
        if (out.length >= RELATED) break;
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
