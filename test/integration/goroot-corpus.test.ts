/**
 * The Go corpus and its truth helpers agree: Zoekt's own answers (plain /api/search, no MCP)
 * equal what test/support/truth.ts computes by reading the files.
 */
import { describe, expect, inject, it } from 'vitest';
import { filesMatching, linesMatching, scanCorpus } from '../support/truth.js';

const OPTS = { MaxDocDisplayCount: 100_000, ShardMaxMatchCount: 10_000_000, TotalMaxMatchCount: 10_000_000 };

interface ZoektFile {
  FileName: string;
  Repository: string;
  LineMatches: { LineNumber: number; FileName?: boolean }[] | null;
}

async function search(q: string): Promise<ZoektFile[]> {
  const res = await fetch(`${inject('goZoektUrl')}/api/search`, { method: 'POST', body: JSON.stringify({ Q: q, Opts: OPTS }) });
  expect(res.ok).toBe(true);
  const body = (await res.json()) as { Result: { Files: ZoektFile[] | null } };
  return body.Result.Files ?? [];
}

describe('Go corpus', () => {
  it('holds every file the truth helpers walk, by name', async () => {
    const files = await search('type:filename file:.');
    const corpus = scanCorpus(inject('goSrcRoot'));
    expect(new Set(files.map((f) => f.Repository))).toEqual(new Set([inject('goRepo')]));
    expect(files.map((f) => f.FileName).sort()).toEqual(corpus.all);
    expect(corpus.indexed.length).toBeGreaterThan(10_000);
  });

  it('finds exactly the files and lines containing SetDeadline that filesMatching finds', async () => {
    const srcRoot = inject('goSrcRoot');
    const files = await search('case:yes content:SetDeadline');
    const expected = filesMatching(srcRoot, scanCorpus(srcRoot).indexed, /SetDeadline/);
    expect(expected.size).toBeGreaterThan(20);
    expect(new Set(files.map((f) => f.FileName))).toEqual(expected);
    const lines = files.flatMap((f) => (f.LineMatches ?? []).filter((l) => !l.FileName).map((l) => `${f.FileName}:${l.LineNumber}`));
    const expectedLines = linesMatching(srcRoot, [...expected], /SetDeadline/).map((m) => `${m.path}:${m.line}`);
    expect(lines.sort()).toEqual(expectedLines.sort());
  });
});
