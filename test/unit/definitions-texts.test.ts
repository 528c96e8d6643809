import { describe, expect, it } from 'vitest';
import { definitionText, docSummary } from '../../src/definitions-index/texts.js';

describe('the text of a definition', () => {
  it('is its name in words, its kind, its parent in words and its doc comment', () => {
    expect(definitionText({ name: 'ToUpper', kind: 'function', documentation: 'ToUpper returns s with all Unicode letters mapped to their upper case.' })).toBe(
      'to upper (function): ToUpper returns s with all Unicode letters mapped to their upper case.',
    );
    expect(definitionText({ name: 'read_all', kind: 'method', parent: 'BufferedReader' })).toBe('read all (method of buffered reader)');
    expect(definitionText({ name: '__init__', kind: 'method', parent: 'HTTPServer' })).toBe('init (method of http server)');
    expect(definitionText({ name: '_', kind: 'variable' })).toBe('_ (variable)');
  });

  it('keeps the summary of a doc comment: no tags, sections or examples', () => {
    expect(docSummary('Parses a date.\n@param s the text\n@returns the date')).toBe('Parses a date.');
    expect(docSummary('Sends the request.\n\nArgs:\n    url: where to\nReturns:\n    the answer')).toBe('Sends the request.');
    expect(docSummary('Opens a file.\n:param path: the file\n:rtype: File')).toBe('Opens a file.');
    expect(docSummary('Sorts the list in place.\n\nParameters\n----------\nkey : callable')).toBe('Sorts the list in place.');
    expect(docSummary('Returns the {@link Node} after {@code n}, or `null`.')).toBe('Returns the Node after n, or null.');
    expect(docSummary('Joins the parts\nwith the separator\nbetween each two.\n\nNot this.')).toBe('Joins the parts with the separator between each two.');
    expect(docSummary('\n\nLeading blank lines go.')).toBe('Leading blank lines go.');
    expect(docSummary('Calls the handler.\n\n# Examples\n\n```\nf()\n```')).toBe('Calls the handler.');
    expect(docSummary(undefined)).toBe('');
    const long = Array.from({ length: 4 }, () => 'word '.repeat(30).trim()).join('\n');
    const cut = docSummary(long);
    expect(cut.length).toBeLessThanOrEqual(400);
    expect(cut.endsWith('word')).toBe(true);
  });
});
