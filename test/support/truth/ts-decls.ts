/**
 * The declarations of TypeScript and JavaScript files as the symbol tests count them, read with
 * the TypeScript compiler's own parser (the `typescript` package), never with tree-sitter.
 *
 * What counts: what a module, a namespace or a class declares. Functions (overload signatures
 * too), classes, interfaces, type aliases, enums, namespaces and modules; their members (methods,
 * constructors and accessors are methods; class fields, constructor parameter properties and
 * interface properties are properties; enum members are constants); `const` (constant) and
 * `let`/`var` (variable) declarations, a function or class expression making it a function or a
 * class, destructuring binding each name; CommonJS `exports.x = …` (not re-exports of a name) and
 * `C.prototype.m = function …`. Not definitions: imports, names bound from `require(…)` or
 * `import(…)`, anything inside a function body, computed member names.
 */
import ts from 'typescript';

export interface Declaration {
  path: string;
  /** 1-based line of the name. */
  line: number;
  name: string;
  kind: 'function' | 'method' | 'class' | 'interface' | 'type' | 'enum' | 'constant' | 'variable' | 'property' | 'namespace' | 'module';
  parent: string;
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

export function tsDeclarations(path: string, text: string): Declaration[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
  const out: Declaration[] = [];
  const add = (name: ts.Node, text: string, kind: Declaration['kind'], parent: string) => {
    if (text === '_' || text === '') return;
    out.push({ path, line: sf.getLineAndCharacterOfPosition(name.getStart(sf)).line + 1, name: text, kind, parent });
  };
  const memberName = (name: ts.PropertyName | undefined): string | undefined => {
    if (!name || ts.isComputedPropertyName(name)) return undefined;
    return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : undefined;
  };
  const bindings = (name: ts.BindingName): ts.Identifier[] =>
    ts.isIdentifier(name) ? [name] : name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindings(e.name)));

  const classMembers = (members: ts.NodeArray<ts.ClassElement>, parent: string) => {
    for (const m of members) {
      if (ts.isConstructorDeclaration(m)) {
        add(m.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword) ?? m, 'constructor', 'method', parent);
        for (const p of m.parameters) {
          const declares = ts.getModifiers(p)?.some((x) => [ts.SyntaxKind.PublicKeyword, ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword, ts.SyntaxKind.ReadonlyKeyword, ts.SyntaxKind.OverrideKeyword].includes(x.kind));
          if (declares && ts.isIdentifier(p.name)) add(p.name, p.name.text, 'property', parent);
        }
      } else if (ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m)) {
        const n = memberName(m.name);
        if (n !== undefined) add(m.name, n, 'method', parent);
      } else if (ts.isPropertyDeclaration(m)) {
        const n = memberName(m.name);
        if (n !== undefined) add(m.name, n, 'property', parent);
      }
    }
  };

  const statements = (list: ts.NodeArray<ts.Statement>, parent: string) => {
    for (const s of list) statement(s, parent);
  };

  const statement = (s: ts.Statement, parent: string): void => {
    if (ts.isFunctionDeclaration(s)) {
      if (s.name) add(s.name, s.name.text, 'function', parent);
    } else if (ts.isClassDeclaration(s)) {
      if (!s.name) return;
      add(s.name, s.name.text, 'class', parent);
      classMembers(s.members, parent ? `${parent}.${s.name.text}` : s.name.text);
    } else if (ts.isInterfaceDeclaration(s)) {
      add(s.name, s.name.text, 'interface', parent);
      const inner = parent ? `${parent}.${s.name.text}` : s.name.text;
      for (const m of s.members) {
        const n = ts.isPropertySignature(m) || ts.isMethodSignature(m) ? memberName(m.name) : undefined;
        if (n !== undefined) add(m.name!, n, ts.isMethodSignature(m) ? 'method' : 'property', inner);
      }
    } else if (ts.isTypeAliasDeclaration(s)) {
      add(s.name, s.name.text, 'type', parent);
    } else if (ts.isEnumDeclaration(s)) {
      add(s.name, s.name.text, 'enum', parent);
      const inner = parent ? `${parent}.${s.name.text}` : s.name.text;
      for (const m of s.members) {
        const n = memberName(m.name);
        if (n !== undefined) add(m.name, n, 'constant', inner);
      }
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
      add(s.name, text, isNamespace ? 'namespace' : 'module', parent);
      if (body && ts.isModuleBlock(body)) statements(body.statements, parent ? `${parent}.${text}` : text);
    } else if (ts.isVariableStatement(s)) {
      const isConst = (s.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const d of s.declarationList.declarations) {
        if (importsModule(d.initializer)) continue;
        if (!ts.isIdentifier(d.name)) {
          for (const id of bindings(d.name)) add(id, id.text, isConst ? 'constant' : 'variable', parent);
          continue;
        }
        const init = d.initializer;
        if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) add(d.name, d.name.text, 'function', parent);
        else if (init && ts.isClassExpression(init)) {
          add(d.name, d.name.text, 'class', parent);
          classMembers(init.members, parent ? `${parent}.${d.name.text}` : d.name.text);
        } else add(d.name, d.name.text, isConst ? 'constant' : 'variable', parent);
      }
    } else if (ts.isExpressionStatement(s) && !parent && ts.isBinaryExpression(s.expression) && s.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const { left, right } = s.expression;
      if (!ts.isPropertyAccessExpression(left) || !ts.isIdentifier(left.name)) return;
      const object = left.expression.getText(sf);
      const isFunction = ts.isFunctionExpression(right) || ts.isArrowFunction(right);
      if (object === 'exports' || object === 'module.exports') {
        if (ts.isIdentifier(right) || ts.isPropertyAccessExpression(right)) return;
        add(left.name, left.name.text, isFunction ? 'function' : ts.isClassExpression(right) ? 'class' : 'variable', '');
      } else if (isFunction && ts.isPropertyAccessExpression(left.expression) && left.expression.name.text === 'prototype' && ts.isIdentifier(left.expression.expression)) {
        add(left.name, left.name.text, 'method', left.expression.expression.text);
      }
    }
  };

  statements(sf.statements, '');
  return out;
}
