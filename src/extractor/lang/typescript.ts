/**
 * Definitions in TypeScript, TSX, JavaScript and JSX: what a module, a namespace or a class
 * declares, never what a function body does. Imports, and names bound from `require(…)` or
 * `import(…)`, are bindings of other modules' definitions, not definitions.
 */
import type { Node } from 'web-tree-sitter';
import type { Scope, TagKind, TagSink } from '../tags.js';

export function extractTypeScript(root: Node, sink: TagSink): void {
  statements(root, sink, undefined);
}

function statements(block: Node, sink: TagSink, scope: Scope | undefined): void {
  for (const node of block.namedChildren) statement(node, sink, scope);
}

const FUNCTIONS = new Set(['function_declaration', 'generator_function_declaration', 'function_signature']);
const CLASSES = new Set(['class_declaration', 'abstract_class_declaration']);

function statement(node: Node, sink: TagSink, scope: Scope | undefined): void {
  const type = node.type;
  if (FUNCTIONS.has(type)) {
    sink.add(node.childForFieldName('name'), 'Function', scope);
  } else if (CLASSES.has(type)) {
    classBody(node.childForFieldName('body'), sink, sink.add(node.childForFieldName('name'), 'Class', scope));
  } else if (type === 'export_statement') {
    const declaration = node.childForFieldName('declaration');
    if (declaration) statement(declaration, sink, scope);
  } else if (type === 'lexical_declaration' || type === 'variable_declaration') {
    // `const` binds constants; `let` and `var` variables.
    const kind: TagKind = node.child(0)?.type === 'const' ? 'Constant' : 'Variable';
    for (const declarator of node.namedChildren) if (declarator.type === 'variable_declarator') variable(declarator, kind, sink, scope);
  } else if (type === 'interface_declaration') {
    interfaceBody(node.childForFieldName('body'), sink, sink.add(node.childForFieldName('name'), 'Interface', scope));
  } else if (type === 'type_alias_declaration') {
    sink.add(node.childForFieldName('name'), 'TypeAlias', scope);
  } else if (type === 'enum_declaration') {
    enumBody(node.childForFieldName('body'), sink, sink.add(node.childForFieldName('name'), 'Enum', scope));
  } else if (type === 'internal_module' || type === 'module') {
    // `namespace A.B {}` and `module A {}`; `declare module 'pkg' {}` is named by its string.
    const name = node.childForFieldName('name');
    const text = name?.type === 'string' ? stringText(name) : name?.text;
    const inner = sink.add(name, type === 'internal_module' ? 'Namespace' : 'Module', scope, text);
    const body = node.childForFieldName('body');
    if (body) statements(body, sink, inner);
  } else if (type === 'expression_statement') {
    // A namespace parses as an expression statement; so do CommonJS exports and prototype methods.
    const expression = node.namedChild(0);
    if (expression?.type === 'internal_module') statement(expression, sink, scope);
    else if (expression?.type === 'assignment_expression' && !scope) assignment(expression, sink);
  } else if (type === 'ambient_declaration' || type === 'statement_block') {
    // `declare …` and the block of `declare global { … }`.
    statements(node, sink, scope);
  }
}

/** The text of a string literal without its quotes. */
function stringText(node: Node): string {
  return node.namedChildren.find((c) => c.type === 'string_fragment')?.text ?? node.text.slice(1, -1);
}

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const CLASS_VALUES = new Set(['class', 'class_expression']);

function variable(declarator: Node, kind: TagKind, sink: TagSink, scope: Scope | undefined): void {
  const name = declarator.childForFieldName('name');
  const value = declarator.childForFieldName('value');
  if (!name || (value && importsModule(value))) return;
  if (name.type !== 'identifier') {
    // Destructuring binds each name in the pattern.
    for (const id of patternNames(name)) sink.add(id, kind, scope);
    return;
  }
  const valueType = value?.type ?? '';
  if (FUNCTION_VALUES.has(valueType)) sink.add(name, 'Function', scope);
  else if (CLASS_VALUES.has(valueType)) classBody(value!.childForFieldName('body'), sink, sink.add(name, 'Class', scope));
  else sink.add(name, kind, scope);
}

/** Whether an initializer loads another module: `require('x')`, `require('x').y`, `await import('x')`. */
function importsModule(value: Node): boolean {
  let node: Node | null = value;
  for (;;) {
    if (!node) return false;
    if (node.type === 'await_expression' || node.type === 'parenthesized_expression') node = node.namedChild(0);
    else if (node.type === 'member_expression') node = node.childForFieldName('object');
    else break;
  }
  if (node.type !== 'call_expression') return false;
  const callee = node.childForFieldName('function');
  return callee?.type === 'import' || (callee?.type === 'identifier' && callee.text === 'require');
}

/** The names a destructuring pattern binds. */
function patternNames(pattern: Node): Node[] {
  switch (pattern.type) {
    case 'identifier':
    case 'shorthand_property_identifier_pattern':
      return [pattern];
    case 'pair_pattern': {
      const value = pattern.childForFieldName('value');
      return value ? patternNames(value) : [];
    }
    case 'assignment_pattern':
    case 'object_assignment_pattern': {
      const left = pattern.childForFieldName('left');
      return left ? patternNames(left) : [];
    }
    case 'object_pattern':
    case 'array_pattern':
    case 'rest_pattern':
      return pattern.namedChildren.flatMap(patternNames);
    default:
      return [];
  }
}

/**
 * CommonJS and pre-class JavaScript: `exports.f = …` / `module.exports.f = …` define `f`;
 * `C.prototype.m = function …` defines method `m` of `C`.
 */
function assignment(expression: Node, sink: TagSink): void {
  const left = expression.childForFieldName('left');
  const right = expression.childForFieldName('right');
  if (left?.type !== 'member_expression' || !right) return;
  const object = left.childForFieldName('object');
  const property = left.childForFieldName('property');
  if (!object || property?.type !== 'property_identifier') return;
  const isFunction = FUNCTION_VALUES.has(right.type);
  if (object.text === 'exports' || object.text === 'module.exports') {
    // `exports.f = f` exports a name defined elsewhere in the file: that is its definition.
    if (right.type === 'identifier' || right.type === 'member_expression') return;
    sink.add(property, isFunction ? 'Function' : CLASS_VALUES.has(right.type) ? 'Class' : 'Variable', undefined);
  } else if (isFunction && object.type === 'member_expression' && object.childForFieldName('property')?.text === 'prototype') {
    const owner = object.childForFieldName('object');
    if (owner?.type === 'identifier') sink.add(property, 'Method', { path: owner.text, kind: 'Class' });
  }
}

/** A member's name, or undefined for a computed one (`[Symbol.iterator]`). */
function memberName(node: Node): { at: Node; text: string } | undefined {
  const name = node.childForFieldName('name') ?? node.childForFieldName('property');
  if (!name || name.type === 'computed_property_name') return undefined;
  return { at: name, text: name.type === 'string' ? stringText(name) : name.text };
}

function classBody(body: Node | null, sink: TagSink, scope: Scope | undefined): void {
  if (!body || !scope) return;
  for (const member of body.namedChildren) {
    const type = member.type;
    if (type === 'method_definition' || type === 'method_signature' || type === 'abstract_method_signature') {
      const name = memberName(member);
      if (!name) continue;
      const isConstructor = name.text === 'constructor' && type !== 'abstract_method_signature';
      sink.add(name.at, isConstructor ? 'Constructor' : 'Method', scope, name.text);
      if (isConstructor) parameterProperties(member, sink, scope);
    } else if (type === 'public_field_definition' || type === 'field_definition') {
      const name = memberName(member);
      if (name) sink.add(name.at, 'Property', scope, name.text);
    }
  }
}

/** `constructor(private readonly repo: Repo)` declares the property `repo`. */
function parameterProperties(constructor: Node, sink: TagSink, scope: Scope): void {
  for (const parameter of constructor.childForFieldName('parameters')?.namedChildren ?? []) {
    if (parameter.type !== 'required_parameter' && parameter.type !== 'optional_parameter') continue;
    const declares = parameter.namedChildren.some((c) => c.type === 'accessibility_modifier' || c.type === 'override_modifier') || parameter.children.some((c) => c.type === 'readonly');
    const pattern = parameter.childForFieldName('pattern');
    if (declares && pattern?.type === 'identifier') sink.add(pattern, 'Property', scope);
  }
}

function interfaceBody(body: Node | null, sink: TagSink, scope: Scope | undefined): void {
  if (!body || !scope) return;
  for (const member of body.namedChildren) {
    const kind: TagKind | undefined = member.type === 'method_signature' ? 'Method' : member.type === 'property_signature' ? 'Property' : undefined;
    const name = kind ? memberName(member) : undefined;
    if (kind && name) sink.add(name.at, kind, scope, name.text);
  }
}

function enumBody(body: Node | null, sink: TagSink, scope: Scope | undefined): void {
  if (!body || !scope) return;
  for (const member of body.namedChildren) {
    const name = member.type === 'enum_assignment' ? member.childForFieldName('name') : member;
    if (!name || name.type === 'computed_property_name' || name.type === 'comment') continue;
    sink.add(name, 'EnumMember', scope, name.type === 'string' ? stringText(name) : name.text);
  }
}
