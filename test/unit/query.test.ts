import { describe, expect, it } from 'vitest';
import { buildCodeQuery } from '../../src/search/code.js';
import * as q from '../../src/zoekt/query.js';

/** What Zoekt's parser gives back for a quoted token: backslash escapes removed. */
function unquote(token: string): string {
  expect(token.startsWith('"') && token.endsWith('"')).toBe(true);
  return token.slice(1, -1).replace(/\\(.)/g, '$1');
}

describe('escapeRegex', () => {
  it.each([
    ['foo(bar[0])', 'foo\\(bar\\[0\\]\\)'],
    ['a.b', 'a\\.b'],
    ['$x', '\\$x'],
    ['C++', 'C\\+\\+'],
    ['a|b', 'a\\|b'],
    ['{1,2}', '\\{1,2\\}'],
    ['^start', '\\^start'],
    ['back\\slash', 'back\\\\slash'],
    ['what?*', 'what\\?\\*'],
  ])('%s -> %s', (input, expected) => {
    expect(q.escapeRegex(input)).toBe(expected);
  });

  it('escaped text matches itself and nothing else as a JS regex (RE2-compatible subset)', () => {
    for (const text of ['foo(bar[0])', 'a.b', '$x', 'C++', 'x*y+z?', '(a|b)']) {
      const re = new RegExp(`^${q.escapeRegex(text)}$`);
      expect(re.test(text)).toBe(true);
    }
    expect(new RegExp(q.escapeRegex('a.b')).test('aXb')).toBe(false);
  });
});

describe('quote', () => {
  it.each(['plain', 'has "quotes"', 'back\\slash', 'a\\.b', 'or', '(', '-x', 'file:y', 'x) or repo:(other'])(
    'round-trips %s through the Zoekt tokenizer rules',
    (value) => {
      expect(unquote(q.quote(value))).toBe(value);
    },
  );
});

describe('query parts', () => {
  it('quotes every value so no argument adds an operator', () => {
    expect(q.render(q.file('x" or repo:evil'))).toBe('file:"x\\" or repo:evil"');
    expect(q.render(q.repo('^a$'))).toBe('repo:"^a$"');
    expect(q.render(q.branch('dev) or (x'))).toBe('branch:"dev) or (x"');
  });

  it('groups alternatives and negates groups', () => {
    expect(q.render(q.or(q.file('a'), q.file('b')))).toBe('( file:"a" or file:"b" )');
    expect(q.render(q.not(q.file('test/')))).toBe('-file:"test/"');
    expect(q.render(q.not(q.or(q.file('a'), q.file('b'))))).toBe('-( file:"a" or file:"b" )');
    expect(q.render(q.not(q.and(q.file('a'), q.file('b'))))).toBe('-( file:"a" file:"b" )');
    expect(q.render(q.and(q.raw('foo'), undefined, false, q.file('x')))).toBe('( foo ) file:"x"');
  });
});

describe('buildCodeQuery', () => {
  it('keeps the user query as one group and adds filters outside it', () => {
    expect(buildCodeQuery({ query: 'foo or bar', paths: ['/src/'], exclude_paths: ['*.md'] })).toBe(
      '( foo or bar ) file:"^src/" -file:"\\\\.md$"',
    );
  });

  it('escapes a literal query completely', () => {
    expect(buildCodeQuery({ query: 'foo(bar[0])', literal: true })).toBe('regex:"foo\\\\(bar\\\\[0\\\\]\\\\)"');
    expect(unquote(buildCodeQuery({ query: 'a.b', literal: true }).slice('regex:'.length))).toBe('a\\.b');
  });

  it('puts the case mode first and leaves auto implicit', () => {
    expect(buildCodeQuery({ query: 'x', case_sensitive: 'yes' })).toBe('case:yes ( x )');
    expect(buildCodeQuery({ query: 'x', case_sensitive: 'no' })).toBe('case:no ( x )');
    expect(buildCodeQuery({ query: 'x', case_sensitive: 'auto' })).toBe('( x )');
  });

  it('ORs repo globs and adds the branch', () => {
    expect(buildCodeQuery({ query: 'x', repos: ['github.com/acme/*', 'webapp'], branch: 'dev' })).toBe(
      '( x ) ( repo:"^github\\\\.com/acme/[^/]*$" or repo:"(?:^|/)webapp$" ) branch:"dev"',
    );
  });

  it('rejects an empty query', () => {
    expect(() => buildCodeQuery({ query: '   ' })).toThrow(/empty/);
  });
});

describe('grouping of the user query', () => {
  it.each(['foo ) or repo:other (', 'a )', '( a', 'x ) ( y', 'foo) or (bar'])('refuses %j, whose parentheses could escape the group', (query) => {
    expect(() => buildCodeQuery({ query, repos: ['webapp'] })).toThrow(/never (opened|closed)/);
  });

  it.each(['(foo)', 'foo(', 'a\\)', '"a ) b"', '( a or b ) c', 'file:( x'])('accepts %j, which Zoekt reads as balanced', (query) => {
    expect(() => buildCodeQuery({ query })).not.toThrow();
  });

  it('turns line breaks outside quotes into spaces, since Zoekt stops reading at one', () => {
    expect(buildCodeQuery({ query: 'foo\nbar', paths: ['/x'] })).toBe('( foo bar ) file:"^x$"');
    expect(buildCodeQuery({ query: '"a\nb"' })).toBe('( "a\nb" )');
  });
});

describe('case: in the user query', () => {
  it('is lifted out of the group, where Zoekt would ignore it', () => {
    expect(buildCodeQuery({ query: 'case:yes Server' })).toBe('case:yes ( Server )');
    expect(buildCodeQuery({ query: 'foo case:no bar', case_sensitive: 'no' })).toBe('case:no ( foo bar )');
    expect(buildCodeQuery({ query: '( a case:yes ) b' })).toBe('( ( a case:yes ) b )');
    expect(buildCodeQuery({ query: 'case:yes x', literal: true })).toBe('regex:"case:yes x"');
  });

  it('may not contradict case_sensitive', () => {
    expect(() => buildCodeQuery({ query: 'case:yes x', case_sensitive: 'no' })).toThrow(/case_sensitive/);
    expect(() => buildCodeQuery({ query: 'case:yes case:no x' })).toThrow(/both/);
    expect(() => buildCodeQuery({ query: 'case:yes' })).toThrow(/nothing to search/);
  });
});

describe('buildCodeQuery with regex: true', () => {
  it('sends the whole query as one quoted regex atom, spaces, groups and quotes its own', () => {
    expect(buildCodeQuery({ query: 'export (async )?function \\w+', regex: true })).toBe('regex:"export (async )?function \\\\w+"');
    expect(unquote(buildCodeQuery({ query: 'a "b" or -file:x )', regex: true }).slice('regex:'.length))).toBe('a "b" or -file:x )');
    expect(buildCodeQuery({ query: ' x ', regex: true, paths: ['/src/'] })).toBe('regex:" x " file:"^src/"');
  });

  it('lifts (?i) at its start into the case mode; refuses a lookaround, literal beside it, and what is too complex', () => {
    expect(buildCodeQuery({ query: '(?i)Foo bar', regex: true })).toBe('case:no regex:"Foo bar"');
    expect(() => buildCodeQuery({ query: 'foo (?i)bar', regex: true })).toThrow(/\(\?i\)/);
    expect(() => buildCodeQuery({ query: 'foo(?= bar)', regex: true })).toThrow(/lookaround/);
    expect(() => buildCodeQuery({ query: 'foo', regex: true, literal: true })).toThrow(/literal and regex/);
    expect(() => buildCodeQuery({ query: '((((a+)+)+)+)', regex: true })).toThrow(/too complex/);
  });
});
