; include: ecmascript
; Definitions in JavaScript and JSX: the rules shared with TypeScript (ecmascript.scm), and the
; grammar's own name for class fields.

(field_definition property: [(property_identifier) @name (private_property_identifier) @name (number) @name (string (string_fragment) @name)]) @definition.Property
