/**
 * Definitions in Go: a file's package clause, functions, methods (scoped to their receiver's
 * type), types with their struct fields and interface methods, constants and package variables.
 */
import type { Node } from 'web-tree-sitter';
import { fieldNodes, type ScopeKind, type TagKind, type TagSink } from '../tags.js';

export function extractGo(root: Node, sink: TagSink): void {
  const typeKinds = new Map<string, ScopeKind>();
  const methods: Node[] = [];
  for (const node of root.namedChildren) {
    switch (node.type) {
      case 'package_clause':
        sink.add(node.namedChild(0), 'Package', undefined);
        break;
      case 'function_declaration':
        sink.add(node.childForFieldName('name'), 'Function', undefined);
        break;
      case 'method_declaration':
        methods.push(node);
        break;
      case 'type_declaration':
        for (const spec of node.namedChildren) typeSpec(spec, sink, typeKinds);
        break;
      case 'const_declaration':
        specs(node, 'const_spec', 'Constant', sink);
        break;
      case 'var_declaration':
        specs(node, 'var_spec', 'Variable', sink);
        break;
    }
  }
  // After the types, so a method knows whether its receiver is a struct, an interface or another type.
  for (const method of methods) {
    const receiver = receiverType(method.childForFieldName('receiver'));
    const scope = receiver ? { path: receiver, kind: typeKinds.get(receiver) ?? 'Type' } : undefined;
    sink.add(method.childForFieldName('name'), 'Method', scope);
  }
}

function specs(declaration: Node, specType: string, kind: TagKind, sink: TagSink): void {
  for (const child of declaration.namedChildren) {
    if (child.type === specType) for (const name of fieldNodes(child, 'name')) sink.add(name, kind, undefined);
    // `var ( … )` wraps its specs in a list.
    else if (child.type.endsWith('_spec_list')) specs(child, specType, kind, sink);
  }
}

function typeSpec(spec: Node, sink: TagSink, typeKinds: Map<string, ScopeKind>): void {
  const name = spec.childForFieldName('name');
  if (!name) return;
  if (spec.type === 'type_alias') {
    sink.add(name, 'TypeAlias', undefined);
    return;
  }
  if (spec.type !== 'type_spec') return;
  const type = spec.childForFieldName('type');
  const kind: TagKind = type?.type === 'struct_type' ? 'Struct' : type?.type === 'interface_type' ? 'Interface' : 'Type';
  typeKinds.set(name.text, kind);
  const scope = sink.add(name, kind, undefined);
  if (!type || !scope) return;
  if (kind === 'Struct') {
    const fields = type.namedChildren.find((c) => c.type === 'field_declaration_list');
    // An embedded field (`io.Reader`) has no name of its own.
    for (const field of fields?.namedChildren ?? []) {
      if (field.type === 'field_declaration') for (const n of fieldNodes(field, 'name')) sink.add(n, 'Field', scope);
    }
  } else if (kind === 'Interface') {
    for (const element of type.namedChildren) if (element.type === 'method_elem' || element.type === 'method_spec') sink.add(element.childForFieldName('name'), 'Method', scope);
  }
}

/** `(s *Server)`, `(l List[T])`, `(Server)` → the receiver's type name. */
function receiverType(receiver: Node | null): string | undefined {
  const parameter = receiver?.namedChildren.find((c) => c.type === 'parameter_declaration');
  let type = parameter?.childForFieldName('type') ?? null;
  while (type && (type.type === 'pointer_type' || type.type === 'generic_type' || type.type === 'parenthesized_type')) {
    type = type.type === 'generic_type' ? type.childForFieldName('type') : type.namedChild(0);
  }
  return type?.type === 'type_identifier' ? type.text : undefined;
}
