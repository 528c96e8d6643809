; Definitions in JavaScript and TypeScript: the rules the two grammars share (javascript.scm and
; typescript.scm include them). What counts as a definition:
;   - what a module or a namespace declares: functions, classes, `const` (constants), `let` and
;     `var` (variables), a function or a class as the value making it a function or a class,
;     destructuring binding each of its names; CommonJS `exports.x = …` (not `exports.x = x`) and
;     `C.prototype.m = function …`;
;   - the members of every class: methods (accessors too), its constructor, fields;
;   - at every depth (function bodies, object literals, arguments): function and class
;     declarations, a variable (`const`, `let` or `var`) whose value is a function expression
;     or an arrow function (`const patch = (n1, n2) => {…}` in a function: a function, its
;     parent the function), classes named by a class expression, and the methods and
;     function-valued properties of object literals, whose parent is the variable, property or
;     function the object literal is assigned to or returned from.
; Not definitions: imports and the names bound from `require(…)` or `import(…)`, parameters, the
; other variables of function bodies and blocks, destructured or not (a destructured function is
; a value taken apart, not one defined), computed names (`[Symbol.iterator]`), shorthand
; properties (`{ transform }`), functions passed as arguments, and functions assigned to a member
; (`this.x = () => …`, `obj.x = function …`: TypeScript's navigation tree does not list them
; either) but for CommonJS exports and prototypes below.
;
; Patterns start at the definition, not at what holds it (`(pair …)`, not `(object (pair …))`):
; a pattern that starts at a node that holds much (a program, an object, a block) is matched
; against all of it, which costs indexing time.

;; Functions and classes, at any depth.

(function_declaration name: (identifier) @name) @definition.Function
(generator_function_declaration name: (identifier) @name) @definition.Function
(class_declaration name: (_) @name) @definition.Class

; A class expression names a class (`module.exports = class Store { … }`), unless a variable or
; a CommonJS export names it.
(class name: (_) @name) @definition.Class
(variable_declarator value: (class name: (_) @exclude))
((assignment_expression
  left: (member_expression object: (_) @_exports)
  right: (class name: (_) @exclude))
  (#any-of? @_exports "exports" "module.exports"))

;; Methods: of classes (a class's `constructor` is its constructor) and of object literals.

(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @definition.Constructor
(method_definition name: [(property_identifier) @name (private_property_identifier) @name (number) @name (string (string_fragment) @name)]) @definition.Method

; The function-valued properties of object literals: `{ load: async () => {} }`.
(pair
  key: [(property_identifier) @name (number) @name (string (string_fragment) @name)]
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.Method

;; CommonJS, where a module declares its definitions: `exports.f = …`, `module.exports.f = …`
;; (an identifier or a member on the right exports a name defined elsewhere),
;; `C.prototype.m = function …`.

((expression_statement
  (assignment_expression
    left: (member_expression object: (_) @_exports property: (property_identifier) @name)
    right: [(function_expression) (arrow_function) (generator_function)]) @definition.Function)
  (#any-of? @_exports "exports" "module.exports")
  (#is-not? local))
((expression_statement
  (assignment_expression
    left: (member_expression object: (_) @_exports property: (property_identifier) @name)
    right: (class)) @definition.Class)
  (#any-of? @_exports "exports" "module.exports")
  (#is-not? local))
((expression_statement
  (assignment_expression
    left: (member_expression object: (_) @_exports property: (property_identifier) @exclude)
    right: [(identifier) (member_expression)]))
  (#any-of? @_exports "exports" "module.exports"))
((expression_statement
  (assignment_expression
    left: (member_expression object: (_) @_exports property: (property_identifier) @name)) @definition.Variable)
  (#any-of? @_exports "exports" "module.exports")
  (#is-not? local))
((expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression object: (identifier) @parent property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [(function_expression) (arrow_function) (generator_function)]) @definition.Method)
  (#eq? @_prototype "prototype")
  (#set! lookup Class)
  (#is-not? local))

;; A variable bound to a function, at any depth: a function.

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.Function

;; Other variables, where a module or a namespace declares them: in a function body or a block
;; they are locals (see @local below).

((variable_declarator
  name: (identifier) @name
  value: (class)) @definition.Class
  (#is-not? local))
(lexical_declaration
  kind: "const"
  (variable_declarator name: (identifier) @name) @definition.Constant
  (#is-not? local))
(lexical_declaration
  kind: "let"
  (variable_declarator name: (identifier) @name) @definition.Variable
  (#is-not? local))
(variable_declaration
  (variable_declarator name: (identifier) @name) @definition.Variable
  (#is-not? local))

; Destructuring: each name the pattern binds, at any depth of it.
(lexical_declaration
  kind: "const"
  (variable_declarator name: [(object_pattern) (array_pattern)] @names.Constant)
  (#is-not? local))
(lexical_declaration
  kind: "let"
  (variable_declarator name: [(object_pattern) (array_pattern)] @names.Variable)
  (#is-not? local))
(variable_declaration
  (variable_declarator name: [(object_pattern) (array_pattern)] @names.Variable)
  (#is-not? local))
(object_pattern
  [
    (shorthand_property_identifier_pattern) @binding
    (pair_pattern value: (identifier) @binding)
    (object_assignment_pattern left: (shorthand_property_identifier_pattern) @binding)
    (pair_pattern value: (assignment_pattern left: (identifier) @binding))
    (rest_pattern (identifier) @binding)
  ])
(array_pattern
  [
    (identifier) @binding
    (assignment_pattern left: (identifier) @binding)
    (rest_pattern (identifier) @binding)
  ])

; `require('x')`, `require('x').y`, `await import('x')` bind another module's definitions.
(variable_declarator
  name: (_) @exclude
  value: [
    (call_expression function: [(import) (identifier)] @_load)
    (await_expression (call_expression function: [(import) (identifier)] @_load))
    (member_expression object: (call_expression function: [(import) (identifier)] @_load))
  ]
  (#any-of? @_load "require" "import"))

;; What encloses the methods of an object literal without being a definition itself: the
;; property or the variable it is assigned to (a function it is returned from encloses it).

(pair key: [(property_identifier) @name (number) @name (string (string_fragment) @name)] value: (object)) @scope.Property
(assignment_expression left: (member_expression property: (property_identifier) @name) right: (object)) @scope.Property
(assignment_expression left: (identifier) @name right: (object)) @scope.Variable

;; Locals: function bodies, and the blocks and loops of statements (a block that is a statement
;; of its own is rare outside functions, and not counted).

(function_declaration body: (_) @local)
(generator_function_declaration body: (_) @local)
(function_expression body: (_) @local)
(generator_function body: (_) @local)
(arrow_function body: (statement_block) @local)
(method_definition body: (_) @local)
(class_static_block body: (_) @local)
[
  (if_statement)
  (for_statement)
  (for_in_statement)
  (while_statement)
  (do_statement)
  (try_statement)
  (switch_statement)
  (labeled_statement)
  (with_statement)
] @local
