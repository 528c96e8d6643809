/**
 * Reads a query in Zoekt syntax the way Zoekt's tokenizer does (query/parse.go), far enough to
 * know its grouping. search_code wraps the user's query in `( … )` and ANDs filters after it;
 * that is only sound when the query's own parentheses balance, so a stray `)` cannot close our
 * group and an `or` cannot reach past the filters.
 *
 * Zoekt's rules that matter here: a token ends at a space, tab or newline unless inside a `(`
 * the token itself opened; `(` is a grouping paren only when it is a whole token or is followed
 * by a space inside its token; `"…"` is a string whose `\x` escapes drop the backslash; `\x`
 * outside quotes keeps both characters; a leading `-` is its own token.
 */
import { ToolError } from '../errors.js';
import { lookaroundHint } from './query-errors.js';

export interface QueryToken {
  kind: 'open' | 'close' | 'negate' | 'term';
  /** The token's text, quotes resolved, as Zoekt sees it (prefix included, e.g. `case:yes`). */
  text: string;
  /** Where the token stands in the input: [start, end). */
  start: number;
  end: number;
}

function syntaxError(message: string, hint: string): ToolError {
  return new ToolError('QUERY_ERROR', `the query does not parse: ${message}`, hint, { retryable: false });
}

const LITERAL_TIP = 'To search the exact text instead, call again with literal: true.';

export function tokenize(input: string): QueryToken[] {
  const tokens: QueryToken[] = [];
  let pos = 0;
  const n = input.length;
  while (pos < n) {
    while (pos < n && (input[pos] === ' ' || input[pos] === '\t' || input[pos] === '\n' || input[pos] === '\r')) pos++;
    if (pos >= n) break;
    if (input[pos] === '-') {
      tokens.push({ kind: 'negate', text: '-', start: pos, end: pos + 1 });
      pos++;
      continue;
    }
    const start = pos;
    let parenCount = 0;
    let foundSpace = false;
    let text = '';
    scan: while (pos < n) {
      const c = input[pos]!;
      switch (c) {
        case '(':
          parenCount++;
          text += c;
          pos++;
          break;
        case ')':
          if (parenCount === 0) {
            if (text === '') {
              text = ')';
              pos++;
            }
            break scan;
          }
          parenCount--;
          text += c;
          pos++;
          break;
        case '"': {
          pos++;
          let closed = false;
          while (pos < n) {
            const d = input[pos]!;
            pos++;
            if (d === '"') {
              closed = true;
              break;
            }
            if (d === '\\') {
              if (pos >= n) break;
              text += input[pos]!;
              pos++;
            } else {
              text += d;
            }
          }
          if (!closed) {
            throw syntaxError('a quoted string is never closed', `Add the closing '"', or escape a literal quote as \\". ${LITERAL_TIP}`);
          }
          break;
        }
        case '\\':
          if (pos + 1 >= n) throw syntaxError('the query ends with a lone backslash', 'Remove it, or write \\\\ for a literal backslash.');
          text += input.slice(pos, pos + 2);
          pos += 2;
          break;
        case ' ':
        case '\t':
        case '\n':
        case '\r':
          if (parenCount > 0) foundSpace = true;
          break scan;
        default:
          text += c;
          pos++;
      }
    }
    // The query is always sent with more after it (search_code's closing ' )'), so a token that
    // ends the text with a '(' still open is followed by a space there: Zoekt reads its '(' as a
    // grouping paren, and so do we.
    if (pos >= n && parenCount > 0) foundSpace = true;
    if (foundSpace && text.startsWith('(')) {
      tokens.push({ kind: 'open', text: '(', start, end: start + 1 });
      pos = start + 1;
    } else if (text === '(') {
      tokens.push({ kind: 'open', text, start, end: pos });
    } else if (text === ')') {
      tokens.push({ kind: 'close', text, start, end: pos });
    } else if (text !== '') {
      tokens.push({ kind: 'term', text, start, end: pos });
    }
  }
  return tokens;
}

/** Throws QUERY_ERROR unless the query's grouping parentheses balance. */
export function checkGrouping(input: string): QueryToken[] {
  const tokens = tokenize(input);
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === 'open') depth++;
    if (t.kind === 'close') {
      depth--;
      if (depth < 0) {
        throw syntaxError(
          "a ')' closes a group that was never opened",
          `Zoekt groups with ( … ); remove the ')' or escape it as '\\)' to match a literal parenthesis. ${LITERAL_TIP}`,
        );
      }
    }
  }
  if (depth > 0) {
    throw syntaxError(
      `${depth} group(s) opened with '(' are never closed`,
      `Add the missing ')', or escape '(' as '\\(' to match a literal parenthesis. ${LITERAL_TIP}`,
    );
  }
  return tokens;
}

/** Zoekt ends a query at a line break outside quotes; spaces keep the rest of it in play. */
export function normalizeWhitespace(input: string): string {
  let out = '';
  let inQuote = false;
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (c === '\\' && i + 1 < input.length) {
      out += c + input[i + 1]!;
      i++;
      continue;
    }
    if (c === '"') inQuote = !inQuote;
    out += !inQuote && (c === '\n' || c === '\r' || c === '\t') ? ' ' : c;
  }
  return out;
}

export type CaseAtom = 'yes' | 'no' | 'auto';

/**
 * Zoekt honours `case:` only at the top level of a query; inside a group it is ignored. Since
 * the user's query is put inside a group, its top-level `case:` atoms are taken out here and
 * applied outside. Returns the query without them and the mode they asked for.
 */
export function liftCase(input: string): { rest: string; mode?: CaseAtom } {
  const tokens = checkGrouping(input);
  let depth = 0;
  let mode: CaseAtom | undefined;
  const cut: [number, number][] = [];
  tokens.forEach((t, i) => {
    if (t.kind === 'open') depth++;
    if (t.kind === 'close') depth--;
    const m = /^case:(yes|no|auto)$/.exec(t.text);
    if (depth === 0 && t.kind === 'term' && m && tokens[i - 1]?.kind !== 'negate') {
      if (mode !== undefined && mode !== m[1]) {
        throw new ToolError('QUERY_ERROR', `the query asks for both case:${mode} and case:${m[1]}`, 'Keep one case: atom, or drop them and use the case_sensitive argument.', { retryable: false });
      }
      mode = m[1] as CaseAtom;
      cut.push([t.start, t.end]);
    }
  });
  if (mode === undefined) return { rest: input };
  let rest = '';
  let at = 0;
  for (const [start, end] of cut) {
    rest += input.slice(at, start);
    at = end;
  }
  rest += input.slice(at);
  return { rest: rest.replace(/\s+/g, ' ').trim(), mode };
}

/** Regex syntax in a bare term: an escape, a group, a class, a quantifier or an anchor. */
const REGEX_SYNTAX = /[\\()[\]{}*+?|^$]/;

/**
 * Zoekt splits a query at spaces into terms that must each match somewhere in the file, so a
 * regex written with spaces (`func \(\w+ \*Server\) Serve`) silently becomes several. When a
 * run of two or more bare terms has regex syntax in it, this says how the query was split and
 * gives the forms that keep it one regex; otherwise undefined.
 */
export function splitRegexHint(input: string): string | undefined {
  let tokens: QueryToken[];
  try {
    tokens = tokenize(normalizeWhitespace(input));
  } catch {
    return undefined;
  }
  const bare = (t: QueryToken | undefined) => t?.kind === 'term' && !/^[a-z]+:/i.test(t.text) && t.text !== 'or';
  let best: QueryToken[] = [];
  let run: QueryToken[] = [];
  tokens.forEach((t, i) => {
    if (bare(t) && tokens[i - 1]?.kind !== 'negate') run.push(t);
    else run = [];
    if (run.length > best.length) best = [...run];
  });
  if (best.length < 2 || !best.some((t) => REGEX_SYNTAX.test(t.text))) return undefined;
  const text = input.slice(best[0]!.start, best[best.length - 1]!.end);
  const oneRegex = text.replace(/\s+/g, '\\s+');
  return (
    `The query was split at spaces into ${best.length} terms that must each match somewhere in the file: ${best.map((t) => `'${t.text}'`).join(', ')}. ` +
    `To match them as one regex, call again with regex: true (the whole query is then one RE2 regex, its spaces included), or write the spaces as \\s+ ('${oneRegex}').`
  );
}

/** The fields of Zoekt's query syntax (query/parse.go), as a term starts with them. */
const FIELD = /^(?:file|f|content|c|repo|r|regex|sym|lang|l|case|branch|b|type|t|archived|fork|public):/;

/**
 * A query that reads as one regex written with spaces or groups (`export (async )?function
 * \w+Middleware`), which Zoekt's query syntax cuts into terms and grouping parentheses: it has
 * spaces and regex syntax, and none of the syntax's own words (fields, `-`, `or`). Then the tip
 * to search it as one regex; otherwise undefined.
 */
export function oneRegexTip(input: string): string | undefined {
  const words = input.trim().split(/\s+/);
  if (words.length < 2 || !REGEX_SYNTAX.test(input)) return undefined;
  if (words.some((w) => w === 'or' || w.startsWith('-') || FIELD.test(w))) return undefined;
  return (
    "Zoekt's query syntax splits a query at spaces into separate terms and reads parentheses around a space as grouping, " +
    'so a regex written with spaces or groups is cut apart: to search the whole query as one RE2 regex, call again with regex: true.'
  );
}

/** Where `(?` opens a group in the query text, escaped parentheses skipped. */
function flagGroups(input: string): number[] {
  const at: number[] = [];
  for (let i = 0; i < input.length; i++) {
    if (input[i] === '\\') i++;
    else if (input.startsWith('(?', i)) at.push(i);
  }
  return at;
}

/** RE2 has no lookaround: say so before Zoekt's parser misreads a lookaround that holds a space. */
export function checkNoLookaround(input: string): void {
  for (const at of flagGroups(input)) {
    const form = /^<?[=!]/.exec(input.slice(at + 2))?.[0];
    if (form) throw new ToolError('QUERY_ERROR', `the query uses a lookaround '(?${form}…)', which RE2 does not have`, lookaroundHint(form), { retryable: false });
  }
}

/**
 * Zoekt does not honour the `i` flag of a regex (`(?i)foo` finds only `foo`): case is a setting
 * of the whole query. A term that starts with flags holding `i` (`(?i)`, `(?is)`) loses the `i`
 * here, and the caller searches case-insensitively; an `i` anywhere else cannot be honoured and
 * is refused with the forms that work.
 */
export function liftCaseFlag(input: string, oneRegex = false): { rest: string; fold: boolean } {
  // Where terms start: the one regex starts at the start (search_code's regex: true).
  const starts = new Set<number>(oneRegex ? [0] : []);
  for (const t of oneRegex ? [] : tokenize(input)) {
    if (t.kind !== 'term') continue;
    const lead = /^(?:[a-z]+:)?"?/.exec(input.slice(t.start, t.end))![0].length;
    starts.add(t.start + lead);
  }
  let rest = '';
  let from = 0;
  let fold = false;
  for (const at of flagGroups(input)) {
    const flags = /^\(\?([a-zA-Z]*)(?:\)|:)/.exec(input.slice(at));
    const on = flags?.[1]?.split('-')[0] ?? '';
    if (!flags || !on.includes('i')) continue;
    if (!starts.has(at) || flags[0].endsWith(':')) {
      throw new ToolError(
        'QUERY_ERROR',
        "Zoekt does not honour the regex flag (?i) inside a term or a (?i:…) group: case is set for the whole query",
        "Put (?i) at the start of the term ('(?i)createserver') or pass case_sensitive: 'no' (both search the whole query case-insensitively), or spell the cases out: '[cC]reate[sS]erver'.",
        { retryable: false },
      );
    }
    const kept = flags[1]!.replace('i', '');
    rest += input.slice(from, at) + (kept && kept !== '-' ? `(?${kept})` : '');
    from = at + flags[0].length;
    fold = true;
  }
  return { rest: rest + input.slice(from), fold };
}
