import { expect, it } from 'vitest';
import { goFunctionBodies } from '../../src/extractor/lang/go-bodies.js';

/** The bodies as `line:text-before-the-brace` of the line each opens on. */
function bodies(source: string): string[] {
  return goFunctionBodies(source).map(([open, close]) => {
    expect(source[open]).toBe('{');
    expect(source[close]).toBe('}');
    const line = source.slice(0, open).split('\n').length;
    return `${line}:${source.slice(source.lastIndexOf('\n', open) + 1, open).trim()}`;
  });
}

it('finds the body of each top-level function and method, whatever their signatures hold', () => {
  const src = [
    'package p', // 1
    'func a() {}', // 2
    'func (s *S) b(x struct{ y int }) (z interface{ M() }) {', // 3
    '\treturn nil',
    '}',
    'func c() struct{ x int } {', // 6
    '\treturn struct{ x int }{}',
    '}',
    'func d[T interface{ ~int }](', // 9
    '\tt T,',
    ') map[string]struct{} {', // 11
    '\treturn nil',
    '}',
    'func e() interface{} { return 1 }', // 14
    'var f = func() { g() }', // 15
  ].join('\n');
  expect(bodies(src)).toEqual(['2:func a()', '3:func (s *S) b(x struct{ y int }) (z interface{ M() })', '6:func c() struct{ x int }', '11:) map[string]struct{}', '14:func e() interface{}', '15:var f = func()']);
});

it('does not count braces in strings, raw strings, runes and comments', () => {
  const src = [
    'package p',
    'func a() {', // 2
    '\ts := "}{" + `',
    '}`',
    "\tr := '}'",
    "\tq := '\\''",
    '\t// }',
    '\t/* } */',
    '\treturn',
    '}', // 10
    'func b() {}', // 11
  ].join('\n');
  expect(goFunctionBodies(src).map(([o, c]) => [src.slice(0, o).split('\n').length, src.slice(0, c).split('\n').length])).toEqual([
    [2, 10],
    [11, 11],
  ]);
});

it('takes a function without a body (written in assembly) as ended at its line', () => {
  const src = ['package p', 'func asm(x int) int', 'var table = T{1, 2}', 'func after() {}'].join('\n');
  expect(bodies(src)).toEqual(['4:func after()']);
});

it('keeps a body that binds a function literal to a name, at any depth of it; a literal only called or passed does not', () => {
  const src = [
    'package p', // 1
    'func a() {', // 2
    '	if ok {',
    '		f := func() {}',
    '		f()',
    '	}',
    '}',
    'func b() {', // 8
    '	var cb =',
    '		func() {}',
    '}',
    'func c() {', // 12
    '	go func() {}()',
    '	sort.Slice(x, func(i, j int) bool { return x[i] < x[j] })',
    '	t := T{Handler: func() {}}',
    '	if x == y {}',
    '}',
    'func d() { s := "= func" }', // 18
  ].join('\n');
  expect(bodies(src)).toEqual(['12:func c()', '18:func d()']);
});
