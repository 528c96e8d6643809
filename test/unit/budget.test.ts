import { describe, expect, it } from 'vitest';
import { clip, fewer, fitPage, fitToBudget, halve, lessOne, looksBinary, shorterLines, type Budget } from '../../src/search/engine/budget.js';

describe('dials', () => {
  it('step down to their floor and stop there', () => {
    const walk = (down: (v: number) => number | undefined, v: number) => {
      const seen = [v];
      for (let x = down(v); x !== undefined; x = down(x)) seen.push(x);
      return seen;
    };
    expect(walk(lessOne(0), 3)).toEqual([3, 2, 1, 0]);
    expect(walk(halve(1), 10)).toEqual([10, 5, 2, 1]);
    expect(walk(fewer(1), 10)).toEqual([10, 7, 5, 3, 2, 1]);
    expect(walk(shorterLines, 400)).toEqual([400, 200, 120, 80]);
    expect(walk(shorterLines, 5000)).toEqual([5000, 400, 200, 120, 80]);
  });
});

describe('fitToBudget', () => {
  // A page of `items` lines of `width` characters each.
  const make = (s: Record<'items' | 'width', number>, truncated: unknown) => ({ lines: Array.from({ length: s.items }, () => 'x'.repeat(s.width)), truncated });
  const render = (o: { lines: string[] }) => o.lines.join('\n');
  const dials = [
    { name: 'items' as const, down: fewer(1) },
    { name: 'width' as const, down: shorterLines },
  ];

  it('leaves a page that fits alone', () => {
    const out = fitToBudget(make, { items: 3, width: 10 }, dials, { maxChars: 100, render });
    expect(out.truncated).toBeUndefined();
    expect(out.lines).toHaveLength(3);
  });

  it('turns the first dial to its floor before touching the next, and says what it cut', () => {
    const out = fitToBudget(make, { items: 10, width: 400 }, dials, { maxChars: 300, render });
    expect(render(out).length).toBeLessThanOrEqual(300);
    expect(out.lines).toHaveLength(1);
    expect(out.truncated).toMatchObject({ max_output_chars: 300, cut: [{ setting: 'items', from: 10, to: 1 }, { setting: 'width', from: 400, to: 200 }] });
  });

  it('stops early: the largest page that fits', () => {
    const out = fitToBudget(make, { items: 10, width: 50 }, dials, { maxChars: 260, render });
    // 10 → 7 → 5 lines of 50 (254 characters with the line breaks) fit.
    expect(out.lines).toHaveLength(5);
  });

  it('bounds structuredContent at twice the text', () => {
    const heavy = (s: Record<'items', number>, truncated: unknown) => ({ items: Array.from({ length: s.items }, (_, i) => ({ n: i, padding: 'y'.repeat(50) })), truncated });
    const budget: Budget<ReturnType<typeof heavy>> = { maxChars: 200, render: (o) => `${o.items.length} items` };
    const out = fitToBudget(heavy, { items: 20 }, [{ name: 'items', down: fewer(1) }], budget);
    expect(JSON.stringify(out).length).toBeLessThanOrEqual(400);
    expect(out.items.length).toBeLessThan(20);
  });
});

describe('fitPage', () => {
  it('resumes the next page at the first item it left out', () => {
    const page = { items: ['a', 'b', 'c', 'd'], offset: 8, resume: (at: number) => `cursor@${at}` };
    const make = (s: Record<'results', number>) => ({ shown: page.items.slice(0, s.results), next_cursor: undefined as string | undefined });
    const out = fitPage(page, make, {}, [{ name: 'results', down: fewer(1) }], { maxChars: 35, render: (o) => o.shown.join('').repeat(10) });
    expect(out.shown).toEqual(['a', 'b', 'c']);
    expect(out.next_cursor).toBe('cursor@11');
  });
});

describe('clip and looksBinary', () => {
  it('cuts a long line around a column, marking both ends', () => {
    const line = `${'a'.repeat(1000)}NEEDLE${'b'.repeat(1000)}`;
    const out = clip(line, 1001, 100);
    expect(out).toContain('NEEDLE');
    expect(out.startsWith('…') && out.endsWith('…')).toBe(true);
    expect([...out].length).toBe(102);
    expect(clip('short', 1, 100)).toBe('short');
  });

  it('knows binary from text', () => {
    expect(looksBinary('a\u0000b')).toBe(true);
    expect(looksBinary('caf\ufffd cr\ufffdme')).toBe(false);
    expect(looksBinary('\ufffd\ufffd\ufffd')).toBe(true);
    expect(looksBinary('plain')).toBe(false);
  });
});
