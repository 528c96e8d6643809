import { describe, expect, it } from 'vitest';
import { definitionSpan } from '../../src/search/definitions/definition-span.js';

/** The span of the definition on the line marked `<<`, as [start, end]. */
function spanOf(text: string, language: string): [number, number] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.includes('<<')) + 1;
  const { start, end } = definitionSpan(lines.map((l) => l.replace(' <<', '')), at, language);
  return [start, end];
}

describe('the lines of a definition', () => {
  it('Go: from its doc comment to the closing brace, braces in strings and comments skipped', () => {
    const go = ['package x', '', '// F does f.', 'func F() string { <<', '  s := "}" // }', '  if true {', '    return s', '  }', '  return ""', '}', '', 'func G() {}'].join('\n');
    expect(spanOf(go, 'Go')).toEqual([3, 10]);
  });

  it('Go: a one-line type alias', () => {
    expect(spanOf(['type ID = string <<', '', 'func G() {}'].join('\n'), 'Go')).toEqual([1, 1]);
  });

  it('TypeScript: past a decorator and JSDoc', () => {
    const ts = ['/** A service. */', '@Injectable()', 'export class S { <<', '  f() {', '    return `}`;', '  }', '}', 'export const x = 1;'].join('\n');
    expect(spanOf(ts, 'TypeScript')).toEqual([1, 7]);
  });

  it('a field ends with its statement', () => {
    expect(spanOf(['class A {', '  private x: number = 1; <<', '  y = 2;', '}'].join('\n'), 'TypeScript')).toEqual([2, 2]);
  });

  it('Python: until the next line indented no deeper, past a multi-line signature and blank lines', () => {
    const py = ['class A:', '    @property', '    def f(self, <<', '          x):', '        """Doc."""', '', '        return x', '', '    def g(self):', '        pass'].join('\n');
    expect(spanOf(py, 'Python')).toEqual([2, 7]);
  });
});
