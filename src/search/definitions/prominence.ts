/**
 * Which of several definitions of one name an agent most likely means: among definitions that
 * match a name equally well, search_symbols puts first
 *   1. the public ones: exported or visible outside their file or class, as the language says it
 *      (an upper-case Go name; `export` in TypeScript and JavaScript, `exports.x =`; no leading
 *      `_` in Python, dunders aside; `pub` in Rust; `public` in Java and C#, or a member of an
 *      interface; not `static` in C and C++; not `private`, `protected` or `#` in a class). A
 *      definition nested in a function, a method or an object literal (its parent is a function,
 *      a method, a property, a variable: see isNested) is local to it, never public;
 *   2. then those outside tests, examples and fixtures (a folder named test, tests, __tests__, spec,
 *      testdata, e2e, example(s), playground(s), demo(s), sample(s), fixture(s), benchmark(s); a
 *      file named *_test.go, *.test.ts, *.spec.js, test_*.py, *_test.py, *Test.java, *Tests.cs …):
 *      a project's own code before the copies of it its examples and tests define, even where
 *      its own is nested (Vue's `setup` of a component object in its runtime, before the
 *      hundreds of `setup` methods of objects its tests pass straight to a call, which have no
 *      parent);
 *   3. then the top-level ones and the members of types, before those nested in a function, a
 *      method or an object literal: among the names not public, a module's own before a local
 *      helper or an object's method;
 *   4. then the definitions with a body, before the declarations of the same name: everything in
 *      a `.d.ts` (`.d.mts`, `.d.cts`) or a Python stub (`.pyi`); a TypeScript `declare`; the
 *      members of an interface (TypeScript and Go; elsewhere those without `{` on their line: a
 *      Java `default` method has a body); an `abstract` member without `{`; a function, method
 *      or constructor whose line ends in `;` with no body left open and no `=>` (a C or C++
 *      prototype or member declared in its class, a TypeScript overload, a Java or C# interface
 *      or abstract method, a Rust trait method without a default), or ends in `= 0;`,
 *      `= delete;`, `= default;`; a C++ `class X;` forward declaration; a Python `def …: ...`
 *      stub; Universal Ctags' `prototype` and `externvar` kinds (see isDeclaration). Only the
 *      definition's first line is read: a declaration whose parameters run over several lines
 *      counts as a definition with a body;
 *   5. then one copy of a file duplicated across packages before its twins: among definitions
 *      of the same name, kind, line and column in files with the same name and the same content
 *      (`types/types.d.ts` in two packages), the one that ranks first by every other rule here,
 *      then Zoekt's score, repository and path, keeps its place and the others follow it (see
 *      twinKey);
 *   6. then those in shallower folders.
 * Each step only orders what the step before left tied. Read from the definition's line, kind,
 * parent kind and path; step 5 also from the other definitions read with it (symbols.ts,
 * rankFiles), so it is no part of prominence() itself.
 */

import { compareStrings } from '../engine/paging.js';

export interface Definition {
  name: string;
  language: string;
  path: string;
  /** The trimmed line that defines it. */
  signature: string;
  parent?: string | undefined;
  parent_kind?: string | undefined;
  /** The normalized kind (kinds.ts) and the parser's own word for it, when known. */
  kind?: string | undefined;
  raw_kind?: string | undefined;
}

const word = (line: string, w: string) => new RegExp(`(^|[^\\w$])${w}([^\\w$]|$)`).test(line);

/** Whether the definition is visible beyond its own file or class; true when the language gives no sign. */
export function isPublic(d: Definition): boolean {
  if (isNested(d)) return false;
  const line = d.signature;
  const member = d.parent !== undefined;
  switch (d.language) {
    case 'Go': {
      const first = d.name.codePointAt(0);
      return first !== undefined && String.fromCodePoint(first) !== String.fromCodePoint(first).toLowerCase();
    }
    case 'TypeScript':
    case 'TSX':
    case 'JavaScript':
      if (member) return !word(line, 'private') && !word(line, 'protected') && !d.name.startsWith('#');
      // A declaration file's top level is what its users see (TypeScript's lib.*.d.ts: globals, no `export`).
      return word(line, 'export') || /\.d\.[cm]?ts$/.test(d.path) || /^(module\.)?exports\./.test(line);
    case 'Python':
      return !d.name.startsWith('_') || (d.name.startsWith('__') && d.name.endsWith('__'));
    case 'Rust':
      return word(line, 'pub') || /interface|trait/i.test(d.parent_kind ?? '');
    case 'Java':
    case 'C#':
      return word(line, 'public') || /interface/i.test(d.parent_kind ?? '');
    case 'C':
    case 'C++':
      return !word(line, 'static') || member;
    case 'Swift':
      // Internal by default: visible in its module, which is what a search of its code is over.
      return !word(line, 'private') && !word(line, 'fileprivate');
    case 'Kotlin':
    case 'PHP':
      // Public unless said otherwise (Kotlin's `internal` is its module, as Swift's default).
      return !word(line, 'private') && !word(line, 'protected');
    default:
      return true;
  }
}

const TEST_FOLDER = /(^|\/)(tests?|__tests__|specs?|testdata|testing|e2e|examples?|playgrounds?|demos?|samples?|fixtures?|__fixtures__|benchmarks?)\//i;
const TEST_FILE = /(_test\.go|\.(test|spec)\.[cm]?[jt]sx?|(^|\/)test_[^/]*\.py|_test\.py|Tests?\.(java|kt|cs|scala|swift)|_spec\.rb)$/;

/** A test, an example or a fixture: code that uses or imitates a project's API rather than defining it. */
export function isTest(path: string): boolean {
  return TEST_FOLDER.test(path) || TEST_FILE.test(path);
}

/**
 * The kinds of parent that make a definition local: code (a function, a method, a constructor,
 * an accessor) and values (a property or a variable an object literal is assigned to).
 * Universal Ctags' words and the extractor's, lower-cased; `member` is Python's method.
 */
const LOCAL_PARENTS = new Set([
  'function', 'method', 'constructor', 'generator', 'getter', 'setter', 'accessor', 'lambda', 'member', 'subroutine', 'func',
  'property', 'variable', 'constant', 'field', 'local',
]);

/** Nested in a function, a method or an object literal, rather than at the top level or in a type. */
export function isNested(d: Definition): boolean {
  return d.parent !== undefined && LOCAL_PARENTS.has((d.parent_kind ?? '').toLowerCase());
}

const DECLARATION_FILE = /\.(d\.[cm]?ts|pyi)$/;
const CODE_KINDS = new Set(['function', 'method', 'constructor', 'prototype']);
const SEMICOLON_LANGUAGES = new Set(['C', 'C++', 'Objective-C', 'Objective-C++', 'C#', 'Java', 'TypeScript', 'TSX', 'Rust', 'PHP', 'D']);
/** A trailing `//` comment, cut before the line's end is read. */
const TRAILING_COMMENT = /\s*\/\/.*$/;

const count = (line: string, c: string): number => line.split(c).length - 1;

/**
 * A declaration of something defined elsewhere, without a body (step 4 of the rule above): what
 * the definition's path, line, kind and parent kind show.
 */
export function isDeclaration(d: Definition): boolean {
  if (DECLARATION_FILE.test(d.path)) return true;
  const raw = (d.raw_kind ?? '').toLowerCase();
  if (raw === 'prototype' || raw === 'externvar') return true;
  const line = d.signature;
  const language = d.language;
  const ecma = language === 'TypeScript' || language === 'TSX';
  if (ecma && /^(export\s+)?(default\s+)?declare\s/.test(line)) return true;
  const opens = line.includes('{');
  if (d.parent !== undefined && /interface|protocol/i.test(d.parent_kind ?? '') && (ecma || language === 'Go' || !opens)) return true;
  if (word(line, 'abstract') && !opens && d.parent !== undefined) return true;
  if (language === 'Python') return /^\s*(async\s+)?def\s.*:\s*\.\.\.\s*(#.*)?$/.test(line);
  if (!SEMICOLON_LANGUAGES.has(language)) return false;
  const end = line.replace(TRAILING_COMMENT, '').trimEnd();
  const kind = (d.kind ?? d.raw_kind ?? '').toLowerCase();
  if (CODE_KINDS.has(kind)) {
    if (/=\s*(0|delete|default)\s*;$/.test(end)) return true;
    // `x = f(a);` assigns (a name Universal Ctags took for a definition), unless `=` is an operator's name.
    const assigns = /^[^(]*[^=!<>]=[^=]/.test(end) && !word(end, 'operator');
    // Braces that close on the line are a type's (`{ a: string }`), not a body.
    return end.endsWith(';') && count(end, '{') === count(end, '}') && !end.includes('=>') && !assigns;
  }
  return (kind === 'class' || kind === 'struct' || kind === 'union') && /^(class|struct|union)\s+[\w:<>]+\s*;$/.test(end);
}

// The rule's steps as the bits of one number, most significant first (2 ** 24 bounds it).
const NOT_PUBLIC = 2 ** 23;
const IN_TEST = 2 ** 22;
const NESTED = 2 ** 21;
const DECLARATION = 2 ** 20;
/** Step 5: added to a twin's prominence by the search that saw its first copy (symbols.ts). */
export const TWIN = 2 ** 19;
/** Step 6: the folder depth, capped; every step before it is a bit above it. */
const DEPTH_CAP = 2 ** 18;
/** Every prominence, a twin's too, is below this. */
export const PROMINENCE_LIMIT = 2 ** 24;

/**
 * A number that orders definitions that match equally well, smaller first: steps 1–4 and 6 of
 * the rule above (a twin adds TWIN).
 */
export function prominence(d: Definition): number {
  return (
    (isPublic(d) ? 0 : NOT_PUBLIC) +
    (isTest(d.path) ? IN_TEST : 0) +
    (isNested(d) ? NESTED : 0) +
    (isDeclaration(d) ? DECLARATION : 0) +
    Math.min(depth(d.path), DEPTH_CAP)
  );
}

/**
 * What two copies of one definition in a file duplicated across packages share (step 5): its
 * name, kind, line and column, the file's name, and the file's content, by the hash Zoekt keeps
 * of it (`checksum`). Without a hash (a backend that sends none), the file's last folder and the
 * line's text stand in for the content: a coincidence costs little, the later of two such
 * definitions only moves after the others of its rank.
 */
export function twinKey(d: Definition & { line: number; column: number }, checksum: string | undefined): string {
  const tail = d.path.split('/').slice(checksum === undefined ? -2 : -1).join('/');
  return [d.name, d.kind ?? '', d.line, d.column, tail, checksum ?? `\u0001${d.signature}`].join('\u0000');
}

/** A definition as a name search ranks it: its prominence (twins included) and its file's score. */
export interface Prominent {
  prominence: number;
  score: number;
  symbol: { repo: string; path: string; line: number; column: number };
}

/** Definitions that match a name equally well: prominence, then Zoekt's score, then where they are. */
export function compareProminent(a: Prominent, b: Prominent): number {
  return (
    a.prominence - b.prominence ||
    b.score - a.score ||
    compareStrings(a.symbol.repo, b.symbol.repo) ||
    compareStrings(a.symbol.path, b.symbol.path) ||
    a.symbol.line - b.symbol.line ||
    a.symbol.column - b.symbol.column
  );
}

/**
 * Step 5: of the copies of one definition (the same `copy`, see twinKey; `group` keeps apart
 * what must not be compared, such as tiers of a name search), the first in `order` keeps its
 * place and the others rank after every definition of its prominence (TWIN is added to theirs).
 */
export function markTwins<T extends { prominence: number; copy?: string | undefined }>(all: readonly T[], order: (a: T, b: T) => number, group: (t: T) => string | number = () => ''): void {
  const copies = new Map<string, T[]>();
  for (const r of all) {
    if (r.copy === undefined) continue;
    const key = `${group(r)}\u0000${r.copy}`;
    const same = copies.get(key);
    if (same) same.push(r);
    else copies.set(key, [r]);
  }
  for (const same of copies.values()) {
    if (same.length < 2) continue;
    same.sort(order);
    for (const twin of same.slice(1)) twin.prominence += TWIN;
  }
}

/**
 * Files by folder depth and language, as a search can ask Zoekt for them: those less than
 * `maxDepth` folders deep (every depth when Infinity), in any language but `skip`.
 */
export interface PathClass {
  maxDepth: number;
  skip: readonly string[];
}

/**
 * The languages in which a definition named `name` is never public, whatever its line says (see
 * isPublic): Go when the name does not start with a capital, Python when it starts with `_` and
 * is no dunder.
 */
export function neverPublic(name: string): string[] {
  return ['Go', 'Python'].filter((language) => !isPublic({ name, language, path: '', signature: '' }));
}

/**
 * Where the definitions that rank before prominence `p` can be: a definition at depth d has a
 * prominence of at least d (capped), and a public one can only be in a language where its name
 * may be public (`hidden`: those where it may not, see neverPublic). What a search reading
 * shallow files first relies on (symbols.ts).
 *
 * Only those two bounds are used, and both hold whatever the steps read from the line say:
 * nesting, a test's path, a declaration and a twin are bits above the depth, so a `p` that has
 * any of them leaves the depth unbounded (every folder), and nesting only ever makes a
 * definition not public. They hold for a twin's prominence as for its first copy's (TWIN is
 * added, never taken away), so they hold for what a definition not yet read could have at best.
 */
export function rivalsOf(p: number, hidden: readonly string[]): PathClass[] {
  const before = (rest: number): number => (rest <= DEPTH_CAP ? rest : Number.POSITIVE_INFINITY);
  // Public: any public definition shallower (or outside tests, when p is a test's).
  if (p < NOT_PUBLIC) return p === 0 ? [] : [{ maxDepth: before(p), skip: hidden }];
  // Not public: every public one, and those not public that are shallower.
  const rest = p - NOT_PUBLIC;
  return [{ maxDepth: Number.POSITIVE_INFINITY, skip: hidden }, ...(rest === 0 ? [] : [{ maxDepth: before(rest), skip: [] }])];
}

/** Where the definitions whose prominence is exactly `p` can be (as rivalsOf). */
export function peersOf(p: number, hidden: readonly string[]): PathClass {
  const d = p % TWIN;
  return { maxDepth: d >= DEPTH_CAP ? Number.POSITIVE_INFINITY : d + 1, skip: p < NOT_PUBLIC ? hidden : [] };
}

function depth(path: string): number {
  let n = 0;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) n++;
  return n;
}
