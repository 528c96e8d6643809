import { describe, expect, it } from 'vitest';
import { compareStrings, fetchPage, type PagingOrder } from '../../src/search/paging.js';

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
