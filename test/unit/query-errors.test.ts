import { describe, expect, it } from 'vitest';
import { queryErrorHint } from '../../src/zoekt/query-errors.js';

// Zoekt's messages as zoekt-webserver returns them for these queries (recorded from the pinned version).
describe('queryErrorHint', () => {
  it.each([
    ['error parsing regexp: missing closing ): `foo(`', /Unbalanced parenthesis.*foo\\\(/],
    ['query: extra tokens found at end input: ")b"', /Unbalanced parentheses/],
    ['error parsing regexp: invalid or unsupported Perl syntax: `(?=`', /no lookahead \(\?=…\)/],
    ['error parsing regexp: invalid or unsupported Perl syntax: `(?!`', /no negative lookahead \(\?!…\)/],
    // Go reads (?< as the start of a named group, so lookbehind fails as a bad named capture.
    ['error parsing regexp: invalid named capture: `(?<=foo)bar`', /no lookbehind \(\?<=…\)/],
    ['error parsing regexp: invalid named capture: `(?<!foo)bar`', /no negative lookbehind \(\?<!…\)/],
    ['error parsing regexp: invalid escape sequence: `\\1`', /no backreferences/],
    ['error parsing regexp: invalid escape sequence: `\\Z`', /use \\z/],
    ['error parsing regexp: invalid repeat count: `{2,1}`', /min ≤ max/],
    ['error parsing regexp: invalid character class range: `z-a`', /low to high/],
    ['error parsing regexp: missing closing ]: `[abc`', /Unclosed character class/],
    ['error parsing regexp: invalid nested repetition operator: `**`', /'\*\*' is a glob.*'\.\*'/],
    ['error parsing regexp: missing argument to repetition operator: `*`', /write '\.\*'/],
    ['query: unterminated quoted string', /quoted string that never closes/],
    ['query: OR operator should have operand', /'or' needs a term on both sides/],
    ['query: unknown case argument "maybe", want {yes,no,auto}', /case: takes yes, no or auto/],
    ['something Zoekt may say one day', /Bare terms are RE2 regexes/],
  ])('%s', (message, hint) => {
    expect(queryErrorHint(message)).toMatch(hint);
  });
});
