import { describe, expect, it } from 'vitest';
import { WindowCache, type Window } from '../../src/search/engine/window-cache.js';
import type { FileHit } from '../../src/zoekt/wire.js';

const stats = { fileCount: 0, matchCount: 0, durationMs: 0 };

function file(i: number, lineChars = 10): FileHit {
  return {
    repo: 'r',
    path: `p${i}`,
    language: 'Go',
    branches: ['main'],
    score: 100 - i,
    chunks: [{ startLine: 1, lines: ['x'.repeat(lineChars)], ranges: [], matchLines: [], fileName: false, score: 1 }],
  };
}

function window(n: number, size: number, lineChars = 10): Window {
  const files = Array.from({ length: n }, (_, i) => file(i, lineChars));
  return { files, size, exhausted: n < size, stats };
}

describe('WindowCache', () => {
  it('answers a request for at most the cached size, or any size once exhausted', () => {
    const cache = new WindowCache({ maxBytes: 1_000_000, ttlMs: 60_000 });
    cache.set('q', window(21, 21));
    expect(cache.get('q', 21)?.files).toHaveLength(21);
    expect(cache.get('q', 11)?.files).toHaveLength(21);
    expect(cache.get('q', 31)).toBeUndefined();
    expect(cache.peek('q')?.size).toBe(21);
    cache.set('done', window(5, 21));
    expect(cache.get('done', 500)?.exhausted).toBe(true);
  });

  it('keeps the larger window', () => {
    const cache = new WindowCache({ maxBytes: 1_000_000, ttlMs: 60_000 });
    cache.set('q', window(41, 41));
    cache.set('q', window(21, 21));
    expect(cache.peek('q')?.size).toBe(41);
  });

  it('stays within its byte bound, evicting the least recently used', () => {
    const cache = new WindowCache({ maxBytes: 200_000, ttlMs: 60_000 });
    for (let i = 0; i < 20; i++) cache.set(`q${i}`, window(10, 10, 1000));
    const kept = Array.from({ length: 20 }, (_, i) => cache.peek(`q${i}`)).filter(Boolean).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(20);
    expect(cache.peek('q19')).toBeDefined();
    expect(cache.peek('q0')).toBeUndefined();
    // A window larger than the whole cache is not kept at all.
    cache.set('huge', window(100, 100, 10_000));
    expect(cache.peek('huge')).toBeUndefined();
  });

  it('forgets windows after the TTL', async () => {
    const cache = new WindowCache({ maxBytes: 1_000_000, ttlMs: 100 });
    cache.set('q', window(3, 10));
    expect(cache.peek('q')).toBeDefined();
    await new Promise((r) => setTimeout(r, 250));
    expect(cache.peek('q')).toBeUndefined();
  });

  it('caches nothing when turned off', () => {
    const cache = new WindowCache({ maxBytes: 0, ttlMs: 1000 });
    cache.set('q', window(3, 10));
    expect(cache.peek('q')).toBeUndefined();
    expect(cache.enabled).toBe(false);
  });
});
