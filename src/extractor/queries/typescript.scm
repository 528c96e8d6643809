; include: ecmascript
; Definitions in TypeScript and TSX: the rules shared with JavaScript (ecmascript.scm), and what
; TypeScript adds: overload signatures (`Prototype` before their implementation), abstract classes, interfaces with their members, type
; aliases, enums with their members, namespaces and modules (`declare module 'pkg'` is named by its
; string), class fields and the properties a constructor's parameters declare. Type declarations
; count at any depth, as classes do.

; An overload signature its implementation follows is a `Prototype` (rules.ts, `overload`): the
; implementation ranks first. Alone (`declare function`, a `.d.ts`) it is a function.
((function_signature name: (identifier) @name) @definition.Function
  (#set! overload Prototype))
(abstract_class_declaration name: (type_identifier) @name) @definition.Class

(interface_declaration name: (type_identifier) @name) @definition.Interface
; Members: of interfaces and classes (a class's overloads, `Prototype`s before the method's
; implementation as functions' are; a `constructor` overload is the constructor's); those of a
; type literal (`type P = { x: number }`) are not definitions.
((method_signature name: (property_identifier) @name (#eq? @name "constructor")) @definition.Constructor
  (#set! overload Prototype))
((method_signature name: [(property_identifier) @name (private_property_identifier) @name (number) @name (string (string_fragment) @name)]) @definition.Method
  (#set! overload Prototype))
(property_signature name: [(property_identifier) @name (private_property_identifier) @name (number) @name (string (string_fragment) @name)]) @definition.Property
(object_type) @exclude

(type_alias_declaration name: (type_identifier) @name) @definition.TypeAlias

(enum_declaration name: (identifier) @name) @definition.Enum
(enum_body
  [
    (property_identifier) @name
    (string (string_fragment) @name)
    (enum_assignment name: [(property_identifier) @name (string (string_fragment) @name)])
  ] @definition.EnumMember)

; `namespace A.B {}` is one name, A.B.
(internal_module name: (_) @name) @definition.Namespace
(module name: [(string (string_fragment) @name) (identifier) @name (nested_identifier) @name]) @definition.Module

;; Class members TypeScript adds: overloads (their methods are the method signatures above),
;; abstract methods, fields.

(abstract_method_signature name: [(property_identifier) @name (private_property_identifier) @name (number) @name (string (string_fragment) @name)]) @definition.Method
(public_field_definition name: [(property_identifier) @name (private_property_identifier) @name (number) @name (string (string_fragment) @name)]) @definition.Property

; `constructor(private readonly repo: Repo)` declares the property `repo`: the class's, not the
; constructor's.
([
  (method_definition
    name: (property_identifier) @_constructor
    parameters: (formal_parameters
      [
        (required_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)
        (optional_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)
      ] @definition.Property))
  (method_signature
    name: (property_identifier) @_constructor
    parameters: (formal_parameters
      [
        (required_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)
        (optional_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)
      ] @definition.Property))
 ]
  (#eq? @_constructor "constructor")
  (#set! parent outer))
