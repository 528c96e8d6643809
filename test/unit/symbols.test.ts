import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { normalizeKind, parseKinds } from '../../src/search/vocab/kinds.js';
import { parseName, wordRegex } from '../../src/search/definitions/by-name.js';
import { definesAt } from '../../src/search/definitions/symbol.js';
import { descriptionSymbols } from '../../src/search/symbols.js';
import { render } from '../../src/zoekt/query.js';
import { toolErrorOf } from '../support/refusals.js';

const matches = (re: string, s: string) => new RegExp(re).test(s);

describe('normalizeKind', () => {
  it.each([
    ['func', 'Go', undefined, 'function'],
    ['talias', 'Go', undefined, 'type'],
    ['anonMember', 'Go', 'struct', 'field'],
    ['func', 'Go', 'struct', 'method'],
    ['methodSpec', 'Go', 'interface', 'method'],
    ['member', 'Go', 'struct', 'field'],
    ['member', 'Python', 'class', 'method'],
    ['function', 'Python', 'function', 'function'],
    ['interface', 'Rust', undefined, 'trait'],
    ['interface', 'TypeScript', undefined, 'interface'],
    ['alias', 'TypeScript', undefined, 'type'],
    ['typedef', 'C', undefined, 'type'],
    ['classes', 'Java', undefined, 'class'],
    ['enumConstant', 'Java', 'enum', 'constant'],
    ['enumerator', 'C++', 'enum', 'constant'],
    ['function', 'C++', 'class', 'method'],
    ['function', 'C', undefined, 'function'],
    ['const', 'Go', undefined, 'constant'],
    ['var', 'Go', undefined, 'variable'],
    ['macro', 'C', undefined, 'macro'],
    ['namespace', 'C++', undefined, 'namespace'],
    ['module', 'Rust', undefined, 'module'],
    ['package', 'Go', undefined, 'module'],
    ['property', 'TypeScript', 'class', 'property'],
    // The extractor's words: an overload signature, and a function in a member it does not name.
    ['Prototype', 'TypeScript', undefined, 'function'],
    ['Prototype', 'TypeScript', 'Class', 'method'],
    ['Function', 'JavaScript', 'Class', 'function'],
    ['Method', 'JavaScript', 'Class', 'method'],
  ])('%s in %s (parent %s) → %s', (raw, lang, parentKind, kind) => {
    expect(normalizeKind(raw, lang, parentKind)).toBe(kind);
  });

  it('has no normalized kind for words without a counterpart', () => {
    expect(normalizeKind('chapter', 'Markdown')).toBeUndefined();
    expect(normalizeKind('implementation', 'Rust')).toBeUndefined();
    expect(normalizeKind('toString', 'Java')).toBeUndefined();
  });
});

describe('parseKinds', () => {
  it('accepts normalized kinds in any case', () => {
    expect([...parseKinds(['Method', 'function'])!]).toEqual(['method', 'function']);
    expect(parseKinds(undefined)).toBeUndefined();
  });

  it('refuses an unknown kind, listing the valid ones', () => {
    try {
      parseKinds(['methd']);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ToolError);
      expect((err as ToolError).code).toBe('INVALID_ARGUMENT');
      expect((err as ToolError).hint).toContain("'method'");
      expect((err as ToolError).hint).toContain('function, method, class, struct, interface, trait, enum, type');
    }
  });
});

describe('parseName', () => {
  it('anchors an exact name and escapes it', () => {
    const p = parseName('a.b$', false);
    expect(p.parent).toEqual(['a']);
    const plain = parseName('$scope', false);
    expect(plain.symRegex).toBe('^\\$scope$');
    expect(matches(plain.symRegex, '$scope')).toBe(true);
    expect(matches(plain.symRegex, 'xscope')).toBe(false);
  });

  it('reads qualified names with . and ::', () => {
    expect(parseName('Server.start', false)).toMatchObject({ parent: ['Server'], member: 'start', wholeName: 'Server.start' });
    expect(parseName('UserService::find', false)).toMatchObject({ parent: ['UserService'], member: 'find' });
    expect(parseName('acme::UserService::find', false)).toMatchObject({ parent: ['acme', 'UserService'], member: 'find' });
    const re = parseName('Server.start', false).symRegex;
    expect(matches(re, 'start')).toBe(true);
    expect(matches(re, 'Server.start')).toBe(true);
    expect(matches(re, 'restart')).toBe(false);
  });

  it('lists members with Parent:: and Parent.*', () => {
    for (const name of ['Parent::', 'Parent.*', 'Parent.']) {
      const p = parseName(name, false);
      expect(p.parent).toEqual(['Parent']);
      expect(p.member).toBe('*');
      expect(p.wholeName).toBeUndefined();
    }
  });

  it('keeps a regex as given and refuses globs in the type part', () => {
    expect(parseName('^get(User|Name)$', true)).toMatchObject({ symRegex: '^get(User|Name)$' });
    expect(parseName('^get(User|Name)$', true).parent).toBeUndefined();
    expect(() => parseName('Ser*.start', false)).toThrow(ToolError);
    expect(() => parseName('  ', false)).toThrow(ToolError);
  });
});

describe('names made only of separators', () => {
  it.each(['..', '...', '.::', '::', '.', ':::', '..start', '::.find', ' :: '])('%s is INVALID_ARGUMENT with a hint', (name) => {
    const error = toolErrorOf(() => parseName(name, false));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.hint).toMatch(/Server\./);
  });

  it('still reads them as a regex when asked', () => {
    expect(parseName('..', true).symRegex).toBe('..');
  });
});

describe('wordRegex', () => {
  it('bounds identifiers by word edges only where they are word characters', () => {
    expect(matches(wordRegex('foo'), 'a foo b')).toBe(true);
    expect(matches(wordRegex('foo'), 'foobar')).toBe(false);
    expect(matches(wordRegex('$scope'), 'x = $scope;')).toBe(true);
    expect(matches(wordRegex('$scope'), '$scopes')).toBe(false);
  });
});

describe('definesAt', () => {
  it.each([
    ['export const settings = loadConfig(path);', 'loadConfig'],
    ['const x = await fetchUser<User>(id);', 'fetchUser'],
    ['c := parse(s)', 'parse'],
    ['return build(a, b)', 'build'],
    ['const el = new Widget(props)', 'Widget'],
    ['ok && start()', 'start'],
  ])('a call in an expression defines nothing: %s', (line, name) => {
    expect(definesAt(line, name)).toBe(false);
  });

  it.each([
    ['export function loadConfig(path: string) {', 'loadConfig'],
    ['export const settings = loadConfig(path);', 'settings'],
    ['func (s *Server) Start() error {', 'Start'],
    ['\tSetDeadline(t time.Time) error', 'SetDeadline'],
    ['def find(self, id):', 'find'],
    ['public void disable() {', 'disable'],
    ['void buffer_init(struct buffer *b) {', 'buffer_init'],
    ['type FuncMap = template.FuncMap', 'FuncMap'],
    // Minified: the first `f` is a call, the real definition comes later on the line.
    ['const o=process.execPath,c=f(o),l=s.map(f);function f(e){return e}', 'f'],
  ])('a declaration defines the name: %s', (line, name) => {
    expect(definesAt(line, name)).toBe(true);
  });

  it('finds the name as a whole word only: letters and digits of any script, _ and $ join it, a surrogate pair read whole', () => {
    // Each line calls the name once as a whole word, after a part of a longer identifier.
    expect(definesAt('x = éf(1), y = f(2)', 'f')).toBe(false);
    expect(definesAt('x = \u{1D453}f(1), y = f(2)', 'f')).toBe(false);
    expect(definesAt('x = f$(1), y = f(2)', 'f')).toBe(false);
    expect(definesAt('x = f_(1), y = f(2)', 'f')).toBe(false);
    // No whole-word occurrence at all: a tag the line does not spell out is kept.
    expect(definesAt('x = éf(1)', 'f')).toBe(true);
    expect(definesAt('x = \u{1D453}f(1)', 'f')).toBe(true);
    expect(definesAt('x = f٣(1)', 'f')).toBe(true);
    // An empty name is never spelled out: kept, as any tag the line does not show.
    expect(definesAt('a=(b', '')).toBe(true);
  });
});

describe('descriptionSymbols', () => {
  const sent = (words: string[], related = new Map<string, string[]>()) => render(descriptionSymbols(words, related));

  it('asks for every spelling of each word and of its related words', () => {
    const q = sent(['read'], new Map([['read', ['interpret']]]));
    for (const l of ['read', 'Read', 'READ', 'interpret', 'Interpret', 'INTERPRET']) expect(q).toContain(`sym:"${l}"`);
  });

  it('leaves a number without trigrams to the ranking while other words can be found; keeps short words', () => {
    const q = sent(['base', '64', 'encode']);
    expect(q).not.toContain('sym:"64"');
    expect(q).toContain('sym:"Encod"');
    // `ip` is a word of names (net.IP, ParseIP): it stays, whatever it costs Zoekt.
    for (const l of ['ip', 'Ip', 'IP', 'address']) expect(sent(['ip', 'address'])).toContain(`sym:"${l}"`);
  });

  it('keeps the short spelling of a longer word: names write it that way', () => {
    const q = sent(['database', 'connection']);
    for (const l of ['db', 'DB', 'Db', 'databas', 'conn']) expect(q).toContain(`sym:"${l}"`);
  });

  it('keeps short literals when they are all there is', () => {
    expect(sent(['io'])).toContain('sym:"io"');
    expect(sent(['64'])).toContain('sym:"64"');
  });
});
