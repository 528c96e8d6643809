/**
 * What a cached window really takes in V8's heap, so the window cache's byte budget is a bound on
 * memory and not a guess. The figures follow V8's object layout on 64-bit Node without pointer
 * compression (Node's default build), and test/integration/window-cache-heap.test.ts checks the
 * sum against the heap growth of real windows held in a process:
 * - an object: a 24-byte header (map, properties, elements) and 8 bytes per in-object field; a
 *   field added after the object literal goes to a property array (16 bytes + 3 slots to start);
 * - an array: 32 bytes plus its backing store, 16 bytes + 8 per element;
 * - a number that is not a small integer: a 16-byte heap number;
 * - a string: 16 bytes + 1 byte per character (2 when any character is past U+00FF), rounded up
 *   to 8; a substring of 13 characters or more is a 32-byte slice that keeps its parent alive;
 *   JSON.parse hands out one shared copy of each short string value (kinds, languages, names).
 */
import { ZoektChunk, type Chunk, type EncodedChunk, type FileHit, type MatchRange, type SymbolHit } from '../../zoekt/wire.js';

const POINTER = 8;
const OBJECT = 24;
const ARRAY = 32 + 16;
const PROPERTY_ARRAY = 16 + 3 * POINTER;
const HEAP_NUMBER = 16;
const SLICE = 32;
/** V8 makes a substring this long or longer a slice of its parent instead of a copy. */
const MIN_SLICE = 13;
/** JSON.parse internalizes string values up to this length: every copy is one string. */
const SHARED_JSON_STRING = 10;

const align = (n: number) => (n + 7) & ~7;
const WIDE = /[^\u0000-\u00ff]/;

/** A flat string of `length` characters. */
export function stringBytes(s: string): number {
  return align(16 + (WIDE.test(s) ? 2 * s.length : s.length));
}

/** A string value read from JSON: short ones are shared. */
const jsonStringBytes = (s: string) => (s.length <= SHARED_JSON_STRING ? 0 : stringBytes(s));

const numberBytes = (n: number) => (Number.isInteger(n) && Math.abs(n) < 2 ** 31 ? 0 : HEAP_NUMBER);
const objectBytes = (fields: number) => OBJECT + POINTER * fields;
const arrayBytes = (length: number) => ARRAY + POINTER * length;

const symbolBytes = (s: SymbolHit) => objectBytes(4) + jsonStringBytes(s.name) + jsonStringBytes(s.kind) + jsonStringBytes(s.parent) + jsonStringBytes(s.parentKind);

function rangeBytes(r: MatchRange): number {
  let bytes = objectBytes(4);
  if (r.symbol) bytes += PROPERTY_ARRAY + symbolBytes(r.symbol);
  return bytes;
}

/** A chunk as Zoekt sent it: its base64 text, and its ranges as a flat array of small integers. */
function encodedBytes(e: EncodedChunk): number {
  let bytes = objectBytes(4) + stringBytes(e.content) + numberBytes(e.startByte) + arrayBytes(e.ranges.length);
  if (e.symbols) {
    bytes += arrayBytes(e.symbols.length);
    for (const s of e.symbols) if (s) bytes += symbolBytes(s);
  }
  return bytes;
}

/**
 * A chunk's lines come from splitting its decoded text: long lines are slices of that text, which
 * stays alive as long as one of them does; short lines are copies.
 */
function decodedBytes(lines: string[], ranges: MatchRange[]): number {
  let bytes = arrayBytes(lines.length) + arrayBytes(ranges.length);
  let parent = 0;
  let wide = false;
  for (const line of lines) {
    parent += line.length + 1;
    if (!wide && WIDE.test(line)) wide = true;
    bytes += line.length >= MIN_SLICE ? SLICE : align(16 + line.length);
  }
  if (lines.some((l) => l.length >= MIN_SLICE)) bytes += align(16 + (wide ? 2 : 1) * parent);
  for (const r of ranges) bytes += rangeBytes(r);
  return bytes;
}

/** A chunk of an answer holds its encoded form until first read, its decoded form after. */
function chunkBytes(c: Chunk): number {
  if (!(c instanceof ZoektChunk)) return objectBytes(6) + numberBytes(c.score) + arrayBytes(c.matchLines.length) + decodedBytes(c.lines, c.ranges);
  let bytes = objectBytes(6) + numberBytes(c.score);
  if (c.encoded) bytes += encodedBytes(c.encoded);
  else bytes += decodedBytes(c.lines, c.ranges);
  return bytes;
}

export function fileHitBytes(f: FileHit): number {
  let bytes = objectBytes(6) + numberBytes(f.score) + jsonStringBytes(f.repo) + jsonStringBytes(f.path) + jsonStringBytes(f.language);
  bytes += arrayBytes(f.branches.length);
  for (const b of f.branches) bytes += jsonStringBytes(b);
  if (f.version !== undefined || f.content !== undefined || f.notIndexed !== undefined || f.checksum !== undefined) bytes += PROPERTY_ARRAY;
  if (f.version !== undefined) bytes += jsonStringBytes(f.version);
  if (f.checksum !== undefined) bytes += jsonStringBytes(f.checksum);
  if (f.content !== undefined) bytes += stringBytes(f.content);
  bytes += arrayBytes(f.chunks.length);
  for (const c of f.chunks) bytes += chunkBytes(c);
  return bytes;
}

/**
 * A value worked out from a window (see `derived`): arrays, plain objects, strings and numbers it
 * made. The files it points at belong to the window and are counted there, so only the pointer
 * to each is counted here.
 */
export function derivedBytes(value: unknown, seen = new Set<object>()): number {
  if (typeof value === 'string') return value.length >= MIN_SLICE ? SLICE : stringBytes(value);
  if (typeof value === 'number') return numberBytes(value);
  if (typeof value !== 'object' || value === null || seen.has(value)) return 0;
  seen.add(value);
  if (Array.isArray(value)) {
    let bytes = arrayBytes(value.length);
    for (const v of value) bytes += derivedBytes(v, seen);
    return bytes;
  }
  if ('chunks' in value) return 0;
  // Walked for every value a window's cache entry holds (thousands of ranked symbols): no arrays made per object.
  let fields = 0;
  let bytes = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    fields++;
    bytes += derivedBytes((value as Record<string, unknown>)[key], seen);
  }
  return bytes + objectBytes(fields);
}
