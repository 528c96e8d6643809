"""Prints the definitions of Python files as the symbol tests count them, read with Python's own
parser (ast), one JSON object per line:

    {"path": "a/b.py", "line": 12, "name": "Server", "kind": "class", "parent": ""}

What counts: the functions, classes and assigned names of a module and of its classes, also inside
module- and class-level if/try/with/for/while/match blocks. Kinds: function, method (a function in
a class), class, variable (a module-level name), field (a class-level name), type (a `type X = ...`
statement). Not definitions: imports, attributes (self.x), the bodies of functions.
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


def statements(body, parent, in_class, out, path):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((path, node.lineno, node.name, "method" if in_class else "function", parent))
        elif isinstance(node, ast.ClassDef):
            out.append((path, node.lineno, node.name, "class", parent))
            statements(node.body, f"{parent}.{node.name}" if parent else node.name, True, out, path)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in names(target):
                    out.append((path, name.lineno, name.id, "field" if in_class else "variable", parent))
        elif type(node).__name__ == "TypeAlias":
            out.append((path, node.name.lineno, node.name.id, "type", parent))
        else:
            # Compound statements run their blocks at the level they stand in.
            for field in BLOCKS:
                block = getattr(node, field, None)
                if isinstance(block, list):
                    statements([b for b in block if isinstance(b, ast.stmt)], parent, in_class, out, path)
                    for clause in block:
                        if isinstance(clause, (ast.ExceptHandler, ast.match_case)):
                            statements(clause.body, parent, in_class, out, path)


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
        statements(tree.body, "", False, out, rel)
    write = sys.stdout.write
    for path, line, name, kind, parent in out:
        if name != "_":
            write(json.dumps({"path": path, "line": line, "name": name, "kind": kind, "parent": parent}) + "\n")


main()
