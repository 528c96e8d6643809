/**
 * How the definitions index lies in Weaviate: two classes per index. `<Name>` holds one object
 * per definition of one repository's generation, with its vector; `<Name>Repos` one object per
 * repository, naming the generation searches read (the switch to a new one is the update of that
 * object, after the whole generation is in), the one being pushed, and the counts of status().
 */
import { createHash } from 'node:crypto';
import type { DefinitionsRepoStatus, IndexedDefinition } from '../search/definitions/definitions-index.js';

/** The default class name: one Weaviate may hold several indexes under other names. */
export const DEFAULT_COLLECTION = 'ZoektMcpDefinitions';

export function reposClass(collection: string): string {
  return `${collection}Repos`;
}

export function statsClass(collection: string): string {
  return `${collection}Stats`;
}

/** Weaviate's class names: a capital letter, then letters, digits and underscores. */
export function checkCollection(name: string): string {
  if (!/^[A-Z][A-Za-z0-9_]{0,200}$/.test(name)) throw new Error(`'${name}' cannot name a Weaviate class: a capital letter, then letters, digits or underscores`);
  return name;
}

/** A filterable text property matched whole (never split into words). */
const key = (name: string) => ({ name, dataType: ['text'], tokenization: 'field', indexFilterable: true, indexSearchable: false });
/** A text property only returned, never searched or filtered. */
const stored = (name: string) => ({ name, dataType: ['text'], indexFilterable: false, indexSearchable: false });
const int = (name: string) => ({ name, dataType: ['int'], indexFilterable: false, indexRangeFilters: false });

export function definitionsClassSchema(collection: string): unknown {
  return {
    class: collection,
    description: 'Definitions of indexed code (zoekt-mcp): one per definition of a repository generation',
    vectorizer: 'none',
    // Vectors are unit length: cosine and dot rank alike. Below flatSearchCutoff (40k by default)
    // candidates a filtered search is an exact scan, above it HNSW with the filter applied inside.
    vectorIndexType: 'hnsw',
    vectorIndexConfig: { distance: 'cosine' },
    invertedIndexConfig: { bm25: { k1: 1.2, b: 0.75 }, indexNullState: false, indexPropertyLength: false, indexTimestamps: false },
    properties: [
      key('repo'),
      key('generation'),
      /** `<generation>:<repo>`: searches take the current generations by one ContainsAny. */
      key('generation_repo'),
      /** The definition's siblings: repository generation, path and parent (see scopeOf). */
      key('scope'),
      key('path'),
      key('kind'),
      /** Zoekt's language name in lower case, as queries name languages. */
      key('language_key'),
      { name: 'vendored', dataType: ['boolean'], indexFilterable: true, indexSearchable: false },
      // The BM25 text: its concepts (bm25.ts), one token each, split at spaces only.
      { name: 'text', dataType: ['text'], tokenization: 'whitespace', indexFilterable: false, indexSearchable: true },
      stored('name'),
      stored('raw_kind'),
      stored('parent'),
      stored('parent_kind'),
      stored('language'),
      stored('signature'),
      stored('documentation'),
      int('line'),
      int('column'),
    ],
  };
}

export function reposClassSchema(collection: string): unknown {
  return {
    class: reposClass(collection),
    description: 'Repositories of a zoekt-mcp definitions index: the generation searches read',
    vectorizer: 'none',
    vectorIndexConfig: { skip: true },
    properties: [
      key('repo'),
      stored('generation'),
      stored('pending'),
      stored('error'),
      stored('built_at'),
      int('definitions'),
      int('documented'),
      int('extracted'),
      int('skipped_files'),
      stored('model_name'),
      int('model_dimensions'),
      stored('model_source'),
    ],
  };
}

/**
 * How many definitions a repository generation holds per path and per filterable kind of
 * definition (language, kind, vendored): what a search counts as considered, and the paths a
 * paths filter lets through, without asking Weaviate to count (an aggregation over a few hundred
 * thousand objects takes seconds). Written once per generation by the push, read once per
 * generation by each adapter.
 */
export function statsClassSchema(collection: string): unknown {
  return {
    class: statsClass(collection),
    description: 'Counts of a zoekt-mcp definitions index generation, per path and per language, kind and vendored',
    vectorizer: 'none',
    vectorIndexConfig: { skip: true },
    properties: [key('repo'), key('generation_repo'), stored('stats')],
  };
}

/** A cell: `<language in lower case>\t<kind>\t<1 if vendored, else 0>`. */
export interface GenerationStats {
  cells: string[];
  /** Per path, [cell index, definitions] pairs. */
  paths: Record<string, [number, number][]>;
}

export function cellOf(d: Pick<IndexedDefinition, 'language' | 'kind' | 'vendored'>): string {
  return `${d.language.toLowerCase()}\t${d.kind}\t${d.vendored ? 1 : 0}`;
}

export function statsOf(definitions: readonly IndexedDefinition[]): GenerationStats {
  const cells: string[] = [];
  const cellIndex = new Map<string, number>();
  const byPath = new Map<string, Map<number, number>>();
  for (const d of definitions) {
    const cell = cellOf(d);
    let i = cellIndex.get(cell);
    if (i === undefined) {
      i = cells.push(cell) - 1;
      cellIndex.set(cell, i);
    }
    const counts = byPath.get(d.path) ?? new Map<number, number>();
    counts.set(i, (counts.get(i) ?? 0) + 1);
    byPath.set(d.path, counts);
  }
  const paths: Record<string, [number, number][]> = {};
  for (const [path, counts] of byPath) paths[path] = [...counts];
  return { cells, paths };
}

/** What the repos class says of one repository. */
export interface RepoRecord {
  repo: string;
  /** The generation searches read; empty before the first push finishes. */
  generation: string;
  /** A generation being pushed, not yet searched. */
  pending: string;
  /** Why the last push failed, if it did. */
  error: string;
  built_at: string;
  definitions: number;
  documented: number;
  extracted: number;
  skipped_files: number;
  model_name: string;
  model_dimensions: number;
  model_source: string;
}

export const REPO_FIELDS = 'repo generation pending error built_at definitions documented extracted skipped_files model_name model_dimensions model_source';

export function repoRecordOf(o: Record<string, unknown>): RepoRecord {
  const s = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : '');
  const n = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : 0);
  return {
    repo: s('repo'),
    generation: s('generation'),
    pending: s('pending'),
    error: s('error'),
    built_at: s('built_at'),
    definitions: n('definitions'),
    documented: n('documented'),
    extracted: n('extracted'),
    skipped_files: n('skipped_files'),
    model_name: s('model_name'),
    model_dimensions: n('model_dimensions'),
    model_source: s('model_source'),
  };
}

export function statusOf(r: RepoRecord): DefinitionsRepoStatus {
  return { repo: r.repo, generation: r.generation, built_at: r.built_at, definitions: r.definitions, documented: r.documented, extracted: r.extracted, skipped_files: r.skipped_files };
}

export function generationRepo(repo: string, generation: string): string {
  return `${generation}:${repo}`;
}

export function scopeOf(repo: string, generation: string, path: string, parent: string | undefined): string {
  return JSON.stringify([generation, repo, path, parent ?? '']);
}

/** The fields a search asks back for each definition. */
export const DEFINITION_FIELDS = 'repo generation path line column name kind raw_kind parent parent_kind language signature documentation vendored';

export function definitionOf(o: Record<string, unknown>): IndexedDefinition {
  const s = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : '');
  const d: IndexedDefinition = {
    repo: s('repo'),
    path: s('path'),
    line: typeof o.line === 'number' ? o.line : 0,
    column: typeof o.column === 'number' ? o.column : 0,
    name: s('name'),
    kind: s('kind'),
    raw_kind: s('raw_kind'),
    language: s('language'),
    signature: s('signature'),
    vendored: o.vendored === true,
  };
  if (s('parent')) d.parent = s('parent');
  if (s('parent_kind')) d.parent_kind = s('parent_kind');
  if (s('documentation')) d.documentation = s('documentation');
  return d;
}

/** The properties of one definition's object. */
export function propertiesOf(d: IndexedDefinition, generation: string, text: string): Record<string, unknown> {
  const p: Record<string, unknown> = {
    repo: d.repo,
    generation,
    generation_repo: generationRepo(d.repo, generation),
    scope: scopeOf(d.repo, generation, d.path, d.parent),
    path: d.path,
    kind: d.kind,
    language_key: d.language.toLowerCase(),
    vendored: d.vendored,
    text,
    name: d.name,
    raw_kind: d.raw_kind,
    language: d.language,
    signature: d.signature,
    line: d.line,
    column: d.column,
  };
  if (d.parent !== undefined) p.parent = d.parent;
  if (d.parent_kind !== undefined) p.parent_kind = d.parent_kind;
  if (d.documentation !== undefined) p.documentation = d.documentation;
  return p;
}

/**
 * A stable object id (a UUID shaped from SHA-1, as version 5 ids are): pushing the same
 * generation again overwrites its objects instead of adding copies.
 */
export function objectId(...parts: string[]): string {
  const h = createHash('sha1').update(parts.join('\u0000')).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** A GraphQL string literal (JSON's escapes are GraphQL's). */
export function gqlString(s: string): string {
  return JSON.stringify(s);
}

/** A `where` operand of a text property against several values. */
export function textIn(path: string, operator: 'ContainsAny' | 'ContainsNone', values: readonly string[]): string {
  return `{path: ["${path}"], operator: ${operator}, valueText: [${values.map(gqlString).join(', ')}]}`;
}

export function andOf(operands: readonly string[]): string {
  return operands.length === 1 ? operands[0]! : `{operator: And, operands: [${operands.join(', ')}]}`;
}
