import { expect, it } from 'vitest';
import { extract } from '../../src/extractor/extract.js';
import { grammar } from '../../src/extractor/languages.js';
import { pythonSkeleton } from '../../src/extractor/lang/python-bodies.js';

const lines = (...l: string[]) => l.join('\n');

it('empties the bodies that define nothing, keeping every line where it was', () => {
  const src = lines(
    'import os', // 1
    'def f(a,', // 2
    '      b):', // 3
    '    """Doc."""', // 4
    '    x = a + b', // 5
    '', // 6
    '    # a comment', // 7
    '    return x', // 8
    '# after', // 9
    'class C:', // 10
    '    def m(self):', // 11
    '\treturn 1', // 12
    '    async def n(self): return 2', // 13
    'LIMIT = 1', // 14
  );
  expect(pythonSkeleton(src)).toBe(lines('import os', 'def f(a,', '      b):', '    0', '', '', '', '', '# after', 'class C:', '    def m(self):', '\t0', '    async def n(self): return 2', 'LIMIT = 1'));
});

it('keeps a body that defines a function, a class or a decorated one, and empties the bodies inside it that do not', () => {
  const src = lines(
    'def outer():', // 1
    '    x = 1', // 2
    '    def helper():', // 3
    '        return x', // 4
    '    return helper', // 5
    'def with_class():', // 6
    '    class Local:', // 7
    '        def m(self):', // 8
    '            pass', // 9
    'def decorated():', // 10
    '    @wraps(f)', // 11
    '    async def inner(): pass', // 12
    'def plain(): pass', // 13
  );
  expect(pythonSkeleton(src)).toBe(
    lines('def outer():', '    x = 1', '    def helper():', '        0', '    return helper', 'def with_class():', '    class Local:', '        def m(self):', '            0', 'def decorated():', '    @wraps(f)', '    async def inner(): pass', 'def plain(): pass'),
  );
});

it('keeps a body that binds a lambda to a name; a lambda passed or put in a container or an attribute does not', () => {
  const src = lines(
    'def binds():', // 1
    '    if ok:', // 2
    '        key: Callable = (lambda item: item.name)', // 3
    '    return key', // 4
    'def chained():', // 5
    '    a = b = lambda: 0', // 6
    'def passes():', // 7
    '    items.sort(key=lambda item: item.name)', // 8
    '    table = {"a": lambda: 0}', // 9
    '    self.hook = lambda: 0', // 10
  );
  expect(pythonSkeleton(src)).toBe(lines('def binds():', '    if ok:', '        key: Callable = (lambda item: item.name)', '    return key', 'def chained():', '    a = b = lambda: 0', 'def passes():', '    0', '', ''));
});

it('reads strings, brackets and continuations as Python does: "def" inside them defines nothing, and a string at column 0 does not end a body', () => {
  const src = lines(
    'def f():', // 1
    '    s = """', // 2
    'def not_a_function():', // 3
    '"""', // 4
    "    t = ('def x():',", // 5
    'class_ = 1)', // 6
    "    u = r'\\'' + b\"\\\"\" + \\", // 7
    '        "def"', // 8
    "    v = f'{d[\"def\"]!r:>{w}}' + f\"{'}'}\"", // 9
    '    return s', // 10
    'def g(): pass', // 11
  );
  expect(pythonSkeleton(src)).toBe(lines('def f():', '    0', '', '', '', '', '', '', '', '', 'def g(): pass'));
});

it('f-strings of Python 3.12 may nest the same quotes', () => {
  const src = lines('def f(d):', '    return f"{d["key"]} and {f"{d["x"]}"}"', 'X = 1');
  expect(pythonSkeleton(src)).toBe(lines('def f(d):', '    0', 'X = 1'));
});

it('leaves a file alone when nothing is to be emptied, or when a string or bracket is left open', () => {
  expect(pythonSkeleton(lines('X = 1', 'class C:', '    y = 2'))).toBeUndefined();
  expect(pythonSkeleton(lines('def f():', '    return 1', 's = "open'))).toBeUndefined();
  expect(pythonSkeleton(lines('def f():', '    return 1', 's = """open'))).toBeUndefined();
  expect(pythonSkeleton(lines('def f():', '    return (1', 'X = 2'))).toBeUndefined();
  expect(pythonSkeleton(lines('def f():', '    return 1)', 'X = 2'))).toBeUndefined();
});

it('keeps Windows line ends and form feeds', () => {
  expect(pythonSkeleton('def f():\r\n    x = 1\r\n\f\r\n    return x\r\nY = 2\r\n')).toBe('def f():\r\n    0\n\n\nY = 2\r\n');
});

it('gives the tags of the whole file, and reports a line the grammar cannot read', async () => {
  const tags = async (src: string) => (await extract(grammar('python'), src, 10_000)).tags.map((t) => `${t.line} ${t.name} ${t.kind} ${t.scope ?? '-'}`);
  const src = lines(
    'def outer():', // 1
    '    local = 1', // 2
    '    def helper(): return local', // 3
    '    return helper', // 4
    'class C:', // 5
    '    def m(self):', // 6
    '        x = 1', // 7
    '        return x', // 8
    '    field = 2', // 9
  );
  expect(await tags(src)).toEqual(['1 outer Function -', '3 helper Function outer', '5 C Class -', '6 m Method C', '9 field Field C']);
  // A line the grammar cannot read: the file is parsed whole, the line reported for Universal
  // Ctags, and the definitions around it found.
  const broken = lines('def f():', '    x = 1', '    return x', '$$$ = 2', 'class C:', '    def m(self):', '        return 1', 'def g(): pass');
  expect(await tags(broken)).toEqual(['1 f Function -', '5 C Class -', '6 m Method C', '8 g Function -']);
  expect((await extract(grammar('python'), broken, 10_000)).errorLines).toEqual([[4, 4]]);
});
