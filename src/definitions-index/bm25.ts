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

/** The postings of one segment: for each concept, the documents that hold it, ascending. */
export class TextPostings {
  private readonly postings = new Map<string, number[]>();
  readonly lengths: Uint16Array;
  readonly totalLength: number;

  constructor(texts: readonly string[]) {
    this.lengths = new Uint16Array(texts.length);
    let total = 0;
    texts.forEach((text, doc) => {
      const words = concepts(text);
      this.lengths[doc] = Math.min(words.length, 0xffff);
      total += words.length;
      for (const w of words) {
        const list = this.postings.get(w);
        if (list) list.push(doc);
        else this.postings.set(w, [doc]);
      }
    });
    this.totalLength = total;
  }

  get size(): number {
    return this.lengths.length;
  }

  documentsWith(word: string): readonly number[] {
    return this.postings.get(word) ?? [];
  }
}

/** Collection statistics across segments, so that every segment scores on one scale. */
export interface CorpusStats {
  documents: number;
  averageLength: number;
  /** How many documents hold each query concept. */
  frequency: ReadonlyMap<string, number>;
}

export function corpusStats(segments: readonly TextPostings[], words: readonly string[]): CorpusStats {
  let documents = 0;
  let length = 0;
  const frequency = new Map<string, number>();
  for (const s of segments) {
    documents += s.size;
    length += s.totalLength;
    for (const w of words) frequency.set(w, (frequency.get(w) ?? 0) + s.documentsWith(w).length);
  }
  return { documents, averageLength: documents ? length / documents : 0, frequency };
}

/**
 * Adds each document's BM25 score for `words` into `scores` (only where `keep(doc)`); returns the
 * documents that scored, in no order.
 */
export function scoreSegment(segment: TextPostings, words: readonly string[], stats: CorpusStats, keep: (doc: number) => boolean, scores: Float32Array): number[] {
  const touched: number[] = [];
  for (const w of words) {
    const n = stats.frequency.get(w) ?? 0;
    if (n === 0) continue;
    const idf = Math.log(1 + (stats.documents - n + 0.5) / (n + 0.5));
    for (const doc of segment.documentsWith(w)) {
      if (!keep(doc)) continue;
      const norm = K1 * (1 - B + (B * segment.lengths[doc]!) / (stats.averageLength || 1));
      if (scores[doc] === 0) touched.push(doc);
      scores[doc]! += (idf * (K1 + 1)) / (1 + norm);
    }
  }
  return touched;
}
