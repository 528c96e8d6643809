/**
 * One float32 matrix from a safetensors file (https://github.com/huggingface/safetensors: an 8-byte
 * little-endian header length, a JSON header naming each tensor's dtype, shape and byte range,
 * then the bytes). Only what the embedding model needs is read; anything else is refused with
 * the reason, so a different or damaged model fails at load and not with wrong vectors.
 */
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

/** A row-major matrix held as one array: row r is data[r * columns, (r + 1) * columns). */
export interface F32Table {
  rows: number;
  columns: number;
  data: Float32Array;
}

/** What is wrong with a file, in words that name it. */
export class SafetensorsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SafetensorsError';
  }
}

interface TensorEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/** Larger headers are not a model's: the format itself caps them at 100 MB, ours hold a line. */
const MAX_HEADER_BYTES = 1 << 20;

/**
 * The 2-D F32 tensor `name` of `file`. `allowed` lists the other tensors the file may hold (a
 * tensor the caller does not know could change what the table means, so by default none).
 */
export function readF32Table(file: string, name: string, allowed: readonly string[] = []): F32Table {
  const bytes = readFileSync(file);
  return parseF32Table(bytes, name, allowed, file);
}

export function parseF32Table(bytes: Buffer, name: string, allowed: readonly string[], file: string): F32Table {
  if (bytes.length < 8) throw new SafetensorsError(`${file} has ${bytes.length} bytes: too short for a safetensors header`);
  const headerLength = bytes.readBigUInt64LE(0);
  if (headerLength > BigInt(Math.min(MAX_HEADER_BYTES, bytes.length - 8))) {
    throw new SafetensorsError(`${file}: its header claims ${headerLength} bytes, more than the file or ${MAX_HEADER_BYTES} bytes holds: not a safetensors file, or cut short`);
  }
  const dataStart = 8 + Number(headerLength);
  let header: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8', 8, dataStart));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    header = parsed as Record<string, unknown>;
  } catch (e) {
    throw new SafetensorsError(`${file}: its header is not a JSON object (${(e as Error).message})`);
  }
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  const unknown = names.filter((k) => k !== name && !allowed.includes(k));
  if (unknown.length > 0) throw new SafetensorsError(`${file} holds tensors ${unknown.map((k) => `'${k}'`).join(', ')} besides '${name}': a model of another form, not read`);
  const entry = checkEntry(header[name], name, file);
  const [rows, columns] = entry.shape as [number, number];
  const [begin, end] = entry.data_offsets;
  const dataBytes = bytes.length - dataStart;
  if (end - begin !== rows * columns * 4) throw new SafetensorsError(`${file}: tensor '${name}' spans ${end - begin} bytes, but ${rows} × ${columns} float32 need ${rows * columns * 4}`);
  if (end > dataBytes) throw new SafetensorsError(`${file}: tensor '${name}' ends at byte ${end} of a data section of ${dataBytes}: the file is cut short`);
  const offset = bytes.byteOffset + dataStart + begin;
  // A view on the file's own bytes when they sit on a 4-byte boundary in little-endian order (as
  // this file's do): no second copy of the table. Otherwise one copy, read value by value.
  if (offset % 4 === 0 && endianness() === 'LE') return { rows, columns, data: new Float32Array(bytes.buffer, offset, rows * columns) };
  const data = new Float32Array(rows * columns);
  for (let i = 0; i < data.length; i++) data[i] = bytes.readFloatLE(dataStart + begin + i * 4);
  return { rows, columns, data };
}

function checkEntry(value: unknown, name: string, file: string): TensorEntry {
  if (value === undefined) throw new SafetensorsError(`${file} has no tensor '${name}'`);
  const e = value as Partial<TensorEntry>;
  if (typeof e !== 'object' || e === null) throw new SafetensorsError(`${file}: tensor '${name}' is not described by an object`);
  if (e.dtype !== 'F32') throw new SafetensorsError(`${file}: tensor '${name}' is ${String(e.dtype)}, not F32 (float32), the only type read`);
  const shape = e.shape;
  if (!Array.isArray(shape) || shape.length !== 2 || !shape.every((n) => Number.isSafeInteger(n) && n > 0)) {
    throw new SafetensorsError(`${file}: tensor '${name}' has shape ${JSON.stringify(shape)}, not rows × columns`);
  }
  const offsets = e.data_offsets;
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((n) => Number.isSafeInteger(n) && n >= 0) || offsets[0]! > offsets[1]!) {
    throw new SafetensorsError(`${file}: tensor '${name}' has byte range ${JSON.stringify(offsets)}, not [begin, end]`);
  }
  return e as TensorEntry;
}
