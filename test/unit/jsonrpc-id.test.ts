/** Request ids read from the text as sent (src/server/jsonrpc-id.ts): the digits past 2^53 - 1 kept. */
import { describe, expect, it } from 'vitest';
import { answerIdText, errorAnswerText, idTexts } from '../../src/server/jsonrpc-id.js';

describe('idTexts', () => {
  it.each([
    ['a big number', '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', ['9007199254740993']],
    ['a string with escapes', '{"method":"x","id":"a\\"b\\\\","params":{"id":1}}', ['"a\\"b\\\\"']],
    ['only the top level, not params.id', '{"params":{"id":7},"method":"x"}', [undefined]],
    ['the last of repeated ids, as JSON.parse', '{"id":1,"method":"x","id":2}', ['2']],
    ['spaces around', ' { "id" : -12 , "method" : "x" } ', ['-12']],
    ['a key that ends in a backslash', '{"k\\\\":"}","id":3}', ['3']],
    ['null', '{"id":null,"method":"x"}', ['null']],
    ['a batch: each element, objects only', '[{"id":1},5,[{"id":9}],{"method":"n"},{"id":"z"}]', ['1', undefined, undefined, undefined, '"z"']],
    ['not an object', '42', [undefined]],
    // Deeper than the stack of a recursive walk: the nested values are skipped, not walked into.
    ['params nested 50,000 deep', `{"params":${'['.repeat(50_000)}${']'.repeat(50_000)},"id":7,"method":"x"}`, ['7']],
    ['a batch nested 50,000 deep', `${'['.repeat(50_000)}${']'.repeat(50_000)}`, [undefined]],
    ['objects nested 50,000 deep, an id at each level', `[{"id":1,"a":${'{"id":0,"a":'.repeat(50_000)}0${'}'.repeat(50_000)}},{"a":"]}","id":"y"}]`, ['1', '"y"']],
  ])('%s', (_what, text, ids) => {
    JSON.parse(text);
    expect(idTexts(text)).toEqual(ids);
  });
});

describe('answerIdText', () => {
  it("is a request's string or whole-number id, else null", () => {
    expect(answerIdText(JSON.parse('{"method":"x","id":9007199254740993}'), '9007199254740993')).toBe('9007199254740993');
    expect(answerIdText({ method: 'x', id: 's' }, '"s"')).toBe('"s"');
    expect(answerIdText({ method: 'x', id: 1.5 }, '1.5')).toBe('null');
    expect(answerIdText({ method: 'x', id: null }, 'null')).toBe('null');
    expect(answerIdText({ method: 'x', id: {} }, '{}')).toBe('null');
    // A response's id is one of the server's own requests, never the client's.
    expect(answerIdText({ id: 4 }, '4')).toBe('null');
  });

  it('answers with the digits as sent', () => {
    const text = errorAnswerText('9007199254740993', -32600, 'Invalid Request: "x"');
    expect(text).toBe('{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32600,"message":"Invalid Request: \\"x\\""}}');
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });
});
