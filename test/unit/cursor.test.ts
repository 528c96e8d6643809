import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { CursorSigner } from '../../src/search/engine/cursor.js';
import { toolErrorOf } from '../support/refusals.js';

const args = { query: 'foo', limit: 10, paths: ['src/'] };
const SECRET = 's'.repeat(32);

function refusal(fn: () => unknown): ToolError {
  const err = toolErrorOf(fn);
  expect(err.code).toBe('INVALID_CURSOR');
  return err;
}

const decoded = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
const encoded = (body: unknown[]) => Buffer.from(JSON.stringify(body)).toString('base64url');

describe('cursor', () => {
  const signer = new CursorSigner(SECRET);
  const cursor = signer.encode('search_code', args, { offset: 20, pageSize: 10 });

  it('is base64url and round-trips with the same arguments in any key order', () => {
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(signer.decode('search_code', { paths: ['src/'], limit: 10, query: 'foo', cursor }, cursor)).toEqual({ offset: 20, pageSize: 10 });
  });

  it('refuses garbage, truncation, a flipped character, another tool and other arguments', () => {
    refusal(() => signer.decode('search_code', args, 'not a cursor!'));
    refusal(() => signer.decode('search_code', args, cursor.slice(0, -3)));
    const i = Math.floor(cursor.length / 2);
    const flipped = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
    refusal(() => signer.decode('search_code', args, flipped));
    expect(refusal(() => signer.decode('search_files', args, cursor)).message).toMatch(/belongs to search_code/);
    expect(refusal(() => signer.decode('search_code', { ...args, query: 'bar' }, cursor)).message).toMatch(/other arguments/);
    refusal(() => signer.decode('search_code', { ...args, limit: 20 }, cursor));
  });

  it('refuses a cursor whose body was edited and its checksum recomputed without the key', () => {
    const body = decoded(cursor);
    body[3] = 500;
    // What an unkeyed checksum would allow: a digest of the edited body, in place of the signature.
    body[6] = createHash('sha256').update(JSON.stringify(body.slice(0, 6))).digest().subarray(0, 16).toString('base64url');
    const err = refusal(() => signer.decode('search_code', args, encoded(body)));
    expect(err.message).toMatch(/signature does not match/);
    expect(err.hint).toMatch(/--cursor-secret/);
    // The old format's own checksum, for the record: refused as an old version.
    expect(refusal(() => signer.decode('search_code', args, encoded([1, 'search_code', 'x', 5, 10, 'abcdefgh']))).message).toMatch(/format version 1/);
  });

  it('is refused by a server with another secret and accepted by one with the same', () => {
    const other = new CursorSigner('t'.repeat(32));
    expect(refusal(() => other.decode('search_code', args, cursor)).message).toMatch(/another cursor secret/);
    expect(new CursorSigner(Buffer.from(SECRET)).decode('search_code', args, cursor)).toEqual({ offset: 20, pageSize: 10 });
  });

  it('binds the repo scope: a cursor from outside a scope is refused inside it, and the other way round', () => {
    const scoped = new CursorSigner(SECRET, ['github.com/acme/webapp', 'github.com/acme/py*']);
    const err = refusal(() => scoped.decode('search_code', args, cursor));
    expect(err.message).toMatch(/confined to other repositories/);
    expect(err.hint).toMatch(/without cursor/);
    const inside = scoped.encode('search_code', args, { offset: 10, pageSize: 10 });
    refusal(() => signer.decode('search_code', args, inside));
    refusal(() => new CursorSigner(SECRET, ['github.com/acme/webapp']).decode('search_code', args, inside));
    // The same globs in another order are the same scope.
    expect(new CursorSigner(SECRET, ['github.com/acme/py*', 'github.com/acme/webapp']).decode('search_code', args, inside)).toEqual({ offset: 10, pageSize: 10 });
  });

  it('follows a scope read at each use (a local list that changed): a cursor from the list before is refused', () => {
    let globs: readonly string[] = ['acme/a', 'acme/b'];
    const live = new CursorSigner(SECRET, () => globs);
    const issued = live.encode('search_code', args, { offset: 10, pageSize: 10 });
    expect(live.decode('search_code', args, issued)).toEqual({ offset: 10, pageSize: 10 });
    globs = ['acme/a'];
    expect(refusal(() => live.decode('search_code', args, issued)).message).toMatch(/or a repository list changed since/);
    globs = ['acme/b', 'acme/a'];
    expect(live.decode('search_code', args, issued)).toEqual({ offset: 10, pageSize: 10 });
  });
});
