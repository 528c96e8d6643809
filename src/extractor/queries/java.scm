; Definitions in Java: the package; classes, interfaces, enums, records and annotation types at
; any depth (nested, inner, local to a method); their methods, constructors, fields, constants and
; enum constants, and the methods and fields of anonymous classes (`new Runnable() { … }`, an enum
; constant's body), whose parent is the definition they are written in. A record's components are
; its fields; an interface's fields are constants. Local variables and lambdas are locals.

(package_declaration [(scoped_identifier) (identifier)] @name) @definition.Package

(class_declaration name: (identifier) @name) @definition.Class
(record_declaration name: (identifier) @name) @definition.Class
(interface_declaration name: (identifier) @name) @definition.Interface
(annotation_type_declaration name: (identifier) @name) @definition.Interface
(enum_declaration name: (identifier) @name) @definition.Enum

(record_declaration
  parameters: (formal_parameters (formal_parameter name: (identifier) @name) @definition.Field))

(method_declaration name: (identifier) @name) @definition.Method
(annotation_type_element_declaration name: (identifier) @name) @definition.Method
(constructor_declaration name: (identifier) @name) @definition.Constructor
(compact_constructor_declaration name: (identifier) @name) @definition.Constructor

(constant_declaration declarator: (variable_declarator name: (identifier) @name) @definition.Constant)
(field_declaration
  declarator: (variable_declarator name: (identifier) @name) @definition.Field
  (#set! in.Interface Constant))

(enum_constant name: (identifier) @name) @definition.EnumMember
