import { describe, expect, it } from 'vitest';
import { definitionsOf, linguistName, tagsOfAnswer } from '../../src/definitions-index/definitions.js';

describe('a file\'s definitions from the extractor\'s tags, as Zoekt keeps them', () => {
  const lines = [
    'package shapes',
    '',
    '// Area is the area of a circle.',
    '//go:noinline',
    'func (c *Circle) Area() float64 { return area(c) }',
    'var x = compute(1)',
    'func compute(n int) int { return n }',
  ];

  it('places each tag at its name\'s first occurrence, drops one whose name is not on its line or overlaps one kept', () => {
    const answer = [
      JSON.stringify({ _type: 'tag', name: 'shapes', path: 'a.go', line: 1, kind: 'Package', language: 'Go' }),
      JSON.stringify({ _type: 'tag', name: 'Area', path: 'a.go', line: 5, kind: 'Method', scope: 'shapes.Circle', scopeKind: 'Struct', language: 'Go' }),
      // Overlaps Area (same place): Zoekt keeps the first.
      JSON.stringify({ _type: 'tag', name: 'Are', path: 'a.go', line: 5, kind: 'Method', language: 'Go' }),
      // Not on its line.
      JSON.stringify({ _type: 'tag', name: 'Missing', path: 'a.go', line: 6, kind: 'Variable', language: 'Go' }),
      // Past the end.
      JSON.stringify({ _type: 'tag', name: 'x', path: 'a.go', line: 99, kind: 'Variable', language: 'Go' }),
      // A line that only calls the name defines nothing.
      JSON.stringify({ _type: 'tag', name: 'compute', path: 'a.go', line: 6, kind: 'Function', language: 'Go' }),
      JSON.stringify({ _type: 'tag', name: 'compute', path: 'a.go', line: 7, kind: 'Function', language: 'Go' }),
      JSON.stringify({ _type: 'completed', command: 'generate-tags' }),
    ].join('\n');
    const tags = tagsOfAnswer(answer);
    expect(tags).toHaveLength(7);
    const { language, definitions } = definitionsOf('vendor/x/a.go', lines, tags);
    expect(language).toBe('Go');
    expect(definitions.map((d) => [d.name, d.line, d.column, d.kind, d.parent, d.documentation])).toEqual([
      ['shapes', 1, 9, 'module', undefined, undefined],
      ['Area', 5, 18, 'method', 'Circle', 'Area is the area of a circle.'],
      ['compute', 7, 6, 'function', undefined, undefined],
    ]);
    expect(definitions.every((d) => d.vendored)).toBe(true);
    expect(definitions[1]).toMatchObject({ raw_kind: 'Method', parent_kind: 'Struct', signature: 'func (c *Circle) Area() float64 { return area(c) }' });
  });

  it('names Universal Ctags\' languages as Linguist does', () => {
    expect(linguistName('Sh')).toBe('Shell');
    expect(linguistName('ObjectiveC')).toBe('Objective-C');
    expect(linguistName('typescript')).toBe('TypeScript');
    expect(linguistName('Go')).toBe('Go');
    expect(linguistName(undefined)).toBe('');
  });
});
