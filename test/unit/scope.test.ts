/**
 * A caller's repository scope under the server's (--allow-repos): what both allow, both
 * constraints on every query, and a tag of its own for cursors and cached answers.
 */
import { describe, expect, it } from 'vitest';
import { RepoScope } from '../../src/search/engine/scope.js';
import { CursorSigner } from '../../src/search/engine/cursor.js';

describe('RepoScope.narrow', () => {
  const server = new RepoScope(['github.com/acme/*']);
  const caller = new RepoScope(['github.com/acme/web*', 'github.com/other/*']);
  const narrowed = server.narrow(caller);

  it('allows only what both allow', () => {
    expect(narrowed.allows('github.com/acme/webapp')).toBe(true);
    expect(narrowed.allows('github.com/acme/gosvc')).toBe(false);
    expect(narrowed.allows('github.com/other/lib')).toBe(false);
  });

  it('confines a query by both, whatever the query says', () => {
    const q = narrowed.confine('repo:gosvc or x');
    expect(q).toContain(caller.confine(''));
    expect(q).toContain(server.confine(''));
    expect(q.startsWith('repo:gosvc or x ')).toBe(true);
  });

  it("describes only the caller's globs, never the server's allowlist", () => {
    // The server's glob is one no caller glob contains, so any trace of it shows.
    const outer = new RepoScope(['github.com/acme/internal-*', 'github.com/acme/web*']);
    const scoped = outer.narrow(new RepoScope(['github.com/acme/webapp']));
    for (const text of [scoped.describe(), scoped.note()!, (() => { try { scoped.check('github.com/acme/gosvc'); } catch (e) { return `${(e as Error).message} ${JSON.stringify(e)}`; } return ''; })()]) {
      expect(text).toContain("'github.com/acme/webapp'");
      expect(text).not.toContain('internal-');
      expect(text).not.toContain('web*');
    }
  });

  it('is the caller scope itself under an unrestricted server', () => {
    expect(RepoScope.ALL.narrow(caller)).toBe(caller);
  });

  it('allows nothing when the caller scope is empty, never everything', () => {
    const none = server.narrow(new RepoScope([], []));
    expect(none.restricted).toBe(true);
    expect(none.allows('github.com/acme/webapp')).toBe(false);
    expect(none.describe()).toContain('no repository');
  });

  it('keeps the names of an exact outer scope that the caller may read', () => {
    const exact = RepoScope.exactly(['github.com/acme/webapp', 'github.com/acme/gosvc']);
    expect(exact.narrow(new RepoScope(['github.com/acme/web*'])).names).toEqual(['github.com/acme/webapp']);
  });

  it('tags cursors apart from the caller globs alone and from the server scope', () => {
    const secret = 'k'.repeat(32);
    const args = { query: 'x' };
    const issued = new CursorSigner(secret, narrowed.tag).encode('search_code', args, { offset: 10, pageSize: 10 });
    expect(new CursorSigner(secret, narrowed.tag).decode('search_code', args, issued)).toEqual({ offset: 10, pageSize: 10 });
    for (const other of [caller.tag, server.tag, server.narrow(new RepoScope(['github.com/acme/go*'])).tag]) {
      expect(() => new CursorSigner(secret, other).decode('search_code', args, issued)).toThrow(/confined to other repositories/);
    }
  });
});
