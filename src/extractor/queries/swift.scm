; Definitions in Swift: classes, structs, enums (with their cases), actors and protocols at every
; depth; functions (a function in a type or an extension is a method), initializers, the
; properties of types and protocols, type aliases and associated types; top-level `let` and `var`
; (variables). An extension is no definition: it names the type its members belong to. What a
; function, initializer, closure or accessor body declares is local to it, functions and types
; aside.

(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.Class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.Class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.Struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.Enum
; `extension Outer.Inner`: the last name is the type.
((class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @name .)) @scope.Type
  (#set! lookup Type))
(protocol_declaration name: (type_identifier) @name) @definition.Interface

(enum_entry name: (simple_identifier) @name) @definition.EnumMember
(typealias_declaration name: (type_identifier) @name) @definition.TypeAlias
(associatedtype_declaration name: (type_identifier) @name) @definition.TypeAlias

((function_declaration name: (simple_identifier) @name) @definition.Function
  (#set! in.type Method))
(protocol_function_declaration name: (simple_identifier) @name) @definition.Method
(init_declaration name: "init" @name) @definition.Constructor

(protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.Property
((property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.Variable
  (#set! in.type Property)
  (#is-not? local))

(function_body) @local
(lambda_literal) @local
(computed_property) @local
