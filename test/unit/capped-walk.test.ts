/**
 * The fetch plan of search_code's walks (src/search/engine/file-walk.ts, Searcher.cappedWindow) against
 * a fake Zoekt whose answers follow Zoekt's own rules for ranking ties and match caps: under a
 * match cap, rounds give one total order whatever order ties come in, every file once; later
 * pages resume from the cache or from nothing alike; a file with thousands of matches costs a
 * round, not a page; files of the path-ordered part come with at most their own cap.
 */
import { describe, expect, it } from 'vitest';
import { walkFiles, type FileWalkRequest } from '../../src/search/engine/file-walk.js';
import { RepoScope } from '../../src/search/engine/scope.js';
import { Searcher, type WalkLimits } from '../../src/search/engine/searcher.js';
import { WindowCache } from '../../src/search/engine/window-cache.js';
import { FakeZoekt, type FakeFile } from '../support/fake-zoekt.js';

/** A seeded generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** `n` files, scores from a few values (many ties), mostly a few matches, some more than the cap. */
function corpus(seed: number, n = 150): FakeFile[] {
  const rnd = seeded(seed);
  return Array.from({ length: n }, (_, i) => ({
    repo: i % 3 === 0 ? 'github.com/acme/b' : 'github.com/acme/a',
    path: `pkg${i % 7}/file${String(i).padStart(3, '0')}.go`,
    score: [900, 800, 800, 700, 500][Math.floor(rnd() * 5)]! + Math.floor(rnd() * 3),
    matches: rnd() < 0.15 ? 300 + Math.floor(rnd() * 500) : 1 + Math.floor(rnd() * 12),
  }));
}

const byRank = (a: FakeFile, b: FakeFile) => b.score - a.score || (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
const byPath = (a: FakeFile, b: FakeFile) => (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
const id = (f: { repo: string; path: string }) => `${f.repo}/${f.path}`;

const SECRET = 'capped-walk-test-secret-0123456789';
const REQUEST: FileWalkRequest = { query: 'err', contextLines: 0, content: true, maxMatches: 200, matchesPerFile: 50 };

function searcherOf(zoekt: FakeZoekt, limits: WalkLimits, cache = new WindowCache()) {
  return new Searcher(zoekt.asFleet(), cache, RepoScope.ALL, limits, SECRET);
}

/** Every page of the walk, each page from `searcherFor(page)`; a short page is followed where it says. */
async function walk(searcherFor: (page: number) => Searcher, limit: number) {
  const pages: { files: string[]; cut: string[]; matches: Map<string, number> }[] = [];
  for (let offset = 0, page = 0; ; page++) {
    const got = await walkFiles(searcherFor(page), REQUEST, offset, limit);
    pages.push({
      files: got.files.map(id),
      cut: got.files.filter((f) => f.matchesCut).map(id),
      matches: new Map(got.files.map((f) => [id(f), f.chunks.length])),
    });
    if (!got.more) break;
    // A short page says why, and where the next starts.
    if (got.files.length < limit) {
      expect(got.short).toBeDefined();
      expect(got.files.length).toBeGreaterThan(0);
    }
    offset = got.nextOffset ?? offset + limit;
    expect(page).toBeLessThan(200);
  }
  return pages;
}

describe('walks under a match cap', () => {
  const limits = { rankedFiles: 1000, walkFiles: 20_000 };

  it.each([1, 2, 3])('give every file once, in the one order of score then path (corpus %i)', async (seed) => {
    const files = corpus(seed);
    const zoekt = new FakeZoekt(files, seeded(seed * 7));
    const searcher = searcherOf(zoekt, limits);
    const pages = await walk(() => searcher, 10);
    expect(pages.flatMap((p) => p.files)).toEqual([...files].sort(byRank).map(id));
    // A file comes whole, or, when it has as many matches as the cap, with the first cap of them
    // (it began its round) and marked cut.
    for (const p of pages) {
      for (const [file, n] of p.matches) {
        const whole = files.find((f) => id(f) === file)!.matches;
        if (p.cut.includes(file)) {
          expect(n, file).toBeLessThanOrEqual(whole);
          expect(n, file).toBe(REQUEST.maxMatches);
        } else {
          expect(n, file).toBe(whole);
        }
      }
    }
    // No request brought more than its cap; the rounds' caps only grow when a file needs it.
    for (const r of zoekt.requests) expect(r.sent).toBeLessThanOrEqual(r.maxMatches!);
  });

  it('give the same order in short pages, when a call may ask only the rounds its first file needs', async () => {
    const files = corpus(7, 80);
    const pages = await walk(() => searcherOf(new FakeZoekt(files, seeded(7)), { ...limits, roundsMs: 0 }), 10);
    expect(pages.flatMap((p) => p.files)).toEqual([...files].sort(byRank).map(id));
    expect(pages.some((p) => p.files.length < 10 && p !== pages[pages.length - 1])).toBe(true);
  });

  it('give the same pages to a server without the cache, whatever order ties come in', async () => {
    // Each cold page asks every round before it again: a smaller corpus keeps this quick.
    const files = corpus(4, 60);
    const warm = searcherOf(new FakeZoekt(files, seeded(1)), limits);
    const cold = (page: number) => searcherOf(new FakeZoekt(files, seeded(100 + page)), limits, new WindowCache({ maxBytes: 0, ttlMs: 1 }));
    // Where a short page ends depends on how far one call's rounds got; the order does not.
    const files_ = (pages: Awaited<ReturnType<typeof walk>>) => pages.flatMap((p) => p.files.map((f) => [f, p.matches.get(f), p.cut.includes(f)]));
    expect(files_(await walk(cold, 10))).toEqual(files_(await walk(() => warm, 10)));
  });

  it('ask for the files a first page needs, not every match of the window', async () => {
    // Files of thousands of matches among files of a few, as a common word gives.
    const rnd = seeded(5);
    const files: FakeFile[] = Array.from({ length: 40 }, (_, i) => ({ repo: 'r', path: `f${String(i).padStart(2, '0')}.go`, score: 900 - i, matches: i % 4 === 0 ? 5000 : 1 + Math.floor(rnd() * 12) }));
    const zoekt = new FakeZoekt(files, seeded(5));
    const searcher = searcherOf(zoekt, limits);
    const page = await walkFiles(searcher, REQUEST, 0, 10);
    expect(page.files.map(id)).toEqual(files.slice(0, 10).map(id));
    const sent = zoekt.requests.reduce((n, r) => n + r.sent, 0);
    // What the old plan read: every match of the 21 best files (two pages and one more).
    const uncapped = files.slice(0, 21).reduce((n, f) => n + f.matches, 0);
    expect(sent).toBeLessThan(uncapped / 10);
    // Each file of thousands was sent its first cap of matches, at most twice (once cut behind another).
    const dense = files.slice(0, 11).filter((f) => f.matches >= REQUEST.maxMatches!).length;
    expect(sent).toBeLessThanOrEqual(2 * dense * REQUEST.maxMatches! + files.slice(0, 11).reduce((n, f) => n + Math.min(f.matches, REQUEST.maxMatches!), 0));
  });
});

describe('walks of an answer Zoekt stopped early', () => {
  it('give each file at most once, in one order, from a cold server too', async () => {
    const files = corpus(8, 120);
    const limits = { rankedFiles: 1000, walkFiles: 20_000 };
    // Zoekt evaluates files in index order until its match budget: later rounds, with files
    // excluded, reach files the first never saw.
    const warm = searcherOf(new FakeZoekt(files, seeded(8), 4000), limits);
    const cold = (page: number) => searcherOf(new FakeZoekt(files, seeded(200 + page), 4000), limits, new WindowCache({ maxBytes: 0, ttlMs: 1 }));
    const pages = await walk(() => warm, 10);
    const walked = pages.flatMap((p) => p.files);
    expect(new Set(walked).size).toBe(walked.length);
    const score = new Map(files.map((f) => [id(f), f.score]));
    for (let i = 1; i < walked.length; i++) expect(score.get(walked[i - 1]!)!).toBeGreaterThanOrEqual(score.get(walked[i]!)!);
    expect((await walk(cold, 10)).flatMap((p) => p.files)).toEqual(walked);
  });
});

describe('the path-ordered part of a walk', () => {
  it('brings each page its files with at most their own cap, and says which were cut', async () => {
    const files = corpus(6);
    const zoekt = new FakeZoekt(files, seeded(6));
    const searcher = searcherOf(zoekt, { rankedFiles: 20, walkFiles: 20_000 });
    const pages = await walk(() => searcher, 10);
    const ranked = [...files].sort(byRank);
    const head = ranked.slice(0, 20);
    const tail = ranked.slice(20).sort(byPath);
    expect(pages.flatMap((p) => p.files)).toEqual([...head, ...tail].map(id));
    const cut = new Set(pages.flatMap((p) => p.cut));
    for (const f of tail) {
      const shown = pages.flatMap((p) => [...p.matches]).find(([file]) => file === id(f))![1];
      if (f.matches > REQUEST.matchesPerFile!) {
        expect(cut.has(id(f)), id(f)).toBe(true);
        expect(shown).toBe(REQUEST.matchesPerFile);
      } else {
        expect(shown, id(f)).toBe(f.matches);
      }
    }
  });
});

describe('a walk over paths with a version on each branch', () => {
  it('brings every version once, when a page ends between the versions of one path', async () => {
    // Each path twice, as an index of two branches holds it: a `file:` restriction brings both
    // versions, so a page that has one of them asks for room for both. Pages of 7 split some pairs.
    const files = corpus(12, 60).flatMap((f): FakeFile[] => [
      { ...f, version: 'main' },
      { ...f, version: 'dev', score: f.score - 1 },
    ]);
    const zoekt = new FakeZoekt(files, seeded(12));
    const searcher = searcherOf(zoekt, { rankedFiles: 10, walkFiles: 20_000 });
    const walked: string[] = [];
    for (let offset = 0, page = 0; ; page++) {
      const got = await walkFiles(searcher, REQUEST, offset, 7);
      expect(got.partial, `page ${page}`).toBeUndefined();
      walked.push(...got.files.map((f) => `${id(f)}@${f.version}`));
      if (!got.more) break;
      offset = got.nextOffset ?? offset + 7;
      expect(page).toBeLessThan(100);
    }
    expect(new Set(walked).size).toBe(walked.length);
    expect([...walked].sort()).toEqual(files.map((f) => `${id(f)}@${f.version}`).sort());
    // It happened: a version was left short by the other one, and asked for again without a cap.
    const again = zoekt.requests.filter((r) => r.maxMatches === undefined && !r.query.startsWith('type:filename'));
    expect(again.length).toBeGreaterThan(0);
    expect(again.length).toBeLessThan(zoekt.requests.length / 4);
  });
});

describe('walks within a repository scope', () => {
  it('give every file of the scope once and none outside it, from a Zoekt that ignored the scope in the query', async () => {
    const files = corpus(9, 90);
    const zoekt = new FakeZoekt(files, seeded(9));
    const scope = new RepoScope(['github.com/acme/a']);
    const searcher = new Searcher(zoekt.asFleet(), new WindowCache(), scope, { rankedFiles: 20, walkFiles: 20_000 }, SECRET);
    const walked = (await walk(() => searcher, 10)).flatMap((p) => p.files);
    const inside = files.filter((f) => f.repo === 'github.com/acme/a').map(id);
    // The fake answers every repository: the searcher's own check is what keeps the others out.
    expect(inside.length).toBeLessThan(files.length);
    expect(walked.filter((f) => !inside.includes(f))).toEqual([]);
    expect(new Set(walked).size).toBe(walked.length);
    expect([...walked].sort()).toEqual([...inside].sort());
    // And every query carries the scope to Zoekt, the first lock.
    const constraint = scope.confine('');
    for (const r of zoekt.requests) expect(r.query.endsWith(constraint), r.query).toBe(true);
  });
});

describe('what each page asks Zoekt for', () => {
  it('a first page the files it shows and one more; the page after it two pages, so the third is cached', async () => {
    // Few matches a file, no ties of score: neither a match cap nor a tie at a window's end makes
    // a window larger than its size (a tie does: the order must be decided past it).
    const files = corpus(11, 120).map((f, i) => ({ ...f, score: 10_000 - i, matches: 1 + (f.matches % 5) }));
    const zoekt = new FakeZoekt(files, seeded(11));
    const searcher = searcherOf(zoekt, { rankedFiles: 200, walkFiles: 20_000 });
    const request: FileWalkRequest = { query: 'err', contextLines: 0, content: true };
    const sizes: number[][] = [];
    let offset = 0;
    for (let page = 0; page < 4; page++) {
      const before = zoekt.requests.length;
      const got = await walkFiles(searcher, request, offset, 10);
      expect(got.files.map(id)).toEqual([...files].sort(byRank).slice(offset, offset + 10).map(id));
      sizes.push(zoekt.requests.slice(before).map((r) => r.maxDocs));
      offset += 10;
    }
    // Page 1: 11 files; page 2: pages 2 and 3 and one more; page 3 from the cache; page 4 doubles.
    expect(sizes).toEqual([[11], [31], [], [62]]);
  });
});
