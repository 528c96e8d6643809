/**
 * Definitions in Rust: items of a crate, of its inline modules, of `extern` blocks and of traits;
 * the methods, constants and types of an `impl` block are scoped to the type it implements (not
 * to the trait). Items inside function bodies are local to them.
 */
import type { Node } from 'web-tree-sitter';
import type { Scope, ScopeKind, TagSink } from '../tags.js';

export function extractRust(root: Node, sink: TagSink): void {
  const typeKinds = new Map<string, ScopeKind>();
  // Types first, so an impl block knows whether its type is a struct, an enum or a union.
  for (const node of root.descendantsOfType(['struct_item', 'enum_item', 'union_item'])) {
    const name = node.childForFieldName('name')?.text;
    if (name) typeKinds.set(name, node.type === 'struct_item' ? 'Struct' : node.type === 'enum_item' ? 'Enum' : 'Union');
  }
  items(root, sink, undefined, typeKinds, false);
}

/** `members`: the list is the body of an impl block or a trait, whose functions are methods. */
function items(list: Node, sink: TagSink, scope: Scope | undefined, typeKinds: Map<string, ScopeKind>, members: boolean): void {
  for (const node of list.namedChildren) item(node, sink, scope, typeKinds, members);
}

function item(node: Node, sink: TagSink, scope: Scope | undefined, typeKinds: Map<string, ScopeKind>, member: boolean): void {
  const name = node.childForFieldName('name');
  const body = node.childForFieldName('body');
  switch (node.type) {
    case 'function_item':
    case 'function_signature_item':
      sink.add(name, member ? 'Method' : 'Function', scope);
      break;
    case 'struct_item':
    case 'union_item': {
      const inner = sink.add(name, node.type === 'struct_item' ? 'Struct' : 'Union', scope);
      if (body?.type === 'field_declaration_list' && inner) fields(body, sink, inner);
      break;
    }
    case 'enum_item': {
      const inner = sink.add(name, 'Enum', scope);
      for (const variant of body?.namedChildren ?? []) if (variant.type === 'enum_variant' && inner) sink.add(variant.childForFieldName('name'), 'EnumMember', inner);
      break;
    }
    case 'trait_item': {
      const inner = sink.add(name, 'Trait', scope);
      if (body && inner) items(body, sink, inner, typeKinds, true);
      break;
    }
    case 'impl_item': {
      const type = typeName(node.childForFieldName('type'));
      if (type && body) items(body, sink, { path: type, kind: typeKinds.get(type) ?? 'Impl' }, typeKinds, true);
      break;
    }
    case 'mod_item': {
      const inner = sink.add(name, 'Module', scope);
      if (body && inner) items(body, sink, inner, typeKinds, false);
      break;
    }
    case 'foreign_mod_item':
      if (body) items(body, sink, scope, typeKinds, false);
      break;
    case 'type_item':
    case 'associated_type':
      sink.add(name, 'TypeAlias', scope);
      break;
    case 'const_item':
      sink.add(name, 'Constant', scope);
      break;
    case 'static_item':
      sink.add(name, 'Variable', scope);
      break;
    case 'macro_definition':
      sink.add(name, 'Macro', scope);
      break;
  }
}

function fields(list: Node, sink: TagSink, scope: Scope): void {
  for (const field of list.namedChildren) if (field.type === 'field_declaration') sink.add(field.childForFieldName('name'), 'Field', scope);
}

/** `Server`, `Server<T>`, `&'a mut Server<u8>`, `crate::x::Server` → `Server`. */
function typeName(type: Node | null): string | undefined {
  while (type && type.type !== 'type_identifier') {
    if (type.type === 'generic_type' || type.type === 'reference_type' || type.type === 'pointer_type') type = type.childForFieldName('type');
    else if (type.type === 'scoped_type_identifier') type = type.childForFieldName('name');
    else return undefined;
  }
  return type?.text;
}
