/**
 * search_symbols by description: the words of a description, the queries that find names with
 * them, and how a definition ranks by how much of the description its name covers.
 */
import { invalidArgument } from '../../errors.js';
import * as q from '../../zoekt/query.js';
import { filterParts, vendoredPart } from '../vocab/filters.js';
import type { Kind } from '../vocab/kinds.js';
import { isTest, prominence, PROMINENCE_LIMIT } from '../definitions/prominence.js';
import { coverage, descriptionWords, shortForms, spellings } from '../definitions/words.js';
import type { SymbolResult } from '../definitions/symbol.js';
import type { Matcher, SymbolSearchArgs } from './ranking.js';

/** What surrounds a definition: its parent and folder (a package, often), and its file's name. */
function contextWords(symbol: SymbolResult): { near: string[]; around: string[] } {
  const parts = symbol.path.split('/');
  const file = (parts.pop() ?? '').replace(/\.[^.]*$/, '').replace(/_test$/, '');
  return { near: [symbol.parent ?? '', parts.pop() ?? ''], around: [file] };
}

/**
 * The files a description reads: the best 200 of all its words and the best 200 of each word.
 * Zoekt ranks files with names that hold more of the words first, and the best definitions are
 * among those. For the 22 descriptions of test/integration/describe-symbols.test.ts this finds
 * the same answers at 1 and at 3 as 500 and then 2,000 files (and 500 of each word) did, over
 * Go's tree and over the four trees of bench/fetch-plan.sh, in a third to two thirds of the time
 * (bench/README.md, "search_symbols by description"). 100 of each word lost two of them over the
 * four trees, a rare word's files crowded out by a common one's.
 */
const DESCRIPTION_WINDOWS = [200] as const;
const DESCRIPTION_WORD_WINDOW = 200;

function descriptionBound(eachWord: boolean): { reason: string; hint: string } {
  return {
    reason: `more than ${DESCRIPTION_WINDOWS[0]} files have names with these words; the symbols of the best-ranked ${DESCRIPTION_WINDOWS[0]}${eachWord ? `, and of the best ${DESCRIPTION_WORD_WINDOW} for each word,` : ''} were read`,
    hint: 'Add a word the names would have, or kinds, languages or paths.',
  };
}

/** Why an answer is not complete when numbers of the description were not searched for (descriptionSymbols). */
function unsearchedNumbers(numbers: readonly string[]): { reason: string; hint: string } {
  return {
    reason: `names with only ${numbers.map((n) => `'${n}'`).join(' or ')} of the description's words were not searched for (a number of one or two digits: Zoekt would read every symbol of every file for it); names with the other words were`,
    hint: `To find names by the number too, search by name with a glob ('*${numbers[0]}*').`,
  };
}

/** How many tenths of coverage a definition in a test or an example counts less. */
const TEST_TIERS = 5;

/** Kinds that are an answer to "what does X": code, and the types that hold it. */
const DOING_KINDS = new Set(['function', 'method', 'constructor', 'class', 'struct', 'interface', 'trait', 'type', 'enum', 'module', 'namespace']);

export function descriptionMatcher(
  args: SymbolSearchArgs,
  words: string[],
  related: ReadonlyMap<string, readonly string[]>,
  acronyms: ReadonlyMap<string, readonly string[]>,
  kinds: Set<Kind> | undefined,
): Matcher {
  const queryWith = (symbols: q.QueryPart) => {
    const parts: q.QueryPart[] = [q.caseMode('yes'), symbols, ...filterParts(args)];
    if (!args.include_vendored) parts.push(q.not(vendoredPart()));
    return q.render(q.and(...parts));
  };
  const queryOf = (some: string[]) => queryWith(descriptionSymbols(some, related));
  // One query per word Zoekt can find by its trigrams: a short word's own query would read every
  // symbol of every file (it is in the query of all words, unless it is a number).
  const alone = words.filter((w) => findable(w, related));
  const eachWord = alone.length > 1;
  const unsearched = unsearchedIn(words, related);
  const shorterForms = (word: string) => [...new Set([...shortForms(word), ...[...acronyms].filter(([, covered]) => covered.includes(word)).map(([a]) => a)])];
  return {
    query: queryOf(words),
    ...(eachWord ? { alsoQueries: alone.map((w) => queryOf([w])) } : {}),
    shortFormQueries(ranked) {
      const met = new Set(ranked.flatMap((r) => r.symbol.matched_words ?? []));
      const forms = words.filter((w) => !met.has(w)).map(shorterForms);
      return forms.filter((f) => f.length > 0).map((f) => queryWith(symbolLiterals(f)));
    },
    windows: DESCRIPTION_WINDOWS,
    wordWindow: DESCRIPTION_WORD_WINDOW,
    memoKey: JSON.stringify(['description', words, [...related], [...acronyms], args.kinds]),
    bound: () => descriptionBound(eachWord),
    ...(unsearched.length ? { unsearched: unsearchedNumbers(unsearched) } : {}),
    rank(symbol, _scope, fileScore) {
      if (kinds && !kinds.has(symbol.kind as Kind)) return undefined;
      const { near, around } = contextWords(symbol);
      const { score, matched, extra, named } = coverage(words, symbol.name, near, around, related, acronyms);
      // Only a name that has a word of the description (or a related one): its file or parent alone is not a match.
      if (!named) return undefined;
      // Coverage first, in steps so that close calls go to what comes next, and TEST_TIERS steps
      // lower in tests and examples (an agent asking what code does means the code, not its tests);
      // then kind fit, then the fewest words unasked for (the closest fit: `sort` before
      // `sortVersions` for "sort versions"), then the definition ranking (public, shallow). The
      // definition ranking went before the fit until the held-out set of describe-heldout.test.ts
      // showed public declarations of a `.d.ts` (`anchorIsValid`) outranking the plain function
      // (`valid`): 10 of 33 in the top 3 then, 15 after, the Go set the same (bench/README.md).
      const fit = DOING_KINDS.has(symbol.kind) ? 0 : PROMINENCE_LIMIT * 16;
      return {
        symbol: { ...symbol, score, matched_words: matched },
        tier: 10 - Math.floor(score * 10) + (isTest(symbol.path) ? TEST_TIERS : 0),
        prominence: fit + Math.min(extra, 15) * PROMINENCE_LIMIT + prominence(symbol),
        score: fileScore,
      };
    },
  };
}

/**
 * The `sym:` part of a description: any spelling of any of its words or of the words related to
 * them, in lower case, capitalized or upper case, each a substring of a symbol name. Zoekt finds a
 * literal `sym:` through its trigrams in a few tens of ms; a regex that also says where an
 * identifier word starts took it 0.3–6 s over 21,000 files (bench/README.md, "search_symbols by
 * description"), as it is run on every symbol of every candidate file. So `db` also finds
 * `sandbox` here; the ranking keeps only names that have the word as a word (coverage).
 * The query is case:yes.
 */
export function descriptionSymbols(words: readonly string[], related: ReadonlyMap<string, readonly string[]> = new Map()): q.QueryPart {
  const searchable = words.flatMap((w) => formsOf(w, related)).filter((f) => !unsearchable(f));
  return searchable.length ? symbolLiterals(searchable) : q.or(...[...new Set(words.flatMap((w) => formsOf(w, related)))].map((l) => q.sym(q.escapeRegex(l))));
}

/** Any of the spellings as a `sym:` literal, each in lower case, capitalized and upper case. */
function symbolLiterals(spellings: readonly string[]): q.QueryPart {
  const literals = new Set<string>();
  for (const spelling of spellings) {
    literals.add(spelling.toLowerCase());
    literals.add(spelling.charAt(0).toUpperCase() + spelling.slice(1).toLowerCase());
    literals.add(spelling.toUpperCase());
  }
  return q.or(...[...literals].map((l) => q.sym(q.escapeRegex(l))));
}

/** The spellings a description word is looked for by: its own and those of its related words. */
function formsOf(word: string, related: ReadonlyMap<string, readonly string[]>): string[] {
  return [word, ...(related.get(word) ?? [])].flatMap((w) => spellings(w));
}

/**
 * Zoekt finds a literal through its trigrams; one of fewer than three characters has none and
 * is looked for in every symbol of every file: `sym:"64"` (of "base64") took 100–200 ms over Go's
 * tree, where a literal with trigrams takes 10–40. A number that short is left out of the query
 * of a description with other words (they find `Base64` or `Int64`; the number still counts in
 * the ranking); a short word (`ip`, `io`, `os`) is a name's word and is kept.
 */
function hasTrigram(literal: string): boolean {
  return literal.length >= 3;
}

function unsearchable(spelling: string): boolean {
  return !hasTrigram(spelling) && /^\d+$/.test(spelling);
}

/** The numbers a description's query leaves out (none when nothing else is left to search for). */
function unsearchedIn(words: readonly string[], related: ReadonlyMap<string, readonly string[]>): string[] {
  const spelled = words.flatMap((w) => formsOf(w, related));
  const numbers = spelled.filter(unsearchable);
  return numbers.length === spelled.length ? [] : [...new Set(numbers)];
}

/** Whether a word (or a word related to it) has a spelling Zoekt can find by its trigrams. */
function findable(word: string, related: ReadonlyMap<string, readonly string[]>): boolean {
  return formsOf(word, related).some(hasTrigram);
}

/** The words of a description, or why it has none that can be searched for. */
export function checkedDescription(description: string): string[] {
  const words = descriptionWords(description);
  if (words.length === 0) {
    throw invalidArgument(
      `the description '${description.slice(0, 100)}' has no word that could be part of a name`,
      "Describe what the code does in a few words that would appear in its names: 'database connection', 'retry request', 'parse config file'.",
    );
  }
  // Each word is a query of its own: past these, the names of the first ones answer (the hint says which).
  return words.slice(0, MAX_DESCRIPTION_WORDS);
}

/** The words of a description names are searched for, without a definitions index. */
export const MAX_DESCRIPTION_WORDS = 8;
