; Definitions in Rust: the items of a crate, of its modules, of `extern` blocks, of traits and of
; function bodies (an item inside a function is a definition whose parent is the function); the
; methods, constants and types of an `impl` block belong to the type it implements (not to the
; trait). Fields of structs and unions, variants of enums. `let` bindings and closures are locals.

((function_item name: (identifier) @name) @definition.Function
  (#set! in.type Method))
((function_signature_item name: (identifier) @name) @definition.Function
  (#set! in.type Method))

(struct_item name: (type_identifier) @name) @definition.Struct
(union_item name: (type_identifier) @name) @definition.Union
(struct_item
  body: (field_declaration_list (field_declaration name: (field_identifier) @name) @definition.Field))
(union_item
  body: (field_declaration_list (field_declaration name: (field_identifier) @name) @definition.Field))
(enum_item name: (type_identifier) @name) @definition.Enum
(enum_item
  body: (enum_variant_list (enum_variant name: (identifier) @name) @definition.EnumMember))
(trait_item name: (type_identifier) @name) @definition.Trait

; `impl<T> Shape for Labeled<T>`, `impl crate::x::Server`, `impl Trait for &'a mut T`: the type.
((impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (reference_type type: (type_identifier) @name)
    (reference_type type: (generic_type type: (type_identifier) @name))
    (pointer_type type: (type_identifier) @name)
  ]) @scope.Impl
  (#set! lookup Impl))

(mod_item name: (identifier) @name) @definition.Module
(type_item name: (type_identifier) @name) @definition.TypeAlias
(associated_type name: (type_identifier) @name) @definition.TypeAlias
(const_item name: (identifier) @name) @definition.Constant
(static_item name: (identifier) @name) @definition.Variable
(macro_definition name: (identifier) @name) @definition.Macro
