/**
 * The ranks of a hit in each of Weaviate's lists, read back from its explanation of a ranked
 * fusion (usecases/traverser/hybrid/hybrid_fusion.go in Weaviate 1.35: each list adds
 * weight / (60 + rank − 1) and says so). The explanations here are written as that code writes
 * them, with contributions computed by hand.
 */
import { describe, expect, it } from 'vitest';
import { ranksOf } from '../../src/definitions-index/weaviate.js';

const line = (set: string, contributed: number) => `\nHybrid (Result Set ${set}) Document 6f1c2a7e-0000-5000-8000-000000000000 contributed ${contributed} to the score`;

describe('ranksOf', () => {
  it('reads each list\'s rank from what it contributed', () => {
    // keyword at rank 1 (0.5 / 60), vector at rank 7 (0.5 / 66).
    expect(ranksOf(`${line('keyword,bm25', 0.5 / 60)}${line('vector,hybridVector', 0.5 / 66)}`, 0.5)).toEqual({ keyword: 1, vector: 7 });
    // Weights other than a half: keyword 0.7 at rank 3, vector 0.3 at rank 200.
    expect(ranksOf(`${line('keyword,bm25', 0.7 / 62)}${line('vector,hybridVector', 0.3 / 259)}`, 0.3)).toEqual({ keyword: 3, vector: 200 });
    // float32 rounding as Go prints it.
    expect(ranksOf(line('vector', 0.008196721), 0.5)).toEqual({ vector: 2 });
  });

  it('leaves out a list that did not hold the hit, and says nothing for relative-score fusion', () => {
    expect(ranksOf(line('keyword,bm25', 0.5 / 61), 0.5)).toEqual({ keyword: 2 });
    expect(ranksOf('\nHybrid (Result Set keyword,bm25) Document x: original score 3.2, normalized score: 0.5', 0.5)).toEqual({});
    expect(ranksOf('', 0.5)).toEqual({});
  });
});
