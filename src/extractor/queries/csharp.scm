; Definitions in C#: namespaces (block and file-scoped), types at any depth of nesting, their
; methods, constructors, properties, fields, constants, events and enum members, delegates, and
; local functions (whose parent is the method they are in). A record's positional parameters are
; its properties. Local variables and lambdas are locals.

(namespace_declaration name: (_) @name) @definition.Namespace
; `namespace A.B;` holds every declaration after it in the file.
((file_scoped_namespace_declaration name: (_) @name) @definition.Namespace (#set! range following))

(class_declaration name: (identifier) @name) @definition.Class
(record_declaration name: (identifier) @name) @definition.Class
(struct_declaration name: (identifier) @name) @definition.Struct
(interface_declaration name: (identifier) @name) @definition.Interface
(enum_declaration name: (identifier) @name) @definition.Enum
(enum_member_declaration name: (identifier) @name) @definition.EnumMember
(delegate_declaration name: (identifier) @name) @definition.Type

(record_declaration (parameter_list (parameter name: (identifier) @name) @definition.Property))

(method_declaration name: (identifier) @name) @definition.Method
(constructor_declaration name: (identifier) @name) @definition.Constructor
(property_declaration name: (identifier) @name) @definition.Property
(event_declaration name: (identifier) @name) @definition.Property
(field_declaration
  (modifier) @_const
  (variable_declaration (variable_declarator name: (identifier) @name) @definition.Constant)
  (#eq? @_const "const"))
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name) @definition.Field))
(event_field_declaration (variable_declaration (variable_declarator name: (identifier) @name) @definition.Field))

(local_function_statement name: (identifier) @name) @definition.Function
