/**
 * Words of identifiers and of descriptions, for finding symbols by what they do. An identifier
 * is split where code splits words (`camelCase`, `snake_case`, `kebab-case`, `HTTPServer` →
 * http server, digits apart); every word is case-folded and stemmed lightly, and the common
 * abbreviations of code stand for the word they shorten, so "database connection" meets
 * `dbConn` and `connect_to_database` alike.
 */

/**
 * Each group: a word and the short forms code writes for it. The first is the group's name; a
 * word of either side stands for the group.
 */
const ABBREVIATIONS: readonly (readonly string[])[] = [
  ['connection', 'conn', 'connect'],
  ['database', 'db'],
  ['configuration', 'config', 'cfg', 'conf', 'configure'],
  ['message', 'msg'],
  ['request', 'req'],
  ['response', 'resp'],
  ['delete', 'del'],
  ['format', 'fmt'],
  ['initialize', 'init', 'initialise'],
  ['context', 'ctx'],
  ['error', 'err'],
  ['argument', 'arg', 'args'],
  ['parameter', 'param', 'params'],
  ['directory', 'dir'],
  ['string', 'str'],
  ['number', 'num'],
  ['count', 'cnt'],
  ['buffer', 'buf'],
  ['pointer', 'ptr'],
  ['reference', 'ref'],
  ['temporary', 'tmp', 'temp'],
  ['authentication', 'auth', 'authenticate'],
  ['authorization', 'authz', 'authorize'],
  ['environment', 'env'],
  ['specification', 'spec'],
  ['information', 'info'],
  ['document', 'doc'],
  ['execute', 'exec'],
  ['calculate', 'calc', 'compute'],
  ['value', 'val'],
  ['variable', 'var'],
  ['index', 'idx'],
  ['length', 'len'],
  ['maximum', 'max'],
  ['minimum', 'min'],
  ['address', 'addr'],
  ['source', 'src'],
  ['destination', 'dst', 'dest'],
  ['attribute', 'attr'],
  ['previous', 'prev'],
  ['current', 'cur', 'curr'],
  ['manager', 'mgr'],
  ['utility', 'util', 'utils'],
  ['library', 'lib'],
  ['package', 'pkg'],
  ['function', 'func', 'fn'],
  ['command', 'cmd'],
  ['statistic', 'stat', 'stats'],
  ['synchronize', 'sync'],
  ['asynchronous', 'async'],
  ['image', 'img'],
  ['password', 'pwd', 'passwd'],
  ['certificate', 'cert'],
  ['transaction', 'txn', 'tx'],
  ['integer', 'int'],
  ['character', 'char'],
  ['boolean', 'bool'],
  ['sequence', 'seq'],
  ['generate', 'gen'],
  ['handle', 'handler'],
];

/**
 * Words a description carries that say nothing about the code it asks for: those of a request
 * ("find", "show me", "the logic"), and the pronouns, auxiliaries, conjunctions and degree words
 * of Snowball's English stop list (snowballstem.org/algorithms/english/stop.txt). Left out of the
 * latter: the words names are made of, which relate one thing to another (before, after, up,
 * down, over, under, off, between, once, again, then, more, most, few, other, same, only, not,
 * no, each, both, until, while, through, during) or ask a question of it (has, have).
 */
const STOP_WORDS = new Set(
  [
    'a an the of for to in on at by with from and or is are be been being it its this that these those where which what who how when do does done where find show me all any some code logic implementation implemented place places thing things one ones there here into out about please should would can could',
    'i my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself itself they them their theirs themselves whom am was were had having did doing ought but if because as further why nor own so than too very such',
  ]
    .join(' ')
    .split(' '),
);

/** Light stemming: enough that handling/handled/handles/handler meet, not a linguist's stemmer. */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length <= 3) return w;
  let stripped = false;
  for (const [suffix, keep] of [
    ['ies', 'y'],
    ['ing', ''],
    ['ed', ''],
    ['er', ''],
    ['es', ''],
    ['s', ''],
  ] as const) {
    if (w.endsWith(suffix) && w.length - suffix.length >= (suffix === 'ing' ? 4 : 3) && !(suffix === 's' && w.endsWith('ss'))) {
      w = w.slice(0, w.length - suffix.length) + keep;
      stripped = true;
      break;
    }
  }
  // "handl-e" and "handl-ing" meet at "handl"; a doubled final consonant (running) is undoubled.
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  if (stripped && /([^aeiou])\1$/.test(w) && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** Stemmed form → the group's name, for every word of every abbreviation group. */
const GROUP_OF = new Map<string, string>();
for (const group of ABBREVIATIONS) for (const w of group) GROUP_OF.set(stem(w), stem(group[0]!));

/** The concept a word stands for: its abbreviation group's name, or its own stem. */
export function concept(word: string): string {
  const s = stem(word);
  return GROUP_OF.get(s) ?? s;
}

/** The spellings code may use for a concept: every member of its group, unstemmed. */
export function spellings(word: string): string[] {
  const c = concept(word);
  const group = ABBREVIATIONS.find((g) => stem(g[0]!) === c);
  const stemmed = stem(word);
  return [...new Set([stemmed, ...(group ?? []).map((g) => (g.length > 4 ? stem(g) : g))])];
}

/** `parseHTTPRequest2` → ['parse', 'http', 'request', '2']; `connect_to_database` → ['connect', 'to', 'database']. */
export function identifierWords(identifier: string): string[] {
  return identifier
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, (_m, a: string, b: string, c: string, d: string) => (a ? `${a} ${b}` : `${c} ${d}`))
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** The words of a description that name something: lower-cased, stop words and repeats left out. */
export function descriptionWords(description: string): string[] {
  const words = description
    .split(/[^\p{L}\p{N}_-]+/u)
    .flatMap((w) => identifierWords(w))
    .filter((w) => !STOP_WORDS.has(w) && w.length > 1);
  const seen = new Set<string>();
  return words.filter((w) => {
    const c = concept(w);
    if (seen.has(c)) return false;
    seen.add(c);
    return true;
  });
}

/**
 * Whether a word of a name is a short form of a word of a description, by the two commonest
 * ways code shortens a word (Hill et al., "AMAP: Automatically Mining Abbreviation Expansions in
 * Programs", MSR 2008): its first letters, with at least two left off (`inc` increment, `diff`
 * difference, `loos` loosely), or its first letter and some of its consonants in order (`cmp`
 * compare, `ptr` pointer). At least three letters, so that `in` or `re` shortens nothing.
 */
export function shortens(short: string, word: string): boolean {
  const w = word.toLowerCase();
  if (short.length < 3 || short.length > w.length - 2 || short[0] !== w[0]) return false;
  if (w.startsWith(short)) return true;
  if (/[aeiouy]/.test(short.slice(1))) return false;
  let at = 1;
  for (const ch of short.slice(1)) {
    at = w.indexOf(ch, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

/**
 * The short forms of a description word a query can look for, of those `shortens` accepts: its
 * first three and four letters, and its first letter with the next two consonants (`cmp`).
 */
export function shortForms(word: string): string[] {
  const w = word.toLowerCase();
  if (!/^\p{L}+$/u.test(w)) return [];
  const out = new Set<string>();
  for (const n of [3, 4]) if (w.length - n >= 2) out.add(w.slice(0, n));
  const consonants = w.slice(1).replace(/[aeiouy]/g, '');
  if (w.length >= 5 && consonants.length >= 2) out.add(w[0] + consonants.slice(0, 2));
  return [...out];
}

/**
 * The acronyms a description spells (AMAP's acronym pattern: the first letters of consecutive
 * words), each with the description words it stands for: "greater than or equal" → `gte` (and
 * `gt`, `gtoe`), "least recently used" → `lru`, "time to live" → `ttl`. A run starts at a word
 * of `words` and may leave out the stop words inside it; an acronym has two to five letters, and is
 * not a word itself (`isWord`: WordNet's; `get` of "greater than or equal to" would meet every
 * getter, `on` of "open network" every `onClick`).
 */
/** The most tokens an acronym spans, stop words left out included ("greater than or equal to": 5). */
const ACRONYM_SPAN = 8;

export function acronymsOf(description: string, words: readonly string[], isWord: (text: string) => boolean = () => false): Map<string, string[]> {
  const tokens = description
    .split(/[^\p{L}\p{N}_-]+/u)
    .flatMap((w) => identifierWords(w))
    .filter((w) => /^\p{L}/u.test(w));
  const wordOf = new Map(words.map((w) => [concept(w), w]));
  const out = new Map<string, string[]>();
  const add = (letters: string, covered: string[]) => {
    if (letters.length < 2 || STOP_WORDS.has(letters) || isWord(letters) || wordOf.has(concept(letters)) || covered.length === 0) return;
    const had = out.get(letters);
    if (!had || had.length < covered.length) out.set(letters, covered);
  };
  for (let i = 0; i < tokens.length; i++) {
    const first = wordOf.get(concept(tokens[i]!));
    if (first === undefined) continue;
    // Every way through the next tokens: each taken (its first letter), or skipped if a stop word.
    // Ways that spell the same letters for the same words are one, so a run of stop words does
    // not multiply them; an acronym spans at most ACRONYM_SPAN tokens.
    let paths = new Map([[tokens[i]![0]!, { letters: tokens[i]![0]!, covered: [first] }]]);
    for (let j = i + 1; j < Math.min(tokens.length, i + ACRONYM_SPAN) && paths.size; j++) {
      const t = tokens[j]!;
      const content = wordOf.get(concept(t));
      const next = new Map<string, { letters: string; covered: string[] }>();
      for (const p of paths.values()) {
        if (p.letters.length < 5) {
          const taken = { letters: p.letters + t[0], covered: content === undefined ? p.covered : [...p.covered, content] };
          next.set(`${taken.letters}\0${taken.covered.join()}`, taken);
          add(taken.letters, taken.covered);
        }
        if (STOP_WORDS.has(t)) next.set(`${p.letters}\0${p.covered.join()}`, p);
      }
      paths = next;
    }
  }
  return out;
}

/** How much a word related to a description word (vocabulary.ts) counts, against 1 for the word itself. */
export const RELATED_WEIGHT = 0.5;

/**
 * For each description word, the related words (vocabulary.ts's `relatedTo`) worth trying: not
 * the same concept as the word or as another word of the description, each concept once, at most
 * `max`. A stop word may stand for one that is not ("everything" → all).
 */
export function relatedWords(words: readonly string[], relatedTo: (word: string) => readonly string[], max: number): Map<string, string[]> {
  const asked = new Set(words.map(concept));
  const out = new Map<string, string[]>();
  for (const w of words) {
    const seen = new Set<string>();
    const kept: string[] = [];
    for (const r of relatedTo(w)) {
      const c = concept(r);
      if (kept.length >= max || asked.has(c) || seen.has(c)) continue;
      seen.add(c);
      kept.push(r);
    }
    if (kept.length) out.set(w, kept);
  }
  return out;
}

/**
 * The concepts of an identifier's words, remembered: a description search weighs thousands of
 * symbols whose names, parents, folders and file names repeat, and splitting a name into words
 * (Unicode-aware regular expressions) and stemming them was most of its own time. At most
 * CONCEPTS_KEPT texts, about 1.5 MiB (measured: 2.4 MiB for 15,700), outside the window cache's
 * budget.
 */
const CONCEPTS = new Map<string, readonly string[]>();
const CONCEPTS_KEPT = 10_000;

function conceptsOfText(text: string): readonly string[] {
  let concepts = CONCEPTS.get(text);
  if (concepts === undefined) {
    // Forgotten all at once when full: what one search needs again comes back at once.
    if (CONCEPTS.size >= CONCEPTS_KEPT) CONCEPTS.clear();
    concepts = identifierWords(text).map(concept);
    CONCEPTS.set(text, concepts);
  }
  return concepts;
}

/**
 * How much of the description `name` covers, with the words of `near` (its parent, its folder:
 * `url.Parse`, `Server.ListenAndServe`) counting in full and those of `around` (its file's name)
 * counting half: the share of the description's concepts covered, and which words of the
 * description matched. A word met only through a related word (`related`) counts
 * RELATED_WEIGHT, and only in the name itself; a word of the name that shortens a description
 * word (shortens) or spells it with others (`acronyms`, acronymsOf) counts as that word.
 * `extra`: the name's own words the description did not ask for, which tells two names of equal
 * coverage apart (the closer fit has fewer). `named`: whether the name itself has a word of the
 * description or a related one (its parent or file alone is no match).
 */
export function coverage(
  words: readonly string[],
  name: string,
  near: readonly string[] = [],
  around: readonly string[] = [],
  related: ReadonlyMap<string, readonly string[]> = new Map(),
  acronyms: ReadonlyMap<string, readonly string[]> = new Map(),
): { score: number; matched: string[]; extra: number; named: boolean } {
  const conceptsOf = (texts: readonly string[]) => new Set(texts.flatMap(conceptsOfText));
  const own = conceptsOf([name]);
  const close = conceptsOf(near);
  const far = conceptsOf(around);
  const weightOf = (c: string) => (own.has(c) || close.has(c) ? 1 : far.has(c) ? 0.5 : 0);
  let got = 0;
  let named = false;
  const matched: string[] = [];
  const hit = new Set<string>();
  // A word of the name that is an acronym of the description's words stands for all of them.
  const spelled = new Map<string, string>();
  for (const o of own) for (const w of acronyms.get(o) ?? []) if (!spelled.has(w)) spelled.set(w, o);
  for (const w of words) {
    const c = concept(w);
    let weight = weightOf(c);
    let by = c;
    if (weight === 0) {
      // A related word counts in the name only: in its parent, folder or file name as well, a
      // loose sense of it met too much (`array` → range met every definition under ranges/).
      for (const r of related.get(w) ?? []) {
        const rc = concept(r);
        if (own.has(rc) && RELATED_WEIGHT > weight) [weight, by] = [RELATED_WEIGHT, rc];
      }
    }
    if (weight === 0) {
      // A word of the name that shortens the description's word (`inc`, `diff`, `cmp`), or spells it with others (`gte`).
      for (const o of own) if (shortens(o, w)) [weight, by] = [1, o];
      const acronym = spelled.get(w);
      if (weight === 0 && acronym !== undefined) [weight, by] = [1, acronym];
    }
    if (weight === 0) continue;
    got += weight;
    matched.push(w);
    hit.add(by);
    if (own.has(by)) named = true;
  }
  const score = words.length ? Math.round((got / words.length) * 1000) / 1000 : 0;
  return { score, matched, extra: [...own].filter((c) => !hit.has(c)).length, named };
}
