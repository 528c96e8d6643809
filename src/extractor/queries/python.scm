; Definitions in Python: functions (a function in a class is a method), classes and type aliases
; at any depth, the names a module or a class assigns (at a class's level they are its fields),
; also inside `if`, `try`, `with`, `for`, `while` and `match` blocks at those levels
; (platform-dependent definitions are common). What a function assigns is local to it; the
; functions and classes it defines are not, nor the fields of a class it defines. Imports bind
; other modules' names; attributes (`self.x = …`) and subscripts define none.

((function_definition name: (identifier) @name) @definition.Function
  (#set! in.type Method))
(class_definition name: (identifier) @name) @definition.Class

; `type Vec = …` and `type Pair[T] = …`.
((type_alias_statement
  left: (type [(identifier) @name (generic_type (identifier) @name)])) @definition.TypeAlias
  (#is-not? local))

; `a = …`, `a: int = …`, `a = b = …`; `a, b = …`, `(a, b), [c] = …`: each plain name.
(assignment left: (identifier) @name @definition.Variable
  (#set! in.type Field)
  (#is-not? local))
(assignment left: [(pattern_list) (tuple_pattern) (list_pattern)] @names.Variable
  (#set! in.type Field)
  (#is-not? local))
(pattern_list (identifier) @binding)
(tuple_pattern (identifier) @binding)
(list_pattern (identifier) @binding)

(function_definition body: (block) @local)
