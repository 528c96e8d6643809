import { describe, expect, it } from 'vitest';
import { documentationOf } from '../../src/search/definitions/documentation.js';

/** The documentation of the definition on the line marked `<<`, from the text as a file. */
function docOf(text: string, language: string): string | undefined {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.includes('<<')) + 1;
  return documentationOf((n) => lines[n - 1]?.replace(' <<', ''), at, language);
}

describe('documentation of a definition', () => {
  it('Go: the doc comment above', () => {
    expect(docOf(['package io', '', '// ReadAll reads from r until an error or EOF', '// and returns the data it read.', 'func ReadAll(r Reader) ([]byte, error) { <<'].join('\n'), 'Go')).toBe(
      'ReadAll reads from r until an error or EOF\nand returns the data it read.',
    );
  });

  it('Go: nothing when a blank line separates the comment', () => {
    expect(docOf(['// Copyright 2009', '', 'func f() { <<'].join('\n'), 'Go')).toBeUndefined();
  });

  it('Python: the docstring, one line or several', () => {
    expect(docOf(['def connect(url): <<', '    """Open a connection."""', '    return 1'].join('\n'), 'Python')).toBe('Open a connection.');
    expect(
      docOf(['class Pool( <<', '    Base,', '):', '    """', '    A pool of connections.', '', '    Thread-safe.', '    """', '    size = 1'].join('\n'), 'Python'),
    ).toBe('A pool of connections.\n\nThread-safe.');
    expect(docOf(['def f(): <<', '    return 1'].join('\n'), 'Python')).toBeUndefined();
  });

  it('TypeScript and JavaScript: JSDoc above, past a decorator', () => {
    const ts = ['/**', ' * Finds a user by id.', ' * @param id the user id', ' */', '@Injectable()', 'export function findUser(id: string) { <<'].join('\n');
    expect(docOf(ts, 'TypeScript')).toBe('Finds a user by id.\n@param id the user id');
    expect(docOf(['/** Adds two numbers. */', 'function add(a, b) { <<'].join('\n'), 'JavaScript')).toBe('Adds two numbers.');
  });

  it('Rust: /// lines, past an attribute; not a #[derive] taken for a comment', () => {
    const rs = ['/// A point in space.', '/// Immutable.', '#[derive(Debug)]', 'pub struct Point { <<'].join('\n');
    expect(docOf(rs, 'Rust')).toBe('A point in space.\nImmutable.');
  });

  it('Java: Javadoc above, past an annotation', () => {
    const java = ['  /**', '   * Starts the server.', '   */', '  @Override', '  public void start() { <<'].join('\n');
    expect(docOf(java, 'Java')).toBe('Starts the server.');
  });

  it('C: a block comment above; #define above is not a comment', () => {
    expect(docOf(['/* Frees the list. */', 'void list_free(struct list *l) { <<'].join('\n'), 'C')).toBe('Frees the list.');
    expect(docOf(['#define MAX 10', 'int f(void) { <<'].join('\n'), 'C')).toBeUndefined();
  });

  it('is trimmed to a summary', () => {
    const long = `// ${'word '.repeat(200)}`;
    const doc = docOf([long, 'func f() { <<'].join('\n'), 'Go')!;
    expect(doc.length).toBeLessThanOrEqual(300);
    expect(doc.endsWith('…')).toBe(true);
  });
});
