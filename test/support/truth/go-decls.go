// go-decls prints the declarations of Go files as the symbol tests count them, read with the
// Go toolchain's own parser (go/parser), one JSON object per line:
//
//	{"path":"a/b.go","line":12,"name":"Server","kind":"struct","parent":"","depth":"top"}
//
// Kinds: module (the package clause), function, method (parent: the receiver's type, or the
// interface), struct, interface, type (other types and aliases), field (parent: the struct),
// constant, variable. A function literal bound to a name by a declaration (`f := func…` or
// `var f = func…`, one literal per name) is a function at any depth, marked "bound": its parent
// is the function, method (`T.m`) or bound literal it is in. Depth: top, member (methods and
// fields), or nested (in a function body). Local types, constants and other variables are
// locals; so is a literal assigned to a name declared before (`walk = func…`). Files go/parser
// cannot parse are named on stderr and left out.
//
//	go run go-decls.go ROOT < list-of-paths-relative-to-ROOT
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
)

type decl struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Parent string `json:"parent"`
	Depth  string `json:"depth"`
	Bound  bool   `json:"bound,omitempty"`
}

// join is the path of what name encloses; `_` names nothing.
func join(parent, name string) string {
	if name == "_" {
		return parent
	}
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// literal is the function literal e is, if it is one (parentheses aside).
func literal(e ast.Expr) *ast.FuncLit {
	for {
		switch t := e.(type) {
		case *ast.ParenExpr:
			e = t.X
		case *ast.FuncLit:
			return t
		default:
			return nil
		}
	}
}

func receiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

func main() {
	root := os.Args[1]
	stdout := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer stdout.Flush()
	out := json.NewEncoder(stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	var buffered []decl
	flush := func() {
		for _, d := range buffered {
			_ = out.Encode(d)
		}
		buffered = buffered[:0]
	}
	fset := token.NewFileSet()
	for in.Scan() {
		rel := in.Text()
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			fmt.Fprintf(os.Stderr, "unparsed %s\n", rel)
			continue
		}
		add := func(id *ast.Ident, kind, parent string) {
			if id == nil || id.Name == "_" || parent == "_" {
				return
			}
			depth := "top"
			if parent != "" {
				depth = "member"
			}
			// The line in the file, not the one a //line directive claims.
			buffered = append(buffered, decl{rel, fset.PositionFor(id.Pos(), false).Line, id.Name, kind, parent, depth, false})
		}
		// The function literals bound to names under n, whose parent is `parent` (nested: in a function body).
		var bound func(n ast.Node, parent string, nested bool)
		bind := func(names []*ast.Ident, values []ast.Expr, parent string, nested bool) bool {
			if len(names) != len(values) {
				return false
			}
			for i, v := range values {
				lit := literal(v)
				if lit == nil {
					bound(v, parent, nested)
					continue
				}
				if names[i].Name != "_" {
					depth := "top"
					if nested {
						depth = "nested"
					}
					buffered = append(buffered, decl{rel, fset.PositionFor(names[i].Pos(), false).Line, names[i].Name, "function", parent, depth, true})
				}
				bound(lit.Body, join(parent, names[i].Name), true)
			}
			return true
		}
		bound = func(n ast.Node, parent string, nested bool) {
			ast.Inspect(n, func(c ast.Node) bool {
				switch c := c.(type) {
				case *ast.AssignStmt:
					if c.Tok != token.DEFINE {
						return true
					}
					names := make([]*ast.Ident, 0, len(c.Lhs))
					for _, l := range c.Lhs {
						id, ok := l.(*ast.Ident)
						if !ok {
							return true
						}
						names = append(names, id)
					}
					return !bind(names, c.Rhs, parent, nested)
				case *ast.ValueSpec:
					return !bind(c.Names, c.Values, parent, nested)
				}
				return true
			})
		}
		add(f.Name, "module", "")
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) > 0 {
					recv := receiverType(d.Recv.List[0].Type)
					add(d.Name, "method", recv)
					if recv != "" && d.Body != nil {
						bound(d.Body, join(recv, d.Name.Name), true)
					}
				} else {
					add(d.Name, "function", "")
					if d.Body != nil {
						bound(d.Body, join("", d.Name.Name), true)
					}
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						switch t := s.Type.(type) {
						case *ast.StructType:
							if s.Assign.IsValid() {
								add(s.Name, "type", "")
								continue
							}
							add(s.Name, "struct", "")
							for _, field := range t.Fields.List {
								for _, n := range field.Names {
									add(n, "field", s.Name.Name)
								}
							}
						case *ast.InterfaceType:
							if s.Assign.IsValid() {
								add(s.Name, "type", "")
								continue
							}
							add(s.Name, "interface", "")
							for _, m := range t.Methods.List {
								if _, ok := m.Type.(*ast.FuncType); ok {
									for _, n := range m.Names {
										add(n, "method", s.Name.Name)
									}
								}
							}
						default:
							add(s.Name, "type", "")
						}
					case *ast.ValueSpec:
						kind := "variable"
						if d.Tok == token.CONST {
							kind = "constant"
						}
						for i, n := range s.Names {
							if len(s.Values) == len(s.Names) && literal(s.Values[i]) != nil {
								continue
							}
							add(n, kind, "")
						}
						if d.Tok == token.VAR {
							bind(s.Names, s.Values, "", false)
						}
					}
				}
			}
		}
		flush()
	}
}
