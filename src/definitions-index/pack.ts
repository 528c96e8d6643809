/**
 * A repository's definitions as the in-process engine searches them: one binary file per stem
 * (`<stem>.pack`, beside its .json and .vec), read into typed arrays over one buffer, no parsing.
 *
 * Why not the vectors: Go's tree alone has some 390,000 definitions (every constant of every
 * generated table); their int8 vectors are 99 MB, and a scan of them 100 M multiplications. The
 * model is static (model/embedder.ts): a text's vector is the normalised sum of its tokens' rows,
 * so its cosine with a description is the sum of the description's dot products with those rows
 * (computed once per search for the whole vocabulary) over the sum's length. A definition then
 * costs its few token ids and one float, and scores exactly as its vector would.
 *
 * What a result needs beyond ranking (signature, documentation) is not kept: Zoekt confirms every
 * page and gives both (search/symbols/by-meaning.ts).
 *
 * Layout: "ZMDP", u32 version, u32 header length, the header (JSON: counts, the string tables,
 * each section's offset and length), then the sections, each 8-byte aligned.
 */
import { readFileSync } from 'node:fs';
import type { Embedder } from '../model/embedder.js';
import { concepts } from './bm25.js';
import { writeAtomically, type RepoData } from './format.js';
import { definitionText, docSummary } from './texts.js';
import { identifierWords } from '../search/definitions/words.js';
import { isDeclaration, isNested, isPublic, isTest } from '../search/definitions/prominence.js';

/** defFlags bits. */
export const PUBLIC = 1;
export const TEST = 2;
export const NESTED = 4;
export const DECLARATION = 8;
export const DOCUMENTED = 16;

const MAGIC = 'ZMDP';
const VERSION = 1;

type Section =
  | 'paths'
  | 'pathEnds'
  | 'fileLanguage'
  | 'fileVendored'
  | 'defFile'
  | 'defLine'
  | 'defColumn'
  | 'defKind'
  | 'defRawKind'
  | 'defFlags'
  | 'names'
  | 'nameEnds'
  | 'parents'
  | 'parentEnds'
  | 'defText'
  | 'textDefs'
  | 'textDefEnds'
  | 'tokenIds'
  | 'tokenEnds'
  | 'inverseLengths'
  | `${Field}.concepts`
  | `${Field}.conceptEnds`
  | `${Field}.postingEnds`
  | `${Field}.postings`
  | `${Field}.lengths`;

/** The fields full-text relevance reads apart: a name (and its parent's), and a doc comment's summary. */
export const FIELDS = ['name', 'doc'] as const;
export type Field = (typeof FIELDS)[number];

/** One field's postings over a pack's texts. */
export interface FieldIndex {
  /** Concept → [first, end) in postings, which lists texts. */
  conceptRanges: Map<string, [number, number]>;
  postings: Uint32Array;
  /** Per text: its concepts in this field, for BM25's length normalisation. */
  lengths: Uint16Array;
  totalLength: number;
}

interface Header {
  repo: string;
  generation: string;
  files: number;
  definitions: number;
  languages: string[];
  kinds: string[];
  rawKinds: string[];
  /** Distinct texts: definitions with the same text (a constant of each of twenty generated files) share one. */
  texts: number;
  fields: Record<Field, { concepts: number; totalLength: number }>;
  sections: Record<Section, [offset: number, bytes: number]>;
}

/** A pack as read: typed arrays over the file's buffer. */
export interface Pack {
  repo: string;
  generation: string;
  files: number;
  definitions: number;
  languages: string[];
  kinds: string[];
  rawKinds: string[];
  bytes: Buffer;
  pathEnds: Uint32Array;
  paths: [number, number];
  fileLanguage: Uint16Array;
  fileVendored: Uint8Array;
  defFile: Uint32Array;
  defLine: Uint32Array;
  defColumn: Uint32Array;
  defKind: Uint8Array;
  defRawKind: Uint16Array;
  /** What prominence.ts says of each (PUBLIC, TEST, NESTED, DECLARATION bits), and DOCUMENTED. */
  defFlags: Uint8Array;
  names: [number, number];
  nameEnds: Uint32Array;
  parents: [number, number];
  parentEnds: Uint32Array;
  /** Each definition's text; each text's definitions (textDefs[textDefEnds[t-1]..textDefEnds[t])). */
  texts: number;
  defText: Uint32Array;
  textDefs: Uint32Array;
  textDefEnds: Uint32Array;
  /** Per text: its token rows (tokenIds[tokenEnds[t-1]..tokenEnds[t])) and 1 ÷ the length of their sum. */
  tokenIds: Uint16Array;
  tokenEnds: Uint32Array;
  inverseLengths: Float32Array;
  fields: Record<Field, FieldIndex>;
}

export class PackError extends Error {
  override name = 'PackError';
}

/** Strings as one UTF-8 blob and the end offset of each. */
function blob(strings: readonly string[]): { bytes: Buffer; ends: Uint32Array } {
  const parts = strings.map((s) => Buffer.from(s, 'utf8'));
  const ends = new Uint32Array(parts.length);
  let at = 0;
  parts.forEach((p, i) => {
    at += p.length;
    ends[i] = at;
  });
  return { bytes: Buffer.concat(parts), ends };
}

/**
 * What a build keeps of the previous generation's pack: for a file whose content is unchanged,
 * the row its definitions started at there, whose texts' rows and concepts are taken as they are.
 */
export interface PackReuse {
  pack: Pack;
  previousRow(file: number): number | undefined;
}

/** Each text's concepts in each field, from a pack's postings (inverted back). */
function conceptsByText(pack: Pack): Record<Field, string[][]> {
  const out = {} as Record<Field, string[][]>;
  for (const field of FIELDS) {
    const lists: string[][] = Array.from({ length: pack.texts }, () => []);
    const { conceptRanges, postings } = pack.fields[field];
    for (const [concept, [from, to]] of conceptRanges) for (let i = from; i < to; i++) lists[postings[i]!]!.push(concept);
    out[field] = lists;
  }
  return out;
}

/**
 * Writes `<file>`: the pack of one repository's definitions, their texts tokenized by `embedder`
 * (or, for the files `reuse` names, taken from the previous pack: an edit costs its own files).
 */
export function writePack(file: string, data: RepoData, embedder: Pick<Embedder, 'rowsOf'>, reuse?: PackReuse): void {
  let previousConcepts: Record<Field, string[][]> | undefined;
  const languages: string[] = [];
  const kinds: string[] = [];
  const rawKinds: string[] = [];
  const code = (list: string[], value: string) => {
    let at = list.indexOf(value);
    if (at < 0) at = list.push(value) - 1;
    return at;
  };
  const n = data.files.reduce((k, f) => k + f.definitions.length, 0);
  const defFile = new Uint32Array(n);
  const defLine = new Uint32Array(n);
  const defColumn = new Uint32Array(n);
  const defKind = new Uint8Array(n);
  const defRawKind = new Uint16Array(n);
  const defFlags = new Uint8Array(n);
  const defText = new Uint32Array(n);
  const fileLanguage = new Uint16Array(data.files.length);
  const fileVendored = new Uint8Array(data.files.length);
  const names: string[] = [];
  const parents: string[] = [];
  const textIds = new Map<string, number>();
  const textDefLists: number[][] = [];
  const tokenParts: Uint16Array[] = [];
  const inverse: number[] = [];
  const fieldWords: Record<Field, string[][]> = { name: [], doc: [] };
  let tokens = 0;
  let d = 0;
  data.files.forEach((f, fi) => {
    const firstOfFile = d;
    fileLanguage[fi] = code(languages, f.language);
    fileVendored[fi] = f.definitions.some((x) => x.vendored) ? 1 : 0;
    for (const def of f.definitions) {
      defFile[d] = fi;
      defLine[d] = def.line;
      defColumn[d] = def.column;
      defKind[d] = code(kinds, def.kind);
      defRawKind[d] = code(rawKinds, def.raw_kind);
      const seen = { ...def, language: f.language, path: f.path };
      // A script's top-level definition is exported far from its line (`module.exports = valid`): public unless nested.
      const exported = isPublic(seen) || (f.language === 'JavaScript' && !def.parent && !isNested(seen));
      defFlags[d] =
        (exported ? PUBLIC : 0) | (isTest(f.path) ? TEST : 0) | (isNested(seen) ? NESTED : 0) | (isDeclaration(seen) ? DECLARATION : 0) | (def.documentation ? DOCUMENTED : 0);
      names.push(def.name);
      parents.push(def.parent ?? '');
      const text = definitionText(def);
      let t = textIds.get(text);
      if (t === undefined) {
        t = textDefLists.length;
        textIds.set(text, t);
        textDefLists.push([]);
        const from = reuse?.previousRow(fi);
        if (reuse && from !== undefined) {
          const old = reuse.pack;
          const o = old.defText[from + (d - firstOfFile)]!;
          const ids = old.tokenIds.subarray(o === 0 ? 0 : old.tokenEnds[o - 1]!, old.tokenEnds[o]!);
          tokenParts.push(ids);
          tokens += ids.length;
          inverse.push(old.inverseLengths[o]!);
          previousConcepts ??= conceptsByText(old);
          fieldWords.name.push(previousConcepts.name[o]!);
          fieldWords.doc.push(previousConcepts.doc[o]!);
        } else {
          const rows = embedder.rowsOf(text);
          tokenParts.push(rows.ids);
          tokens += rows.ids.length;
          inverse.push(rows.sumLength > 0 ? 1 / rows.sumLength : 0);
          fieldWords.name.push(concepts(`${identifierWords(def.name).join(' ')} ${def.parent ? identifierWords(def.parent).join(' ') : ''}`));
          fieldWords.doc.push(concepts(docSummary(def.documentation)));
        }
      }
      defText[d] = t;
      textDefLists[t]!.push(d);
      d++;
    }
  });
  if (kinds.length > 0xff || rawKinds.length > 0xffff || languages.length > 0xffff) throw new PackError(`too many kinds or languages for a pack (${kinds.length}, ${rawKinds.length}, ${languages.length})`);
  const texts = textDefLists.length;
  const tokenIds = new Uint16Array(tokens);
  const tokenEnds = new Uint32Array(texts);
  let at = 0;
  tokenParts.forEach((part, t) => {
    tokenIds.set(part, at);
    at += part.length;
    tokenEnds[t] = at;
  });
  const textDefs = new Uint32Array(n);
  const textDefEnds = new Uint32Array(texts);
  at = 0;
  textDefLists.forEach((list, t) => {
    textDefs.set(list, at);
    at += list.length;
    textDefEnds[t] = at;
  });
  const inverseLengths = Float32Array.from(inverse);
  const fieldSections: [Section, ArrayBufferView][] = [];
  const fieldCounts = {} as Header['fields'];
  for (const field of FIELDS) {
    const postingLists = new Map<string, number[]>();
    const lengths = new Uint16Array(texts);
    let total = 0;
    fieldWords[field].forEach((words, t) => {
      lengths[t] = Math.min(words.length, 0xffff);
      total += words.length;
      for (const w of words) {
        const list = postingLists.get(w);
        if (list) list.push(t);
        else postingLists.set(w, [t]);
      }
    });
    const conceptList = [...postingLists.keys()];
    const postingEnds = new Uint32Array(conceptList.length);
    const postings = new Uint32Array(conceptList.reduce((k, c) => k + postingLists.get(c)!.length, 0));
    let p = 0;
    conceptList.forEach((c, i) => {
      for (const t of postingLists.get(c)!) postings[p++] = t;
      postingEnds[i] = p;
    });
    const conceptBlob = blob(conceptList);
    fieldSections.push([`${field}.concepts`, conceptBlob.bytes], [`${field}.conceptEnds`, conceptBlob.ends], [`${field}.postingEnds`, postingEnds], [`${field}.postings`, postings], [`${field}.lengths`, lengths]);
    fieldCounts[field] = { concepts: conceptList.length, totalLength: total };
  }
  const paths = blob(data.files.map((f) => f.path));
  const nameBlob = blob(names);
  const parentBlob = blob(parents);
  const sections: [Section, ArrayBufferView][] = [
    ['paths', paths.bytes],
    ['pathEnds', paths.ends],
    ['fileLanguage', fileLanguage],
    ['fileVendored', fileVendored],
    ['defFile', defFile],
    ['defLine', defLine],
    ['defColumn', defColumn],
    ['defKind', defKind],
    ['defRawKind', defRawKind],
    ['defFlags', defFlags],
    ['names', nameBlob.bytes],
    ['nameEnds', nameBlob.ends],
    ['parents', parentBlob.bytes],
    ['parentEnds', parentBlob.ends],
    ['defText', defText],
    ['textDefs', textDefs],
    ['textDefEnds', textDefEnds],
    ['tokenIds', tokenIds],
    ['tokenEnds', tokenEnds],
    ['inverseLengths', inverseLengths],
    ...fieldSections,
  ];
  const header: Header = {
    repo: data.repo,
    generation: data.generation,
    files: data.files.length,
    definitions: n,
    languages,
    kinds,
    rawKinds,
    texts,
    fields: fieldCounts,
    sections: {} as Header['sections'],
  };
  let offset = 0;
  for (const [name, view] of sections) {
    header.sections[name] = [offset, view.byteLength];
    offset += align(view.byteLength);
  }
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  const start = align(12 + head.length);
  const out = Buffer.alloc(start + offset);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(VERSION, 4);
  out.writeUInt32LE(head.length, 8);
  head.copy(out, 12);
  for (const [name, view] of sections) {
    Buffer.from(view.buffer, view.byteOffset, view.byteLength).copy(out, start + header.sections[name][0]);
  }
  writeAtomically(file, out);
}

function align(n: number): number {
  return (n + 7) & ~7;
}

/** Reads a pack written by writePack; a file that is not one is a PackError. */
export function readPack(file: string): Pack {
  let bytes = readFileSync(file);
  // Typed arrays need their offsets aligned: a buffer that does not start at one is copied once.
  if (bytes.byteOffset % 8 !== 0) bytes = Buffer.from(new Uint8Array(bytes));
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== MAGIC) throw new PackError(`${file} is not a definitions pack`);
  const version = bytes.readUInt32LE(4);
  if (version !== VERSION) throw new PackError(`${file} is a version ${version} pack; this version reads ${VERSION}`);
  const headLength = bytes.readUInt32LE(8);
  let header: Header;
  try {
    header = JSON.parse(bytes.toString('utf8', 12, 12 + headLength)) as Header;
  } catch (e) {
    throw new PackError(`${file} has a broken header (${(e as Error).message})`);
  }
  const start = align(12 + headLength);
  const section = <T>(name: Section, make: (buffer: ArrayBuffer, offset: number, length: number) => T, width: number): T => {
    const [offset, length] = header.sections[name] ?? [NaN, NaN];
    const from = bytes.byteOffset + start + offset;
    if (!(length >= 0) || start + offset + length > bytes.length || from % width !== 0) throw new PackError(`${file} is cut short or misaligned at ${name}`);
    return make(bytes.buffer as ArrayBuffer, from, length / width);
  };
  const u32 = (name: Section) => section(name, (b, o, l) => new Uint32Array(b, o, l), 4);
  const u16 = (name: Section) => section(name, (b, o, l) => new Uint16Array(b, o, l), 2);
  const u8 = (name: Section) => section(name, (b, o, l) => new Uint8Array(b, o, l), 1);
  const range = (name: Section): [number, number] => {
    const [offset, length] = header.sections[name];
    return [start + offset, start + offset + length];
  };
  const pack: Pack = {
    repo: header.repo,
    generation: header.generation,
    files: header.files,
    definitions: header.definitions,
    languages: header.languages,
    kinds: header.kinds,
    rawKinds: header.rawKinds,
    bytes,
    paths: range('paths'),
    pathEnds: u32('pathEnds'),
    fileLanguage: u16('fileLanguage'),
    fileVendored: u8('fileVendored'),
    defFile: u32('defFile'),
    defLine: u32('defLine'),
    defColumn: u32('defColumn'),
    defKind: u8('defKind'),
    defRawKind: u16('defRawKind'),
    defFlags: u8('defFlags'),
    names: range('names'),
    nameEnds: u32('nameEnds'),
    parents: range('parents'),
    parentEnds: u32('parentEnds'),
    texts: header.texts,
    defText: u32('defText'),
    textDefs: u32('textDefs'),
    textDefEnds: u32('textDefEnds'),
    tokenIds: u16('tokenIds'),
    tokenEnds: u32('tokenEnds'),
    inverseLengths: section('inverseLengths', (b, o, l) => new Float32Array(b, o, l), 4),
    fields: {} as Pack['fields'],
  };
  if (
    pack.defFile.length !== pack.definitions ||
    pack.defText.length !== pack.definitions ||
    pack.pathEnds.length !== pack.files ||
    pack.tokenEnds.length !== pack.texts ||
    pack.textDefEnds.length !== pack.texts
  ) {
    throw new PackError(`${file} does not hold together: its counts disagree`);
  }
  for (const field of FIELDS) {
    const counts = header.fields?.[field];
    const postingEnds = u32(`${field}.postingEnds`);
    const nameEnds = u32(`${field}.conceptEnds`);
    const lengths = u16(`${field}.lengths`);
    if (!counts || postingEnds.length !== counts.concepts || nameEnds.length !== counts.concepts || lengths.length !== header.texts) {
      throw new PackError(`${file} does not hold together: the ${field} field's counts disagree`);
    }
    const conceptRanges = new Map<string, [number, number]>();
    const [names] = range(`${field}.concepts`);
    for (let i = 0, name = 0, posting = 0; i < counts.concepts; i++) {
      conceptRanges.set(bytes.toString('utf8', names + name, names + nameEnds[i]!), [posting, postingEnds[i]!]);
      name = nameEnds[i]!;
      posting = postingEnds[i]!;
    }
    pack.fields[field] = { conceptRanges, postings: u32(`${field}.postings`), lengths, totalLength: counts.totalLength };
  }
  return pack;
}

/** The i-th string of a blob. */
export function stringAt(pack: Pack, blobRange: [number, number], ends: Uint32Array, i: number): string {
  const from = i === 0 ? 0 : ends[i - 1]!;
  return pack.bytes.toString('utf8', blobRange[0] + from, blobRange[0] + ends[i]!);
}
