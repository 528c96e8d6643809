/**
 * Reading Zoekt's /api/search answer: the shape is checked as it is read, and chunks are decoded
 * only when read. Answers here are written by hand in the shape zoekt-webserver -rpc sends (the
 * integration tests read real ones); what is checked is worked out from the text itself.
 */
import { describe, expect, it } from 'vitest';
import { decodeSearch, WireShapeError, ZoektChunk, type FileHit } from '../../src/zoekt/wire.js';
import { toFileResult } from '../../src/search/code.js';

const LIMITS = { shard: 1000, total: 10_000 };
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** A chunk of `text` starting at line `startLine` / byte `startByte`, with matches given as [line, needle]. */
function chunk(text: string, startLine: number, startByte: number, matches: [number, string][]) {
  const lines = text.split('\n');
  const lineStart = (line: number) => startByte + Buffer.byteLength(lines.slice(0, line - startLine).map((l) => `${l}\n`).join(''));
  return {
    Content: b64(text),
    ContentStart: { ByteOffset: startByte, LineNumber: startLine, Column: 1 },
    FileName: false,
    Ranges: matches.map(([line, needle]) => {
      const at = lines[line - startLine]!.indexOf(needle);
      const from = lineStart(line) + Buffer.byteLength(lines[line - startLine]!.slice(0, at));
      return {
        Start: { ByteOffset: from, LineNumber: line, Column: 0 },
        End: { ByteOffset: from + Buffer.byteLength(needle), LineNumber: line, Column: 0 },
      };
    }),
    SymbolInfo: null,
    Score: 1,
  };
}

const reply = (files: unknown[], stats: Record<string, unknown> = {}) => ({ Result: { FileCount: files.length, MatchCount: 1, Duration: 2_000_000, Files: files, ...stats } });
const file = (chunks: unknown[], extra: Record<string, unknown> = {}) => ({ FileName: 'a/b.ts', Repository: 'acme/web', Language: 'TypeScript', Score: 7, ChunkMatches: chunks, ...extra });

describe('decodeSearch', () => {
  it('reads files, stats and defaults, and leaves every chunk encoded until it is read', () => {
    const r = decodeSearch(reply([file([chunk('const a = 1;\nreturn a;', 3, 40, [[4, 'return']])], { Language: undefined, Branches: null })]), LIMITS);
    expect(r.stats).toEqual({ fileCount: 1, matchCount: 1, durationMs: 2 });
    const f = r.files[0]!;
    expect(f).toMatchObject({ repo: 'acme/web', path: 'a/b.ts', language: '', branches: [], score: 7 });
    const c = f.chunks[0] as ZoektChunk;
    expect(c.matchLines).toEqual([4]);
    expect(c.encoded).toBeDefined();
    expect(c.lines).toEqual(['const a = 1;', 'return a;']);
    expect(c.ranges).toEqual([{ line: 4, column: 1, endLine: 4, endColumn: 7 }]);
    expect(c.encoded).toBeUndefined();
  });

  it('counts columns in characters on lines with multi-byte text, and drops a trailing \\r', () => {
    const text = 'const héllo = "wörld"; // 🙂 naïve\r\nnext';
    const r = decodeSearch(reply([file([chunk(text, 10, 100, [[10, 'naïve'], [10, 'wörld']])])]), LIMITS);
    const c = r.files[0]!.chunks[0]!;
    const line = text.split('\n')[0]!.replace(/\r$/, '');
    const col = (needle: string) => [...line.slice(0, line.indexOf(needle))].length + 1;
    expect(c.lines).toEqual([line, 'next']);
    expect(c.ranges.map((x) => [x.column, x.endColumn])).toEqual([
      [col('naïve'), col('naïve') + [...'naïve'].length],
      [col('wörld'), col('wörld') + [...'wörld'].length],
    ]);
  });

  it('says which field is missing or of the wrong type', () => {
    const bad: [unknown, string][] = [
      [{}, 'Result: expected an object'],
      [reply([{ ...file([]), Repository: 3 }]), 'Result.Files[0].Repository: expected a string'],
      [reply([file([{ ...chunk('x', 1, 0, [[1, 'x']]), FileName: 'no' }])]), 'Result.Files[0].ChunkMatches[0].FileName: expected true or false'],
      [reply([file([{ ...chunk('x', 1, 0, []), Ranges: [{ Start: { ByteOffset: 0, LineNumber: '1', Column: 1 }, End: {} }] }])]), 'Result.Files[0].ChunkMatches[0].Ranges[0].Start.LineNumber: expected a number'],
      [reply([], { Files: {} }), 'Result.Files: expected an array'],
      [reply([], { MatchCount: null }), 'Result.MatchCount: expected a number'],
    ];
    for (const [json, message] of bad) {
      expect(() => decodeSearch(json, LIMITS), message).toThrow(WireShapeError);
      expect(() => decodeSearch(json, LIMITS)).toThrow(message);
    }
  });

  it('places a match that crosses line breaks at its first line with text, and ends it at its last', () => {
    // `^\s*const\s+\w+` after an empty line and a line of spaces, and `go\s+` that runs on over blank lines.
    const text = '}\n\n  \n  const x = 1\ngo  \n\n  next\n';
    const at = (needle: string) => Buffer.byteLength(text.slice(0, text.indexOf(needle)));
    const range = (from: number, to: number) => {
      const lineOf = (b: number) => Buffer.from(text).subarray(0, b).toString().split('\n').length;
      return { Start: { ByteOffset: from, LineNumber: lineOf(from), Column: 0 }, End: { ByteOffset: to, LineNumber: lineOf(to), Column: 0 } };
    };
    const c = { ...chunk(text, 1, 0, []), Ranges: [range(at('\n\n'), at(' = 1')), range(at('go'), at('next'))] };
    expect(c.Ranges.map((r) => [r.Start.LineNumber, r.End.LineNumber])).toEqual([[1, 4], [5, 7]]);
    const hit = decodeSearch(reply([file([c])]), LIMITS).files[0]!;
    expect(hit.chunks[0]!.matchLines).toEqual([4, 5]);
    expect(hit.chunks[0]!.ranges.map((r) => [r.line, r.column, r.endLine, r.endColumn])).toEqual([[4, 1, 4, 10], [5, 1, 5, 5]]);
    // Only line breaks and spaces: the line breaks before it and the one it ends with go, nothing else.
    const blank = { ...chunk(text, 1, 0, []), Ranges: [range(at('\n\n'), at('  const'))] };
    expect(decodeSearch(reply([file([blank])]), LIMITS).files[0]!.chunks[0]!.ranges.map((r) => [r.line, r.column, r.endLine, r.endColumn])).toEqual([[3, 1, 3, 3]]);
  });

  it('keeps a match on a line with text where it starts in its trailing spaces, and leaves a line it starts at the break of', () => {
    const at = (text: string, needle: string) => Buffer.byteLength(text.slice(0, text.indexOf(needle)));
    const place = (text: string, from: number, to: number) => {
      const lineOf = (b: number) => Buffer.from(text).subarray(0, b).toString().split('\n').length;
      const c = { ...chunk(text, 1, 0, []), Ranges: [{ Start: { ByteOffset: from, LineNumber: lineOf(from), Column: 0 }, End: { ByteOffset: to, LineNumber: lineOf(to), Column: 0 } }] };
      return decodeSearch(reply([file([c])]), LIMITS).files[0]!.chunks[0]!.ranges.map((r) => [r.line, r.column, r.endLine, r.endColumn]);
    };
    // `\s+const` from the spaces after `x = 1;`: its first character is on line 1, as rg -U reports it.
    const trailing = 'x = 1;  \n  const y\n';
    expect(place(trailing, at(trailing, '  \n'), at(trailing, ' y'))).toEqual([[1, 7, 2, 8]]);
    // `\s+const` from the line break after `}`: past it a line of spaces, then the text.
    const afterBrace = '}\n   \n  const y\n';
    expect(place(afterBrace, at(afterBrace, '\n'), at(afterBrace, ' y'))).toEqual([[3, 1, 3, 8]]);
  });

  it('shows a match over several lines on its first line, with end_line and its own lines, context after its end', () => {
    const text = 'a\nif x {\n  y\n  z\n  w\n}\nb\nc';
    const lines = text.split('\n');
    const lineStart = (n: number) => Buffer.byteLength(lines.slice(0, n - 1).map((l) => `${l}\n`).join(''));
    const c = {
      ...chunk(text, 1, 0, []),
      Ranges: [{ Start: { ByteOffset: lineStart(2), LineNumber: 2, Column: 1 }, End: { ByteOffset: lineStart(6) + 1, LineNumber: 6, Column: 2 } }],
    };
    const result = toFileResult(decodeSearch(reply([file([c])]), LIMITS).files[0]!, 1, 5);
    expect(result.matches).toEqual([{ line: 2, column: 1, text: 'if x {', end_line: 6, continued: ['  y', '  z', '  w'], before: ['a'], after: ['b'] }]);
  });

  it('a page decodes only the chunks of the lines it shows', () => {
    const chunks = Array.from({ length: 40 }, (_, i) => chunk(`line ${i * 10} match\nafter`, i * 10 + 1, i * 100, [[i * 10 + 1, 'match']]));
    const hit: FileHit = decodeSearch(reply([file(chunks)]), LIMITS).files[0]!;
    const result = toFileResult(hit, 1, 3);
    expect(result.matches.map((m) => [m.line, m.column, m.text, m.after])).toEqual([
      [1, 8, 'line 0 match', ['after']],
      [11, 9, 'line 10 match', ['after']],
      [21, 9, 'line 20 match', ['after']],
    ]);
    expect(result.omitted_matches).toBe(37);
    expect(hit.chunks.map((c) => (c as ZoektChunk).encoded === undefined)).toEqual(Array.from({ length: 40 }, (_, i) => i < 3));
  });
});
