; Definitions in Go: a file's package clause, functions, methods (their parent is their
; receiver's type), types with their struct fields and interface methods, constants and package
; variables, and a function literal bound to a name at any depth (`f := func(…) {…}`,
; `var f = func…`: a function, its parent the function it is in). Go has no named functions
; inside functions; the rest of what a function body declares (types, constants, other
; variables) is local to it, and so is a literal assigned to a name declared before
; (`walk = func…`) or to a field. The extractor parses Go files without the function bodies that
; bind no function literal where it can (go-bodies.ts).

(package_clause (package_identifier) @name @definition.Package)

(function_declaration name: (identifier) @name) @definition.Function

; `(s *Server)`, `(l List[T])`, `(Server)`: the receiver's type is the method's parent, a struct,
; an interface or another type as the file declares it.
((method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @parent
        (pointer_type (type_identifier) @parent)
        (generic_type type: (type_identifier) @parent)
        (pointer_type (generic_type type: (type_identifier) @parent))
        (parenthesized_type (type_identifier) @parent)
        (parenthesized_type (pointer_type (type_identifier) @parent))
        (pointer_type (parenthesized_type (type_identifier) @parent))
        (parenthesized_type (parenthesized_type (pointer_type (type_identifier) @parent)))
        (parenthesized_type (pointer_type (parenthesized_type (type_identifier) @parent)))
      ]))
  name: (field_identifier) @name) @definition.Method
  (#set! lookup Type))
; A receiver of no type the file could declare (`func (int) m()`, invalid Go).
(method_declaration name: (field_identifier) @name) @definition.Method

((type_spec name: (type_identifier) @name type: (struct_type)) @definition.Struct (#is-not? local))
((type_spec name: (type_identifier) @name type: (interface_type)) @definition.Interface (#is-not? local))
((type_spec name: (type_identifier) @name) @definition.Type (#is-not? local))
((type_alias name: (type_identifier) @name) @definition.TypeAlias (#is-not? local))

; An embedded field (`io.Reader`) has no name of its own; the fields of a struct inside a field
; are not the type's.
((type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration name: (field_identifier) @name @definition.Field))))
  (#is-not? local))
((type_spec
  type: (interface_type
    (method_elem name: (field_identifier) @name) @definition.Method))
  (#is-not? local))

; A function literal bound to a name, at any depth. One literal on the right has one name on the
; left (`a, b := func(){}, 0` is left out).
(short_var_declaration
  left: (expression_list (identifier) @name)
  right: (expression_list . (func_literal) .)) @definition.Function
(var_spec
  name: (identifier) @name
  value: (expression_list . (func_literal) .)) @definition.Function

; `const A, B = 1, 2`: the grammar files the comma under `name` too, so the names are matched as
; the identifiers of the spec (its type and values are other nodes).
((const_spec (identifier) @name @definition.Constant) (#is-not? local))
((var_spec (identifier) @name @definition.Variable) (#is-not? local))

; The blank type `_` names nothing: neither it nor its fields and methods can be found.
(type_spec name: (type_identifier) @_blank (#eq? @_blank "_")) @exclude

;; Locals: function bodies.

(function_declaration body: (block) @local)
(method_declaration body: (block) @local)
(func_literal body: (block) @local)
