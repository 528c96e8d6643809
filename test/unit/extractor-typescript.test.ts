/**
 * The extractor's tag rules for TypeScript, TSX, JavaScript and JSX (src/extractor/queries/
 * ecmascript.scm, typescript.scm, javascript.scm): source in, tags out. Each tag reads
 * `line name Kind parent`, the parent being the enclosing path (`-` for none).
 */
import { describe, expect, it } from 'vitest';
import { extract } from '../../src/extractor/extract.js';
import { grammar, type GrammarId } from '../../src/extractor/languages.js';

async function tags(id: GrammarId, source: string): Promise<string[]> {
  const { tags } = await extract(grammar(id), source, 10_000);
  return tags.map((t) => `${t.line} ${t.name} ${t.kind} ${t.scope ?? '-'}`);
}

describe('what a module declares (as before)', () => {
  it('functions, classes with their members, interfaces, types, enums, namespaces, variables', async () => {
    const src = [
      "import { x } from 'y';", // 1
      'export function helper(a: number): void {}', // 2
      'export class Store<T> {', // 3
      '  constructor(private readonly repo: Repo, plain: number, public other?: string) {}', // 4
      '  get(key: string): T { return this.repo.get(key) }', // 5
      '  #secret = 1;', // 6
      "  'quoted'(): void {}", // 7
      '  [Symbol.iterator]() {}', // 8
      '}', // 9
      'export interface Options { size: number; load(id: string): void }', // 10
      'export type Id = string;', // 11
      "export enum Mode { Fast, 'Slow' = 2 }", // 12
      'export namespace A.B { export const inner = 1; }', // 13
      "declare module 'pkg' { export function g(): void }", // 14
      'export const LIMIT = 3, handler = () => {}, Klass = class { m() {} };', // 15
      'let counter = 0; var legacy;', // 16
      'const { a, b: [c, d = 1], ...rest } = source;', // 17
      "const fs = require('fs'), { join } = require('path'), cfg = await import('./cfg');", // 18
      'declare global { const version: string }', // 19
    ].join('\n');
    expect(await tags('typescript', src)).toEqual([
      '2 helper Function -',
      '3 Store Class -',
      '4 constructor Constructor Store',
      '4 repo Property Store',
      '4 other Property Store',
      '5 get Method Store',
      '6 #secret Property Store',
      '7 quoted Method Store',
      '10 Options Interface -',
      '10 size Property Options',
      '10 load Method Options',
      '11 Id TypeAlias -',
      '12 Mode Enum -',
      '12 Fast EnumMember Mode',
      '12 Slow EnumMember Mode',
      '13 A.B Namespace -',
      '13 inner Constant A.B',
      '14 pkg Module -',
      '14 g Function pkg',
      '15 LIMIT Constant -',
      '15 handler Function -',
      '15 Klass Class -',
      '15 m Method Klass',
      '16 counter Variable -',
      '16 legacy Variable -',
      '17 a Constant -',
      '17 c Constant -',
      '17 d Constant -',
      '17 rest Constant -',
      '19 version Constant -',
    ]);
  });

  it('CommonJS exports and prototype methods, not re-exports of names defined elsewhere', async () => {
    const src = [
      'function Pool() {}', // 1
      'Pool.prototype.acquire = function () {};', // 2
      'exports.create = function () {};', // 3
      'module.exports.VERSION = 1;', // 4
      'exports.Pool = Pool;', // 5
      'module.exports.Store = class Store {};', // 6
      'module.exports = class Agent { dispatch() {} };', // 7
    ].join('\n');
    expect(await tags('javascript', src)).toEqual([
      '1 Pool Function -',
      '2 acquire Method Pool',
      '3 create Function -',
      '4 VERSION Variable -',
      '6 Store Class -',
      '7 Agent Class -',
      '7 dispatch Method Agent',
    ]);
  });
});

describe('definitions at every depth', () => {
  it('object-literal methods and function-valued properties, under what the literal is assigned to or returned from', async () => {
    const src = [
      'export function viteBuildPlugin(config: Config): Plugin {', // 1
      '  const state = { count: 0, reset() {} };', // 2
      '  return {', // 3
      "    name: 'vite:build',", // 4
      '    async transform(code, id) { return code },', // 5
      '    load: async (id) => null,', // 6
      '    resolveId: function (id) {},', // 7
      "    'generate-bundle'() {},", // 8
      '    generateBundle: { order: "post", handler() {} },', // 9
      '    get size() { return 1 },', // 10
      '    [computed]() {},', // 11
      '    shorthand,', // 12
      '    value: other,', // 13
      '  };', // 14
      '}', // 15
      'export const plugin = { buildStart() {} };', // 16
      'export default defineConfig({ configResolved() {} });', // 17
      'hooks.onExit = { flush() {} };', // 18
    ].join('\n');
    expect(await tags('typescript', src)).toEqual([
      '1 viteBuildPlugin Function -',
      '2 reset Method viteBuildPlugin.state',
      '5 transform Method viteBuildPlugin',
      '6 load Method viteBuildPlugin',
      '7 resolveId Method viteBuildPlugin',
      '8 generate-bundle Method viteBuildPlugin',
      '9 handler Method viteBuildPlugin.generateBundle',
      '10 size Method viteBuildPlugin',
      '16 plugin Constant -',
      '16 buildStart Method plugin',
      '17 configResolved Method -',
      '18 flush Method onExit',
    ]);
  });

  it('functions and classes declared in functions, methods and blocks; classes named by class expressions', async () => {
    const src = [
      'export function outer() {', // 1
      '  function inner() {', // 2
      '    class Local { run() {} }', // 3
      '  }', // 4
      '  if (ready) { function later() {} }', // 5
      '  interface Shape { area(): number }', // 6
      '  type Alias = number;', // 7
      '  return class Mixin extends Base { mixed() {} };', // 8
      '}', // 9
      'class Service {', // 10
      '  start() { function step() {} }', // 11
      '  handle = () => { function cb() {} };', // 12
      '}', // 13
      'describe("suite", () => { function fixture() {} });', // 14
    ].join('\n');
    expect(await tags('typescript', src)).toEqual([
      '1 outer Function -',
      '2 inner Function outer',
      '3 Local Class outer.inner',
      '3 run Method outer.inner.Local',
      '5 later Function outer',
      '6 Shape Interface outer',
      '6 area Method outer.Shape',
      '7 Alias TypeAlias outer',
      '8 Mixin Class outer',
      '8 mixed Method outer.Mixin',
      '10 Service Class -',
      '11 start Method Service',
      '11 step Function Service.start',
      '12 handle Property Service',
      '12 cb Function Service.handle',
      '14 fixture Function -',
    ]);
  });

  it('JSX and TSX: components, their hooks and handlers', async () => {
    const jsx = ['export function Badge({ label }) {', '  function onClick() {}', '  return <b onClick={onClick}>{label}</b>;', '}', 'export const styles = { root() { return {} } };'].join('\n');
    expect(await tags('javascript', jsx)).toEqual(['1 Badge Function -', '2 onClick Function Badge', '5 styles Constant -', '5 root Method styles']);
    const tsx = ['export function List<T>({ items }: Props<T>) {', '  const api = { refresh(): void {} };', '  return <ul>{items.map((i) => <li key={i}>{i}</li>)}</ul>;', '}'].join('\n');
    expect(await tags('tsx', tsx)).toEqual(['1 List Function -', '2 refresh Method List.api']);
  });
});

describe('overload signatures', () => {
  it('are Prototype where an implementation follows them, and keep their kind where a namespace of their name does', async () => {
    const src = [
      'export function h(type: string): VNode', // 1
      'export function h(type: any, props?: any): VNode', // 2
      'export function h(type: any, props?: any) { return make(type, props); }', // 3
      'declare function foo(a: string): void;', // 4
      'declare function foo(a: number): void;', // 5
      'declare namespace foo { const version: string; }', // 6
    ].join('\n');
    expect(await tags('typescript', src)).toEqual([
      '1 h Prototype -',
      '2 h Prototype -',
      '3 h Function -',
      '4 foo Function -',
      '5 foo Function -',
      '6 foo Namespace -',
      '6 version Constant foo',
    ]);
  });
});

describe('not definitions', () => {
  it('parameters, locals (destructured or not), imports, call sites, shorthand properties, type-literal members; an arrow bound to a local is a function', async () => {
    const src = [
      "import def, { named } from 'mod';", // 1
      'export function f(param: number, { destructured }: Opts, ...rest: number[]) {', // 2
      '  const local = 1;', // 3
      '  let { a, b } = param;', // 4
      '  var old = 2;', // 5
      '  const arrow = () => {};', // 6
      '  for (const item of items) {}', // 7
      '  for (let i = 0; i < 1; i++) {}', // 8
      '  call(named, { shorthand });', // 9
      '  try {} catch (err) {}', // 10
      '}', // 11
      'if (flag) { const blockScoped = 1; }', // 12
      'for (const top of list) {}', // 13
      'type Literal = { member: number; method(): void };', // 14
      'const x = obj.method();', // 15
    ].join('\n');
    expect(await tags('typescript', src)).toEqual(['2 f Function -', '6 arrow Function f', '14 Literal TypeAlias -', '15 x Constant -']);
  });

  it('what the grammar could not parse is no definition', async () => {
    // tree-sitter-typescript ends a template literal type at an escaped backquote and reads the
    // rest as code: the comment after it is no class.
    const src = ['type Message = `use \\`class Self\\``', '/**', ' * class Child extends Base {}', ' */', 'export const after = 1;'].join('\n');
    const got = await tags('typescript', src);
    expect(got).toContain('1 Message TypeAlias -');
    expect(got.some((t) => t.includes('Child'))).toBe(false);
  });
});
