/**
 * The engine that runs the extractor's tag rules (src/extractor/rules.ts): every query file
 * compiles for the grammars that use it, a capture or a kind it does not know is an error, and
 * what its captures mean (a scope, a local, an exclusion, a `@parent`, names a pattern binds).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Language, Parser } from 'web-tree-sitter';
import { extract, grammarBytes } from '../../src/extractor/extract.js';
import { GRAMMARS, grammar } from '../../src/extractor/languages.js';
import { queryText, TagRules } from '../../src/extractor/rules.js';
import { TagSink } from '../../src/extractor/tags.js';

let typescript: Language;
beforeAll(async () => {
  await Parser.init();
  typescript = await Language.load(grammarBytes(grammar('typescript')));
});

/** The tags `rules` (a query's text) give `source`, parsed as TypeScript. */
function run(rules: string, source: string): string[] {
  const parser = new Parser();
  parser.setLanguage(typescript);
  const tree = parser.parse(source)!;
  const sink = new TagSink('.');
  new TagRules(typescript, rules).run(tree.rootNode, sink);
  tree.delete();
  return sink.tags.map((t) => `${t.line} ${t.name} ${t.kind} ${t.scope ?? '-'}/${t.scopeKind ?? '-'}`);
}

describe('the query files', () => {
  it.each(GRAMMARS.filter((g) => g.id !== 'c' && g.id !== 'cpp').map((g) => g.id))('compile for %s', async (id) => {
    // Extracting anything compiles the grammar's rules; a node type the grammar lacks throws.
    await expect(extract(grammar(id), '', 5_000)).resolves.toMatchObject({ tags: [] });
  });

  it('put an included file first', () => {
    const text = queryText('typescript');
    expect(text.indexOf('(function_declaration name:')).toBeLessThan(text.indexOf('(function_signature name:'));
  });

  it('are in the package: next to the sources, and compiled into the extractor bundle by scripts/bundle.mjs', () => {
    const bundle = readFileSync(join(dirname(createRequire(import.meta.url).resolve('../../package.json')), 'scripts/bundle.mjs'), 'utf8');
    expect(bundle).toContain('ZOEKT_MCP_QUERIES');
  });
});

describe('the engine', () => {
  it('refuses a capture or a kind it does not know', () => {
    expect(() => run('(function_declaration name: (identifier) @title) @definition.Function', '')).toThrow(/@title: not a capture/);
    expect(() => run('(function_declaration name: (identifier) @name) @definition.Routine', '')).toThrow(/@definition.Routine: not a kind/);
    expect(() => run('(function_declaration) @definition.Function', 'function f() {}')).toThrow(/without @name/);
  });

  it('nests definitions by their ranges, and names a scope that is not tagged', () => {
    const rules = ['(class_declaration name: (_) @name) @definition.Class', '(method_definition name: (_) @name) @definition.Method', '(pair key: (_) @name value: (object)) @scope.Property'].join('\n');
    expect(run(rules, 'class A { m() { const o = { hooks: { run() {} } } } }')).toEqual(['1 A Class -/-', '1 m Method A/Class', '1 run Method A.m.hooks/Property']);
  });

  it('takes the first pattern that captures a name, and `in.type` where the parent is a type', () => {
    const rules = [
      '((function_declaration name: (_) @name) @definition.Function (#set! in.type Method))',
      '(function_declaration name: (_) @name) @definition.Variable',
      '(class_declaration name: (_) @name) @definition.Class',
      '(internal_module name: (_) @name body: (_) @definition.Namespace)',
    ].join('\n');
    expect(run(rules, 'function f() {}\nnamespace N { function g() {} }')).toEqual(['1 f Function -/-', '2 N Namespace -/-', '2 g Function N/Namespace']);
  });

  it('drops `(#is-not? local)` definitions nearest a @local, but keeps them as scopes', () => {
    const rules = [
      '((variable_declarator name: (identifier) @name) @definition.Constant (#is-not? local))',
      '(method_definition name: (_) @name) @definition.Method',
      '(function_declaration name: (_) @name) @definition.Function',
      '(function_declaration body: (_) @local)',
    ].join('\n');
    expect(run(rules, 'const top = 1\nfunction f() {\n  const inner = { m() {} }\n}')).toEqual(['1 top Constant -/-', '2 f Function -/-', '3 m Method f.inner/Constant']);
  });

  it('excludes what an @exclude or an ERROR covers', () => {
    const rules = [
      '(function_declaration name: (_) @name) @definition.Function',
      '(method_definition name: (_) @name) @definition.Method',
      '(class_declaration name: (_) @name) @definition.Class',
      '(class_declaration name: (_) @_n (#eq? @_n "Hidden")) @exclude',
    ].join('\n');
    expect(run(rules, 'class Hidden { m() {} }\nclass Shown {}\nfunction ok() {}')).toEqual(['2 Shown Class -/-', '3 ok Function -/-']);
    // The grammar reads `( {` as the start of an expression it cannot finish: an ERROR node.
    expect(run(rules, 'function ok() {}\nif ( { lost() {} }')).toEqual(['1 ok Function -/-']);
  });

  it('takes a @parent by name, with the kind the file gives that name', () => {
    const rules = [
      '(class_declaration name: (_) @name) @definition.Class',
      '((expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @parent) property: (property_identifier) @name))) @definition.Method (#set! lookup Type))',
    ].join('\n');
    expect(run(rules, 'class C {}\nC.prototype.m = 1\nD.prototype.n = 2')).toEqual(['1 C Class -/-', '2 m Method C/Class', '3 n Method D/Type']);
  });

  it('binds the names of a pattern only inside a @names capture', () => {
    const rules = ['(variable_declarator name: (object_pattern) @names.Constant)', '(object_pattern (shorthand_property_identifier_pattern) @binding)'].join('\n');
    expect(run(rules, 'const { a, b } = x\nfunction f({ c }) {}')).toEqual(['1 a Constant -/-', '1 b Constant -/-']);
  });

  it('looks no deeper than `; max-start-depth`', () => {
    const rules = ['; max-start-depth: 1', '(function_declaration name: (_) @name) @definition.Function'].join('\n');
    expect(run(rules, 'function f() { function g() {} }')).toEqual(['1 f Function -/-']);
  });
});
