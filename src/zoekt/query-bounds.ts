/**
 * How much work one query may give Zoekt, checked before it is sent.
 *
 * Zoekt plans a query before any deadline applies, and the planning is not linear: each level
 * of grouping (`( … )`, and more so `-( … )`) multiplies the work of its simplification by three
 * to four (query.Map re-walks every subtree it maps): against the pinned zoekt-webserver, a query
 * nested more than a dozen levels deep runs past a minute and goes on after the caller has gone
 * (bench/README.md, "Query planning", has the timings). A query is also one request whose cost
 * grows with its terms and alternatives. The limits below are far above what a person
 * or an agent writes, and far below what keeps Zoekt busy: past them the call is refused with
 * the limit named and a way to rewrite the query.
 */
import { ToolError } from '../errors.js';
import { tokenize, type QueryToken } from './query-syntax.js';

export const QUERY_LIMITS = {
  /** Characters of query text or of one regex. */
  chars: 2000,
  /** Grouping levels the caller writes; a negated group counts as two (`-( … )`). */
  groupDepth: 5,
  /** Terms (atoms such as `foo`, `file:x`, `-lang:go`) in one query. */
  terms: 64,
  /** `or` operators plus regex `|` alternatives over the whole query. */
  alternatives: 100,
  /** Repeats of repeats in one regex: `((a+)+)+` is three. */
  repeatNesting: 3,
} as const;

/**
 * The grouping depth Zoekt itself is sent at most: the caller's levels plus the ones we add
 * (search_code keeps the query in a group of its own; filters add an `( … or … )`). A query over
 * this is a bug of ours, and is still not sent.
 */
export const SENT_GROUP_DEPTH = QUERY_LIMITS.groupDepth + 3;

function tooComplex(what: string, message: string, hint: string): ToolError {
  return new ToolError('INVALID_ARGUMENT', `${what} is too complex to send to Zoekt: ${message}`, hint, { retryable: false });
}

const DEPTH_HINT =
  "Remove parentheses that do not change the meaning: '( ( a b ) )' is 'a b', 'a or ( b or c )' is 'a or b or c', and '-( -( a ) )' is 'a'. Negate single terms ('-foo') rather than groups, or split the query into several calls.";
const TERMS_HINT =
  'Search for fewer terms at once: split the query into several calls, or move file:, lang: and repo: terms into the paths, languages and repos arguments.';
const ALTERNATIVES_HINT =
  "Split the alternatives over several calls, or write them as one shorter regex (a common prefix, a character class: 'get(Name|Id)' rather than 'getName|getId').";
const REPEAT_HINT = "Simplify the regex: a repeat of a repeat matches what one repeat does ('(a+)+' is 'a+', '(\\w+\\s*)*' is '[\\w\\s]*').";

function lengthHint(what: string): string {
  return `Shorten ${what} to at most ${QUERY_LIMITS.chars} characters: search for the most distinctive part.`;
}

/** What one regex asks of Zoekt: its `|` alternatives and how deeply repeats nest. */
export interface RegexShape {
  alternatives: number;
  repeatNesting: number;
}

/**
 * Reads an RE2 regex far enough to count its alternatives and nested repeats: escapes, classes
 * (`[…]`, `[[:alpha:]]`) and groups are skipped over; syntax errors are left to Zoekt.
 */
export function regexShape(re: string): RegexShape {
  let alternatives = 0;
  // Per open group: the deepest repeat nesting inside it so far.
  const groups: number[] = [0];
  // The repeat nesting of the atom just read, which a quantifier after it would repeat.
  let last = 0;
  let deepest = 0;
  const note = (n: number) => {
    groups[groups.length - 1] = Math.max(groups[groups.length - 1]!, n);
    deepest = Math.max(deepest, n);
  };
  for (let i = 0; i < re.length; i++) {
    const c = re[i]!;
    if (c === '\\') {
      // \Q…\E is a literal run; any other escape is one atom (\pL, \p{Greek}, \x{1F600}).
      if (re[i + 1] === 'Q') {
        const end = re.indexOf('\\E', i + 2);
        i = end < 0 ? re.length : end + 1;
      } else if ((re[i + 1] === 'p' || re[i + 1] === 'P' || re[i + 1] === 'x') && re[i + 2] === '{') {
        const end = re.indexOf('}', i + 3);
        i = end < 0 ? re.length : end;
      } else {
        i++;
      }
      last = 0;
    } else if (c === '[') {
      // A class: ']' right after '[' or '[^' is a member; '[:name:]' inside is one item.
      let j = i + 1;
      if (re[j] === '^') j++;
      if (re[j] === ']') j++;
      for (; j < re.length && re[j] !== ']'; j++) {
        if (re[j] === '\\') j++;
        else if (re[j] === '[' && re[j + 1] === ':') {
          const end = re.indexOf(':]', j + 2);
          if (end >= 0) j = end + 1;
        }
      }
      i = j;
      last = 0;
    } else if (c === '(') {
      groups.push(0);
      last = 0;
    } else if (c === ')') {
      last = groups.length > 1 ? groups.pop()! : 0;
    } else if (c === '|') {
      alternatives++;
      last = 0;
    } else if (c === '*' || c === '+' || (c === '{' && /^\{\d+(,\d*)?\}/.test(re.slice(i)))) {
      if (c === '{') i = re.indexOf('}', i);
      note(last + 1);
      // `a**` is not a deeper repeat; a lazy or possessive mark is part of this quantifier.
      last = 0;
      if (re[i + 1] === '?') i++;
    } else if (c === '?') {
      last = 0;
    } else {
      last = 0;
    }
  }
  return { alternatives, repeatNesting: deepest };
}

/** Throws INVALID_ARGUMENT when one regex argument (a sym: name, a file pattern) is past a limit. */
export function checkRegexBounds(re: string, what: string): void {
  if (re.length > QUERY_LIMITS.chars) {
    throw tooComplex(what, `it has ${re.length} characters, more than the ${QUERY_LIMITS.chars} accepted`, lengthHint(what));
  }
  const shape = regexShape(re);
  if (shape.alternatives + 1 > QUERY_LIMITS.alternatives) {
    throw tooComplex(what, `it has ${shape.alternatives + 1} alternatives ('|'), more than the ${QUERY_LIMITS.alternatives} accepted`, ALTERNATIVES_HINT);
  }
  if (shape.repeatNesting > QUERY_LIMITS.repeatNesting) {
    throw tooComplex(what, `it nests repeats ${shape.repeatNesting} deep, more than the ${QUERY_LIMITS.repeatNesting} accepted`, REPEAT_HINT);
  }
}

/** The prefixes whose value Zoekt reads as a regex (query/parse.go). */
const REGEX_FIELD = /^(?:regex|file|f|content|c|repo|r|sym):/;

/** The regex a term gives Zoekt: a bare term, or the value of a regex field; none for other fields. */
function termRegex(token: QueryToken, raw: string): string | undefined {
  const field = /^([a-z]+):/.exec(raw)?.[0];
  if (!field) return token.text;
  return REGEX_FIELD.test(field) ? token.text.slice(field.length) : undefined;
}

/** The deepest grouping of a tokenized query, a negated group counting twice. */
export function groupDepth(tokens: readonly QueryToken[]): number {
  let depth = 0;
  let deepest = 0;
  const stack: number[] = [];
  tokens.forEach((t, i) => {
    if (t.kind === 'open') {
      const weight = tokens[i - 1]?.kind === 'negate' ? 2 : 1;
      stack.push(weight);
      depth += weight;
      deepest = Math.max(deepest, depth);
    } else if (t.kind === 'close') {
      depth -= stack.pop() ?? 0;
    }
  });
  return deepest;
}

/**
 * Throws INVALID_ARGUMENT when a query in Zoekt syntax (search_code's `query`) is past a limit:
 * length, grouping depth, terms, alternatives (`or` and regex `|`), or a regex's nested repeats.
 */
export function checkQueryBounds(input: string, what = 'the query'): void {
  if (input.length > QUERY_LIMITS.chars) {
    throw tooComplex(what, `it has ${input.length} characters, more than the ${QUERY_LIMITS.chars} accepted`, lengthHint(what));
  }
  const tokens = tokenize(input);
  const depth = groupDepth(tokens);
  if (depth > QUERY_LIMITS.groupDepth) {
    throw tooComplex(what, `it nests groups ${depth} levels deep (a negated group counts twice), more than the ${QUERY_LIMITS.groupDepth} accepted`, DEPTH_HINT);
  }
  let terms = 0;
  let alternatives = 1;
  for (const t of tokens) {
    if (t.kind !== 'term') continue;
    const raw = input.slice(t.start, t.end);
    if (raw === 'or') {
      alternatives++;
      continue;
    }
    terms++;
    const re = termRegex(t, raw);
    if (re === undefined) continue;
    const shape = regexShape(re);
    alternatives += shape.alternatives;
    if (shape.repeatNesting > QUERY_LIMITS.repeatNesting) {
      throw tooComplex(what, `the regex '${re.length > 60 ? `${re.slice(0, 60)}…` : re}' nests repeats ${shape.repeatNesting} deep, more than the ${QUERY_LIMITS.repeatNesting} accepted`, REPEAT_HINT);
    }
  }
  if (terms > QUERY_LIMITS.terms) {
    throw tooComplex(what, `it has ${terms} terms, more than the ${QUERY_LIMITS.terms} accepted`, TERMS_HINT);
  }
  if (alternatives > QUERY_LIMITS.alternatives) {
    throw tooComplex(what, `it has ${alternatives} alternatives ('or' and regex '|'), more than the ${QUERY_LIMITS.alternatives} accepted`, ALTERNATIVES_HINT);
  }
}

/**
 * The last check before a query leaves for Zoekt: whatever built it, it does not nest past
 * SENT_GROUP_DEPTH. Everything we build stays well below; this keeps a mistake of ours from
 * becoming a minute of Zoekt's CPU.
 */
export function checkSentQuery(query: string): void {
  let tokens: QueryToken[];
  try {
    tokens = tokenize(query);
  } catch {
    // Zoekt reports what it cannot parse, with its own message.
    return;
  }
  const depth = groupDepth(tokens);
  if (depth > SENT_GROUP_DEPTH) {
    throw tooComplex('the query', `it nests groups ${depth} levels deep, more than the ${SENT_GROUP_DEPTH} sent to Zoekt`, DEPTH_HINT);
  }
}
