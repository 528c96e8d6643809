import { describe, expect, it } from 'vitest';
import { compareStrings, fetchPage, type PagingOrder } from '../../src/search/engine/paging.js';

interface Item {
  id: string;
  score: number;
}
const order: PagingOrder<Item> = { score: (i) => i.score, tieBreak: (a, b) => compareStrings(a.id, b.id) };

/** A backend like Zoekt: ranks by score, but orders ties at random before cutting the list. */
function fakeBackend(all: Item[]) {
  let calls = 0;
  const fetch = async (size: number) => {
    calls++;
    const shuffled = [...all].sort(() => Math.random() - 0.5).sort((a, b) => b.score - a.score);
    const items = shuffled.slice(0, size);
    return { items, exhausted: items.length < size };
  };
  return { fetch, calls: () => calls };
}

describe('fetchPage', () => {
  it('walks every item exactly once in one stable order, even with long runs of equal scores', async () => {
    const all: Item[] = [];
    for (let i = 0; i < 57; i++) all.push({ id: `f${String(i).padStart(2, '0')}`, score: i < 5 ? 100 - i : i % 3 === 0 ? 10 : 5 });
    const expected = [...all].sort((a, b) => b.score - a.score || compareStrings(a.id, b.id)).map((i) => i.id);
    for (let trial = 0; trial < 20; trial++) {
      const backend = fakeBackend(all);
      const seen: string[] = [];
      let offset = 0;
      for (;;) {
        const page = await fetchPage(backend.fetch, offset, 7, order);
        seen.push(...page.items.map((i) => i.id));
        if (!page.hasMore) break;
        offset += 7;
      }
      expect(seen).toEqual(expected);
    }
  });

  it('says there is more exactly when there is', async () => {
    const all = Array.from({ length: 10 }, (_, i) => ({ id: `x${i}`, score: 10 - i }));
    const backend = fakeBackend(all);
    expect((await fetchPage(backend.fetch, 0, 5, order)).hasMore).toBe(true);
    expect((await fetchPage(backend.fetch, 5, 5, order)).hasMore).toBe(false);
    expect((await fetchPage(backend.fetch, 0, 10, order)).hasMore).toBe(false);
    expect((await fetchPage(backend.fetch, 10, 5, order)).items).toEqual([]);
  });
});

describe('fetchPage with a cached window', () => {
  const all: Item[] = Array.from({ length: 30 }, (_, i) => ({ id: `f${String(i).padStart(2, '0')}`, score: 100 - i }));

  it('cuts the page from the cached window without fetching when the window decides it', async () => {
    const backend = fakeBackend(all);
    const cached = { items: all.slice(0, 21), exhausted: false, size: 21 };
    const page = await fetchPage(backend.fetch, 10, 10, order, { prefetchPages: 2, cached });
    expect(backend.calls()).toBe(0);
    expect(page.items.map((i) => i.id)).toEqual(all.slice(10, 20).map((i) => i.id));
    expect(page.hasMore).toBe(true);
  });

  it('fetches when the cached window is too small, and prefetches the next pages', async () => {
    const backend = fakeBackend(all);
    const sizes: number[] = [];
    const page = await fetchPage(
      async (size) => {
        sizes.push(size);
        return backend.fetch(size);
      },
      20,
      10,
      order,
      { prefetchPages: 2, cached: { items: all.slice(0, 21), exhausted: false, size: 21 } },
    );
    // Twice the cached window: a walk over every page asks a handful of times, not once a page.
    expect(sizes).toEqual([42]);
    expect(page.items.map((i) => i.id)).toEqual(all.slice(20, 30).map((i) => i.id));
    expect(page.hasMore).toBe(false);
  });
});

describe('grouped', () => {
  it("groups thousands exactly as toLocaleString('en-US') does", async () => {
    const { grouped } = await import('../../src/search/engine/completeness.js');
    for (const n of [0, 7, 999, 1000, 5920, 99_332, 1_000_000, 4_000_000, 123_456_789, 2 ** 53 - 1]) expect(grouped(n)).toBe(n.toLocaleString('en-US'));
  });
});
