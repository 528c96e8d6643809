import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { decodeCursor, encodeCursor } from '../../src/search/cursor.js';

const args = { query: 'foo', limit: 10, paths: ['src/'] };

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    return (err as ToolError).code;
  }
  throw new Error('expected a ToolError');
}

describe('cursor', () => {
  const cursor = encodeCursor('search_code', args, { offset: 20, pageSize: 10 });

  it('is base64url and round-trips with the same arguments in any key order', () => {
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('search_code', { paths: ['src/'], limit: 10, query: 'foo', cursor }, cursor)).toEqual({ offset: 20, pageSize: 10 });
  });

  it('refuses garbage, truncation, a flipped character, another tool and other arguments', () => {
    expect(codeOf(() => decodeCursor('search_code', args, 'not a cursor!'))).toBe('INVALID_CURSOR');
    expect(codeOf(() => decodeCursor('search_code', args, cursor.slice(0, -3)))).toBe('INVALID_CURSOR');
    const i = Math.floor(cursor.length / 2);
    const flipped = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
    expect(codeOf(() => decodeCursor('search_code', args, flipped))).toBe('INVALID_CURSOR');
    expect(codeOf(() => decodeCursor('search_files', args, cursor))).toBe('INVALID_CURSOR');
    expect(codeOf(() => decodeCursor('search_code', { ...args, query: 'bar' }, cursor))).toBe('INVALID_CURSOR');
    expect(codeOf(() => decodeCursor('search_code', { ...args, limit: 20 }, cursor))).toBe('INVALID_CURSOR');
  });

  it('refuses a well-formed cursor whose position was edited', () => {
    const forged = Buffer.from(JSON.stringify([1, 'search_code', 'x', 5, 10, 'abcdefgh'])).toString('base64url');
    expect(codeOf(() => decodeCursor('search_code', args, forged))).toBe('INVALID_CURSOR');
  });
});
