; Definitions in PHP: namespaces (`namespace App;` holds what follows it), classes, interfaces,
; traits and enums with their methods, properties (a constructor's promoted parameters too),
; constants and enum cases; functions at every depth (PHP declares functions inside functions).
; Closures, arrow functions and variables are not definitions; an anonymous class's members belong
; to the function they are in.

(namespace_definition name: (namespace_name) @name body: (compound_statement)) @definition.Namespace
((namespace_definition name: (namespace_name) @name) @definition.Namespace
  (#set! range following))

(class_declaration name: (name) @name) @definition.Class
(interface_declaration name: (name) @name) @definition.Interface
(trait_declaration name: (name) @name) @definition.Trait
(enum_declaration name: (name) @name) @definition.Enum
(enum_case name: (name) @name) @definition.EnumMember

(function_definition name: (name) @name) @definition.Function
(method_declaration name: (name) @name (#eq? @name "__construct")) @definition.Constructor
(method_declaration name: (name) @name) @definition.Method

; `public int $port`: the name without its `$`.
(property_element name: (variable_name (name) @name)) @definition.Property
((property_promotion_parameter name: (variable_name (name) @name)) @definition.Property
  (#set! parent outer))
(const_declaration (const_element (name) @name) @definition.Constant)
