/**
 * Definitions in C and C++: macros, functions, file-scope variables, structs, unions, enums and
 * typedefs; in C++ also namespaces, classes with their members (declared in the class body or
 * defined out of line as `Class::member`) and `using` aliases. A free function's prototype is a
 * declaration, not a definition, and `extern` variables are defined elsewhere; in a class body,
 * member declarations are what there is to find, so they are tagged.
 */
import type { Node } from 'web-tree-sitter';
import { fieldNodes, type Scope, type TagKind, type TagSink } from '../tags.js';

interface Context {
  sink: TagSink;
  /** Classes, structs and unions named in this file, for out-of-line member definitions. */
  types: Set<string>;
  /** Namespaces named in this file: `ns::f()` defines a function, not a method. */
  namespaces: Set<string>;
}

export function extractC(root: Node, sink: TagSink): void {
  const cx: Context = { sink, types: new Set(), namespaces: new Set() };
  for (const node of root.descendantsOfType(['class_specifier', 'struct_specifier', 'union_specifier', 'namespace_definition'])) {
    const name = node.childForFieldName('name')?.text;
    if (name) (node.type === 'namespace_definition' ? cx.namespaces : cx.types).add(name);
  }
  topLevel(root.namedChildren, cx, undefined);
}

const SPECIFIERS: Record<string, TagKind> = { struct_specifier: 'Struct', union_specifier: 'Union', class_specifier: 'Class', enum_specifier: 'Enum' };
/** Nodes whose children sit at the level of the node itself. */
const TRANSPARENT = new Set(['preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'template_declaration', 'declaration_list', 'export_declaration']);

function topLevel(nodes: Node[], cx: Context, scope: Scope | undefined): void {
  for (const node of nodes) {
    const type = node.type;
    if (type === 'preproc_def' || type === 'preproc_function_def') {
      cx.sink.add(node.childForFieldName('name'), 'Macro', scope);
    } else if (type === 'function_definition') {
      outOfLine(node, cx, scope);
    } else if (type === 'declaration') {
      declaration(node, cx, scope);
    } else if (type === 'type_definition') {
      typedef(node, cx, scope);
    } else if (type === 'alias_declaration') {
      cx.sink.add(node.childForFieldName('name'), 'TypeAlias', scope);
    } else if (SPECIFIERS[type]) {
      specifier(node, cx, scope);
    } else if (type === 'namespace_definition') {
      const name = node.childForFieldName('name');
      const inner = name ? cx.sink.add(name, 'Namespace', scope) : scope;
      const body = node.childForFieldName('body');
      if (body) topLevel(body.namedChildren, cx, inner);
    } else if (type === 'linkage_specification') {
      // `extern "C" { … }` or `extern "C" int f(void);`
      const body = node.childForFieldName('body');
      if (body) topLevel(body.type === 'declaration_list' ? body.namedChildren : [body], cx, scope);
    } else if (TRANSPARENT.has(type)) {
      topLevel(node.namedChildren, cx, scope);
    }
  }
}

/** The name a declarator declares, and whether it declares a function. */
function declared(declarator: Node | null): { name: Node; isFunction: boolean } | undefined {
  let isFunction = false;
  let node = declarator;
  while (node) {
    switch (node.type) {
      case 'function_declarator':
        // `void (*g(int))(void)`: the innermost function declarator names the function.
        isFunction = true;
        node = node.childForFieldName('declarator');
        break;
      case 'pointer_declarator':
      case 'reference_declarator':
      case 'array_declarator':
      case 'init_declarator':
      case 'attributed_declarator':
        node = node.childForFieldName('declarator') ?? node.namedChildren.find((c) => c.type.endsWith('declarator') || c.type.endsWith('identifier')) ?? null;
        break;
      case 'parenthesized_declarator':
        // `int (*callback)(int)` is a pointer variable, not a function.
        if (isFunction && node.namedChildren.some((c) => c.type === 'pointer_declarator')) isFunction = false;
        node = node.namedChild(0);
        break;
      case 'identifier':
      case 'field_identifier':
      case 'type_identifier':
      case 'operator_name':
      case 'destructor_name':
      case 'qualified_identifier':
      case 'template_function':
        return { name: node, isFunction };
      default:
        return undefined;
    }
  }
  return undefined;
}

/** `A::B::f` → the scope segments ['A', 'B'] and the name node `f`. */
function qualified(name: Node): { segments: string[]; last: Node } {
  const segments: string[] = [];
  let node = name;
  while (node.type === 'qualified_identifier') {
    const scope = node.childForFieldName('scope');
    if (scope) segments.push(scope.type === 'template_type' ? scope.childForFieldName('name')?.text ?? scope.text : scope.text);
    const inner = node.childForFieldName('name');
    if (!inner) break;
    node = inner;
  }
  if (node.type === 'template_function') node = node.childForFieldName('name') ?? node;
  return { segments, last: node };
}

/** A function defined at namespace level: free, or a member defined out of line (`Class::f`). */
function outOfLine(node: Node, cx: Context, scope: Scope | undefined): void {
  const target = declared(node.childForFieldName('declarator'));
  if (!target) return;
  const { segments, last } = qualified(target.name);
  if (segments.length === 0) {
    cx.sink.add(last, 'Function', scope);
    return;
  }
  const owner = segments[segments.length - 1]!;
  const ownerIsNamespace = cx.namespaces.has(owner) && !cx.types.has(owner);
  // Inside `namespace acme {`, both `UserService::find` and `acme::UserService::find` are acme::UserService's.
  const outer = scope ? scope.path.split(cx.sink.separator) : [];
  const restart = outer.indexOf(segments[0]!);
  const path = [...(restart === -1 ? outer : outer.slice(0, restart)), ...segments].join(cx.sink.separator);
  const kind: TagKind = ownerIsNamespace ? 'Function' : last.text === owner ? 'Constructor' : 'Method';
  cx.sink.add(last, kind, { path, kind: ownerIsNamespace ? 'Namespace' : 'Class' });
}

function declaration(node: Node, cx: Context, scope: Scope | undefined): void {
  const type = node.childForFieldName('type');
  if (type && SPECIFIERS[type.type]) specifier(type, cx, scope);
  // `extern int x;` is defined elsewhere; a prototype declares a function defined elsewhere.
  if (node.namedChildren.some((c) => c.type === 'storage_class_specifier' && c.text === 'extern')) return;
  for (const declarator of fieldNodes(node, 'declarator')) {
    const target = declared(declarator);
    if (target && !target.isFunction && target.name.type === 'identifier') cx.sink.add(target.name, 'Variable', scope);
  }
}

function typedef(node: Node, cx: Context, scope: Scope | undefined): void {
  const type = node.childForFieldName('type');
  const names = fieldNodes(node, 'declarator').map(declared).filter((d) => d !== undefined);
  // `typedef struct { … } Point;` names an anonymous struct: Point is that struct, and its members are Point's.
  const anonymous = type && SPECIFIERS[type.type] && type.childForFieldName('body') && !type.childForFieldName('name') ? SPECIFIERS[type.type] : undefined;
  let bodyScope: Scope | undefined;
  for (const { name } of names) {
    const inner = cx.sink.add(name, anonymous ?? 'TypeAlias', scope);
    bodyScope ??= inner;
  }
  if (type && SPECIFIERS[type.type]) specifier(type, cx, scope, bodyScope);
}

/** A struct, union, class or enum with a body; `anonymousScope` names its members when it has no name. */
function specifier(node: Node, cx: Context, scope: Scope | undefined, anonymousScope?: Scope): void {
  const body = node.childForFieldName('body');
  if (!body) return;
  const kind = SPECIFIERS[node.type]!;
  const name = node.childForFieldName('name');
  const named = name?.type === 'type_identifier' || name?.type === 'qualified_identifier' ? name : undefined;
  const inner = named ? cx.sink.add(named, kind, scope) : anonymousScope;
  if (kind === 'Enum') {
    for (const enumerator of body.namedChildren) if (enumerator.type === 'enumerator') cx.sink.add(enumerator.childForFieldName('name'), 'EnumMember', inner ?? scope);
  } else if (inner) {
    members(body, cx, inner, named?.text ?? '');
  }
}

/** The body of a class, struct or union. */
function members(body: Node, cx: Context, scope: Scope, className: string): void {
  for (const node of body.namedChildren) {
    const type = node.type;
    if (type === 'field_declaration' || type === 'declaration') {
      const typeNode = node.childForFieldName('type');
      if (typeNode && SPECIFIERS[typeNode.type]) specifier(typeNode, cx, scope);
      for (const declarator of fieldNodes(node, 'declarator')) {
        const target = declared(declarator);
        if (target) cx.sink.add(target.name, memberKind(target.name, target.isFunction, className), scope);
      }
    } else if (type === 'function_definition') {
      const target = declared(node.childForFieldName('declarator'));
      if (target) cx.sink.add(target.name, memberKind(target.name, true, className), scope);
    } else if (type === 'alias_declaration' || type === 'type_definition') {
      if (type === 'alias_declaration') cx.sink.add(node.childForFieldName('name'), 'TypeAlias', scope);
      else typedef(node, cx, scope);
    } else if (SPECIFIERS[type]) {
      specifier(node, cx, scope);
    } else if (type === 'template_declaration' || type === 'preproc_if' || type === 'preproc_ifdef' || type === 'preproc_else') {
      members(node, cx, scope, className);
    }
  }
}

function memberKind(name: Node, isFunction: boolean, className: string): TagKind {
  if (!isFunction) return 'Field';
  return name.text === className ? 'Constructor' : 'Method';
}
