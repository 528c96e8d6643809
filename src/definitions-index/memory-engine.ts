/**
 * The definitions index searched in this process: every repository's definitions as one segment
 * (its definitions, their vectors as int8 rows, the postings of their texts), searched by vector
 * similarity and by BM25, the two lists' best fused into one score (the cosine first, BM25 a
 * boost; reciprocal rank is the other choice, RankWeights.fusion). The filters decide which
 * definitions take part before either list ranks, so a page of a kinds filter holds only those
 * kinds however many others would rank above them.
 *
 * A flat scan of int8 rows is exact and, for the hundred thousand definitions of a large
 * corpus, a few milliseconds per million multiplications: no approximate index is needed at this
 * size, and none would be exact.
 */
import type { Field } from './pack.js';
import { RELATED_NAMES, type DefinitionsQuery, type DefinitionsRepoStatus, type IndexedDefinition, type ScoredDefinition } from '../search/definitions/definitions-index.js';
import { isTest } from '../search/definitions/prominence.js';
import { concepts, corpusStats, scoreSegment, type Postings } from './bm25.js';
import { DECLARATION, DOCUMENTED, NESTED, PUBLIC, stringAt, TEST, type Pack } from './pack.js';

export interface Segment {
  repo: string;
  generation: string;
  pack: Pack;
  /** The pack's postings of each field, as BM25 reads them. */
  texts: Record<Field, Postings>;
  status: DefinitionsRepoStatus;
}

/** A pack's postings of each field, as BM25 reads them: over its distinct texts. */
export function packPostings(pack: Pack): Record<Field, Postings> {
  const of = (f: Field): Postings => {
    const field = pack.fields[f];
    return {
      size: pack.texts,
      totalLength: field.totalLength,
      lengthOf: (doc) => field.lengths[doc]!,
      documentsWith: (word) => {
        const r = field.conceptRanges.get(word);
        return r ? { list: field.postings, from: r[0], to: r[1] } : undefined;
      },
    };
  };
  return { name: of('name'), doc: of('doc') };
}

/** How many of each list's best are fused: past this a list's rank adds next to nothing. */
export const LIST_DEPTH = 200;
/** Reciprocal-rank fusion's constant (Cormack et al.): damps the top ranks' lead. */
const RRF_K = 60;

/** How the two lists weigh in the fused score, and how much less a definition in a test counts. */
export interface RankWeights {
  vector: number;
  text: number;
  /** Within the text list: a name's words against a doc comment's. */
  name: number;
  /** Each a factor of the fused score: a definition in a test or an example, */
  test: number;
  /** a value (variable, constant, field), */
  value: number;
  /** one not visible outside its file or class, */
  private: number;
  /** one local to a function or an object literal, */
  nested: number;
  /** a declaration without a body, */
  declaration: number;
  /** one without a doc comment (what an API is described by), */
  undocumented: number;
  /** one under a folder named internal (Go's: not importable from outside), */
  internal: number;
  /** and this to the power of its folder depth (nearer the root first). */
  depth: number;
  /**
   * How the lists become one order: `rrf`, reciprocal rank; `score`, cosine + beta × BM25 ÷ the
   * best BM25 of the search (the cosine primary, the words a boost), × the prior.
   */
  fusion: 'rrf' | 'score';
  beta: number;
}

/**
 * Set on Go's tree with the descriptions of test/support/describe-go.json, then with the
 * paraphrases of test/support/describe-tune.json over Go's, CPython's and TypeScript's libraries
 * (score fusion and the undocumented prior: top-3 6 → 13 of 50 there, 12 → 14 of 22 on Go's
 * set); never on the held-out sets. Without the priors, tests, benchmarks and examples (which repeat an API's words
 * in their names) took the first places of most answers.
 */
export const WEIGHTS: RankWeights = { vector: 1, text: 1, name: 2, test: 0.2, value: 0.5, private: 0.3, nested: 0.3, declaration: 0.8, undocumented: 0.3, internal: 0.5, depth: 0.9, fusion: 'score', beta: 0.3 };

/** Kinds that answer "what does X": code and the types that hold it (the rest: values, fields). */
const DOING_KINDS = new Set(['function', 'method', 'class', 'struct', 'interface', 'trait', 'type', 'enum', 'module', 'namespace']);

interface Candidate {
  segment: number;
  doc: number;
  vectorRank?: number;
  textRank?: number;
  fused: number;
}

/** Keeps the `depth` highest scores seen, with their owners, cheaply for long streams. */
class Best {
  readonly scores: number[] = [];
  readonly owners: [number, number][] = [];
  constructor(private readonly depth: number) {}

  /** Whether a score this high would enter the list. */
  couldTake(score: number): boolean {
    return this.scores.length < this.depth || score > this.scores[this.scores.length - 1]!;
  }

  offer(score: number, segment: number, doc: number): void {
    const n = this.scores.length;
    if (n === this.depth && score <= this.scores[n - 1]!) return;
    let at = n === this.depth ? n - 1 : n;
    while (at > 0 && this.scores[at - 1]! < score) {
      if (at < this.depth) {
        this.scores[at] = this.scores[at - 1]!;
        this.owners[at] = this.owners[at - 1]!;
      }
      at--;
    }
    this.scores[at] = score;
    this.owners[at] = [segment, doc];
    if (this.scores.length > this.depth) {
      this.scores.length = this.depth;
      this.owners.length = this.depth;
    }
  }
}

export function pathOf(pack: Pack, file: number): string {
  return stringAt(pack, pack.paths, pack.pathEnds, file);
}

/** Each pack's mask without filters but vendored code's: what most searches use, worked out once. */
const plainMasks = new WeakMap<Pack, Map<boolean, Uint8Array | undefined>>();

/** Which definitions of a segment the query's filters let through (read only); undefined: none. */
export function admitted(segment: Segment, query: DefinitionsQuery): Uint8Array | undefined {
  if (query.repo && !query.repo(segment.repo)) return undefined;
  const pack = segment.pack;
  const plain = !query.languages && !query.excludeLanguages && !query.kinds && !query.path;
  if (plain) {
    let kept = plainMasks.get(pack);
    if (!kept) plainMasks.set(pack, (kept = new Map()));
    if (!kept.has(query.includeVendored)) kept.set(query.includeVendored, maskOf(pack, query));
    return kept.get(query.includeVendored);
  }
  return maskOf(pack, query);
}

function maskOf(pack: Pack, query: DefinitionsQuery): Uint8Array | undefined {
  // Files first (a path predicate per file, not per definition), then kinds.
  const languageOk = pack.languages.map((l) => {
    const lower = l.toLowerCase();
    return (!query.languages || query.languages.has(lower)) && !query.excludeLanguages?.has(lower);
  });
  const fileOk = new Uint8Array(pack.files);
  for (let f = 0; f < pack.files; f++) {
    if (!languageOk[pack.fileLanguage[f]!]) continue;
    if (!query.includeVendored && pack.fileVendored[f]) continue;
    if (query.path && !query.path(pathOf(pack, f))) continue;
    fileOk[f] = 1;
  }
  const kindOk = pack.kinds.map((k) => !query.kinds || query.kinds.has(k));
  const keep = new Uint8Array(pack.definitions);
  let any = false;
  for (let d = 0; d < pack.definitions; d++) {
    if (fileOk[pack.defFile[d]!] && kindOk[pack.defKind[d]!]) {
      keep[d] = 1;
      any = true;
    }
  }
  return any ? keep : undefined;
}

export interface EngineAnswer {
  hits: ScoredDefinition[];
  considered: number;
  ranked: number;
  rankedFiles: number;
}

/**
 * The best `query.limit` definitions for a description: `rowDots` holds the description's unit
 * vector's dot product with each row of the model's table (model/embedder.ts, rowDots).
 */
export function searchSegments(segments: readonly Segment[], query: DefinitionsQuery, rowDots: Float32Array, weights: RankWeights = WEIGHTS): EngineAnswer {
  const masks = segments.map((s) => admitted(s, query));
  let considered = 0;
  for (const m of masks) if (m) for (const k of m) considered += k;
  if (considered === 0) return { hits: [], considered: 0, ranked: 0, rankedFiles: 0 };

  // Each list ranks by its score × the definition's prior: what an agent asking in words most
  // likely wants (code, public, outside tests, with a body) before what merely says the same.
  const priors = segments.map((s, si) => (masks[si] ? priorOf(s.pack, weights) : () => 0));

  const byVector = new Best(LIST_DEPTH);
  // A description with no token the model knows ('🔥') has no meaning to rank by.
  const meaningless = rowDots.every((x) => x === 0);
  // Every text's cosine, once however many definitions share it: the fusion reads them again.
  const cosines = segments.map((s, si) => (masks[si] && !meaningless ? textCosines(s.pack, rowDots) : undefined));
  const cosineOf = (si: number, t: number) => cosines[si]?.[t] ?? 0;
  segments.forEach((s, si) => {
    const mask = masks[si];
    const cosine = cosines[si];
    if (!mask || !cosine) return;
    const prior = priors[si]!;
    const { textDefs, textDefEnds } = s.pack;
    // Text by text: a text whose cosine cannot beat the list's last (priors are at most 1) costs
    // no look at its definitions.
    for (let t = 0, from = 0; t < s.pack.texts; from = textDefEnds[t]!, t++) {
      const c = cosine[t]!;
      if (c <= 0 || !byVector.couldTake(c)) continue;
      for (let k = from, to = textDefEnds[t]!; k < to; k++) {
        const doc = textDefs[k]!;
        if (mask[doc]) byVector.offer(c * prior(doc), si, doc);
      }
    }
  });

  const { words, weights: wordWeights } = queryWords(query);
  const byText = new Best(LIST_DEPTH);
  const live = segments.filter((_, si) => masks[si]);
  const nameStats = corpusStats(live.map((s) => s.texts.name), words);
  const docStats = corpusStats(live.map((s) => s.texts.doc), words);
  const textScores = segments.map(() => new Float32Array(0));
  let bestText = 0;
  segments.forEach((s, si) => {
    const mask = masks[si];
    if (!mask) return;
    const { textDefs, textDefEnds } = s.pack;
    const prior = priors[si]!;
    const nameScores = new Float32Array(s.pack.texts);
    const scores = (textScores[si] = new Float32Array(s.pack.texts));
    const touched = new Set(scoreSegment(s.texts.name, words, nameStats, () => true, nameScores, wordWeights));
    for (const t of touched) scores[t] = nameScores[t]! * weights.name;
    for (const t of scoreSegment(s.texts.doc, words, docStats, () => true, scores, wordWeights)) touched.add(t);
    for (const t of touched) {
      if (scores[t]! > bestText) bestText = scores[t]!;
      // As for the vector list: a text that cannot beat the list's last looks at no definition.
      if (!byText.couldTake(scores[t]!)) continue;
      for (let k = t === 0 ? 0 : textDefEnds[t - 1]!, to = textDefEnds[t]!; k < to; k++) {
        const doc = textDefs[k]!;
        if (mask[doc]) byText.offer(scores[t]! * prior(doc), si, doc);
      }
    }
  });

  const fused = new Map<number, Candidate>();
  // Keys: segment × 2^32 + doc, exact as a double below 2^53.
  const add = (owners: [number, number][], list: 'vectorRank' | 'textRank', weight: number) =>
    owners.forEach(([segment, doc], i) => {
      const key = segment * 0x1_0000_0000 + doc;
      const c = fused.get(key) ?? { segment, doc, fused: 0 };
      c[list] = i + 1;
      c.fused += weight / (RRF_K + i + 1);
      fused.set(key, c);
    });
  add(byVector.owners, 'vectorRank', weights.vector);
  add(byText.owners, 'textRank', weights.text);
  let best = (weights.vector + weights.text) / (RRF_K + 1);
  if (weights.fusion === 'score') {
    best = 1 + weights.beta;
    for (const c of fused.values()) {
      const t = segments[c.segment]!.pack.defText[c.doc]!;
      const cos = meaningless ? 0 : Math.max(0, cosineOf(c.segment, t));
      const text = bestText > 0 ? (textScores[c.segment]![t] ?? 0) / bestText : 0;
      c.fused = priors[c.segment]!(c.doc) * (weights.vector * cos + weights.beta * text);
    }
  }

  const defs = new Map<number, IndexedDefinition>();
  const definition = (c: Candidate) => {
    const key = c.segment * 0x1_0000_0000 + c.doc;
    let d = defs.get(key);
    if (!d) {
      d = definitionAt(segments[c.segment]!, c.doc);
      defs.set(key, d);
    }
    return d;
  };
  const ranked = [...fused.values()].sort((a, b) => b.fused - a.fused || tieBreak(definition(a), definition(b)));
  const hits = ranked.slice(0, query.limit).map((c): ScoredDefinition => {
    const s = segments[c.segment]!;
    return {
      definition: definition(c),
      score: Math.round((c.fused / best) * 1000) / 1000,
      ...(c.vectorRank ? { vectorRank: c.vectorRank } : {}),
      ...(c.textRank ? { textRank: c.textRank } : {}),
      related: relatedTo(s.pack, c.doc),
    };
  });
  const files = new Set(ranked.map((c) => c.segment * 0x1_0000_0000 + segments[c.segment]!.pack.defFile[c.doc]!));
  return { hits, considered, ranked: fused.size, rankedFiles: files.size };
}

/** Each text's cosine with the description: the sum of its tokens' dot products, times its inverse length. */
function textCosines(pack: Pack, rowDots: Float32Array): Float32Array {
  const { tokenIds, tokenEnds, inverseLengths } = pack;
  const out = new Float32Array(pack.texts);
  for (let t = 0, k = 0; t < out.length; t++) {
    let dot = 0;
    for (const to = tokenEnds[t]!; k < to; k++) dot += rowDots[tokenIds[k]!]!;
    out[t] = dot * inverseLengths[t]!;
  }
  return out;
}

/** The concepts BM25 looks for: the description's at weight 1, its other words at theirs (each once, at its highest). */
export function queryWords(query: DefinitionsQuery): { words: string[]; weights: Map<string, number> } {
  const weights = new Map<string, number>();
  for (const c of concepts(query.text)) weights.set(c, 1);
  for (const { word, weight } of query.alsoWords ?? []) {
    for (const c of concepts(word)) if ((weights.get(c) ?? 0) < weight) weights.set(c, weight);
  }
  return { words: [...weights.keys()], weights };
}

/** Each pack's prior per file, kept while the weights are the same (a path read per file costs ~1 µs). */
const filePriors = new WeakMap<Pack, { weights: RankWeights; priors: Float32Array }>();

/** A definition's prior: what an agent asking in words most likely wants (priors ≤ 1). */
function priorOf(pack: Pack, weights: RankWeights): (doc: number) => number {
  const { defFlags, defKind, kinds, defFile } = pack;
  let kept = filePriors.get(pack);
  if (kept?.weights !== weights) {
    const priors = new Float32Array(pack.files);
    for (let f = 0; f < pack.files; f++) {
      const path = pathOf(pack, f);
      priors[f] = weights.depth ** depth(path) * (/(^|\/)internal\//.test(path) ? weights.internal : 1);
    }
    kept = { weights, priors };
    filePriors.set(pack, kept);
  }
  const filePrior = kept.priors;
  const valueKind = kinds.map((k) => !DOING_KINDS.has(k));
  // Where a repository documents its API, a definition without a doc comment is seldom what a
  // description means; where it documents nothing, the lack says nothing: the factor goes to 1 as
  // the share of its public definitions with a doc comment goes to 0.
  const undocumented = 1 - (1 - weights.undocumented) * Math.min(1, documentedShare(pack) / DOCUMENTED_API);
  const VALUE = 32;
  const table = new Float32Array(64);
  for (let bits = 0; bits < 64; bits++) {
    table[bits] =
      (bits & TEST ? weights.test : 1) *
      (bits & PUBLIC ? 1 : weights.private) *
      (bits & NESTED ? weights.nested : 1) *
      (bits & DECLARATION ? weights.declaration : 1) *
      (bits & DOCUMENTED ? 1 : undocumented) *
      (bits & VALUE ? weights.value : 1);
  }
  return (doc: number) => table[(defFlags[doc]! & 31) | (valueKind[defKind[doc]!] ? VALUE : 0)]! * filePrior[defFile[doc]!]!;
}

/**
 * The share of public functions and types outside tests at or past which a repository counts as
 * one that documents its API (Go's source, CPython's Lib: 0.42–0.43, counting their commands and
 * tools; TypeScript's lib: 0.57; /usr/include: 0.23).
 */
const DOCUMENTED_API = 0.4;
const documentedShares = new WeakMap<Pack, number>();

/** The share of a pack's public functions and types outside tests that carry a doc comment. */
function documentedShare(pack: Pack): number {
  let share = documentedShares.get(pack);
  if (share === undefined) {
    const doing = pack.kinds.map((k) => DOING_KINDS.has(k));
    let api = 0;
    let documented = 0;
    for (let d = 0; d < pack.definitions; d++) {
      const flags = pack.defFlags[d]!;
      if ((flags & (PUBLIC | TEST | NESTED)) !== PUBLIC || !doing[pack.defKind[d]!]) continue;
      api++;
      if (flags & DOCUMENTED) documented++;
    }
    share = api ? documented / api : 0;
    documentedShares.set(pack, share);
  }
  return share;
}

/** One definition of a segment, as the port has it (no signature or documentation: Zoekt gives those). */
export function definitionAt(segment: Segment, doc: number): IndexedDefinition {
  const pack = segment.pack;
  const file = pack.defFile[doc]!;
  const parent = stringAt(pack, pack.parents, pack.parentEnds, doc);
  return {
    repo: segment.repo,
    path: pathOf(pack, file),
    line: pack.defLine[doc]!,
    column: pack.defColumn[doc]!,
    name: stringAt(pack, pack.names, pack.nameEnds, doc),
    kind: pack.kinds[pack.defKind[doc]!]!,
    raw_kind: pack.rawKinds[pack.defRawKind[doc]!]!,
    ...(parent ? { parent } : {}),
    language: pack.languages[pack.fileLanguage[file]!]!,
    vendored: pack.fileVendored[file] === 1,
  };
}

/** Equal fused scores: code before values, outside tests first, shallower paths, then by name. */
function tieBreak(a: IndexedDefinition, b: IndexedDefinition): number {
  return (
    Number(!DOING_KINDS.has(a.kind)) - Number(!DOING_KINDS.has(b.kind)) ||
    Number(isTest(a.path)) - Number(isTest(b.path)) ||
    depth(a.path) - depth(b.path) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
    (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
    a.line - b.line
  );
}

function depth(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}


/**
 * Definitions beside one: its siblings under the same parent in its file; without a parent, the
 * file's other top-level definitions nearest to it. Definitions are stored in file order, so the
 * file's run is found by walking out from the hit.
 */
function relatedTo(pack: Pack, doc: number): string[] {
  const file = pack.defFile[doc]!;
  const parent = stringAt(pack, pack.parents, pack.parentEnds, doc);
  const name = stringAt(pack, pack.names, pack.nameEnds, doc);
  const out: string[] = [];
  const consider = (o: number) => {
    if (out.length >= RELATED_NAMES || stringAt(pack, pack.parents, pack.parentEnds, o) !== parent) return;
    const other = stringAt(pack, pack.names, pack.nameEnds, o);
    if (other !== name && !out.includes(other)) out.push(other);
  };
  for (let step = 1; out.length < RELATED_NAMES && step < 200; step++) {
    const before = doc - step >= 0 && pack.defFile[doc - step] === file ? doc - step : -1;
    const after = doc + step < pack.definitions && pack.defFile[doc + step] === file ? doc + step : -1;
    if (before < 0 && after < 0) break;
    if (before >= 0) consider(before);
    if (after >= 0) consider(after);
  }
  return out;
}
