// go-decls prints the declarations of Go files as the symbol tests count them, read with the
// Go toolchain's own parser (go/parser), one JSON object per line:
//
//	{"path":"a/b.go","line":12,"name":"Server","kind":"struct","parent":"","depth":"top"}
//
// Kinds: module (the package clause), function, method (parent: the receiver's type, or the
// interface), struct, interface, type (other types and aliases), field (parent: the struct),
// constant, variable. Depth: top, or member (methods and fields). Go has no definitions inside
// functions (function literals and local types are locals). Files go/parser cannot parse are
// named on stderr and left out.
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
			buffered = append(buffered, decl{rel, fset.PositionFor(id.Pos(), false).Line, id.Name, kind, parent, depth})
		}
		add(f.Name, "module", "")
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) > 0 {
					add(d.Name, "method", receiverType(d.Recv.List[0].Type))
				} else {
					add(d.Name, "function", "")
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
						for _, n := range s.Names {
							add(n, kind, "")
						}
					}
				}
			}
		}
		flush()
	}
}
