; Definitions in Ruby: modules, classes (`class Acme::Inner` named as written), methods and
; singleton methods (`def self.create`, those of `class << self`) at every depth: a method is a
; function outside classes and modules; constants a module, a class or a file assigns. Not
; definitions: what a method assigns, locals, blocks, `attr_*` calls (their names are symbols).

(module name: [(constant) (scope_resolution)] @name) @definition.Module
(class name: [(constant) (scope_resolution)] @name) @definition.Class

((method name: (_) @name) @definition.Function
  (#set! in.type Method)
  (#set! in.Module Method))
((singleton_method name: (_) @name) @definition.Function
  (#set! in.type Method)
  (#set! in.Module Method))

((assignment left: (constant) @name) @definition.Constant (#is-not? local))

(method body: (_) @local)
(singleton_method body: (_) @local)
