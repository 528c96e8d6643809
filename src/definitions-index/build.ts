/**
 * Builds one repository's definitions index from what Zoekt indexed (a commit, or a folder):
 * every file's definitions as the extractor gives them to Zoekt, their doc comments, their texts
 * embedded. Incremental: a file whose blob (and extension) the previous generation holds keeps its
 * definitions and vectors; only the others are extracted and embedded; deleted files drop out.
 */
import { ParseWorker } from '../extractor/parse-worker.js';
import { sourceFor } from '../extractor/languages.js';
import { Tagger } from '../extractor/tagger.js';
import type { TagRequest } from '../extractor/protocol.js';
import { isVendoredPath } from '../search/vocab/vendored.js';
import { definitionsOf, tagsOfAnswer } from './definitions.js';
import {
  DefinitionsIndexError,
  emptyManifest,
  quantize,
  readManifest,
  readRepoIndex,
  removeUnnamedStems,
  writeManifest,
  writeRepoFiles,
  type Manifest,
  type ModelInfo,
  type RepoEntry,
  type StoredFile,
} from './format.js';
import { join } from 'node:path';
import { withLock } from './lock.js';
import { readPack, writePack, type Pack } from './pack.js';
import type { Embedder as ModelEmbedder } from '../model/embedder.js';
import type { Source, SourceFile } from './sources.js';
import { definitionText } from './texts.js';

/** The embedding model as the builder uses it (src/model/embedder.ts): unit vectors of `info.dimensions`, and the rows a pack keeps (pack.ts). */
export interface Embedder extends Pick<ModelEmbedder, 'rowsOf'> {
  info: ModelInfo & { license?: string };
  embed(texts: readonly string[]): Float32Array[] | Promise<Float32Array[]>;
}

/** What answers the ctags protocol for one file: the extractor's Tagger. */
export interface TagAnswerer {
  answer(request: TagRequest): Promise<string>;
}

/**
 * The options Zoekt's indexer starts Universal Ctags with (go-ctags: `--fields=*`, the pattern
 * limit and its list of languages known to work), for the files the extractor passes on to it.
 */
export const CTAGS_ARGS: readonly string[] = [
  '--_interactive=default',
  '--fields=*',
  '--pattern-length-limit=255',
  `--languages=${[
    'Basic', 'C', 'C#', 'C++', 'CSS', 'CUDA', 'Clojure', 'Cobol', 'D', 'Elixir', 'Erlang', 'Go', 'GraphQL', 'Groovy', 'Java', 'JavaScript', 'Jsonnet', 'Lisp', 'Lua',
    'Markdown', 'MatLab', 'OCaml', 'ObjectiveC', 'PHP', 'Pascal', 'Perl', 'Perl6', 'Powershell', 'Protobuf', 'Python', 'R', 'Ruby', 'Rust', 'Scheme', 'Sh', 'SystemVerilog',
    'Tcl', 'Thrift', 'VHDL', 'Verilog', 'Vim', 'elm', 'haskell', 'kotlin', 'scala', 'swift', 'tsx', 'typescript',
  ].join(',')}`,
];

/** The extractor with a parse worker of its own; `workerScript` is dist/extractor/worker.js. */
export function openTagger(workerScript: URL, ctagsBin: string): TagAnswerer & { close(): Promise<void> } {
  const worker = new ParseWorker(workerScript);
  const tagger = new Tagger(worker, ctagsBin, [...CTAGS_ARGS]);
  return {
    answer: (request) => tagger.answer(request),
    close: async () => {
      tagger.close();
      await worker.close();
    },
  };
}

/** The largest file with symbols: the extractor's limit and the file limit zoekt-config/index gives Zoekt. */
export const MAX_FILE_BYTES = 4 << 20;
/** Texts embedded per call: small enough to yield between batches, large enough to amortise. */
const EMBED_BATCH = 256;

export interface BuildOptions {
  /** The definitions index folder. */
  out: string;
  /** Zoekt's name of the repository. */
  repo: string;
  source: Source;
  embedder: Embedder;
  tagger: TagAnswerer;
  log?: (msg: string) => void;
  signal?: AbortSignal;
}

export interface BuildReport {
  repo: string;
  entry: RepoEntry;
  /** The previous generation was this one already: nothing was written. */
  unchanged: boolean;
  /** Files sent to the extractor, and files whose definitions came from the previous generation. */
  extractedFiles: number;
  reusedFiles: number;
  embedded: number;
  skipped: { path: string; reason: string }[];
  ms: { total: number; extract: number; embed: number; write: number };
}

/** A file's reuse key: its content, and its extension (which decides its language and parser). */
function reuseKey(path: string, blob: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return `${blob}\0${dot > 0 ? base.slice(dot).toLowerCase() : ''}`;
}

function sameModel(a: ModelInfo, b: ModelInfo): boolean {
  return a.name === b.name && a.dimensions === b.dimensions;
}

/** The manifest under the lock, changed by `change` and written (with the model given). */
async function updateManifest(out: string, model: ModelInfo, change: (m: Manifest) => void, log: (msg: string) => void): Promise<Manifest> {
  return withLock(out, () => {
    let manifest = readManifest(out) ?? emptyManifest(model);
    if (!sameModel(manifest.model, model)) {
      // Vectors of two models do not compare: the other repositories are built again with this one.
      const dropped = Object.keys(manifest.repos);
      if (dropped.length) log(`the index held vectors of ${manifest.model.name} (${manifest.model.dimensions}); now ${model.name}: dropped ${dropped.join(', ')} until they are built again`);
      manifest = { ...emptyManifest(model), ...(manifest.building ? { building: manifest.building } : {}), ...(manifest.failed ? { failed: manifest.failed } : {}) };
    }
    change(manifest);
    if (manifest.building?.length === 0) delete manifest.building;
    if (manifest.failed && Object.keys(manifest.failed).length === 0) delete manifest.failed;
    writeManifest(out, manifest);
    removeUnnamedStems(out, manifest);
    return manifest;
  });
}

/** Says in the manifest that a build of `repo` is under way (the engine reports it as building). */
export function markBuilding(out: string, repo: string, model: ModelInfo, log: (msg: string) => void = () => undefined): Promise<Manifest> {
  return updateManifest(out, model, (m) => {
    m.building = [...new Set([...(m.building ?? []), repo])];
  }, log);
}

/** Says in the manifest that the last build of `repo` failed, and why; its last good generation stays. */
export function markFailed(out: string, repo: string, model: ModelInfo, message: string, log: (msg: string) => void = () => undefined): Promise<Manifest> {
  return updateManifest(out, model, (m) => {
    m.building = (m.building ?? []).filter((r) => r !== repo);
    m.failed = { ...(m.failed ?? {}), [repo]: message };
  }, log);
}

/** No build of `repo` is under way or failed any more. */
function settle(m: Manifest, repo: string): void {
  m.building = (m.building ?? []).filter((r) => r !== repo);
  if (m.failed) delete m.failed[repo];
}

/** The previous generation's files by reuse key, with where their vectors start; empty when there is none to reuse. */
function previousFiles(
  out: string,
  repo: string,
  model: ModelInfo,
  log: (msg: string) => void,
): { byKey: Map<string, { file: StoredFile; row: number }>; vectors: Int8Array; pack?: Pack; entry?: RepoEntry; marked: boolean } {
  const manifest = readManifest(out);
  const marked = !!manifest && (!!manifest.building?.includes(repo) || manifest.failed?.[repo] !== undefined);
  const none = { byKey: new Map<string, { file: StoredFile; row: number }>(), vectors: new Int8Array(0), marked };
  const entry = manifest?.repos[repo];
  if (!manifest || !entry || !sameModel(manifest.model, model)) return none;
  let index;
  try {
    index = readRepoIndex(out, repo, entry, manifest.model.dimensions);
  } catch (e) {
    log(`the previous index of ${repo} cannot be reused, building it whole: ${(e as Error).message}`);
    return none;
  }
  const byKey = new Map<string, { file: StoredFile; row: number }>();
  let row = 0;
  for (const file of index.files) {
    byKey.set(reuseKey(file.path, file.blob), { file, row });
    row += file.definitions.length;
  }
  // The pack's rows go with the files reused (pack.ts); without it the pack is made whole.
  let pack: Pack | undefined;
  try {
    pack = readPack(join(out, `${entry.stem}.pack`));
    if (pack.definitions !== row) pack = undefined;
  } catch (e) {
    log(`the previous pack of ${repo} cannot be reused, writing it whole: ${(e as Error).message}`);
  }
  return { byKey, vectors: index.vectors, ...(pack ? { pack } : {}), entry, marked };
}

/**
 * The vectors of a build's texts, each text embedded once (a method of one name in many types,
 * without a doc comment, has one text), in the order added, a batch at a time.
 */
class TextVectors {
  private readonly slots = new Map<string, number>();
  private pending: string[] = [];
  private store: Int8Array;
  /** Time spent in the model. */
  ms = 0;

  constructor(
    private readonly embedder: Embedder,
    private readonly model: ModelInfo,
    private readonly dims: number,
  ) {
    this.store = new Int8Array(1024 * dims);
  }

  add(text: string): void {
    if (this.slots.has(text)) return;
    this.slots.set(text, this.slots.size);
    this.pending.push(text);
  }

  /** Embeds the texts added, while at least `min` wait. */
  async flush(min: number): Promise<void> {
    while (this.pending.length >= min && this.pending.length > 0) {
      const batch = this.pending.splice(0, EMBED_BATCH);
      const started = performance.now();
      const vectors = await this.embedder.embed(batch);
      this.ms += performance.now() - started;
      const need = this.slots.size * this.dims;
      if (need > this.store.length) {
        const grown = new Int8Array(Math.max(need, 2 * this.store.length));
        grown.set(this.store);
        this.store = grown;
      }
      batch.forEach((text, k) => {
        const v = vectors[k];
        if (v?.length !== this.dims) throw new DefinitionsIndexError(`the model ${this.model.name} gave a vector of ${v?.length ?? 0} dimensions, not ${this.dims}`, 'check the model package');
        quantize(v, this.store, this.slots.get(text)! * this.dims);
      });
      // Let timers and sockets of the process that builds (the supervisor) run between batches.
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Writes the (embedded) vector of `text` into `into` at `at`. */
  copy(text: string, into: Int8Array, at: number): void {
    const slot = this.slots.get(text)!;
    into.set(this.store.subarray(slot * this.dims, (slot + 1) * this.dims), at);
  }
}

/** `735 binary (a.zip, b.zip, …), 2 too large (x.json, …)`: the reasons, each with a few of its files. */
function summarize(skipped: readonly { path: string; reason: string }[]): string {
  const byKind = new Map<string, string[]>();
  for (const s of skipped) {
    const kind = s.reason.replace(/ \(.*$|:.*$/, '');
    byKind.set(kind, [...(byKind.get(kind) ?? []), s.path]);
  }
  return [...byKind].map(([kind, paths]) => `${paths.length} ${kind} (${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', …' : ''})`).join('; ');
}

/** Builds (or brings up to date) `repo`'s definitions index in `out` from `source`. */
export async function buildRepo(opts: BuildOptions): Promise<BuildReport> {
  const started = performance.now();
  const log = opts.log ?? (() => undefined);
  const model = opts.embedder.info;
  const dims = model.dimensions;
  const { source, repo } = opts;
  const previous = previousFiles(opts.out, repo, model, log);
  if (previous.entry?.generation === source.generation) {
    if (previous.marked) await updateManifest(opts.out, model, (m) => settle(m, repo), log);
    return { repo, entry: previous.entry, unchanged: true, extractedFiles: 0, reusedFiles: source.files.length, embedded: 0, skipped: [], ms: { total: performance.now() - started, extract: 0, embed: 0, write: 0 } };
  }

  // Each file of the new tree: its stored record, and where its vectors come from.
  const files: StoredFile[] = [];
  const fromPrevious = new Map<number, number>();
  const toExtract: { file: SourceFile; at: number }[] = [];
  for (const file of source.files) {
    const kept = previous.byKey.get(reuseKey(file.path, file.blob));
    if (kept) {
      const vendored = isVendoredPath(file.path);
      fromPrevious.set(files.length, kept.row);
      files.push({ ...kept.file, path: file.path, definitions: kept.file.definitions.map((d) => (d.vendored === vendored ? d : { ...d, vendored })) });
    } else {
      toExtract.push({ file, at: files.length });
      files.push({ path: file.path, blob: file.blob, language: '', definitions: [] });
    }
  }

  const skipped: { path: string; reason: string }[] = [];
  const skip = (file: StoredFile, reason: string) => {
    file.skipped = reason;
    skipped.push({ path: file.path, reason });
  };
  const extractStarted = performance.now();
  let sent = 0;
  const atOf = new Map(toExtract.map((t) => [t.file.path, t.at]));
  const small = toExtract.filter(({ file, at }) => {
    if (file.size <= MAX_FILE_BYTES) return true;
    skip(files[at]!, `too large (${file.size} bytes; at most ${MAX_FILE_BYTES})`);
    return false;
  });
  const embedded = new TextVectors(opts.embedder, model, dims);
  /** One file asked of the extractor (which parses in its worker thread and in Universal Ctags). */
  const ask = async ({ file, content }: { file: SourceFile; content: Buffer }) => {
    const stored = files[atOf.get(file.path)!]!;
    if (content.length === 0) return undefined;
    if (content.includes(0)) {
      skip(stored, 'binary (holds a NUL byte)');
      return undefined;
    }
    const text = content.toString('utf8');
    stored.language = sourceFor(file.path, text)?.language ?? '';
    sent++;
    try {
      return { stored, text, answer: await opts.tagger.answer({ filename: file.path, content }) };
    } catch (e) {
      skip(stored, `the extractor failed: ${(e as Error).message}`);
      return undefined;
    }
  };
  // The next file is parsed while this thread reads the last one's definitions and embeds: the
  // extractor's parse and the model's arithmetic run at once.
  const contents = source.read(small.map((t) => t.file))[Symbol.asyncIterator]();
  let next = await contents.next();
  let asked = next.done ? undefined : ask(next.value);
  while (asked) {
    opts.signal?.throwIfAborted();
    const got = await asked;
    next = await contents.next();
    asked = next.done ? undefined : ask(next.value);
    if (!got) continue;
    const tags = tagsOfAnswer(got.answer);
    got.stored.extracted = tags.length;
    const found = definitionsOf(got.stored.path, got.text.split('\n'), tags);
    got.stored.language ||= found.language;
    got.stored.definitions = found.definitions;
    for (const d of found.definitions) embedded.add(definitionText(d));
    await embedded.flush(EMBED_BATCH);
  }
  await embedded.flush(1);
  const extractMs = performance.now() - extractStarted;
  if (skipped.length) log(`${repo}: ${skipped.length} files without definitions read: ${summarize(skipped)}`);

  // Vectors: copied for the files kept, the embedded ones for the others.
  const total = files.reduce((n, f) => n + f.definitions.length, 0);
  const vectors = new Int8Array(total * dims);
  let row = 0;
  let texts = 0;
  files.forEach((file, i) => {
    const from = fromPrevious.get(i);
    if (from !== undefined) {
      vectors.set(previous.vectors.subarray(from * dims, (from + file.definitions.length) * dims), row * dims);
    } else {
      file.definitions.forEach((d, k) => embedded.copy(definitionText(d), vectors, (row + k) * dims));
      texts += file.definitions.length;
    }
    row += file.definitions.length;
  });
  const embedMs = embedded.ms;

  const writeStarted = performance.now();
  const entry: RepoEntry = {
    generation: source.generation,
    stem: '',
    built_at: new Date().toISOString(),
    files: files.length,
    definitions: total,
    documented: files.reduce((n, f) => n + f.definitions.filter((d) => d.documentation).length, 0),
    extracted: files.reduce((n, f) => n + (f.extracted ?? 0), 0),
    skipped_files: files.filter((f) => f.skipped).length,
  };
  // Written under the lock: another writer removes the stems its manifest does not name.
  await updateManifest(opts.out, model, (m) => {
    const data = { repo, generation: source.generation, files };
    entry.stem = writeRepoFiles(opts.out, data, vectors);
    const reuse = previous.pack ? { pack: previous.pack, previousRow: (file: number) => fromPrevious.get(file) } : undefined;
    writePack(join(opts.out, `${entry.stem}.pack`), data, opts.embedder, reuse);
    m.repos[repo] = entry;
    settle(m, repo);
  }, log);
  const writeMs = performance.now() - writeStarted;
  return {
    repo,
    entry,
    unchanged: false,
    extractedFiles: sent,
    reusedFiles: fromPrevious.size,
    embedded: texts,
    skipped,
    ms: { total: performance.now() - started, extract: extractMs, embed: embedMs, write: writeMs },
  };
}

/**
 * A build as the command and the local supervisor run it: the manifest says `building` while it
 * runs and `failed` (with why) when it fails, the previous generation answering meanwhile.
 */
export async function buildRecorded(opts: BuildOptions): Promise<BuildReport> {
  const log = opts.log ?? (() => undefined);
  await markBuilding(opts.out, opts.repo, opts.embedder.info, log);
  try {
    return await buildRepo(opts);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    await markFailed(opts.out, opts.repo, opts.embedder.info, message, log).catch((e2: unknown) => log(`cannot record the failure in the manifest: ${(e2 as Error).message}`));
    throw e;
  }
}

/** Drops `repo` from the index: its manifest entry, its state and its files. */
export function removeRepo(out: string, repo: string, model: ModelInfo, log: (msg: string) => void = () => undefined): Promise<Manifest> {
  return updateManifest(out, model, (m) => {
    delete m.repos[repo];
    settle(m, repo);
  }, log);
}
