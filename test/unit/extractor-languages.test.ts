/**
 * The extractor's tag rules for Python, Go, Rust, Java and C# (src/extractor/queries/*.scm):
 * source in, tags out, at every depth the language has definitions, and what is not one. Each
 * tag reads `line name Kind parent`, the parent being the enclosing path (`-` for none).
 */
import { describe, expect, it } from 'vitest';
import { extract } from '../../src/extractor/extract.js';
import { grammar, type GrammarId } from '../../src/extractor/languages.js';

async function tags(id: GrammarId, source: string): Promise<string[]> {
  const { tags } = await extract(grammar(id), source, 10_000);
  return tags.map((t) => `${t.line} ${t.name} ${t.kind} ${t.scope ?? '-'}`);
}

describe('Python', () => {
  it('module and class levels, through if/try/with blocks', async () => {
    const src = [
      'import os', // 1
      'from x import y as z', // 2
      'LIMIT = 10', // 3
      'a, (b, c) = 1, (2, 3)', // 4
      'if os.name == "nt":', // 5
      '    def native(): pass', // 6
      'else:', // 7
      '    native = None', // 8
      'type Vector = list[float]', // 9
      'class Server(Base):', // 10
      '    port: int = 80', // 11
      '    @property', // 12
      '    def address(self): return self.port', // 13
      '    try:', // 14
      '        import ssl', // 15
      '    except ImportError:', // 16
      '        ssl = None', // 17
    ].join('\n');
    expect(await tags('python', src)).toEqual([
      '3 LIMIT Variable -',
      '4 a Variable -',
      '4 b Variable -',
      '4 c Variable -',
      '6 native Function -',
      '8 native Variable -',
      '9 Vector TypeAlias -',
      '10 Server Class -',
      '11 port Field Server',
      '13 address Method Server',
      '17 ssl Field Server',
    ]);
  });

  it('functions and classes in functions, the methods and fields of classes declared in test functions, a lambda bound to a name', async () => {
    const src = [
      'def outer(x, *args, **kwargs):', // 1
      '    local = 1', // 2
      '    first, second = x', // 3
      '    def helper(y):', // 4
      '        def deepest(): pass', // 5
      '        return y', // 6
      '    return helper', // 7
      'class TestApp:', // 8
      '    def test_views(self):', // 9
      '        class Index(View):', // 10
      '            methods = ["GET"]', // 11
      '            def dispatch_request(self):', // 12
      '                value = 1', // 13
      '                return value', // 14
      '        handler = lambda r: r', // 15
      '        for item in range(3): pass', // 16
      '        with open("f") as fh: pass', // 17
    ].join('\n');
    expect(await tags('python', src)).toEqual([
      '1 outer Function -',
      '4 helper Function outer',
      '5 deepest Function outer.helper',
      '8 TestApp Class -',
      '9 test_views Method TestApp',
      '10 Index Class TestApp.test_views',
      '11 methods Field TestApp.test_views.Index',
      '12 dispatch_request Method TestApp.test_views.Index',
      '15 handler Function TestApp.test_views',
    ]);
  });
});

describe('Go', () => {
  it('a function body holds locals, but a function literal bound to a name is a function', async () => {
    const src = [
      'package server', // 1
      'import "io"', // 2
      'const A, B = 1, 2', // 3
      'var (', // 4
      '\tdefaultPort = 80', // 5
      '\thandler = func() { type local struct{}; const inner = 1 }', // 6
      ')', // 7
      'type Server struct {', // 8
      '\tio.Reader', // 9
      '\tName, Addr string', // 10
      '\tinner struct{ deep int }', // 11
      '}', // 12
      'type Handler interface { Serve() }', // 13
      'type ID = string', // 14
      'func (s *Server) Start() error {', // 15
      '\tcb := func() {}', // 16
      '\ttype scratch struct{ x int }', // 17
      '\treturn nil', // 18
      '}', // 19
      'func New[T any]() *Server { return nil }', // 20
      'func (l List[T]) Len() int { return 0 }', // 21
      'type _ struct{ hidden int }', // 22
    ].join('\n');
    expect(await tags('go', src)).toEqual([
      '1 server Package -',
      '3 A Constant -',
      '3 B Constant -',
      '5 defaultPort Variable -',
      '6 handler Function -',
      '8 Server Struct -',
      '10 Name Field Server',
      '10 Addr Field Server',
      '11 inner Field Server',
      '13 Handler Interface -',
      '13 Serve Method Handler',
      '14 ID TypeAlias -',
      '15 Start Method Server',
      '16 cb Function Server.Start',
      '20 New Function -',
      '21 Len Method List',
    ]);
  });

  it('the same in a file it parses whole (its function bodies could not be skipped)', async () => {
    // The stray `}` defeats the body scan; the parse of the whole file has an error there.
    const src = ['package p', 'func f() {', '\ttype local struct{ x int }', '\tconst k = 1', '}', '}', 'func g() {}'].join('\n');
    const got = await tags('go', src);
    expect(got).toEqual(expect.arrayContaining(['1 p Package -', '2 f Function -']));
    expect(got.some((t) => / (local|k|x) /.test(t))).toBe(false);
  });
});

describe('Rust', () => {
  it('items at every depth: functions in functions, items in modules, impl members under their type', async () => {
    const src = [
      'pub struct Labeled<T> { inner: T, label: String }', // 1
      'pub enum Shape { Circle { r: f64 }, Square(f64) }', // 2
      'pub trait Area { fn area(&self) -> f64; }', // 3
      'impl<T> Labeled<T> {', // 4
      '    pub const MAX: usize = 32;', // 5
      '    pub fn wrap(inner: T) -> Self {', // 6
      '        fn clip(s: &str) -> String { s.into() }', // 7
      '        struct Scratch { n: u8 }', // 8
      '        let closure = |x: u8| x + 1;', // 9
      '        let value = 3;', // 10
      '        todo!()', // 11
      '    }', // 12
      '}', // 13
      'mod units { pub fn to_mm(m: f64) -> f64 { m } }', // 14
      'macro_rules! square { ($x:expr) => { $x * $x } }', // 15
      'fn main() { fn helper() {} }', // 16
    ].join('\n');
    expect(await tags('rust', src)).toEqual([
      '1 Labeled Struct -',
      '1 inner Field Labeled',
      '1 label Field Labeled',
      '2 Shape Enum -',
      '2 Circle EnumMember Shape',
      '2 Square EnumMember Shape',
      '3 Area Trait -',
      '3 area Method Area',
      '5 MAX Constant Labeled',
      '6 wrap Method Labeled',
      '7 clip Function Labeled::wrap',
      '8 Scratch Struct Labeled::wrap',
      '8 n Field Labeled::wrap::Scratch',
      '14 units Module -',
      '14 to_mm Function units',
      '15 square Macro -',
      '16 main Function -',
      '16 helper Function main',
    ]);
  });
});

describe('Java', () => {
  it('local and anonymous classes with their members; locals and lambdas are not definitions', async () => {
    const src = [
      'package com.acme;', // 1
      'public class Shapes {', // 2
      '    interface Shape { double TAU = 6.28; double area(); }', // 3
      '    record Point(double x, double y) {}', // 4
      '    double covered() {', // 5
      '        class Sum { double total; }', // 6
      '        Runnable r = new Runnable() {', // 7
      '            int runs;', // 8
      '            public void run() {}', // 9
      '        };', // 10
      '        int local = 1;', // 11
      '        java.util.function.IntUnaryOperator f = x -> x + 1;', // 12
      '        return 0;', // 13
      '    }', // 14
      '    enum Stroke { SOLID, DASHED { String pattern() { return "-"; } } }', // 15
      '}', // 16
    ].join('\n');
    expect(await tags('java', src)).toEqual([
      '1 com.acme Package -',
      '2 Shapes Class -',
      '3 Shape Interface Shapes',
      '3 TAU Constant Shapes.Shape',
      '3 area Method Shapes.Shape',
      '4 Point Class Shapes',
      '4 x Field Shapes.Point',
      '4 y Field Shapes.Point',
      '5 covered Method Shapes',
      '6 Sum Class Shapes.covered',
      '6 total Field Shapes.covered.Sum',
      '8 runs Field Shapes.covered',
      '9 run Method Shapes.covered',
      '15 Stroke Enum Shapes',
      '15 SOLID EnumMember Shapes.Stroke',
      '15 DASHED EnumMember Shapes.Stroke',
      '15 pattern Method Shapes.Stroke.DASHED',
    ]);
  });
});

describe('C#', () => {
  it('local functions under their method; locals and lambdas are not definitions', async () => {
    const src = [
      'namespace Acme.Geometry;', // 1
      'public record Point(double X, double Y);', // 2
      'public class Circle {', // 3
      '    const double Tau = 6.28;', // 4
      '    double radius;', // 5
      '    public double Area() {', // 6
      '        double Square(double v) => v * v;', // 7
      '        var local = 1;', // 8
      '        System.Func<int, int> f = x => x;', // 9
      '        return Square(radius);', // 10
      '    }', // 11
      '    public string Name { get; set; }', // 12
      '}', // 13
    ].join('\n');
    expect(await tags('csharp', src)).toEqual([
      '1 Acme.Geometry Namespace -',
      '2 Point Class Acme.Geometry',
      '2 X Property Acme.Geometry.Point',
      '2 Y Property Acme.Geometry.Point',
      '3 Circle Class Acme.Geometry',
      '4 Tau Constant Acme.Geometry.Circle',
      '5 radius Field Acme.Geometry.Circle',
      '6 Area Method Acme.Geometry.Circle',
      '7 Square Function Acme.Geometry.Circle.Area',
      '12 Name Property Acme.Geometry.Circle',
    ]);
  });
});
