; Definitions in Python: functions (a function in a class is a method), classes and type aliases
; at any depth, the names a module or a class assigns (at a class's level they are its fields),
; also inside `if`, `try`, `with`, `for`, `while` and `match` blocks at those levels
; (platform-dependent definitions are common). What a function assigns is local to it; the
; functions and classes it defines are not, nor the fields of a class it defines, nor a lambda
; it binds to a name. A lambda bound to a name (`key = lambda item: item.name`, `a: F = lambda:
; 0`) is a function (a method in a class, as Universal Ctags counts it) at any depth; one a
; pattern of names takes apart, or an attribute receives, is not. Imports bind other modules'
; names; attributes (`self.x = …`) and subscripts define none.

((assignment
  left: (identifier) @name
  right: [(lambda) (parenthesized_expression (lambda))]) @definition.Function
  (#set! in.type Method))
; `a = b = lambda: 0` binds both (chains of three at most); the definition is the name alone, so
; that `b` is not inside `a`.
((assignment
  left: (identifier) @name @definition.Function
  right: [
    (assignment right: [(lambda) (parenthesized_expression (lambda))])
    (assignment right: (assignment right: [(lambda) (parenthesized_expression (lambda))]))
  ])
  (#set! in.type Method))

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
