/**
 * The repo scope's second wall: Zoekt's own repository-ID restriction (RepoIDs of /api/search),
 * which Zoekt ANDs with the parsed query, so it holds even if the query text we build were read
 * by Zoekt otherwise than we meant. The fixture repositories are indexed with distinct IDs.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RepoScope } from '../../src/search/engine/scope.js';
import { Searcher } from '../../src/search/engine/searcher.js';
import { WindowCache } from '../../src/search/engine/window-cache.js';
import { ZoektClient } from '../../src/zoekt/client.js';
import { asFleet } from '../../src/zoekt/fleet.js';
import { REPO_PREFIX } from '../support/zoekt.js';

const ALLOW = [`${REPO_PREFIX}webapp`, `${REPO_PREFIX}py*`];
const ALLOWED = new Set([`${REPO_PREFIX}webapp`, `${REPO_PREFIX}pytools`]);
const outside = (repos: string[]) => [...new Set(repos.filter((r) => !ALLOWED.has(r)))];

/** A scope whose query text confines nothing: what a tokenizer that misread the query would give. */
class TextlessScope extends RepoScope {
  override confine(query: string): string {
    return query;
  }
}

let client: ZoektClient;
beforeAll(() => {
  client = new ZoektClient({ url: inject('zoektUrl'), timeoutMs: 20_000 });
});
afterAll(() => client.close());

const ESCAPES = ['Server', 'Server or repo:gosvc', '( repo:gosvc ) or ( repo:javaapp )', 'type:repo gosvc', 'r:"gosvc" or "Server"', '-repo:webapp func'];

describe('RepoIDs: Zoekt enforces the scope by itself', () => {
  it('a query with no repository constraint in its text reaches only the IDs given', async () => {
    const list = await client.list('');
    const ids = list.repos.filter((r) => ALLOWED.has(r.name)).map((r) => r.id);
    expect(ids).toHaveLength(2);
    expect(new Set(list.repos.map((r) => r.id)).size).toBe(list.repos.length);
    for (const query of ESCAPES) {
      const free = await client.search({ query, maxDocs: 5000 });
      // The query aims at content outside the scope…
      expect(outside(free.files.map((f) => f.repo)).length, query).toBeGreaterThan(0);
      // …and Zoekt, given the IDs, keeps to them: files and counts.
      const held = await client.search({ query, maxDocs: 5000, repoIds: ids });
      expect(outside(held.files.map((f) => f.repo)), query).toEqual([]);
      expect(held.stats.fileCount, query).toBe(held.files.length);
      expect(held.files.length, query).toBeLessThan(free.files.length);
    }
    expect((await client.search({ query: 'Server', maxDocs: 10, repoIds: [] })).files).toEqual([]);
  });

  it('the Searcher sends the scope as IDs: with a query text that confines nothing, Zoekt still counts only allowed files', async () => {
    const cache = new WindowCache({ maxBytes: 0, ttlMs: 1000 });
    const confined = new Searcher(asFleet(client), cache, new TextlessScope(ALLOW));
    const open = new Searcher(asFleet(client), cache);
    for (const query of ESCAPES) {
      const all = await open.window({ query, size: 5000, fresh: true });
      const held = await confined.window({ query, size: 5000, fresh: true });
      expect(outside(all.files.map((f) => f.repo)).length, query).toBeGreaterThan(0);
      // Zoekt's own counts, before the adapter's check of each file: nothing from outside.
      expect(held.stats.fileCount, query).toBe(held.files.length);
      expect(held.stats.fileCount, query).toBe(all.files.filter((f) => ALLOWED.has(f.repo)).length);
    }
  });
});
