/**
 * The definitions index on disk: one folder, one manifest naming each repository's current files,
 * and per repository a JSON file of its definitions and a file of their vectors.
 *
 *   manifest.json  which stem is each repository's current one, and the model its vectors are of
 *   <stem>.json    the repository's files (path, blob, language) and their definitions
 *   <stem>.vec     definitions × dimensions signed bytes, in the JSON's order (file, then
 *                  definition): each unit vector × 127, rounded
 *
 * Every file is written under a temporary name and renamed, and a repository's new stem is named
 * by the manifest only once its files are whole: a reader that reads the manifest and then a stem
 * sees one generation, never half of two. Old stems are removed after the manifest names the new
 * one; a reader that loses that race gets an error saying to read the manifest again. Writers take
 * the folder's lock (lock.ts) for the manifest's read-modify-write.
 */
import { randomBytes, createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { IndexedDefinition } from '../search/definitions/definitions-index.js';

export const FORMAT = 1;
export const MANIFEST = 'manifest.json';

/** The embedding model that made a folder's vectors: vectors of two models are never mixed. */
export const ModelInfo = z.object({ name: z.string().min(1), dimensions: z.number().int().positive(), source: z.string() });
export type ModelInfo = z.infer<typeof ModelInfo>;

export const RepoEntry = z.object({
  /** The indexed commit (git), or a hash over the (path, blob) pairs of a folder. */
  generation: z.string().min(1),
  /** The repository's files are <stem>.json and <stem>.vec. */
  stem: z.string().regex(/^[\w.-]+$/),
  built_at: z.string(),
  /** Files in the tree the index was built from. */
  files: z.number().int().nonnegative(),
  /** Definitions stored, and of them those with a doc comment. */
  definitions: z.number().int().nonnegative(),
  documented: z.number().int().nonnegative(),
  /** Tags the extractor gave (the stored definitions are those Zoekt keeps of them). */
  extracted: z.number().int().nonnegative(),
  /** Files whose definitions could not be read: too large, binary, an extraction that failed. */
  skipped_files: z.number().int().nonnegative(),
});
export type RepoEntry = z.infer<typeof RepoEntry>;

export const Manifest = z.object({
  format: z.literal(FORMAT),
  model: ModelInfo,
  repos: z.record(z.string(), RepoEntry),
  /** Repositories a build is under way for (their entry, if any, is the previous generation). */
  building: z.array(z.string()).optional(),
  /** Repositories whose last build failed, with why (their entry, if any, is the last good one). */
  failed: z.record(z.string(), z.string()).optional(),
});
export type Manifest = z.infer<typeof Manifest>;

/** One definition as stored: IndexedDefinition without what its file and repository say. */
export const StoredDefinition = z.object({
  name: z.string(),
  kind: z.string(),
  raw_kind: z.string(),
  line: z.number().int().positive(),
  column: z.number().int().positive(),
  parent: z.string().optional(),
  parent_kind: z.string().optional(),
  signature: z.string(),
  documentation: z.string().optional(),
  vendored: z.boolean(),
});
export type StoredDefinition = z.infer<typeof StoredDefinition>;

export const StoredFile = z.object({
  path: z.string().min(1),
  /** Git's blob hash of the content: what a later build reuses the file's definitions and vectors by. */
  blob: z.string().regex(/^[0-9a-f]{40,64}$/),
  language: z.string(),
  /** Why the file has no definitions although it may have some (too large, binary, failed). */
  skipped: z.string().optional(),
  /** Tags the extractor gave for it (its definitions are those Zoekt keeps of them). */
  extracted: z.number().int().nonnegative().optional(),
  definitions: z.array(StoredDefinition),
});
export type StoredFile = z.infer<typeof StoredFile>;

export const RepoData = z.object({ repo: z.string(), generation: z.string(), files: z.array(StoredFile) });
export type RepoData = z.infer<typeof RepoData>;

/** A repository's index as read: its definitions in the stored order, and their vectors in the same order. */
export interface RepoIndex {
  repo: string;
  entry: RepoEntry;
  files: StoredFile[];
  definitions: IndexedDefinition[];
  /** definitions.length × dimensions. */
  vectors: Int8Array;
  dimensions: number;
}

/** A definitions index folder that cannot be read as one; `hint` says what to do. */
export class DefinitionsIndexError extends Error {
  constructor(
    message: string,
    readonly hint: string,
    readonly file?: string,
  ) {
    super(message);
    this.name = 'DefinitionsIndexError';
  }
}

const REBUILD = 'rebuild it: zoekt-mcp definitions build --repo PATH --out DIR';

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new DefinitionsIndexError(`${what} ${file} does not exist`, what === 'manifest' ? `no definitions index in this folder yet; ${REBUILD}` : 'a newer build replaced it: read the manifest again', file);
    throw new DefinitionsIndexError(`${what} ${file} cannot be read: ${(e as Error).message}`, 'check the folder\'s permissions', file);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DefinitionsIndexError(`${what} ${file} is not JSON (${(e as Error).message})`, REBUILD, file);
  }
}

function invalid(what: string, file: string, error: z.ZodError): DefinitionsIndexError {
  const issue = error.issues[0]!;
  return new DefinitionsIndexError(`${what} ${file} is not a definitions index ${what}: ${issue.path.join('.') || '(top)'}: ${issue.message}`, REBUILD, file);
}

/** The folder's manifest; undefined when there is none yet. A bad one is a DefinitionsIndexError. */
export function readManifest(dir: string): Manifest | undefined {
  const file = join(dir, MANIFEST);
  if (!existsSync(file)) return undefined;
  const raw = readJson(file, 'manifest');
  const format = (raw as { format?: unknown } | null)?.format;
  if (typeof format === 'number' && format !== FORMAT) {
    throw new DefinitionsIndexError(`manifest ${file} has format ${format}; this version reads format ${FORMAT}`, `build the index again with this version: ${REBUILD}`, file);
  }
  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) throw invalid('manifest', file, parsed.error);
  return parsed.data;
}

/** One repository's index, checked against its manifest entry and the model's dimensions. */
export function readRepoIndex(dir: string, repo: string, entry: RepoEntry, dimensions: number): RepoIndex {
  const jsonFile = join(dir, `${entry.stem}.json`);
  const vecFile = join(dir, `${entry.stem}.vec`);
  const parsed = RepoData.safeParse(readJson(jsonFile, 'index file'));
  if (!parsed.success) throw invalid('index file', jsonFile, parsed.error);
  const data = parsed.data;
  if (data.repo !== repo || data.generation !== entry.generation) {
    throw new DefinitionsIndexError(`index file ${jsonFile} holds ${data.repo}@${data.generation}, the manifest names ${repo}@${entry.generation}`, REBUILD, jsonFile);
  }
  const definitions: IndexedDefinition[] = [];
  for (const f of data.files) {
    for (const d of f.definitions) {
      const def: IndexedDefinition = { repo, path: f.path, line: d.line, column: d.column, name: d.name, kind: d.kind, raw_kind: d.raw_kind, language: f.language, signature: d.signature, vendored: d.vendored };
      if (d.parent !== undefined) def.parent = d.parent;
      if (d.parent_kind !== undefined) def.parent_kind = d.parent_kind;
      if (d.documentation !== undefined) def.documentation = d.documentation;
      definitions.push(def);
    }
  }
  if (definitions.length !== entry.definitions) {
    throw new DefinitionsIndexError(`index file ${jsonFile} holds ${definitions.length} definitions, the manifest says ${entry.definitions}`, REBUILD, jsonFile);
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(vecFile);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new DefinitionsIndexError(`vectors ${vecFile} cannot be read: ${(e as Error).message}`, code === 'ENOENT' ? 'a newer build replaced it: read the manifest again' : REBUILD, vecFile);
  }
  if (bytes.length !== definitions.length * dimensions) {
    throw new DefinitionsIndexError(`vectors ${vecFile} hold ${bytes.length} bytes, not ${definitions.length} definitions × ${dimensions} dimensions`, REBUILD, vecFile);
  }
  const vectors = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  return { repo, entry, files: data.files, definitions, vectors, dimensions };
}

/** A unit vector as stored: each component × 127, rounded. */
export function quantize(vector: Float32Array, into: Int8Array, at: number): void {
  for (let i = 0; i < vector.length; i++) into[at + i] = Math.max(-127, Math.min(127, Math.round(vector[i]! * 127)));
}

/** Writes `data` under a temporary name in the same folder, flushed, then renames it into place. */
export function writeAtomically(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  } finally {
    try {
      closeSync(fd);
    } catch {
      // closed above
    }
  }
  renameSync(tmp, file);
}

/**
 * A repository's stems start with this: its name made safe for a file name, and a hash of the
 * exact name (two names that read alike once made safe stay apart).
 */
export function stemPrefix(repo: string): string {
  const safe = repo.replace(/[^\w.-]+/g, '_').replace(/^[.-]+/, '').slice(0, 80);
  return `${safe}.${createHash('sha256').update(repo).digest('hex').slice(0, 8)}.`;
}

function newStem(repo: string, generation: string): string {
  return `${stemPrefix(repo)}${generation.replace(/[^\w]/g, '').slice(0, 12)}.${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
}

/** Writes a repository's files under a new stem; the manifest does not name them yet. */
export function writeRepoFiles(dir: string, data: RepoData, vectors: Int8Array): string {
  mkdirSync(dir, { recursive: true });
  const stem = newStem(data.repo, data.generation);
  writeAtomically(join(dir, `${stem}.vec`), new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength));
  writeAtomically(join(dir, `${stem}.json`), JSON.stringify(data));
  return stem;
}

export function writeManifest(dir: string, manifest: Manifest): void {
  writeAtomically(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 1)}\n`);
}

/**
 * Removes the files of stems the manifest does not name: a repository's earlier generations, and
 * those of builds that died before their manifest swap. Call it holding the lock.
 */
export function removeUnnamedStems(dir: string, manifest: Manifest): void {
  const named = new Set(Object.values(manifest.repos).map((e) => e.stem));
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^(.+)\.(json|vec|pack)(?:\.\d+\.[0-9a-f]+\.tmp)?$/.exec(name);
    if (!m || name === MANIFEST || name.startsWith(`${MANIFEST}.`)) continue;
    // A temporary file is another writer's until it is renamed: left to that writer.
    if (name.endsWith('.tmp')) continue;
    if (!named.has(m[1]!)) rmSync(join(dir, name), { force: true });
  }
}

/** A manifest naming no repository yet, for vectors of `model`. */
export function emptyManifest(model: ModelInfo): Manifest {
  return { format: FORMAT, model: { name: model.name, dimensions: model.dimensions, source: model.source }, repos: {} };
}
