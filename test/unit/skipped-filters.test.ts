/**
 * A search's filters evaluated in memory on the placeholders of the index (search/engine/skipped.ts):
 * RE2 regexes translated to JavaScript only where the two mean the same, and the filter parts as
 * the query builders write them. The integration test (skipped-files.test.ts) checks the answers
 * against Zoekt's own; these pin the translation.
 */
import { describe, expect, it } from 'vitest';
import { filterParts } from '../../src/search/vocab/filters.js';
import { pathGlobToRegex, repoGlobToRegex } from '../../src/patterns/globs.js';
import { compileFilters, generationOf, re2ToJs } from '../../src/search/engine/skipped.js';
import * as q from '../../src/zoekt/query.js';
import type { RepoInfo } from '../../src/zoekt/wire.js';

const repoInfo = (name: string, branches: string[], indexTime = '2026-11-26T00:00:00Z'): RepoInfo => ({
  id: 1,
  name,
  url: '',
  branches: branches.map((b) => ({ name: b, version: `${b}-sha` })),
  hasSymbols: true,
  indexTime,
  languages: [],
  stats: { shards: 1, documents: 10, indexBytes: 1, contentBytes: 1 },
});

const GENERATION = generationOf([], [repoInfo('github.com/acme/web', ['main', 'dev']), repoInfo('github.com/acme/go', ['HEAD'])]);

type P = { repo: string; path: string; reason: 'too_large'; language: string; branches: string[] };
const file = (repo: string, path: string, language: string, branches: string[]): P => ({ repo, path, reason: 'too_large', language, branches });
const FILES: P[] = [
  file('github.com/acme/web', 'src/big.ts', 'TypeScript', ['main', 'dev']),
  file('github.com/acme/web', 'dist/app.min.js', 'JavaScript', ['main']),
  file('github.com/acme/web', 'logs/dev.log', 'Text', ['dev']),
  file('github.com/acme/go', 'testdata/huge.txt', 'Text', ['HEAD']),
  file('github.com/acme/go', 'cmd/main.go', 'Go', ['HEAD']),
  file('github.com/acme/go', 'nobranch.bin', '', []),
];

function matching(parts: q.QueryPart[]): string[] {
  const test = compileFilters(parts, GENERATION);
  expect(test, parts.map((p) => p.text).join(' ')).toBeDefined();
  return FILES.filter(test!).map((f) => `${f.repo.slice(16)}/${f.path}`);
}

describe('re2ToJs', () => {
  it('translates what the glob translators write, meaning the same', () => {
    const cases: [string, string[], string[]][] = [
      ['*.go', ['main.go', 'a/b/c.go'], ['main.gox', 'go', 'a.go/b']],
      ['src/', ['src/a.ts', 'lib/src/x/y'], ['xsrc/a.ts', 'srcx/a']],
      ['src/api/', ['src/api/a.ts'], ['lib/src/api/a.ts']],
      ['/main.go', ['main.go'], ['cmd/main.go']],
      ['src/**/*.ts', ['src/a.ts', 'src/x/y/a.ts'], ['a/src/a.ts', 'src/a.tsx']],
      ['[!a]?.txt', ['b1.txt', 'x/cc.txt'], ['a1.txt', 'b.txt']],
      ['a+b(c).txt', ['a+b(c).txt'], ['aab(c).txt', 'a+bc.txt']],
      ['[]]x', [']x'], ['x']],
      ['na\u00efve-\u{1f600}?', ['na\u00efve-\u{1f600}a'], ['na\u00efve-\u{1f600}ab']],
    ];
    for (const [glob, yes, no] of cases) {
      const re = re2ToJs(pathGlobToRegex(glob), 'lines')!;
      expect(re, glob).toBeDefined();
      for (const p of yes) expect(re.test(p), `${glob} ~ ${p}`).toBe(true);
      for (const p of no) expect(re.test(p), `${glob} !~ ${p}`).toBe(false);
    }
    const repo = re2ToJs(repoGlobToRegex('github.com/acme/*'), 'text')!;
    expect(repo.test('github.com/acme/web')).toBe(true);
    expect(repo.test('github.com/acme/web/sub')).toBe(false);
    expect(re2ToJs(repoGlobToRegex('web'), 'text')!.test('github.com/acme/web')).toBe(true);
  });

  it('keeps RE2 meanings JavaScript spells differently', () => {
    // `.` stops only at \n in RE2 (JavaScript's also stops at \r, U+2028, U+2029).
    expect(re2ToJs('^a.b$', 'text')!.test('a\rb')).toBe(true);
    expect(re2ToJs('^a.b$', 'text')!.test('a\nb')).toBe(false);
    // file: is compiled without OneLine: ^ and $ are the ends of lines; repo: with it.
    expect(re2ToJs('^b$', 'lines')!.test('a\nb\nc')).toBe(true);
    expect(re2ToJs('^b$', 'text')!.test('a\nb\nc')).toBe(false);
    // Braces that are not a repeat are literal; a lone ] or } is literal.
    expect(re2ToJs('a{x}', 'text')!.test('a{x}')).toBe(true);
    expect(re2ToJs('a{,2}', 'text')!.test('a{,2}')).toBe(true);
    expect(re2ToJs('a{2}', 'text')!.test('aa')).toBe(true);
    expect(re2ToJs('x]}', 'text')!.test('x]}')).toBe(true);
    expect(re2ToJs('a/b', 'text')!.test('a/b')).toBe(true);
    expect(re2ToJs('\\.go$', 'lines')!.test('a.go')).toBe(true);
    expect(re2ToJs('(?:x|y)\\d+', 'text')!.test('y12')).toBe(true);
  });

  it('refuses what it cannot translate exactly (the caller asks Zoekt)', () => {
    for (const re of ['(?i)readme', '\\bword\\b', '\\pL+', '\\p{Greek}', '[[:alpha:]]+', '\\Qa.b\\E', '(?P<n>x)', '(?<n>x)', 'a{1001}', '\\s', '\\z', '\\x41', '[\\d]', '\\_', '\\é', 'a(', '(?s).']) {
      expect(re2ToJs(re, 'lines'), re).toBeUndefined();
    }
  });
});

describe('compileFilters', () => {
  it('evaluates the shared filters as Zoekt does', () => {
    expect(matching([])).toHaveLength(FILES.length);
    expect(matching(filterParts({ repos: ['web'] }))).toEqual(['web/src/big.ts', 'web/dist/app.min.js', 'web/logs/dev.log']);
    expect(matching(filterParts({ paths: ['*.txt', 'cmd/'] }))).toEqual(['go/testdata/huge.txt', 'go/cmd/main.go']);
    expect(matching(filterParts({ exclude_paths: ['testdata/', '*.js'] }))).toEqual(['web/src/big.ts', 'web/logs/dev.log', 'go/cmd/main.go', 'go/nobranch.bin']);
    expect(matching(filterParts({ languages: ['ts', 'golang'] }))).toEqual(['web/src/big.ts', 'go/cmd/main.go']);
    expect(matching(filterParts({ exclude_languages: ['text'] }))).toEqual(['web/src/big.ts', 'web/dist/app.min.js', 'go/cmd/main.go', 'go/nobranch.bin']);
    // Text is prose: left out; a file of no language stays.
    expect(matching(filterParts({ source_code_only: true }))).toEqual(['web/src/big.ts', 'web/dist/app.min.js', 'go/cmd/main.go', 'go/nobranch.bin']);
    expect(matching([...filterParts({ repos: ['github.com/acme/*'], paths: ['src/', 'logs/'] }), q.not(q.or(q.file('\\.log$'), q.lang('Go')))])).toEqual(['web/src/big.ts']);
  });

  it('branch: a substring of one of the document\'s branches; HEAD, the repository\'s first', () => {
    expect(matching([q.branch('dev')])).toEqual(['web/src/big.ts', 'web/logs/dev.log']);
    expect(matching([q.branch('ma')])).toEqual(['web/src/big.ts', 'web/dist/app.min.js']);
    expect(matching([q.branch('HEAD')])).toEqual(['web/src/big.ts', 'web/dist/app.min.js', 'go/testdata/huge.txt', 'go/cmd/main.go']);
    expect(matching([q.branch('nope')])).toEqual([]);
  });

  it('gives up on anything else', () => {
    for (const parts of [[q.sym('x')], [q.raw('foo')], [q.content('x')], [q.caseMode('no')], [q.fileNamesOnly()], [q.file('(?i)readme')], [q.repo('\\bweb')]]) {
      expect(compileFilters(parts, GENERATION), parts[0]!.text).toBeUndefined();
    }
  });
});

describe('generationOf', () => {
  it('changes with an index time, a branch version or the scope, not with the order of the list', () => {
    const a = repoInfo('a', ['main']);
    const b = repoInfo('b', ['main']);
    expect(generationOf([], [a, b]).key).toBe(generationOf([], [b, a]).key);
    expect(generationOf([], [a, b]).key).not.toBe(generationOf([], [a, { ...b, indexTime: '2026-11-27T00:00:00Z' }]).key);
    expect(generationOf([], [a]).key).not.toBe(generationOf([], [{ ...a, branches: [{ name: 'main', version: 'other' }] }]).key);
    expect(generationOf([], [a]).key).not.toBe(generationOf(['a'], [a]).key);
  });
});
