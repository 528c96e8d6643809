/**
 * Building Zoekt queries from typed parts. Every value given to these functions is quoted, so
 * no argument can add operators; only `raw()` passes text through, and it is used for the one
 * place where the user writes Zoekt syntax on purpose (search_code's `query`).
 *
 * Zoekt's parser (query/parse.go): a double-quoted string is one token whose backslash escapes
 * are removed (`\x` -> `x`), so a regex goes through a quoted token once its `\` and `"` are
 * escaped. A prefix (`file:`, `repo:` …) before the quote gives the token its field. A `(` is a
 * grouping parenthesis only when a space follows it (`(foo)` is the regex "(foo)"), so every
 * group here is written `( … )`.
 */
import { checkGrouping, normalizeWhitespace } from './query-syntax.js';


/** A piece of a Zoekt query, already safe to concatenate. */
export type QueryPart = { readonly text: string; readonly atom?: boolean };

const part = (text: string): QueryPart => ({ text });
/** One token (`field:"value"`), which `-` can negate without a group. */
const atom = (text: string): QueryPart => ({ text, atom: true });

/** Escapes every RE2 metacharacter, so the text matches itself literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}

/** Quotes a value as one Zoekt token: the parser gives back exactly `value`. */
export function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * A regex that matches in any case whatever the query's `case:`. Only for file: patterns: the
 * pinned Zoekt matches `regex:"(?i:…)"` in content against the literal's own case (27 of 475
 * files for `(?i:sTRING)`), while file names honour it.
 */
export const anyCase = (re: string): string => `(?i:${re})`;
/** A content-or-filename regex term (a bare term in Zoekt syntax). */
export const regex = (re: string): QueryPart => atom(`regex:${quote(re)}`);
/** A regex over file contents only (a bare term would match file names too). */
export const content = (re: string): QueryPart => atom(`content:${quote(re)}`);
/** A literal text term: matches the exact characters given, in content or file name like a bare term. */
export const literal = (text: string): QueryPart => regex(escapeRegex(text));
export const file = (re: string): QueryPart => atom(`file:${quote(re)}`);
export const repo = (re: string): QueryPart => atom(`repo:${quote(re)}`);
export const branch = (name: string): QueryPart => atom(`branch:${quote(name)}`);
/** A language by the name Zoekt reports (`TypeScript`, `Go Module`); Zoekt matches it exactly. */
export const lang = (name: string): QueryPart => atom(`lang:${quote(name)}`);
/**
 * Symbol definitions whose name matches the regex (ctags symbols). Zoekt answers HTTP 500
 * ("found *index.orMatchTree inside query.Symbol") when a sym: regex reduces to an alternation of
 * plain words (`a|b`); an empty group after it keeps it a regex and matches the same names.
 */
export const sym = (re: string): QueryPart => atom(`sym:${quote(re.includes('|') ? `(?:${re})(?:)` : re)}`);
/** Only file names: results are files whose path matched, no content lines. */
export const fileNamesOnly = (): QueryPart => part('type:filename');
export const caseMode = (mode: 'yes' | 'no' | 'auto'): QueryPart => part(`case:${mode}`);

const grouped = (text: string): string => `( ${text} )`;

/**
 * Text the user wrote in Zoekt syntax, kept as one group so filters ANDed after it bind to all
 * of it. Throws QUERY_ERROR when its parentheses do not balance (it could close our group).
 */
export function raw(text: string): QueryPart {
  const normalized = normalizeWhitespace(text).trim();
  checkGrouping(normalized);
  return part(grouped(normalized));
}

export const not = (q: QueryPart): QueryPart => part(`-${q.atom || q.text.startsWith('( ') ? q.text : grouped(q.text)}`);

export function and(...parts: (QueryPart | undefined | false)[]): QueryPart {
  const kept = parts.filter((p): p is QueryPart => Boolean(p));
  if (kept.length === 1) return kept[0]!;
  return part(kept.map((p) => p.text).join(' '));
}

export function or(...parts: QueryPart[]): QueryPart {
  if (parts.length === 1) return parts[0]!;
  return part(grouped(parts.map((p) => p.text).join(' or ')));
}

export function render(q: QueryPart): string {
  return q.text;
}
