/**
 * What a definitions index reports of its own searches: latency percentiles over the recent ones,
 * and how often a description's vector was already known. Kept per index, read by get_health and
 * /metrics through the port's status().
 */
import { LRUCache } from 'lru-cache';
import type { DefinitionsSearchFigures } from '../search/definitions/definitions-index.js';

/** Searches the percentiles are taken over: the recent ones, not the server's whole life. */
const RECENT = 1000;
/** Descriptions whose vectors are kept: an agent repeats and pages through its searches. */
const EMBEDDINGS_KEPT = 2000;

export class SearchFigures {
  private readonly recent = new Float64Array(RECENT);
  private count = 0;
  private hits = 0;
  private misses = 0;
  private readonly vectors = new LRUCache<string, Float32Array>({ max: EMBEDDINGS_KEPT });

  /** The description's vector, from the cache or from `embed`. */
  vectorOf(text: string, embed: (text: string) => Float32Array): Float32Array {
    const kept = this.vectors.get(text);
    if (kept) {
      this.hits++;
      return kept;
    }
    this.misses++;
    const made = embed(text);
    this.vectors.set(text, made);
    return made;
  }

  took(ms: number): void {
    this.recent[this.count % RECENT] = ms;
    this.count++;
  }

  figures(): DefinitionsSearchFigures {
    const n = Math.min(this.count, RECENT);
    const out: DefinitionsSearchFigures = { searches: this.count };
    if (n > 0) {
      const sorted = Array.from(this.recent.subarray(0, n)).sort((a, b) => a - b);
      const at = (p: number) => Math.round(sorted[Math.min(n - 1, Math.ceil(p * n) - 1)]! * 10) / 10;
      out.p50_ms = at(0.5);
      out.p95_ms = at(0.95);
      out.p99_ms = at(0.99);
    }
    if (this.hits + this.misses > 0) out.embedding_cache_hit_rate = Math.round((this.hits / (this.hits + this.misses)) * 1000) / 1000;
    return out;
  }
}
