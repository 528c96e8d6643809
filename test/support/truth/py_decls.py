"""Prints the definitions of Python files as the symbol tests count them, read with Python's own
parser (ast), one JSON object per line:

    {"path": "a/b.py", "line": 12, "name": "Server", "kind": "class", "parent": "", "depth": "top"}

What counts: functions and classes at every depth (in functions too), a lambda bound to a name
at every depth (`f = lambda x: ...`, `f: F = lambda: 0`, `a = b = lambda: 0`: a function, or a
method at a class's level, marked "bound"), and the names a module or a class assigns, also
inside if/try/with/for/while/match blocks at those levels. Kinds: function, method (a function
whose parent is a class), class, variable (a module-level name), field (a class-level name, the
class may be inside a function), type (a `type X = ...` statement). Not definitions: imports,
attributes (self.x), what a function assigns (its locals) but for lambdas, lambdas a tuple
target takes apart or an attribute receives.
Depth: top (a module's own), member (of a class, through classes only), nested (inside a
function). Parent: the enclosing definitions' names, joined by dots.
Files this Python cannot parse are named on stderr and left out.

    python3 py_decls.py ROOT < list-of-paths-relative-to-ROOT
"""
import ast
import json
import sys
import warnings

BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")


def names(target):
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from names(element)


def join(parent, name):
    """The path of what `name` encloses; `_` names nothing, what it encloses is its parent's."""
    if name == "_":
        return parent
    return f"{parent}.{name}" if parent else name


def statements(body, parent, scope, nested, out, path):
    """scope: what the statements are in, "module", "class" or "function"."""
    depth = "nested" if nested else ("member" if parent else "top")
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((path, node.lineno, node.name, "method" if scope == "class" else "function", parent, depth))
            statements(node.body, join(parent, node.name), "function", True, out, path)
        elif isinstance(node, ast.ClassDef):
            out.append((path, node.lineno, node.name, "class", parent, depth))
            statements(node.body, join(parent, node.name), "class", nested, out, path)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(node.value, ast.Lambda):
                for target in targets:
                    if isinstance(target, ast.Name):
                        out.append((path, target.lineno, target.id, "method" if scope == "class" else "function", parent, depth, True))
                continue
            if scope == "function":
                continue
            for target in targets:
                for name in names(target):
                    out.append((path, name.lineno, name.id, "field" if scope == "class" else "variable", parent, depth))
        elif type(node).__name__ == "TypeAlias":
            if scope != "function":
                out.append((path, node.name.lineno, node.name.id, "type", parent, depth))
        else:
            # Compound statements run their blocks at the level they stand in.
            for field in BLOCKS:
                block = getattr(node, field, None)
                if isinstance(block, list):
                    statements([b for b in block if isinstance(b, ast.stmt)], parent, scope, nested, out, path)
                    for clause in block:
                        if isinstance(clause, (ast.ExceptHandler, ast.match_case)):
                            statements(clause.body, parent, scope, nested, out, path)


def main():
    root = sys.argv[1]
    warnings.simplefilter("ignore")
    out = []
    for rel in sys.stdin.read().splitlines():
        try:
            with open(f"{root}/{rel}", "rb") as f:
                tree = ast.parse(f.read(), rel)
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
            print(f"unparsed {rel}", file=sys.stderr)
            continue
        statements(tree.body, "", "module", False, out, rel)
    write = sys.stdout.write
    for path, line, name, kind, parent, depth, *bound in out:
        if name != "_":
            d = {"path": path, "line": line, "name": name, "kind": kind, "parent": parent, "depth": depth}
            if bound:
                d["bound"] = True
            write(json.dumps(d) + "\n")


main()
