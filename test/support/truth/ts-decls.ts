/**
 * The declarations of TypeScript and JavaScript files as the symbol tests count them, read with
 * the TypeScript compiler's own parser (the `typescript` package), never with tree-sitter.
 *
 * What counts:
 *   - what a module or a namespace declares: functions (overload signatures too), classes,
 *     interfaces, type aliases, enums, namespaces and modules; `const` (constant) and `let`/`var`
 *     (variable) declarations, a function or class expression making it a function or a class,
 *     destructuring binding each name; CommonJS `exports.x = …` (not re-exports of a name) and
 *     `C.prototype.m = function …`;
 *   - the members of every class (declared or an expression, at any depth): methods,
 *     constructors and accessors are methods; fields and constructor parameter properties are
 *     properties; of interfaces (methods, properties) and enums (constants);
 *   - at every depth (function bodies, blocks, object literals, arguments, initializers):
 *     function, class, interface, type alias and enum declarations, variables (`const`, `let`,
 *     `var`) whose initializer is an arrow function or a function expression (functions, marked
 *     `bound`), classes named by a class expression (not one a variable or a CommonJS export
 *     names), and the methods, accessors and function-valued properties (an arrow function or a
 *     function expression) of object literals.
 * Not definitions: imports, names bound from `require(…)` or `import(…)`, parameters, the other
 * variables declared in function bodies or blocks (destructured ones too), computed member names,
 * shorthand properties, functions assigned to a member (`this.x = () => …`) or passed as arguments.
 *
 * Each declaration has its depth: `top` (a module's own), `member` (of a class, interface, enum
 * or namespace, reached through declarations only), `nested` (in a function body, an object
 * literal or any other expression). Its parent is the path of what encloses it: the enclosing
 * declarations, and for what an object literal holds, the variable (even a local one), property or
 * assignment target the literal is the value of.
 */
import ts from 'typescript';

export type Depth = 'top' | 'member' | 'nested';

export interface Declaration {
  path: string;
  /** 1-based line of the name. */
  line: number;
  name: string;
  kind: 'function' | 'method' | 'class' | 'interface' | 'type' | 'enum' | 'constant' | 'variable' | 'property' | 'namespace' | 'module';
  parent: string;
  depth: Depth;
  /** A function value bound to a name by a variable declaration (`const f = () => …`), at any depth. */
  bound?: true;
}

function scriptKind(path: string): ts.ScriptKind {
  if (path.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (path.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(path)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/** `require('x')`, `require('x').y`, `await import('x')`. */
function importsModule(init: ts.Expression | undefined): boolean {
  let e = init;
  while (e && (ts.isAwaitExpression(e) || ts.isParenthesizedExpression(e) || ts.isPropertyAccessExpression(e))) e = e.expression;
  if (!e || !ts.isCallExpression(e)) return false;
  return e.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(e.expression) && e.expression.text === 'require');
}

const isFunctionValue = (e: ts.Node | undefined): e is ts.ArrowFunction | ts.FunctionExpression => !!e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));

export function tsDeclarations(path: string, text: string): Declaration[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
  const out: Declaration[] = [];
  // `_` names nothing: what it encloses is its parent's.
  const join = (parent: string, name: string) => (name === '_' ? parent : parent ? `${parent}.${name}` : name);
  const add = (name: ts.Node, text: string, kind: Declaration['kind'], parent: string, nested: boolean, bound = false) => {
    if (text === '_' || text === '') return;
    const depth: Depth = nested ? 'nested' : parent ? 'member' : 'top';
    out.push({ path, line: sf.getLineAndCharacterOfPosition(name.getStart(sf)).line + 1, name: text, kind, parent, depth, ...(bound ? { bound: true as const } : {}) });
  };
  const memberName = (name: ts.PropertyName | undefined): string | undefined => {
    if (!name || ts.isComputedPropertyName(name)) return undefined;
    return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : undefined;
  };
  const bindings = (name: ts.BindingName): ts.Identifier[] =>
    ts.isIdentifier(name) ? [name] : name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindings(e.name)));
  /** Everything under `node` (not `node` itself), at any depth: `parent` encloses it. */
  const inside = (node: ts.Node | undefined, parent: string) => {
    if (node) ts.forEachChild(node, (c) => visit(c, parent));
  };

  /** A class's members; `path` is the class's (its parent's when it has no name). */
  const classMembers = (c: ts.ClassLikeDeclaration, path: string, nested: boolean) => {
    for (const d of ts.getDecorators(c) ?? []) visit(d, path);
    for (const h of c.heritageClauses ?? []) visit(h, path);
    for (const m of c.members) {
      if (ts.isConstructorDeclaration(m)) {
        add(m.getChildren(sf).find((x) => x.kind === ts.SyntaxKind.ConstructorKeyword) ?? m, 'constructor', 'method', path, nested);
        for (const p of m.parameters) {
          const declares = ts.getModifiers(p)?.some((x) => [ts.SyntaxKind.PublicKeyword, ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword, ts.SyntaxKind.ReadonlyKeyword, ts.SyntaxKind.OverrideKeyword].includes(x.kind));
          if (declares && ts.isIdentifier(p.name)) add(p.name, p.name.text, 'property', path, nested);
        }
        inside(m, join(path, 'constructor'));
      } else if (ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m)) {
        const n = memberName(m.name);
        if (n !== undefined) add(m.name, n, 'method', path, nested);
        inside(m, n === undefined ? path : join(path, n));
      } else if (ts.isPropertyDeclaration(m)) {
        const n = memberName(m.name);
        if (n !== undefined) add(m.name, n, 'property', path, nested);
        inside(m, n === undefined ? path : join(path, n));
      } else {
        inside(m, path);
      }
    }
  };

  const interfaceOrEnum = (s: ts.InterfaceDeclaration | ts.EnumDeclaration, parent: string, nested: boolean) => {
    const inner = join(parent, s.name.text);
    if (ts.isInterfaceDeclaration(s)) {
      add(s.name, s.name.text, 'interface', parent, nested);
      for (const m of s.members) {
        const n = ts.isPropertySignature(m) || ts.isMethodSignature(m) ? memberName(m.name) : undefined;
        if (n !== undefined) add(m.name!, n, ts.isMethodSignature(m) ? 'method' : 'property', inner, nested);
      }
    } else {
      add(s.name, s.name.text, 'enum', parent, nested);
      for (const m of s.members) {
        const n = memberName(m.name);
        if (n !== undefined) add(m.name, n, 'constant', inner, nested);
      }
    }
  };

  /** The methods and function-valued properties of an object literal, and what they hold. */
  const objectLiteral = (o: ts.ObjectLiteralExpression, parent: string) => {
    for (const p of o.properties) {
      if (ts.isMethodDeclaration(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p)) {
        const n = memberName(p.name);
        if (n !== undefined) add(p.name, n, 'method', parent, true);
        inside(p, n === undefined ? parent : join(parent, n));
      } else if (ts.isPropertyAssignment(p)) {
        const n = memberName(p.name);
        if (n !== undefined && isFunctionValue(p.initializer)) {
          add(p.name, n, 'method', parent, true);
          inside(p, join(parent, n));
        } else if (n !== undefined && ts.isObjectLiteralExpression(p.initializer)) {
          objectLiteral(p.initializer, join(parent, n));
        } else {
          inside(p, parent);
        }
      } else {
        inside(p, parent);
      }
    }
  };

  /** Any node below a module's or a namespace's statements. */
  const visit = (node: ts.Node, parent: string): void => {
    if (ts.isFunctionDeclaration(node)) {
      if (node.name) add(node.name, node.name.text, 'function', parent, true);
      inside(node, node.name ? join(parent, node.name.text) : parent);
    } else if (ts.isClassDeclaration(node)) {
      if (node.name) add(node.name, node.name.text, 'class', parent, true);
      classMembers(node, node.name ? join(parent, node.name.text) : parent, true);
    } else if (ts.isClassExpression(node)) {
      // A class expression names a class, unless a variable or a CommonJS export names it.
      const named = node.name && !ts.isVariableDeclaration(node.parent);
      if (named) add(node.name, node.name.text, 'class', parent, true);
      classMembers(node, named ? join(parent, node.name.text) : parent, true);
    } else if (ts.isInterfaceDeclaration(node) || ts.isEnumDeclaration(node)) {
      interfaceOrEnum(node, parent, true);
      if (ts.isEnumDeclaration(node)) inside(node, join(parent, node.name.text));
    } else if (ts.isTypeAliasDeclaration(node)) {
      add(node.name, node.name.text, 'type', parent, true);
    } else if (ts.isVariableDeclaration(node)) {
      // A function bound to a name is a definition; any other local is not, but is the parent of what its value holds.
      if (ts.isIdentifier(node.name) && isFunctionValue(node.initializer)) add(node.name, node.name.text, 'function', parent, true, true);
      inside(node, ts.isIdentifier(node.name) ? join(parent, node.name.text) : parent);
    } else if (ts.isObjectLiteralExpression(node)) {
      objectLiteral(node, parent);
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isObjectLiteralExpression(node.right)) {
      // `a.hooks = { … }`, `hooks = { … }`: the target encloses the literal.
      const target = ts.isPropertyAccessExpression(node.left) ? node.left.name.text : ts.isIdentifier(node.left) ? node.left.text : undefined;
      visit(node.left, parent);
      objectLiteral(node.right, target ? join(parent, target) : parent);
    } else {
      inside(node, parent);
    }
  };

  const statements = (list: ts.NodeArray<ts.Statement>, parent: string) => {
    for (const s of list) statement(s, parent);
  };

  /** A statement of a module or a namespace. */
  const statement = (s: ts.Statement, parent: string): void => {
    if (ts.isFunctionDeclaration(s)) {
      if (s.name) add(s.name, s.name.text, 'function', parent, false);
      inside(s, s.name ? join(parent, s.name.text) : parent);
    } else if (ts.isClassDeclaration(s)) {
      if (s.name) add(s.name, s.name.text, 'class', parent, false);
      classMembers(s, s.name ? join(parent, s.name.text) : parent, false);
    } else if (ts.isInterfaceDeclaration(s) || ts.isEnumDeclaration(s)) {
      interfaceOrEnum(s, parent, false);
      if (ts.isEnumDeclaration(s)) inside(s, join(parent, s.name.text));
    } else if (ts.isTypeAliasDeclaration(s)) {
      add(s.name, s.name.text, 'type', parent, false);
    } else if (ts.isModuleDeclaration(s)) {
      if (s.flags & ts.NodeFlags.GlobalAugmentation) {
        // `declare global { … }` declares into the global scope.
        if (s.body && ts.isModuleBlock(s.body)) statements(s.body.statements, parent);
        return;
      }
      // `namespace A.B {}` nests declarations of A and B: one name, A.B, written where A is.
      let text = s.name.text;
      let body = s.body;
      while (body && ts.isModuleDeclaration(body)) {
        text += `.${body.name.text}`;
        body = body.body;
      }
      const isNamespace = ts.isIdentifier(s.name) && (s.flags & ts.NodeFlags.Namespace) !== 0;
      add(s.name, text, isNamespace ? 'namespace' : 'module', parent, false);
      if (body && ts.isModuleBlock(body)) statements(body.statements, join(parent, text));
    } else if (ts.isVariableStatement(s)) {
      const isConst = (s.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const d of s.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) {
          if (!importsModule(d.initializer)) for (const id of bindings(d.name)) add(id, id.text, isConst ? 'constant' : 'variable', parent, false);
          inside(d, parent);
          continue;
        }
        const inner = join(parent, d.name.text);
        const init = d.initializer;
        if (importsModule(init)) {
          // Another module's definition.
        } else if (isFunctionValue(init)) {
          add(d.name, d.name.text, 'function', parent, false, true);
        } else if (init && ts.isClassExpression(init)) {
          add(d.name, d.name.text, 'class', parent, false);
          classMembers(init, inner, false);
          continue;
        } else {
          add(d.name, d.name.text, isConst ? 'constant' : 'variable', parent, false);
        }
        inside(d, inner);
      }
    } else if (ts.isExpressionStatement(s) && !parent && ts.isBinaryExpression(s.expression) && s.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const { left, right } = s.expression;
      const object = ts.isPropertyAccessExpression(left) ? left.expression.getText(sf) : '';
      if (ts.isPropertyAccessExpression(left) && ts.isIdentifier(left.name) && (object === 'exports' || object === 'module.exports') && !ts.isIdentifier(right) && !ts.isPropertyAccessExpression(right)) {
        const name = left.name.text;
        if (ts.isClassExpression(right)) {
          add(left.name, name, 'class', '', false);
          classMembers(right, name, false);
        } else {
          add(left.name, name, isFunctionValue(right) ? 'function' : 'variable', '', false);
          inside(right.parent, name);
        }
      } else if (ts.isPropertyAccessExpression(left) && isFunctionValue(right) && ts.isPropertyAccessExpression(left.expression) && left.expression.name.text === 'prototype' && ts.isIdentifier(left.expression.expression)) {
        const owner = left.expression.expression.text;
        add(left.name, left.name.text, 'method', owner, false);
        inside(right.parent, join(owner, left.name.text));
      } else {
        visit(s, parent);
      }
    } else {
      visit(s, parent);
    }
  };

  statements(sf.statements, '');
  return out;
}
