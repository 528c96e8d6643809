/**
 * Definitions in C#: namespaces (block and file-scoped), types at any depth of nesting, and their
 * methods, constructors, properties, fields, constants, events and enum members.
 */
import type { Node } from 'web-tree-sitter';
import type { Scope, TagKind, TagSink } from '../tags.js';

export function extractCSharp(root: Node, sink: TagSink): void {
  declarations(root, sink, undefined);
}

const TYPES: Record<string, TagKind> = {
  class_declaration: 'Class',
  record_declaration: 'Class',
  struct_declaration: 'Struct',
  record_struct_declaration: 'Struct',
  interface_declaration: 'Interface',
  enum_declaration: 'Enum',
};

function declarations(list: Node, sink: TagSink, outer: Scope | undefined): void {
  let scope = outer;
  for (const node of list.namedChildren) {
    const type = node.type;
    const typeKind = TYPES[type];
    if (typeKind) {
      const inner = sink.add(node.childForFieldName('name'), typeKind, scope);
      // A record's positional parameters are its properties.
      const parameters = node.namedChildren.find((c) => c.type === 'parameter_list');
      for (const p of type.startsWith('record') && inner ? (parameters?.namedChildren ?? []) : []) {
        if (p.type === 'parameter') sink.add(p.childForFieldName('name'), 'Property', inner);
      }
      const body = node.childForFieldName('body');
      if (!inner || !body) continue;
      if (typeKind === 'Enum') {
        for (const member of body.namedChildren) if (member.type === 'enum_member_declaration') sink.add(member.childForFieldName('name'), 'EnumMember', inner);
      } else {
        declarations(body, sink, inner);
      }
    } else if (type === 'namespace_declaration') {
      const inner = sink.add(node.childForFieldName('name'), 'Namespace', scope);
      const body = node.childForFieldName('body');
      if (body) declarations(body, sink, inner);
    } else if (type === 'file_scoped_namespace_declaration') {
      // `namespace A.B;` holds every declaration after it in the file.
      scope = sink.add(node.childForFieldName('name'), 'Namespace', outer);
    } else if (type === 'delegate_declaration') {
      sink.add(node.childForFieldName('name'), 'Type', scope);
    } else if (!scope || scope.kind === 'Namespace') {
      // Members live in types; at namespace level there are only types (and top-level statements).
    } else if (type === 'method_declaration') {
      sink.add(node.childForFieldName('name'), 'Method', scope);
    } else if (type === 'constructor_declaration') {
      sink.add(node.childForFieldName('name'), 'Constructor', scope);
    } else if (type === 'property_declaration' || type === 'event_declaration') {
      sink.add(node.childForFieldName('name'), 'Property', scope);
    } else if (type === 'field_declaration' || type === 'event_field_declaration') {
      const isConst = node.namedChildren.some((c) => c.type === 'modifier' && c.text === 'const');
      const variables = node.namedChildren.find((c) => c.type === 'variable_declaration');
      for (const declarator of variables?.namedChildren ?? []) {
        if (declarator.type === 'variable_declarator') sink.add(declarator.childForFieldName('name'), isConst ? 'Constant' : 'Field', scope);
      }
    }
  }
}
