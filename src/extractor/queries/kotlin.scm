; Definitions in Kotlin: the package; classes, interfaces, enums (with their entries), objects and
; type aliases at every depth; functions (a function in a type is a method; those of an object
; expression are its methods), the properties of types and constructors; top-level properties
; (variables). What a function body declares is local to it, functions and classes aside.

(package_header [(qualified_identifier) (identifier)] @name) @definition.Package

(class_declaration "interface" name: (identifier) @name) @definition.Interface
((class_declaration (modifiers (class_modifier) @_enum) name: (identifier) @name) @definition.Enum
  (#eq? @_enum "enum"))
(class_declaration name: (identifier) @name) @definition.Class
(object_declaration name: (identifier) @name) @definition.Class
(enum_entry (identifier) @name) @definition.EnumMember
(type_alias type: (identifier) @name) @definition.TypeAlias

(object_literal (class_body (function_declaration name: (identifier) @name) @definition.Method))
((function_declaration name: (identifier) @name) @definition.Function
  (#set! in.type Method))

; `class P(val x: Int)`: a constructor parameter with `val` or `var` is a property.
(class_parameter ["val" "var"] (identifier) @name) @definition.Property
((property_declaration (variable_declaration (identifier) @name)) @definition.Variable
  (#set! in.type Property)
  (#is-not? local))

(function_body) @local
(lambda_literal) @local
(anonymous_initializer) @local
