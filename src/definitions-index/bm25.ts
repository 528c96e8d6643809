/**
 * Full-text relevance over definitions' texts: Okapi BM25 on word concepts (stems, with code's
 * abbreviations folded onto the word they shorten: words.ts), so "connection" in a description
 * meets `conn` in a name and "connects" in a doc comment alike. Each text counts a concept once:
 * the texts are a name, a kind and a doc comment's first lines, where repeating a word says little.
 */
import { concept, descriptionWords } from '../search/definitions/words.js';

/** The concepts of a text, each once, in order. */
export function concepts(text: string): string[] {
  return [...new Set(descriptionWords(text).map(concept))];
}

/** BM25's term-saturation and length-normalisation constants, at their usual values. */
const K1 = 1.2;
const B = 0.75;

/** One segment's postings: for each concept, the documents that hold it. */
export interface Postings {
  readonly size: number;
  readonly totalLength: number;
  lengthOf(doc: number): number;
  /** The documents holding `word`, ascending: their ids are list[from..to). */
  documentsWith(word: string): { list: ArrayLike<number>; from: number; to: number } | undefined;
}

/** Collection statistics across segments, so that every segment scores on one scale. */
export interface CorpusStats {
  documents: number;
  averageLength: number;
  /** How many documents hold each query concept. */
  frequency: ReadonlyMap<string, number>;
}

export function corpusStats(segments: readonly Postings[], words: readonly string[]): CorpusStats {
  let documents = 0;
  let length = 0;
  const frequency = new Map<string, number>();
  for (const s of segments) {
    documents += s.size;
    length += s.totalLength;
    for (const w of words) {
      const hit = s.documentsWith(w);
      frequency.set(w, (frequency.get(w) ?? 0) + (hit ? hit.to - hit.from : 0));
    }
  }
  return { documents, averageLength: documents ? length / documents : 0, frequency };
}

/**
 * Adds each document's BM25 score for `words` into `scores` (only where `keep(doc)`); returns the
 * documents that scored, in no order.
 */
export function scoreSegment(segment: Postings, words: readonly string[], stats: CorpusStats, keep: (doc: number) => boolean, scores: Float32Array, weights?: ReadonlyMap<string, number>): number[] {
  const touched: number[] = [];
  for (const w of words) {
    const weight = weights?.get(w) ?? 1;
    const n = stats.frequency.get(w) ?? 0;
    const hit = segment.documentsWith(w);
    if (n === 0 || !hit) continue;
    const idf = Math.log(1 + (stats.documents - n + 0.5) / (n + 0.5));
    for (let i = hit.from; i < hit.to; i++) {
      const doc = hit.list[i]!;
      if (!keep(doc)) continue;
      const norm = K1 * (1 - B + (B * segment.lengthOf(doc)) / (stats.averageLength || 1));
      if (scores[doc] === 0) touched.push(doc);
      scores[doc]! += (weight * idf * (K1 + 1)) / (1 + norm);
    }
  }
  return touched;
}
