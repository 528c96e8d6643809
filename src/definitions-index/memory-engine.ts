/**
 * The definitions index searched in this process: every repository's definitions as one segment
 * (its definitions, their vectors as int8 rows, the postings of their texts), searched by vector
 * similarity and by BM25, the two ranked lists fused by reciprocal rank. The filters decide which
 * definitions take part before either list ranks, so a page of a kinds filter holds only those
 * kinds however many others would rank above them.
 *
 * A flat scan of int8 rows is exact and, for the hundred thousand definitions of a large
 * corpus, a few milliseconds per million multiplications: no approximate index is needed at this
 * size, and none would be exact.
 */
import type { DefinitionsQuery, DefinitionsRepoStatus, IndexedDefinition, ScoredDefinition } from '../search/definitions/definitions-index.js';
import { isTest } from '../search/definitions/prominence.js';
import { concepts, corpusStats, scoreSegment, type TextPostings } from './bm25.js';

export interface Segment {
  repo: string;
  generation: string;
  definitions: readonly IndexedDefinition[];
  /** definitions.length × dimensions, each row a unit vector × 127. */
  vectors: Int8Array;
  dimensions: number;
  texts: TextPostings;
  status: DefinitionsRepoStatus;
}

/** How many of each list's best are fused: past this a list's rank adds next to nothing. */
export const LIST_DEPTH = 200;
/** Reciprocal-rank fusion's constant (Cormack et al.): damps the top ranks' lead. */
const RRF_K = 60;
const BEST_FUSED = 2 / (RRF_K + 1);

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

/** Which definitions of a segment the query's filters let through; undefined: the whole segment is out. */
export function admitted(segment: Segment, query: DefinitionsQuery): Uint8Array | undefined {
  if (query.repo && !query.repo(segment.repo)) return undefined;
  const keep = new Uint8Array(segment.definitions.length);
  let any = false;
  segment.definitions.forEach((d, i) => {
    const language = d.language.toLowerCase();
    if (query.languages && !query.languages.has(language)) return;
    if (query.excludeLanguages?.has(language)) return;
    if (query.kinds && !query.kinds.has(d.kind)) return;
    if (!query.includeVendored && d.vendored) return;
    if (query.path && !query.path(d.path)) return;
    keep[i] = 1;
    any = true;
  });
  return any ? keep : undefined;
}

export interface EngineAnswer {
  hits: ScoredDefinition[];
  considered: number;
  ranked: number;
  rankedFiles: number;
}

/**
 * The best `query.limit` definitions for a description whose embedding is `vector` (a unit
 * vector of the segments' dimensions).
 */
export function searchSegments(segments: readonly Segment[], query: DefinitionsQuery, vector: Float32Array): EngineAnswer {
  const masks = segments.map((s) => admitted(s, query));
  let considered = 0;
  for (const m of masks) if (m) for (const k of m) considered += k;
  if (considered === 0) return { hits: [], considered: 0, ranked: 0, rankedFiles: 0 };

  const byVector = new Best(LIST_DEPTH);
  segments.forEach((s, si) => {
    const mask = masks[si];
    if (!mask || s.dimensions !== vector.length) return;
    const dims = s.dimensions;
    const rows = s.vectors;
    for (let doc = 0, base = 0; doc < mask.length; doc++, base += dims) {
      if (!mask[doc]) continue;
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += rows[base + i]! * vector[i]!;
      byVector.offer(dot, si, doc);
    }
  });

  const words = concepts(query.text);
  const byText = new Best(LIST_DEPTH);
  const live = segments.filter((_, si) => masks[si]).map((s) => s.texts);
  const stats = corpusStats(live, words);
  segments.forEach((s, si) => {
    const mask = masks[si];
    if (!mask) return;
    const scores = new Float32Array(s.definitions.length);
    for (const doc of scoreSegment(s.texts, words, stats, (d) => mask[d] === 1, scores)) byText.offer(scores[doc]!, si, doc);
  });

  const fused = new Map<string, Candidate>();
  const add = (owners: [number, number][], list: 'vectorRank' | 'textRank') =>
    owners.forEach(([segment, doc], i) => {
      const key = `${segment}:${doc}`;
      const c = fused.get(key) ?? { segment, doc, fused: 0 };
      c[list] = i + 1;
      c.fused += 1 / (RRF_K + i + 1);
      fused.set(key, c);
    });
  add(byVector.owners, 'vectorRank');
  add(byText.owners, 'textRank');

  const ranked = [...fused.values()].sort((a, b) => b.fused - a.fused || tieBreak(segments[a.segment]!.definitions[a.doc]!, segments[b.segment]!.definitions[b.doc]!));
  const hits = ranked.slice(0, query.limit).map((c): ScoredDefinition => {
    const s = segments[c.segment]!;
    const definition = s.definitions[c.doc]!;
    return {
      definition,
      score: Math.round((c.fused / BEST_FUSED) * 1000) / 1000,
      ...(c.vectorRank ? { vectorRank: c.vectorRank } : {}),
      ...(c.textRank ? { textRank: c.textRank } : {}),
      related: relatedTo(s.definitions, c.doc),
    };
  });
  const files = new Set([...fused.values()].map((c) => `${c.segment}\0${segments[c.segment]!.definitions[c.doc]!.path}`));
  return { hits, considered, ranked: fused.size, rankedFiles: files.size };
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

/** How many related names a hit carries. */
const RELATED = 4;

/**
 * Definitions beside one: its siblings under the same parent in its file; without a parent, the
 * file's other top-level definitions nearest to it. Definitions are stored in file order, so the
 * file's run is found by walking out from the hit.
 */
function relatedTo(definitions: readonly IndexedDefinition[], doc: number): string[] {
  const d = definitions[doc]!;
  const out: string[] = [];
  const fits = (o: IndexedDefinition) => o.path === d.path && o.parent === d.parent && o.name !== d.name && !out.includes(o.name);
  for (let step = 1; out.length < RELATED && step < 200; step++) {
    const before = definitions[doc - step];
    const after = definitions[doc + step];
    const inFile = (before && before.path === d.path) || (after && after.path === d.path);
    if (!inFile) break;
    if (before && fits(before)) out.push(before.name);
    if (out.length < RELATED && after && fits(after)) out.push(after.name);
  }
  return out;
}
