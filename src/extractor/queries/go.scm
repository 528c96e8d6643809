; Definitions in Go: a file's package clause, functions, methods (their parent is their
; receiver's type), types with their struct fields and interface methods, constants and package
; variables. Go has no named functions inside functions; what a function body declares (function
; literals assigned to variables, types, constants) is local to it. The extractor parses Go files
; without their function bodies where it can (go-bodies.ts); in a file parsed whole, the query
; does not look into them: every definition starts within 3 levels of the file (a `var` spec in
; a group: source_file, var_declaration, var_spec_list, var_spec).
; max-start-depth: 3

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

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.Struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.Interface
(type_spec name: (type_identifier) @name) @definition.Type
(type_alias name: (type_identifier) @name) @definition.TypeAlias

; An embedded field (`io.Reader`) has no name of its own; the fields of a struct inside a field
; are not the type's.
(type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration name: (field_identifier) @name @definition.Field))))
(type_spec
  type: (interface_type
    (method_elem name: (field_identifier) @name) @definition.Method))

; `const A, B = 1, 2`: the grammar files the comma under `name` too, so the names are matched as
; the identifiers of the spec (its type and values are other nodes).
(const_spec (identifier) @name @definition.Constant)
(var_spec (identifier) @name @definition.Variable)

; The blank type `_` names nothing: neither it nor its fields and methods can be found.
(type_spec name: (type_identifier) @_blank (#eq? @_blank "_")) @exclude
