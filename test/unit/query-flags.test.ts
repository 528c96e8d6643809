import { describe, expect, it } from 'vitest';
import { checkNoLookaround, liftCaseFlag } from '../../src/zoekt/query-syntax.js';
import { ToolError } from '../../src/errors.js';

describe('liftCaseFlag', () => {
  it.each([
    ['(?i)createserver\\(', 'createserver\\(', true],
    ['(?is)foo.bar', '(?s)foo.bar', true],
    ['(?si)foo', '(?s)foo', true],
    ['content:(?i)foo', 'content:foo', true],
    ['"(?i)foo bar"', '"foo bar"', true],
    ['file:\\.go$ (?i)handler', 'file:\\.go$ handler', true],
    ['(?i) foo', ' foo', true],
    ['(?s)foo', '(?s)foo', false],
    ['(?-i)foo', '(?-i)foo', false],
    ['\\(?i\\)foo', '\\(?i\\)foo', false],
    ['foo', 'foo', false],
  ])('%s → %s', (input, rest, fold) => {
    expect(liftCaseFlag(input)).toEqual({ rest, fold });
  });

  it.each(['foo(?i)bar', '(?i:foo)', 'x (?i:foo)bar'])('refuses %s, which Zoekt cannot honour', (input) => {
    expect(() => liftCaseFlag(input)).toThrow(ToolError);
    try {
      liftCaseFlag(input);
    } catch (e) {
      expect((e as ToolError).code).toBe('QUERY_ERROR');
      expect((e as ToolError).hint).toMatch(/case_sensitive: 'no'/);
    }
  });
});

describe('checkNoLookaround', () => {
  it.each([
    ['foo(?=bar)', /lookahead/],
    ['foo(?= bar)', /lookahead/],
    ['foo(?!bar)', /negative lookahead/],
    ['(?<=\\.)then', /lookbehind/],
    ['(?<! x)then', /negative lookbehind/],
  ])('refuses %s with the RE2 rule', (input, hint) => {
    try {
      checkNoLookaround(input);
      expect.unreachable();
    } catch (e) {
      expect((e as ToolError).code).toBe('QUERY_ERROR');
      expect((e as ToolError).hint).toMatch(hint);
    }
  });

  it.each(['foo\\(?=bar\\)', '(?i)foo', '(?P<name>x)', 'a(?:b)c'])('lets %s through', (input) => {
    expect(() => checkNoLookaround(input)).not.toThrow();
  });
});
