/**
 * Turns Zoekt's query error text (its parser's and Go's regexp/syntax messages) into a hint
 * that says which rule was broken and, where it can be derived, the corrected form.
 */

const LITERAL_TIP = 'To search the exact text instead, call again with literal: true.';

/** Zoekt's HTTP 500 for a sym: regex that is only an alternation of words. */
const SYMBOL_ALTERNATION = /inside query\.Symbol/;

/** The fragment Go quotes in backticks at the end of a regexp error, e.g. missing closing ): `foo(`. */
function quotedFragment(message: string): string | undefined {
  const m = /`([^`]*)`\s*$/.exec(message);
  return m?.[1];
}

/** The hint for a lookaround, `form` being what follows `(?`: `=`, `!`, `<=` or `<!`. */
export function lookaroundHint(form: string): string {
  const name = { '=': 'lookahead (?=…)', '!': 'negative lookahead (?!…)', '<=': 'lookbehind (?<=…)', '<!': 'negative lookbehind (?<!…)' }[form] ?? 'lookaround';
  return (
    `RE2 has no ${name}: it supports no lookaround at all ((?=…), (?!…), (?<=…), (?<!…)). Match the surrounding text directly ` +
    `(e.g. 'foo\\(' instead of 'foo(?=\\()', '\\.then\\(' instead of '(?<=\\.)then\\('), or split it into two terms that must both appear ('foo bar'); ` +
    `a negative form becomes a negated term: 'foo -bar'. ${LITERAL_TIP}`
  );
}

interface Rule {
  test: RegExp;
  hint: (message: string, fragment: string | undefined) => string;
}

const RULES: Rule[] = [
  {
    // Go reports (?= and (?! as Perl syntax, and (?<= and (?<! as a bad named capture.
    test: /(?:invalid or unsupported Perl syntax|invalid named capture): `\(\?<?[=!]/,
    hint: (m) => lookaroundHint(/`\(\?(<?[=!])/.exec(m)?.[1] ?? '='),
  },
  {
    test: /invalid or unsupported Perl syntax/,
    hint: (_m, f) =>
      `RE2 does not support the Perl construct ${f ? `'${f}'` : ''} (no atomic groups, possessive quantifiers, recursion or inline code). Rewrite it with plain groups and quantifiers. ${LITERAL_TIP}`,
  },
  {
    test: /invalid escape sequence: `\\[1-9]/,
    hint: () =>
      `RE2 has no backreferences (\\1, \\2 …): a regex cannot require the same text twice. Search for one occurrence and check the other in the results. ${LITERAL_TIP}`,
  },
  {
    test: /invalid escape sequence: `\\x/,
    hint: () =>
      `In RE2, \\x takes exactly two hex digits (\\x41) or braces for more (\\x{1F600}). ${LITERAL_TIP}`,
  },
  {
    test: /invalid escape sequence: `\\Z`/,
    hint: () => `RE2 has no \\Z; use \\z (end of text) or $ (end of line, with (?m)).`,
  },
  {
    test: /invalid escape sequence/,
    hint: (_m, f) =>
      `${f ? `'${f}' is not an RE2 escape. ` : ''}RE2 knows \\d \\w \\s \\b \\pL \\x41 \\x{…} \\n \\t and escaped punctuation (\\. \\( \\[ …). To match a backslash write \\\\. ${LITERAL_TIP}`,
  },
  {
    test: /missing closing \)/,
    hint: (_m, f) =>
      `Unbalanced parenthesis: a '(' is never closed. Escape it to match a literal parenthesis${f ? ` ('${escapeParens(f)}')` : ''}, or add the missing ')'. ${LITERAL_TIP}`,
  },
  {
    test: /unexpected \)/,
    hint: (_m, f) =>
      `Unbalanced parenthesis: a ')' has no matching '('. Escape it as '\\)'${f ? ` ('${escapeParens(f)}')` : ''}. ${LITERAL_TIP}`,
  },
  {
    test: /extra tokens found at end input|missing close paren/,
    hint: () =>
      `Unbalanced parentheses in the query: Zoekt uses ( ) for grouping, so every '(' needs a ')'. Escape a literal parenthesis as '\\(' or '\\)'. ${LITERAL_TIP}`,
  },
  {
    test: /missing closing \]/,
    hint: (_m, f) => `Unclosed character class${f ? ` in '${f}'` : ''}: add ']' or escape '[' as '\\['. ${LITERAL_TIP}`,
  },
  {
    test: /invalid nested repetition operator: `\*\*`/,
    hint: () => `'**' is a glob, not a regex: in RE2 write '.*' for "anything". To filter by path, use the paths argument with a glob instead.`,
  },
  {
    test: /invalid nested repetition operator/,
    hint: (_m, f) => `Two quantifiers in a row${f ? ` ('${f}')` : ''} are not allowed in RE2 (no possessive '++' or '*+'). Keep one quantifier, or group first: '(a+)+' → 'a+'. ${LITERAL_TIP}`,
  },
  {
    test: /missing argument to repetition operator/,
    hint: (_m, f) =>
      `A quantifier${f ? ` ('${f}')` : ''} has nothing before it to repeat. For "anything" write '.*' (not '*'); for a literal '*', '+' or '?' escape it ('\\*'). ${LITERAL_TIP}`,
  },
  {
    test: /invalid repeat count/,
    hint: (_m, f) => `Bad repeat count${f ? ` '${f}'` : ''}: RE2 needs {min,max} with min ≤ max ≤ 1000.`,
  },
  {
    test: /invalid character class range/,
    hint: (_m, f) =>
      `Bad character class${f ? ` '${f}'` : ''}: a range must go from low to high ([a-z], not [z-a]), and \\p{…} takes a Unicode class name such as \\p{Greek} or \\pL.`,
  },
  {
    test: /invalid character class/,
    hint: (_m, f) => `Bad character class${f ? ` '${f}'` : ''}: check the brackets and POSIX classes ([[:alpha:]]).`,
  },
  {
    test: /unterminated quoted string/,
    hint: () => `A '"' opens a quoted string that never closes: add the closing quote, or escape a literal quote as \\". ${LITERAL_TIP}`,
  },
  {
    test: /lone \\ at end|missing char after \\/,
    hint: () => `The query ends with a lone backslash: remove it or write \\\\ for a literal backslash.`,
  },
  {
    test: /OR operator should have operand/,
    hint: () => `'or' needs a term on both sides: 'foo or bar'. To search the word "or", quote it: '"or"'.`,
  },
  {
    test: /'-' operator needs an argument/,
    hint: () => `A '-' negates the term after it ('-file:test'); it needs one. To search a literal '-', escape it as '\\-'.`,
  },
  {
    test: /unknown case argument/,
    hint: () => `case: takes yes, no or auto (case:yes). Or leave it out and use the case_sensitive argument.`,
  },
  {
    test: /unknown type argument/,
    hint: () => `type: takes filematch, filename or repo. To find files by name, use the search_files tool.`,
  },
  {
    test: /sym: atom must have an argument/,
    hint: () => `sym: needs a name or regex after it (sym:UserService). The search_symbols tool takes names and globs directly.`,
  },
  {
    test: /unknown (archived|fork|public) argument/,
    hint: (m) => `${/archived/.test(m) ? 'archived' : /fork/.test(m) ? 'fork' : 'public'}: takes yes or no.`,
  },
  {
    test: SYMBOL_ALTERNATION,
    hint: () =>
      `Zoekt cannot run a sym: regex that is only an alternation of words ('sym:foo|bar'). Group it and anchor or extend it: 'sym:^(foo|bar)$' or 'sym:(foo|bar).*'. The search_symbols tool accepts such regexes as they are.`,
  },
  {
    test: /missing query/,
    hint: () => `The query is empty: give at least one search term.`,
  },
];

function escapeParens(fragment: string): string {
  return fragment.replace(/(?<!\\)([()])/g, '\\$1');
}

export function queryErrorHint(zoektMessage: string): string {
  const fragment = quotedFragment(zoektMessage);
  for (const rule of RULES) {
    if (rule.test.test(zoektMessage)) return rule.hint(zoektMessage, fragment);
  }
  return `Zoekt could not parse the query. Bare terms are RE2 regexes (escape . ( ) [ ] { } * + ? | ^ $ \\ to match them literally); fields are file:, repo:, lang:, sym:, case:, branch:, with '-' to negate and 'or' between alternatives. ${LITERAL_TIP}`;
}

/** Zoekt answers these query errors with HTTP 500 instead of 400. */
export function isUnrunnableQuery(zoektMessage: string | undefined): boolean {
  return zoektMessage !== undefined && SYMBOL_ALTERNATION.test(zoektMessage);
}
