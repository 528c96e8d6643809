/**
 * Which definition of a name comes first (prominence.ts, the rule; symbols.ts, rankFiles): source
 * in, order out. Each file is parsed by the extractor, as the indexer would, and handed to the
 * ranking as Zoekt would send it (the definition lines of the name asked for, a score, a content
 * checksum); the orders expected are written from the rule, not from the code.
 */
import { describe, expect, it } from 'vitest';
import { extract } from '../../src/extractor/extract.js';
import { grammar, type GrammarId } from '../../src/extractor/languages.js';
import { isDeclaration, isNested, isPublic, isTest, prominence, type Definition } from '../../src/search/definitions/prominence.js';
import { rankByName } from '../../src/search/symbols.js';
import type { Chunk, FileHit } from '../../src/zoekt/wire.js';

const GRAMMARS: Record<string, { id: GrammarId; language: string }> = {
  ts: { id: 'typescript', language: 'TypeScript' },
  py: { id: 'python', language: 'Python' },
  cpp: { id: 'cpp', language: 'C++' },
  h: { id: 'cpp', language: 'C++' },
};

interface Source {
  path: string;
  text: string;
  /** Zoekt's score of the file; higher first. */
  score?: number;
  /** Zoekt's content hash; the same for the same text unless given. */
  checksum?: string | null;
}

/** The file as a `sym:` search for the names sends it: a chunk per definition of one of them. */
async function indexed(src: Source, names: string[]): Promise<FileHit> {
  const ext = src.path.split('.').pop()!;
  const g = GRAMMARS[ext]!;
  const { tags } = await extract(grammar(g.id), src.text, 10_000);
  const lines = src.text.split('\n');
  const chunks: Chunk[] = tags
    .filter((t) => names.includes(t.name))
    .map((t) => {
      const text = lines[t.line - 1]!;
      const column = text.indexOf(t.name) + 1;
      return {
        startLine: t.line,
        lines: [text],
        matchLines: [t.line],
        fileName: false,
        score: 1,
        ranges: [{ line: t.line, column, endLine: t.line, endColumn: column + t.name.length, symbol: { name: t.name, kind: t.kind, parent: t.scope ?? '', parentKind: t.scopeKind ?? '' } }],
      };
    });
  const hit: FileHit = { repo: 'github.com/acme/mono', path: src.path, language: g.language, branches: ['HEAD'], score: src.score ?? 10, chunks };
  const checksum = src.checksum === undefined ? `crc:${src.text.length}:${src.text}` : src.checksum;
  if (checksum !== null) hit.checksum = checksum;
  return hit;
}

async function order(name: string, sources: Source[]): Promise<string[]> {
  const member = name.split('.').pop()!;
  const files = await Promise.all(sources.map((s) => indexed(s, [member])));
  return rankByName({ name, case_sensitive: true }, files).map((s) => `${s.path}:${s.line}`);
}

/** A class implemented in src/ and declared in two copies of types/types.d.ts, the copies scored higher. */
const FRAME_IMPL = `import type * as api from '../../types/types';

export class Frame implements api.Frame {
  private _url = '';

  async goto(url: string): Promise<void> {
    this._url = url;
  }
}
`;
const FRAME_TYPES = `export interface Frame {
  /**
   * Navigates the frame.
   */
  goto(url: string): Promise<void>;
}
`;
const frameTree: Source[] = [
  { path: 'packages/core/types/types.d.ts', text: FRAME_TYPES, score: 30 },
  { path: 'packages/client/types/types.d.ts', text: FRAME_TYPES, score: 31 },
  { path: 'packages/core/src/client/frame.ts', text: FRAME_IMPL, score: 20 },
];

describe('the implementation before its declarations, one copy of a duplicated file before its twins', () => {
  it('a class', async () => {
    // The class has a body; the two interfaces are declarations (.d.ts), at the same depth and
    // shallower than the class. Of the two identical copies, the one Zoekt scores higher first.
    expect(await order('Frame', frameTree)).toEqual(['packages/core/src/client/frame.ts:3', 'packages/client/types/types.d.ts:1', 'packages/core/types/types.d.ts:1']);
  });

  it('a method, by its qualified name', async () => {
    expect(await order('Frame.goto', frameTree)).toEqual(['packages/core/src/client/frame.ts:6', 'packages/client/types/types.d.ts:5', 'packages/core/types/types.d.ts:5']);
  });

  it('a twin follows the distinct declarations of its rank, deeper ones too', async () => {
    const other = { path: 'packages/core/src/server/protocol/types.d.ts', text: `export interface Frame {\n  url: string;\n}\n`, score: 1 };
    // The protocol declaration is deeper and scored lowest, but no copy: it comes before the twin.
    expect(await order('Frame', [...frameTree, other])).toEqual([
      'packages/core/src/client/frame.ts:3',
      'packages/client/types/types.d.ts:1',
      'packages/core/src/server/protocol/types.d.ts:1',
      'packages/core/types/types.d.ts:1',
    ]);
  });

  it('files of the same name with other content are no twins', async () => {
    const edited = frameTree.map((s) => (s.path.startsWith('packages/client/') ? { ...s, checksum: 'other' } : s));
    expect(await order('Frame', edited)).toEqual(['packages/core/src/client/frame.ts:3', 'packages/client/types/types.d.ts:1', 'packages/core/types/types.d.ts:1']);
    // Both at depth 2 and equally prominent: Zoekt's score orders them, nothing else moved.
    const lower = edited.map((s) => (s.path.startsWith('packages/client/') ? { ...s, score: 29 } : s));
    expect(await order('Frame', lower)).toEqual(['packages/core/src/client/frame.ts:3', 'packages/core/types/types.d.ts:1', 'packages/client/types/types.d.ts:1']);
  });

  it('without a checksum, the last folder and the line text stand in for the content', async () => {
    const noHash = frameTree.map((s) => ({ ...s, checksum: null }));
    expect(await order('Frame', noHash)).toEqual(['packages/core/src/client/frame.ts:3', 'packages/client/types/types.d.ts:1', 'packages/core/types/types.d.ts:1']);
    const another = { path: 'packages/extra/types/types.d.ts', text: FRAME_TYPES.replace('export interface Frame {', 'export interface Frame extends Base {'), score: 40, checksum: null };
    expect(await order('Frame', [...noHash, another])).toEqual([
      'packages/core/src/client/frame.ts:3',
      'packages/extra/types/types.d.ts:1',
      'packages/client/types/types.d.ts:1',
      'packages/core/types/types.d.ts:1',
    ]);
  });
});

describe('a common name keeps its public top-level definitions on top', () => {
  const sources: Source[] = [
    // Nested and local: a function in a function, an object literal's method, a class in a function.
    {
      path: 'src/a.ts',
      score: 50,
      text: `export function makeStore() {
  function get(key: string) {
    return key;
  }
  return {
    get(key: string) {
      return key;
    },
  };
}
export const api = {
  get: async (key: string) => key,
};
`,
    },
    // Top level, exported; and a method of an exported class.
    { path: 'src/deep/er/b.ts', score: 1, text: `export function get(key: string): string {\n  return key;\n}\n` },
    { path: 'src/c.ts', score: 2, text: `export class Cache {\n  get(key: string): string {\n    return key;\n  }\n}\n` },
    // Top level, not exported.
    { path: 'src/d.ts', score: 40, text: `function get(key: string) {\n  return key;\n}\n` },
    // A declaration: an interface member, shallow and scored high.
    { path: 'e.ts', score: 60, text: `export interface Getter {\n  get(key: string): string;\n}\n` },
  ];

  it('public top-level and members first, then the declaration, then those not public, top-level before nested', async () => {
    expect(await order('get', sources)).toEqual([
      // Public, with a body: shallower first.
      'src/c.ts:2',
      'src/deep/er/b.ts:1',
      // Public, a declaration.
      'e.ts:2',
      // Not public, top level.
      'src/d.ts:1',
      // Not public, nested: Zoekt's score, then the lines.
      'src/a.ts:2',
      'src/a.ts:6',
      'src/a.ts:12',
    ]);
  });
});

describe('a C++ header declares, its source file defines', () => {
  it('a member declared in the class body ranks after its out-of-line definition', async () => {
    const header = { path: 'include/frame.h', score: 30, text: `class Frame {\n public:\n  void goto_url(const char* url);\n};\n` };
    const source = { path: 'src/core/frame.cpp', score: 10, text: `#include "frame.h"\n\nvoid Frame::goto_url(const char* url) {\n}\n` };
    expect(await order('Frame.goto_url', [header, source])).toEqual(['src/core/frame.cpp:3', 'include/frame.h:3']);
  });
});

const def = (language: string, name: string, signature: string, extra: Partial<Definition> = {}): Definition => ({ name, language, signature, path: 'src/a', ...extra });

describe('isDeclaration', () => {
  it.each([
    [def('TypeScript', 'Frame', 'export interface Frame {', { path: 'types/types.d.ts', kind: 'interface' }), true],
    [def('TypeScript', 'x', 'export declare function x(): void;', { kind: 'function' }), true],
    [def('TypeScript', 'x', 'declare const x: number;', { kind: 'constant' }), true],
    [def('TypeScript', 'connect', 'connect(options: api.ConnectOptions & { wsEndpoint: string }): Promise<Browser>;', { kind: 'method', parent: 'BrowserType', parent_kind: 'Class' }), true],
    [def('TypeScript', 'connect', 'async connect(options: Options): Promise<Browser> {', { kind: 'method', parent: 'BrowserType', parent_kind: 'Class' }), false],
    [def('TypeScript', 'load', 'load(id: string): void', { kind: 'method', parent: 'Options', parent_kind: 'Interface' }), true],
    [def('TypeScript', 'run', 'abstract run(): void;', { kind: 'method', parent: 'Task', parent_kind: 'Class' }), true],
    [def('TypeScript', 'handler', 'export const handler = () => 1;', { kind: 'function' }), false],
    [def('TypeScript', 'f', 'export function f(a: string): void;', { kind: 'function' }), true],
    [def('TypeScript', 'f', 'export function f(a: string) { return a; }', { kind: 'function' }), false],
    [def('Go', 'Read', 'Read(p []byte) (n int, err error)', { kind: 'method', parent: 'Reader', parent_kind: 'Interface' }), true],
    [def('Go', 'Read', 'func (r *File) Read(p []byte) (n int, err error) {', { kind: 'method', parent: 'File', parent_kind: 'Struct' }), false],
    [def('Java', 'load', 'String load(String id);', { kind: 'method', parent: 'Repository', parent_kind: 'Interface' }), true],
    [def('Java', 'load', 'default String load(String id) {', { kind: 'method', parent: 'Repository', parent_kind: 'Interface' }), false],
    [def('Java', 'area', 'public abstract double area();', { kind: 'method', parent: 'Shape', parent_kind: 'Class' }), true],
    [def('C++', 'goto_url', 'void goto_url(const char* url);', { kind: 'method', parent: 'Frame', parent_kind: 'Class', path: 'include/frame.h' }), true],
    [def('C++', 'draw', 'virtual void draw() = 0;', { kind: 'method', parent: 'Shape', parent_kind: 'Class' }), true],
    [def('C++', 'operator==', 'bool operator==(const Frame& other) const;', { kind: 'method', parent: 'Frame', parent_kind: 'Class' }), true],
    [def('C++', 'Frame', 'class Frame;', { kind: 'class' }), true],
    [def('C++', 'Frame', 'class Frame {', { kind: 'class' }), false],
    [def('C', 'buffer_init', 'void buffer_init(struct buffer *b) {', { kind: 'function' }), false],
    [def('C', 'buffer_init', 'void buffer_init(struct buffer *b);', { kind: 'function', raw_kind: 'prototype' }), true],
    [def('Rust', 'handle', 'fn handle(&self, request: &str) -> String;', { kind: 'method', parent: 'Handler', parent_kind: 'Trait' }), true],
    [def('Rust', 'handle', 'fn handle(&self, request: &str) -> String {', { kind: 'method', parent: 'Handler', parent_kind: 'Trait' }), false],
    [def('Python', 'read', 'def read(self, n: int) -> bytes: ...', { kind: 'method', parent: 'Reader', parent_kind: 'Class' }), true],
    [def('Python', 'read', 'def read(self, n: int) -> bytes:', { kind: 'method', parent: 'Reader', parent_kind: 'Class' }), false],
    [def('Python', 'read', 'def read(self, n: int) -> bytes:', { kind: 'method', path: 'typeshed/io.pyi' }), true],
  ])('%o', (d, expected) => {
    expect(isDeclaration(d)).toBe(expected);
  });
});

describe('isNested', () => {
  it('a parent that is code or a value makes a definition local, and never public', () => {
    const nested = def('TypeScript', 'get', 'function get(key) {', { parent: 'makeStore', parent_kind: 'Function' });
    const literal = def('TypeScript', 'get', 'get(key) {', { parent: 'api', parent_kind: 'Variable' });
    const pyNested = def('Python', 'helper', 'def helper():', { parent: 'run', parent_kind: 'Function' });
    const member = def('TypeScript', 'get', 'get(key) {', { parent: 'Cache', parent_kind: 'Class' });
    const ctagsMember = def('TypeScript', 'get', 'get(key) {', { parent: 'Cache' });
    expect([nested, literal, pyNested, member, ctagsMember].map(isNested)).toEqual([true, true, true, false, false]);
    expect([nested, literal, pyNested, member, ctagsMember].map(isPublic)).toEqual([false, false, false, true, true]);
  });

  it('Swift: every definition but a private or fileprivate one is public; tests are *Tests.swift', () => {
    const swift = (signature: string, extra: Partial<Definition> = {}) => def('Swift', 'area', signature, { kind: 'method', parent: 'Circle', parent_kind: 'Struct', ...extra });
    expect([swift('public func area() -> Double {'), swift('func area() -> Double {'), swift('private func area() -> Double {'), swift('fileprivate func area() {')].map(isPublic)).toEqual([true, true, false, false]);
    expect(isTest('Tests/GeometryTests/CircleTests.swift')).toBe(true);
    expect(isTest('Sources/Geometry/CircleTests.swift')).toBe(true);
    expect(isTest('Sources/Geometry/Circle.swift')).toBe(false);
  });

  it('Kotlin and PHP: every definition but a private or protected one is public', () => {
    const kt = (signature: string) => def('Kotlin', 'area', signature, { kind: 'method', parent: 'Circle', parent_kind: 'Class' });
    const php = (signature: string) => def('PHP', 'area', signature, { kind: 'method', parent: 'Circle', parent_kind: 'Class' });
    expect([kt('fun area(): Double {'), kt('internal fun area(): Double {'), kt('private fun area(): Double {'), kt('protected open fun area() {')].map(isPublic)).toEqual([true, true, false, false]);
    expect([php('public function area(): float {'), php('function area() {'), php('private function area() {'), php('protected static function area() {')].map(isPublic)).toEqual([true, true, false, false]);
  });

  it('orders: public, outside tests, top-level, with a body, shallow', () => {
    const at = (path: string, signature: string, extra: Partial<Definition> = {}) => def('TypeScript', 'get', signature, { path, kind: 'function', ...extra });
    const defs = {
      publicDeep: at('a/b/c/d.ts', 'export function get() {'),
      publicDeclaration: at('d.ts', 'export function get(): void;'),
      publicInTest: at('test/d.ts', 'export function get() {'),
      topLevel: at('d.ts', 'function get() {'),
      nested: at('d.ts', 'function get() {', { parent: 'outer', parent_kind: 'Function' }),
      // A test's own, though top-level: after the project's nested one.
      inTest: at('test/d.ts', 'function get() {'),
    };
    const sorted = Object.entries(defs).sort(([, a], [, b]) => prominence(a) - prominence(b));
    expect(sorted.map(([k]) => k)).toEqual(['publicDeep', 'publicDeclaration', 'publicInTest', 'topLevel', 'nested', 'inTest']);
  });
});
