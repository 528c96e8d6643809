/**
 * Definitions in Java: the package, types (classes, interfaces, enums, records, annotation types) at any depth
 * of nesting, with their methods, constructors, fields, constants and enum constants.
 */
import type { Node } from 'web-tree-sitter';
import { fieldNodes, type Scope, type TagKind, type TagSink } from '../tags.js';

export function extractJava(root: Node, sink: TagSink): void {
  members(root, sink, undefined);
}

const TYPES: Record<string, TagKind> = {
  class_declaration: 'Class',
  record_declaration: 'Class',
  interface_declaration: 'Interface',
  annotation_type_declaration: 'Interface',
  enum_declaration: 'Enum',
};

function members(body: Node, sink: TagSink, scope: Scope | undefined): void {
  for (const node of body.namedChildren) {
    const type = node.type;
    const typeKind = TYPES[type];
    if (typeKind) {
      const inner = sink.add(node.childForFieldName('name'), typeKind, scope);
      // A record's components are its fields.
      for (const component of node.childForFieldName('parameters')?.namedChildren ?? []) {
        if (component.type === 'formal_parameter') sink.add(component.childForFieldName('name'), 'Field', inner);
      }
      const typeBody = node.childForFieldName('body');
      if (inner && typeBody) members(typeBody, sink, inner);
    } else if (type === 'package_declaration') {
      sink.add(node.namedChildren.find((c) => c.type === 'scoped_identifier' || c.type === 'identifier'), 'Package', scope);
    } else if (!scope) {
      // Only types live at the top of a file (besides the package and imports).
    } else if (type === 'method_declaration' || type === 'annotation_type_element_declaration') {
      sink.add(node.childForFieldName('name'), 'Method', scope);
    } else if (type === 'constructor_declaration' || type === 'compact_constructor_declaration') {
      sink.add(node.childForFieldName('name'), 'Constructor', scope);
    } else if (type === 'field_declaration' || type === 'constant_declaration') {
      const kind: TagKind = type === 'constant_declaration' || scope.kind === 'Interface' ? 'Constant' : 'Field';
      for (const declarator of fieldNodes(node, 'declarator')) sink.add(declarator.childForFieldName('name'), kind, scope);
    } else if (type === 'enum_constant') {
      sink.add(node.childForFieldName('name'), 'EnumMember', scope);
    } else if (type === 'enum_body_declarations') {
      members(node, sink, scope);
    }
  }
}
