/**
 * Definitions in Python: the functions, classes and assigned names of a module and of its
 * classes, also under module-level `if`, `try` and `with` blocks (platform-dependent definitions
 * are common). A function's body holds locals, not definitions; imports bind other modules' names.
 */
import type { Node } from 'web-tree-sitter';
import type { Scope, TagKind, TagSink } from '../tags.js';

export function extractPython(root: Node, sink: TagSink): void {
  block(root, sink, undefined);
}

/** Statements whose blocks run at the level they sit in. */
const COMPOUND = new Set(['if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'except_group_clause', 'finally_clause', 'with_statement', 'for_statement', 'while_statement', 'match_statement', 'case_clause', 'block']);

function block(node: Node, sink: TagSink, scope: Scope | undefined): void {
  for (const child of node.namedChildren) statement(child, sink, scope);
}

function statement(node: Node, sink: TagSink, scope: Scope | undefined): void {
  const definition = node.type === 'decorated_definition' ? node.childForFieldName('definition') : node;
  if (!definition) return;
  const inClass = scope?.kind === 'Class';
  switch (definition.type) {
    case 'function_definition':
      sink.add(definition.childForFieldName('name'), inClass ? 'Method' : 'Function', scope);
      return;
    case 'class_definition': {
      const inner = sink.add(definition.childForFieldName('name'), 'Class', scope);
      const body = definition.childForFieldName('body');
      if (body && inner) block(body, sink, inner);
      return;
    }
    case 'type_alias_statement': {
      // `type Vec = …` and `type Pair[T] = …`: the name is the first identifier on the left.
      const left = definition.childForFieldName('left');
      sink.add(left?.descendantsOfType('identifier')[0], 'TypeAlias', scope);
      return;
    }
    case 'expression_statement': {
      const expression = definition.namedChild(0);
      if (expression?.type === 'assignment') assignment(expression, inClass ? 'Field' : 'Variable', sink, scope);
      return;
    }
    case 'block':
      block(definition, sink, scope);
      return;
    default:
      if (COMPOUND.has(definition.type)) {
        // The blocks of a compound statement: its body, consequence, alternatives and handlers.
        for (const child of definition.namedChildren) if (COMPOUND.has(child.type)) statement(child, sink, scope);
      }
  }
}

/** `a = …`, `a: int = …`, `a, b = …`, `a = b = …`: each assigned plain name. */
function assignment(node: Node, kind: TagKind, sink: TagSink, scope: Scope | undefined): void {
  const left = node.childForFieldName('left');
  if (left) for (const name of targetNames(left)) sink.add(name, kind, scope);
  const right = node.childForFieldName('right');
  if (right?.type === 'assignment') assignment(right, kind, sink, scope);
}

function targetNames(target: Node): Node[] {
  switch (target.type) {
    case 'identifier':
      return [target];
    case 'pattern_list':
    case 'tuple_pattern':
    case 'list_pattern':
      return target.namedChildren.flatMap(targetNames);
    default:
      // Attributes (`self.x`), subscripts and starred targets define no name here.
      return [];
  }
}
