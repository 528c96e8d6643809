import { describe, expect, it } from 'vitest';
import { reconcile, type ClientList, type Indexed } from '../../src/local/reconcile.js';
import type { RepoEntry } from '../../src/local/repos.js';

const entry = (dir: string, name = dir.split('/').pop()!, source = 'list:1'): RepoEntry => ({ dir, name, kind: 'git', source, text: dir });
const client = (id: string, ...entries: RepoEntry[]): ClientList => ({ id, entries, errors: [] });
const names = (es: RepoEntry[]) => es.map((e) => e.name).sort();
const HOUR = 3_600_000;

describe('reconcile: lists in, index actions out', () => {
  it('indexes the union of the lists, each directory once, and shows each client only its own', () => {
    const plan = reconcile([client('a', entry('/r/x'), entry('/r/y')), client('b', entry('/r/y'), entry('/r/z'))], [], 0, HOUR);
    expect(names(plan.wanted)).toEqual(['x', 'y', 'z']);
    expect(names(plan.clients.get('a')!.entries)).toEqual(['x', 'y']);
    expect(names(plan.clients.get('b')!.entries)).toEqual(['y', 'z']);
    expect(plan.remove).toEqual([]);
  });

  it('never removes what a live client lists; keeps what none lists for keepMs, then removes it', () => {
    const indexed: Indexed[] = [
      { dir: '/r/x', name: 'x' },
      { dir: '/r/y', name: 'y' },
    ];
    const first = reconcile([client('b', entry('/r/y'))], indexed, 1000, HOUR);
    expect(first.remove).toEqual([]);
    expect(first.unlisted.get('/r/x')).toBe(1000);
    expect(first.unlisted.has('/r/y')).toBe(false);
    const later = reconcile([client('b', entry('/r/y'))], [{ dir: '/r/x', name: 'x', unlistedSince: 1000 }, indexed[1]!], 1000 + HOUR, HOUR);
    expect(later.remove).toEqual([{ dir: '/r/x', name: 'x', unlistedSince: 1000 }]);
    const none = reconcile([], indexed, 5, 0);
    expect(none.remove.map((r) => r.name).sort()).toEqual(['x', 'y']);
  });

  it('a repository listed again is no longer counted as unlisted', () => {
    const plan = reconcile([client('a', entry('/r/x'))], [{ dir: '/r/x', name: 'x', unlistedSince: 5 }], 10, HOUR);
    expect(plan.unlisted.get('/r/x')).toBeUndefined();
    expect(plan.unlisted.has('/r/x')).toBe(true);
    expect(plan.remove).toEqual([]);
  });

  it('one name for two directories: the second list gets an error naming the first, and the rest of it is served', () => {
    const plan = reconcile([client('a', entry('/one/app', 'app')), client('b', entry('/two/app', 'app', 'other:3'), entry('/two/lib'))], [], 0, HOUR);
    expect(plan.wanted.map((e) => e.dir)).toEqual(['/one/app', '/two/lib']);
    expect(plan.clients.get('b')!.errors).toEqual([expect.stringMatching(/^other:3: \/two\/app: its name "app" is already used by \/one\/app \(in another client's list\)/)]);
    expect(names(plan.clients.get('b')!.entries)).toEqual(['lib']);
  });

  it('the directory indexed under a name keeps it, even when a client listed first names it otherwise', () => {
    const plan = reconcile([client('a', entry('/r/x', 'r/x')), client('b', entry('/r/x', 'x'))], [{ dir: '/r/x', name: 'x' }], 0, HOUR);
    expect(plan.wanted).toEqual([entry('/r/x', 'x')]);
    expect(plan.clients.get('a')!.entries.map((e) => e.name)).toEqual(['x']);
    expect(plan.remove).toEqual([]);
  });

  it('renamed, or its name taken by another directory: the old shards go at once', () => {
    const renamed = reconcile([client('a', entry('/r/x', 'new'))], [{ dir: '/r/x', name: 'old' }], 0, HOUR);
    expect(renamed.remove).toEqual([{ dir: '/r/x', name: 'old' }]);
    const taken = reconcile([client('a', entry('/s/x', 'x'))], [{ dir: '/r/x', name: 'x' }], 0, HOUR);
    expect(taken.remove).toEqual([{ dir: '/r/x', name: 'x' }]);
    expect(taken.wanted.map((e) => e.dir)).toEqual(['/s/x']);
  });

  it('keeps the errors each list had of its own', () => {
    const plan = reconcile([{ id: 'a', entries: [], errors: ['list:2: nope: no such directory'] }], [], 0, HOUR);
    expect(plan.clients.get('a')).toEqual({ entries: [], errors: ['list:2: nope: no such directory'] });
  });
});

describe('an exact scope (a local list)', () => {
  it('allows exactly the names, not names ending in them, and nothing when the list is empty', async () => {
    const { RepoScope } = await import('../../src/search/engine/scope.js');
    const scope = RepoScope.exactly(['notes', 'acme/a.b']);
    expect(['notes', 'acme/a.b'].map((n) => scope.allows(n))).toEqual([true, true]);
    expect(['x/notes', 'notes2', 'acme/aXb'].map((n) => scope.allows(n))).toEqual([false, false, false]);
    expect(scope.confine('foo')).toBe('foo ( repo:"^notes$" or repo:"^acme/a\\\\.b$" )');
    const none = RepoScope.exactly([]);
    expect(none.restricted).toBe(true);
    expect(none.allows('notes')).toBe(false);
    expect(none.confine('foo')).toMatch(/^foo repo:"?\^\$"?$/);
  });
});
