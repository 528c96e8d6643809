import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { familyLanguages, languageParts, NON_CODE_LANGUAGES, resolveLanguage } from '../../src/search/vocab/languages.js';
import { render, and } from '../../src/zoekt/query.js';

function errorOf(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error('expected a ToolError');
}

describe('resolveLanguage', () => {
  it.each([
    ['ts', 'TypeScript'],
    ['typescript', 'TypeScript'],
    ['TypeScript', 'TypeScript'],
    ['TSX', 'TSX'],
    ['js', 'JavaScript'],
    ['jsx', 'JavaScript'],
    ['golang', 'Go'],
    ['py', 'Python'],
    ['python3', 'Python'],
    ['c++', 'C++'],
    ['cpp', 'C++'],
    ['C#', 'C#'],
    ['csharp', 'C#'],
    ['sh', 'Shell'],
    ['bash', 'Shell'],
    ['rs', 'Rust'],
    ['yml', 'YAML'],
    ['md', 'Markdown'],
    ['go module', 'Go Module'],
    ['go_module', 'Go Module'],
    ['  Java  ', 'Java'],
    ['plain text', 'Text'],
    ['txt', 'Text'],
  ])('%s → %s', (input, name) => {
    expect(resolveLanguage(input, 'languages').name).toBe(name);
  });

  it('refuses an unknown language with close suggestions', () => {
    const err = errorOf(() => resolveLanguage('typescrpt', 'languages'));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain("'typescrpt'");
    expect(err.hint).toContain("'TypeScript'");
    const far = errorOf(() => resolveLanguage('klingon-script-9000', 'exclude_languages'));
    expect(far.message).toMatch(/^exclude_languages: unknown language/);
    expect(far.hint).toMatch(/Linguist name or a common alias/);
  });

  it('puts languages in categories', () => {
    const category = (n: string) => resolveLanguage(n, 'languages').category;
    expect(['Go', 'TypeScript', 'TSX', 'C', 'C++', 'Java', 'Python', 'Rust', 'JavaScript', 'SQL', 'HTML', 'CSS', 'Makefile'].map(category)).toEqual(
      Array(13).fill('code'),
    );
    expect(['Markdown', 'Text', 'reStructuredText', 'AsciiDoc'].map(category)).toEqual(Array(4).fill('prose'));
    expect(['YAML', 'TOML', 'INI', 'Go Module', 'Maven POM'].map(category)).toEqual(Array(5).fill('config'));
    expect(['JSON', 'XML', 'CSV'].map(category)).toEqual(Array(3).fill('data'));
  });

  it('groups languages that share identifiers into families', () => {
    const family = (n: string) => resolveLanguage(n, 'languages').family;
    expect(family('ts')).toBe(family('js'));
    expect(family('tsx')).toBe(family('javascript'));
    expect(family('c')).toBe(family('c++'));
    expect(family('objective-c')).toBe(family('cpp'));
    expect(family('go')).not.toBe(family('ts'));
    expect(familyLanguages(family('ts'))).toEqual(expect.arrayContaining(['TypeScript', 'TSX', 'JavaScript']));
    expect(familyLanguages(family('go'))).toEqual(['Go']);
  });
});

describe('languageParts', () => {
  const query = (f: Parameters<typeof languageParts>[0]) => render(and(...languageParts(f)));

  it('ORs included languages by canonical name', () => {
    expect(query({ languages: ['ts', 'golang', 'Go Module'] })).toBe('( lang:"TypeScript" or lang:"Go" or lang:"Go Module" )');
    expect(query({ languages: ['ts', 'typescript'] })).toBe('lang:"TypeScript"');
  });

  it('negates excluded languages one by one', () => {
    expect(query({ exclude_languages: ['md', 'json'] })).toBe('-lang:"Markdown" -lang:"JSON"');
  });

  it('source_code_only leaves out every prose, config and data language, and no code language', () => {
    const q = query({ source_code_only: true });
    for (const n of ['Markdown', 'Text', 'JSON', 'YAML', 'TOML', 'XML', 'INI', 'CSV', 'reStructuredText', 'AsciiDoc']) {
      expect(q).toContain(`-lang:"${n}"`);
    }
    for (const n of ['Go', 'TypeScript', 'SQL', 'Python']) expect(q).not.toContain(`lang:"${n}"`);
    expect(NON_CODE_LANGUAGES.length).toBeGreaterThan(100);
    // With exclude_languages it is fine, and a language is not negated twice.
    const both = query({ source_code_only: true, exclude_languages: ['go', 'markdown'] });
    expect(both).toContain('-lang:"Go"');
    expect(both.split('-lang:"Markdown"').length).toBe(2);
  });

  it('refuses languages with source_code_only, and a language both included and excluded', () => {
    expect(errorOf(() => languageParts({ languages: ['go'], source_code_only: true })).code).toBe('INVALID_ARGUMENT');
    const both = errorOf(() => languageParts({ languages: ['ts', 'go'], exclude_languages: ['typescript'] }));
    expect(both.code).toBe('INVALID_ARGUMENT');
    expect(both.message).toContain("'TypeScript'");
  });
});
