/**
 * Our reading of Zoekt's query syntax (src/zoekt/query-syntax.ts) against Zoekt's own parser, on
 * a few thousand generated queries (fast-check, fixed seed). Zoekt's side is test/support/zoekt-parse,
 * a Go program built against the pinned Zoekt module by scripts/setup.sh (the global setup runs
 * it): query.Parse on each query, as Zoekt's webserver does.
 *
 * What must hold, because search_code sends the caller's text as `( text )` with filters and the
 * repo scope ANDed after it:
 * - whatever Zoekt parses, we accept (no valid query refused for its grouping);
 * - whatever we accept, Zoekt reads `( text ) sentinel` with the sentinel a top-level conjunct,
 *   or refuses it: no text closes our group or carries an `or` past it;
 * - where both parse, we see as many terms as Zoekt has atoms (a term ends where Zoekt's does);
 * - with `regex: true`, the whole text is one regex atom: nothing in it is read as the syntax.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCodeQuery } from '../../src/search/code.js';
import { checkGrouping, normalizeWhitespace, tokenize } from '../../src/zoekt/query-syntax.js';
import { ZOEKT_PARSE as PARSER } from '../support/zoekt.js';
const SENTINEL = 'zzsentinelzz';
const SEED = 15_2026;
const RUNS = 4000;

interface Reading {
  error: string;
  parsed: string;
  atoms: number;
  sentinelTop: boolean;
}

/** Zoekt's reading of each query, in one run of the parser. */
function zoektParse(queries: string[]): Reading[] {
  const out = execFileSync(PARSER, { input: queries.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const lines = out.trim().split('\n');
  expect(lines).toHaveLength(queries.length);
  return lines.map((l) => JSON.parse(l) as Reading);
}

/** The pieces queries are made of: words, regex pieces, quotes, escapes, fields, operators, parens. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'bc', 'Server', 'x1', 'or', 'OR', 'ora', 'func') },
  { weight: 3, arbitrary: fc.constantFrom('(', ')', '( ', ' )', '(a)', '(a|b)', 'a(b)', '(x', 'y)', '((', '))') },
  { weight: 2, arbitrary: fc.constantFrom('"', '"a b"', '"(x) or ( y"', '"\\""', '\\"', '\\(', '\\)', '\\ ', '\\\\') },
  { weight: 2, arbitrary: fc.constantFrom('file:', 'repo:', 'r:', 'content:', 'sym:', 'case:yes', 'type:file', 'branch:', '-', '-(', 'a-b', '.*', '|', '[)]', '\\b') },
  { weight: 4, arbitrary: fc.constantFrom(' ', ' ', '  ', '\t', '\n') },
);
const queryArb = fc.array(piece, { minLength: 1, maxLength: 14 }).map((parts) => normalizeWhitespace(parts.join('')).trim()).filter((q) => q !== '');

function accepted(q: string): boolean {
  try {
    checkGrouping(q);
    return true;
  } catch {
    return false;
  }
}

/**
 * Zoekt errors about parentheses, the part of the grouping we check ourselves. (An `or` or a `-`
 * without an operand, and errors inside a term, Zoekt reports in its own words: QUERY_ERROR.)
 */
const GROUPING_ERROR = /missing close paren|extra tokens found/;

describe("our tokenizer against Zoekt's parser", () => {
  const queries = [...new Set(fc.sample(queryArb, { seed: SEED, numRuns: RUNS }))];
  const bare = zoektParse(queries);
  const wrapped = zoektParse(queries.map((q) => `( ${q} ) ${SENTINEL}`));

  it('generates thousands of distinct queries, of every outcome', () => {
    expect(queries.length).toBeGreaterThan(RUNS * 0.8);
    const oursOk = queries.filter(accepted).length;
    const zoektOk = bare.filter((r) => r.error === '').length;
    expect(oursOk).toBeGreaterThan(queries.length * 0.3);
    expect(queries.length - oursOk).toBeGreaterThan(queries.length * 0.1);
    expect(zoektOk).toBeGreaterThan(queries.length * 0.2);
  });

  it('accepts every query Zoekt parses', () => {
    const refused = queries.filter((q, i) => bare[i]!.error === '' && !accepted(q));
    expect(refused.slice(0, 20)).toEqual([]);
  });

  it('never lets accepted text reach past its group: the term after it stays a top-level conjunct', () => {
    const escaped = queries
      .map((q, i) => ({ q, zoekt: wrapped[i]! }))
      .filter(({ q, zoekt }) => accepted(q) && zoekt.error === '' && !zoekt.sentinelTop)
      .map(({ q, zoekt }) => `${q}  =>  ${zoekt.parsed}`);
    expect(escaped.slice(0, 20)).toEqual([]);
  });

  it('where we accept and Zoekt does not, the reason is inside a term, not the grouping', () => {
    const disagree = queries
      .map((q, i) => ({ q, error: wrapped[i]!.error }))
      .filter(({ q, error }) => accepted(q) && GROUPING_ERROR.test(error))
      // An empty quoted string ends Zoekt's query there (its token is empty): refused, not escaped.
      .filter(({ q }) => !/(^|[^\\])""/.test(q))
      .map(({ q, error }) => `${q}  =>  ${error}`);
    expect(disagree.slice(0, 20)).toEqual([]);
  });

  it('sees a term end where Zoekt does: as many terms as Zoekt has atoms', () => {
    const differ = queries
      .map((q, i) => ({ q, zoekt: bare[i]! }))
      // Fields that are not atoms (case:, type:) and terms Zoekt folds away (an empty field or
      // regex: 'file:', '|', '()', '""') aside.
      .filter(({ q, zoekt }) => zoekt.error === '' && !/case:|type:|branch:|\(\)|""/.test(q) && !zoekt.parsed.includes('orOp'))
      .filter(({ q }) => !tokenize(q).some((t) => t.kind === 'term' && /^(?:[a-z]+:)?\|*$/.test(t.text)))
      .filter(({ q, zoekt }) => {
        const terms = tokenize(q).filter((t) => t.kind === 'term' && q.slice(t.start, t.end) !== 'or').length;
        return terms !== zoekt.atoms;
      })
      .map(({ q, zoekt }) => `${q}  =>  ${zoekt.parsed}`);
    expect(differ.slice(0, 20)).toEqual([]);
  });
});

describe("search_code's regex: true against Zoekt's parser", () => {
  // The same pieces, kept as written: a regex keeps its spaces, tabs and line breaks.
  const texts = [...new Set(fc.sample(fc.array(piece, { minLength: 1, maxLength: 14 }).map((parts) => parts.join('')), { seed: SEED, numRuns: RUNS }))].filter((t) => t.trim() !== '');
  const built = texts.map((query) => {
    try {
      return buildCodeQuery({ query, regex: true });
    } catch {
      return undefined;
    }
  });
  const sent = texts.map((_, i) => built[i]).filter((b): b is string => b !== undefined);
  const readings = zoektParse(sent.map((b) => `${b} ${SENTINEL}`));

  it('sends almost every text, and Zoekt reads each as one regex beside the term after it, or refuses the regex itself', () => {
    expect(sent.length).toBeGreaterThan(texts.length * 0.9);
    const wrong = sent
      .map((b, i) => ({ b, r: readings[i]! }))
      .filter(({ r }) => (r.error === '' ? !r.sentinelTop || r.atoms > 2 : !r.error.startsWith('error parsing regexp')))
      .map(({ b, r }) => `${b}  =>  ${r.error || r.parsed}`);
    expect(wrong.slice(0, 20)).toEqual([]);
    // Both outcomes occur: these texts are full of unbalanced parentheses.
    expect(readings.filter((r) => r.error === '').length).toBeGreaterThan(sent.length * 0.2);
    expect(readings.filter((r) => r.error !== '').length).toBeGreaterThan(sent.length * 0.1);
  });
});
