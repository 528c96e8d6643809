import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { checkQueryBounds, checkRegexBounds, checkSentQuery, groupDepth, QUERY_LIMITS, regexShape } from '../../src/zoekt/query-bounds.js';
import { tokenize } from '../../src/zoekt/query-syntax.js';
import { nested, toolErrorOf } from '../support/refusals.js';


describe('checkQueryBounds', () => {
  it('accepts the queries people write', () => {
    for (const query of [
      'parseConfig',
      'func\\s+main lang:go',
      '( foo or bar ) -file:_test\\.go$',
      'case:yes ( ( a or b ) c ) or d',
      'sym:"^(get|set)[A-Z]\\w*$" file:\\.ts$',
      '"func (s \\\\*Server) Start" repo:acme',
      '(\\w+\\.)+\\w+ -( vendor or testdata )',
      'getName|getId|getUser',
    ]) {
      expect(() => checkQueryBounds(query), query).not.toThrow();
    }
  });

  it.each([
    ['parens', nested(18)],
    ['parens just past the limit', nested(QUERY_LIMITS.groupDepth + 1)],
    ['or groups', nested(18, 'a', '( a or ', ' )')],
    ['negated groups', nested(3, 'a', '-( ', ' )')],
    ['groups with regex groups inside', nested(8, '(a|b)', '( (x) or ', ' )')],
  ])('refuses deep nesting (%s), naming the limit', (_what, query) => {
    const err = toolErrorOf(() => checkQueryBounds(query));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toMatch(new RegExp(`levels deep .*more than the ${QUERY_LIMITS.groupDepth} accepted`));
    expect(err.hint).toMatch(/'a or \( b or c \)' is 'a or b or c'/);
  });

  it('accepts nesting up to the limit', () => {
    expect(() => checkQueryBounds(nested(QUERY_LIMITS.groupDepth))).not.toThrow();
    expect(() => checkQueryBounds(nested(2, 'a', '-( ', ' )'))).not.toThrow();
  });

  it('refuses too many terms, alternatives, repeats of repeats and characters', () => {
    const words = (n: number, sep: string) => Array.from({ length: n }, (_, i) => `w${i}`).join(sep);
    expect(toolErrorOf(() => checkQueryBounds(words(QUERY_LIMITS.terms + 1, ' '))).message).toMatch(/65 terms, more than the 64 accepted/);
    expect(() => checkQueryBounds(words(QUERY_LIMITS.terms, ' '))).not.toThrow();
    expect(() => checkQueryBounds(words(60, ' or '))).not.toThrow();
    expect(toolErrorOf(() => checkQueryBounds(words(101, '|'))).message).toMatch(/101 alternatives/);
    expect(toolErrorOf(() => checkQueryBounds(`${words(50, '|')} or ${words(51, '|')}`)).message).toMatch(/101 alternatives \('or' and regex '\|'\)/);
    expect(toolErrorOf(() => checkQueryBounds('(((a+)+)+)+')).message).toMatch(/nests repeats 4 deep/);
    expect(toolErrorOf(() => checkQueryBounds('x'.repeat(QUERY_LIMITS.chars + 1))).message).toMatch(/2001 characters/);
  });

  it('counts regex alternatives only in fields Zoekt reads as regexes', () => {
    const alts = Array.from({ length: 101 }, (_, i) => `b${i}`).join('|');
    expect(() => checkQueryBounds(`file:${alts}`)).toThrow(/alternatives/);
    expect(() => checkQueryBounds(`branch:${alts}`)).not.toThrow();
    expect(() => checkQueryBounds(`"${alts}"`)).toThrow(/alternatives/);
  });
});

describe('regexShape', () => {
  it.each([
    ['a|b|c', 2, 0],
    ['[|]|\\|', 1, 0],
    ['a+', 0, 1],
    ['(a+)+', 0, 2],
    ['((a*b)+c){2,5}', 0, 3],
    ['(?:\\w+\\s*)*', 0, 2],
    ['a{2}', 0, 1],
    ['a{x}', 0, 0],
    ['[[:alpha:]|]+', 0, 1],
    ['\\Q(a+)+|\\E', 0, 0],
    ['(a+?)+', 0, 2],
    ['(a)(b)+', 0, 1],
    ['\\p{Greek}+', 0, 1],
  ])('%s: %i alternatives, repeats nested %i deep', (re, alternatives, repeatNesting) => {
    expect(regexShape(re)).toEqual({ alternatives, repeatNesting });
  });
});

describe('checkRegexBounds', () => {
  it('names the argument and the limit', () => {
    const err = toolErrorOf(() => checkRegexBounds('(((a+)+)+)+', 'the name regex'));
    expect(err.message).toMatch(/^the name regex is too complex/);
    expect(() => checkRegexBounds('^get(User|Name)$', 'the name regex')).not.toThrow();
  });
});

describe('groupDepth and checkSentQuery', () => {
  it('counts grouping parens only, a negated group twice', () => {
    expect(groupDepth(tokenize('(a) ( b )'))).toBe(1);
    expect(groupDepth(tokenize('-( a ( b ) )'))).toBe(3);
  });

  it('never sends a query nested past the bound, whoever built it', () => {
    expect(() => checkSentQuery(nested(9))).toThrow(ToolError);
    expect(() => checkSentQuery(nested(8))).not.toThrow();
  });
});
