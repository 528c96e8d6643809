import { describe, expect, it } from 'vitest';
import { acronymsOf, concept, coverage, descriptionWords, identifierWords, relatedWords, shortens, shortForms, stem } from '../../src/search/definitions/words.js';
import { loadVocabulary, relatedTo } from '../../src/search/definitions/vocabulary.js';

describe('identifier words', () => {
  it.each([
    ['connect_to_database', ['connect', 'to', 'database']],
    ['parseHTTPRequest2', ['parse', 'http', 'request', '2']],
    ['HTTPServer', ['http', 'server']],
    ['kebab-case-name', ['kebab', 'case', 'name']],
    ['Vector_impl', ['vector', 'impl']],
    ['ReadAll', ['read', 'all']],
    ['utf8Decode', ['utf', '8', 'decode']],
  ])('%s', (id, words) => {
    expect(identifierWords(id)).toEqual(words);
  });
});

describe('description words', () => {
  it('drops words that name nothing, and repeats of one concept', () => {
    expect(descriptionWords('where is the database connection handled?')).toEqual(['database', 'connection', 'handled']);
    expect(descriptionWords('find the retry logic')).toEqual(['retry']);
    expect(descriptionWords('connect and connection')).toEqual(['connect']);
    // Snowball's function words go; the words names relate things by stay.
    expect(descriptionWords('parse a string as a semantic version')).toEqual(['parse', 'string', 'semantic', 'version']);
    expect(descriptionWords('is it greater than theirs')).toEqual(['greater']);
    expect(descriptionWords('run before each test, not after')).toEqual(['run', 'before', 'each', 'test', 'not', 'after']);
  });
});

describe('concepts', () => {
  it('meet across inflections and the abbreviations code uses', () => {
    for (const [a, b] of [
      ['handling', 'handle'],
      ['handled', 'handler'],
      ['connection', 'conn'],
      ['connecting', 'connect'],
      ['database', 'db'],
      ['configuration', 'cfg'],
      ['message', 'msg'],
      ['initialize', 'init'],
      ['retries', 'retry'],
      ['requests', 'req'],
    ]) expect(concept(a!), `${a} ~ ${b}`).toBe(concept(b!));
    expect(concept('database')).not.toBe(concept('data'));
    expect(stem('class')).toBe('class');
  });
});

describe('coverage', () => {
  const words = descriptionWords('database connection handling');
  it('ranks the name that covers the description above partial ones', () => {
    const full = coverage(words, 'connect_to_database');
    const partial = coverage(words, 'DatabaseName');
    const none = coverage(words, 'render');
    expect(full.matched).toEqual(['database', 'connection']);
    expect(full.score).toBeGreaterThan(partial.score);
    expect(full.extra).toBe(1);
    expect(partial.score).toBeGreaterThan(none.score);
    expect(none).toMatchObject({ score: 0, matched: [] });
  });
  it('counts the words of the parent and folder in full, those of the file name at half', () => {
    const words = descriptionWords('parse url');
    expect(coverage(words, 'Parse', ['', 'url'], ['url']).score).toBe(1);
    expect(coverage(words, 'Parse', [''], ['url']).score).toBe(0.75);
    expect(coverage(words, 'Parse').score).toBe(0.5);
  });
});

describe('short forms (AMAP\'s prefix and dropped-letter patterns)', () => {
  it('take a word\'s first letters, or its first letter and consonants in order', () => {
    for (const [short, word] of [['inc', 'increment'], ['diff', 'difference'], ['loos', 'loosely'], ['cmp', 'compare'], ['ptr', 'pointer'], ['msg', 'message']]) {
      expect(shortens(short!, word!), `${short} ${word}`).toBe(true);
    }
  });
  it('not a word that is one letter short, two letters, another start, or vowels out of place', () => {
    for (const [short, word] of [['use', 'user'], ['read', 'ready'], ['in', 'index'], ['set', 'select'], ['cpm', 'compare'], ['dif', 'indifferent']]) {
      expect(shortens(short!, word!), `${short} ${word}`).toBe(false);
    }
  });
  it('are looked for by the first letters and the first consonants, each one shortens accepts', () => {
    expect(shortForms('increment')).toEqual(['inc', 'incr']);
    expect(shortForms('compare')).toEqual(['com', 'comp', 'cmp']);
    expect(shortForms('difference')).toEqual(['dif', 'diff', 'dff']);
    expect(shortForms('user')).toEqual([]);
    expect(shortForms('utf8')).toEqual([]);
    for (const w of ['increment', 'compare', 'difference', 'loosely']) for (const f of shortForms(w)) expect(shortens(f, w), `${f} ${w}`).toBe(true);
  });
  it('count in coverage as the word itself, in the name', () => {
    const words = descriptionWords('compare versions loosely');
    expect(coverage(words, 'compareLoose')).toMatchObject({ matched: ['compare', 'loosely'], named: true });
    expect(coverage(words, 'compareLoose').score).toBeGreaterThan(coverage(words, 'compareMain').score);
  });
});

describe('acronyms (AMAP\'s acronym pattern)', () => {
  const of = (d: string, isWord?: (t: string) => boolean) => acronymsOf(d, descriptionWords(d), isWord);
  it('spell the first letters of consecutive words, stop words inside taken or left out', () => {
    const a = of('is a version greater than or equal to another');
    expect(a.get('gt')).toEqual(['greater']);
    expect(a.get('gte')).toEqual(['greater', 'equal']);
    expect(a.get('gtoe')).toEqual(['greater', 'equal']);
    expect(of('least recently used cache').get('lru')).toEqual(['least', 'recently', 'used']);
    expect(of('time to live').get('ttl')).toEqual(['time', 'live']);
  });
  it('are never a stop word, a word of the description or a word (isWord), nor start at a stop word', () => {
    const a = of('open network', (t) => t === 'get');
    expect(a.has('on')).toBe(false);
    expect(of('greater than or equal to', (t) => t === 'get').has('get')).toBe(false);
    expect(of('is it').size).toBe(0);
  });
  it('stay few and quick for a description of many stop words', () => {
    // Each stop word may be taken or left out: without merging the ways that spell the same, a
    // million of them for this one (the test's time limit ends that).
    const d = `read ${'the '.repeat(70)}file`;
    const a = acronymsOf(d, descriptionWords(d));
    expect(a.size).toBeLessThan(50);
    expect(a.get('rt')).toEqual(['read']);
  });
  it('cover every word they spell, in the name', () => {
    const d = 'least recently used cache';
    const words = descriptionWords(d);
    const out = coverage(words, 'LRUCache', [], [], new Map(), acronymsOf(d, words));
    expect(out).toMatchObject({ score: 1, matched: ['least', 'recently', 'used', 'cache'], named: true, extra: 0 });
    expect(coverage(words, 'LRUCache').score).toBe(0.25);
  });
});

describe('stems', () => {
  it('leave a word whose ending only looks like a suffix', () => {
    expect(concept('string')).toBe(concept('strings'));
    expect(concept('str')).toBe(concept('strings'));
    expect(stem('handling')).toBe(stem('handle'));
  });
});

describe('related words (WordNet, src/search/definitions/vocabulary.ts)', () => {
  it('reach the words a name uses for the same thing, through inflections and compound pronouns', async () => {
    const vocabulary = await loadVocabulary();
    expect(relatedTo(vocabulary, 'indentation')).toContain('indent');
    expect(relatedTo(vocabulary, 'everything')).toContain('all');
    expect(relatedTo(vocabulary, 'deleted')).toContain('remove');
    expect(relatedTo(vocabulary, 'zzzz')).toEqual([]);
  });

  it('leave out the same concept, the other words of the description, and what passes the cap', () => {
    const table = new Map([
      ['read', ['reader', 'interpret', 'say']],
      ['everything', ['all', 'read']],
    ]);
    const related = relatedWords(['read', 'everything'], (w) => table.get(w) ?? [], 1);
    expect(related.get('read')).toEqual(['interpret']);
    expect(related.get('everything')).toEqual(['all']);
  });

  it('count a related word at half the weight of the word, in the name only', () => {
    const related = new Map([['everything', ['all']]]);
    const words = ['read', 'everything'];
    expect(coverage(words, 'ReadAll', [], [], related)).toMatchObject({ score: 0.75, matched: ['read', 'everything'], named: true });
    expect(coverage(words, 'ReadAll').score).toBe(0.5);
    expect(coverage(words, 'Read', [], [], related).score).toBe(0.5);
    // In the parent, folder or file name a related word does not count (`array` → range met every definition under ranges/).
    expect(coverage(['everything'], 'Flush', ['all'], ['all'], related)).toMatchObject({ score: 0, matched: [], named: false });
    expect(coverage(['everything'], 'All', ['all'], [], related)).toMatchObject({ score: 0.5, named: true });
  });
});
