/**
 * Words related to a word of a description, for the names a word matcher misses: "indentation"
 * for `MarshalIndent`, "everything" for `ReadAll`, "delete" for `remove`. The relations are
 * WordNet's (WordNet 3.1, Princeton University), extracted by scripts/gen-vocabulary.mjs under
 * rules written there (derivationally related forms, the synonyms of a word's common senses,
 * the head of an adjective satellite, a verb's hypernym), never a list written for some phrases.
 * WordNet was chosen over mining the index's doc comments because the words a description uses
 * and a name does not ("everything", "indentation") rarely stand in the doc comment of the name
 * (Go's `ReadAll`: "reads from r until an error or EOF"), and over a general thesaurus (Moby,
 * Roget) because those list dozens of loose senses per word, which would match half the names
 * of an index.
 *
 * An alternative is weighed lower than the word itself (coverage in words.ts), and alternatives
 * join the word's own regex in the `sym:` query, so they add no request to Zoekt.
 *
 * The table (about 1 MB of text) is loaded on the first description search, not at start.
 */

/**
 * Alternatives kept per description word, WordNet's closest. Three made description search on
 * Go's tree 2.5× slower (`sort` → kind, `marshal` → set: names found everywhere) for no answer
 * more; one costs 1.6× (bench/README.md, "search_symbols by description").
 */
export const MAX_RELATED = 1;

/** WordNet has no pronouns: the compound ones stand for their determiner (every-thing → every). */
const COMPOUND_PRONOUN = /^(every|any|some|no)(thing|one|body|where)$/;

export type Vocabulary = ReadonlyMap<string, readonly string[]>;

let loading: Promise<Vocabulary> | undefined;

/** The WordNet table: word → related words, closest first. Loaded once. */
export function loadVocabulary(): Promise<Vocabulary> {
  return (loading ??= import('./vocabulary-data.js').then(({ WORDNET_RELATED }) => {
    const table = new Map<string, string[]>();
    for (const line of WORDNET_RELATED.split('\n')) {
      const [word, ...related] = line.split(' ');
      if (word) table.set(word, related);
    }
    return table;
  }));
}

/**
 * WordNet's words for `word` (lower-case): its own entry, or that of its base form when it is
 * inflected (`screenshots` → screenshot, `deleted` → delete), or of its determiner for a compound
 * pronoun. Unfiltered: the caller drops those that are the same concept as the word.
 */
export function relatedTo(vocabulary: Vocabulary, word: string): readonly string[] {
  const w = word.toLowerCase();
  const pronoun = COMPOUND_PRONOUN.exec(w);
  const forms = pronoun ? [pronoun[1]!] : [w, ...baseForms(w)];
  for (const form of forms) {
    const related = vocabulary.get(form);
    if (related) return related;
  }
  return [];
}

/** The forms an inflected word may come from, as WordNet's morphy tries them (its detachment rules). */
function baseForms(w: string): string[] {
  const out: string[] = [];
  const rules: [string, string][] = [
    ['ies', 'y'],
    ['ses', 's'],
    ['xes', 'x'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['es', 'e'],
    ['s', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ];
  for (const [suffix, ending] of rules) {
    if (w.endsWith(suffix) && w.length > suffix.length + 2) out.push(w.slice(0, -suffix.length) + ending);
  }
  return out;
}
