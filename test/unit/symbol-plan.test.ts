/**
 * What search_symbols' fetch plan (symbols.ts, planNames) relies on to read shallow files first:
 * every definition that ranks before (or equal to) a prominence lies in the folders and languages
 * rivalsOf (peersOf) name. Checked over definitions in every combination of language, name,
 * line, depth and test path; then with the steps not read from a folder depth (a definition
 * nested in a function, a declaration, a twin of a duplicated file's definition).
 */
import { describe, expect, it } from 'vitest';
import { neverPublic, peersOf, prominence, rivalsOf, TWIN, type Definition, type PathClass } from '../../src/search/definitions/prominence.js';

const LANGUAGES = ['Go', 'Python', 'TypeScript', 'Rust', 'C', 'Markdown'];
const NAMES = ['Server', 'server', '_server', '__init__', 'init'];
const LINES = ['export function x() {', 'pub fn x() {', 'static int x;', 'def x():', 'private x;', 'func x() {'];
const FOLDERS = ['', 'src/', 'src/app/', 'a/b/c/d/', 'test/', 'src/test/', 'a/b/examples/'];
const FILES = ['x.go', 'x_test.go', 'x.ts', 'x.test.ts', 'test_x.py', 'x.py'];

function* definitions(names = NAMES): Generator<Definition> {
  for (const language of LANGUAGES) for (const name of names) for (const signature of LINES) for (const folder of FOLDERS) for (const file of FILES) yield { name, language, signature, path: `${folder}${file}` };
}

const depth = (path: string) => path.split('/').length - 1;
const inClass = (d: Definition, c: PathClass) => depth(d.path) < c.maxDepth && !c.skip.includes(d.language);

describe('rivalsOf and peersOf', () => {
  const all = [...definitions()];
  const prominences = [...new Set(all.map(prominence))];

  it('hold every definition that ranks before a prominence, or equal to it', () => {
    const ranked = all.map((d) => ({ d, q: prominence(d) }));
    const failures: string[] = [];
    let checked = 0;
    for (const p of prominences) {
      const rivals = rivalsOf(p, []);
      const peers = peersOf(p, []);
      for (const { d, q } of ranked) {
        if (q < p) {
          if (!rivals.some((c) => inClass(d, c))) failures.push(`${JSON.stringify(d)} (${q}) before ${p}`);
          checked++;
        }
        if (q === p && !inClass(d, peers)) failures.push(`${JSON.stringify(d)} equal to ${p}`);
      }
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect(checked).toBeGreaterThan(10_000);
  });

  it('leave out the languages where the name can never be public, and only where that holds', () => {
    const failures: string[] = [];
    for (const name of NAMES) {
      const hidden = neverPublic(name);
      const named = [...definitions([name])].map((d) => ({ d, q: prominence(d) }));
      for (const p of prominences) {
        const rivals = rivalsOf(p, hidden);
        const peers = peersOf(p, hidden);
        for (const { d, q } of named) {
          if (q < p && !rivals.some((c) => inClass(d, c))) failures.push(`${JSON.stringify(d)} (${q}) before ${p}, hidden ${hidden}`);
          if (q === p && !inClass(d, peers)) failures.push(`${JSON.stringify(d)} equal to ${p}`);
        }
      }
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect(neverPublic('init')).toEqual(['Go']);
    expect(neverPublic('_server')).toEqual(['Go', 'Python']);
    expect(neverPublic('__init__')).toEqual(['Go']);
    expect(neverPublic('Server')).toEqual([]);
  });

  it('hold them with nesting, declarations and twins, a twin judged at its best', () => {
    const parents: Partial<Definition>[] = [{}, { parent: 'outer', parent_kind: 'Function' }, { parent: 'api', parent_kind: 'Constant' }, { parent: 'Api', parent_kind: 'Interface' }, { parent: 'Store', parent_kind: 'Class' }];
    const lines = ['export function x() {', 'export function x(): void;', 'export declare function x(): void;', 'void x(int a);', 'int x(int a) {', 'def x(): ...', 'func x() {'];
    const files = ['x.ts', 'x.d.ts', 'x.test.ts', 'x.h', 'x.c', 'x.pyi', 'x.go'];
    const named = (name: string): Definition[] =>
      ['Go', 'Python', 'TypeScript', 'C'].flatMap((language) =>
        lines.flatMap((signature) => FOLDERS.flatMap((folder) => files.flatMap((file) => parents.map((p) => ({ name, language, signature, path: `${folder}${file}`, kind: 'function', ...p }))))),
      );
    let checked = 0;
    for (const name of ['Server', 'init', '_server']) {
      const hidden = neverPublic(name);
      const defs = named(name).map((d) => ({ d, best: prominence(d) }));
      // Every definition as its own prominence and as a twin's: a twin is at best its first copy.
      const ranks = defs.flatMap(({ best }) => [best, best + TWIN]);
      const ps = [...new Set(ranks)];
      const failures: string[] = [];
      for (const p of ps) {
        const rivals = rivalsOf(p, hidden);
        const peers = peersOf(p, hidden);
        for (const { d, best } of defs) {
          for (const q of [best, best + TWIN]) {
            if (q < p && !rivals.some((c) => inClass(d, c))) failures.push(`${JSON.stringify(d)} (${q}) before ${p}`);
            if (q === p && !inClass(d, peers)) failures.push(`${JSON.stringify(d)} equal to ${p}`);
          }
          // What a definition not yet read could be at best bounds where the plan looks for it.
          if (best < p && !rivals.some((c) => inClass(d, c))) failures.push(`unread ${JSON.stringify(d)} (${best}) before ${p}`);
          checked++;
        }
      }
      expect(failures.slice(0, 5)).toEqual([]);
    }
    expect(checked).toBeGreaterThan(100_000);
    // Nested definitions are never public: the languages left out stay those of neverPublic.
    expect(prominence({ name: 'Server', language: 'TypeScript', signature: 'export function Server() {', path: 'a.ts', parent: 'outer', parent_kind: 'Function' })).toBeGreaterThanOrEqual(prominence({ name: 'Server', language: 'TypeScript', signature: 'function Server() {', path: 'a.ts' }));
  });

  it('narrow the folders to read as the prominence allows', () => {
    // Public, outside tests, two folders deep: only shallower folders can hold a better one.
    const p = prominence({ name: 'Server', language: 'Go', signature: 'type Server struct {', path: 'a/b/server.go' });
    expect(rivalsOf(p, [])).toEqual([{ maxDepth: 2, skip: [] }]);
    expect(peersOf(p, [])).toEqual({ maxDepth: 3, skip: [] });
    // At the top, public and outside tests: nothing ranks before it.
    expect(rivalsOf(prominence({ name: 'Server', language: 'Go', signature: '', path: 'server.go' }), [])).toEqual([]);
    // Not public (a lowercase Go name): any public one anywhere, but not in Go.
    const hidden = neverPublic('init');
    const q = prominence({ name: 'init', language: 'Go', signature: 'func init() {', path: 'a/b/c.go' });
    expect(rivalsOf(q, hidden)).toEqual([
      { maxDepth: Number.POSITIVE_INFINITY, skip: ['Go'] },
      { maxDepth: 2, skip: [] },
    ]);
    // A declaration (a .d.ts), public: a public definition with a body may be in any folder.
    const declared = prominence({ name: 'Server', language: 'TypeScript', signature: 'export interface Server {', path: 'types/a.d.ts' });
    expect(rivalsOf(declared, [])).toEqual([{ maxDepth: Number.POSITIVE_INFINITY, skip: [] }]);
    expect(peersOf(declared, [])).toEqual({ maxDepth: 2, skip: [] });
    // A twin of a public definition one folder deep: its peers are one folder deep too.
    expect(peersOf(prominence({ name: 'Server', language: 'Go', signature: '', path: 'a/server.go' }) + TWIN, [])).toEqual({ maxDepth: 2, skip: [] });
  });
});
