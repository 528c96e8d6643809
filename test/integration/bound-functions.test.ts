/**
 * A function value bound to a name is a definition at every depth: `const patch = (n1, n2) => {…}`
 * inside a function (TypeScript and JavaScript), `key = lambda item: …` (Python), `f := func(…)
 * {…}` (Go). Checked against what each language's own parser reads from real trees
 * (test/support/truth/: the TypeScript compiler over `effect` and `undici`, ast over CPython's
 * standard library, go/parser over Go's tree), which marks these declarations `bound`: every one
 * is in the index at its line, a function (a method at a Python class's level) whose parent is
 * the definition it is in; a sample is asked for through search_symbols and get_file_outline, the
 * way an agent asks.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { OutlineOutput, OutlineSymbol } from '../../src/search/outline.js';
import { normalizeKind } from '../../src/search/vocab/kinds.js';
import { indexedSymbols, type IndexedSymbol } from '../support/index-symbols.js';
import { call, connectInProcess, ok, type Connected } from '../support/mcp.js';
import { scanCorpus } from '../support/truth.js';
import { goDeclarations, pythonDeclarations, scriptDeclarations, type Declaration, type Declarations } from '../support/truth/declarations.js';

const TARGET = 0.99;

const at = (x: { path: string; line: number; name: string }) => `${x.path}:${x.line}:${x.name}`;

interface Tree {
  language: 'Go' | 'Python' | 'TypeScript' | 'JavaScript';
  url: string;
  repo: string;
  files: string[];
  truth: Declarations;
}

function tree(language: Tree['language']): Tree {
  if (language === 'Go') {
    const root = inject('goSrcRoot');
    const files = scanCorpus(root).indexed.filter((f) => f.endsWith('.go'));
    return { language, url: inject('goZoektUrl'), repo: inject('goRepo'), files, truth: goDeclarations(root, files) };
  }
  const corpus = inject('corpora').find((c) => c.language === language)!;
  const truth = language === 'Python' ? pythonDeclarations(corpus.root, corpus.files) : scriptDeclarations(corpus.root, corpus.files);
  return { language, url: inject('corporaZoektUrl'), repo: corpus.repo, files: corpus.files, truth };
}

/** The parser's bound functions, and for each the index's symbol at its line: found, of its kind, under its parent. */
function compare(t: Tree, symbols: IndexedSymbol[]): { bound: Declaration[]; found: number; sameKind: number; sameParent: number; nested: number; missed: string[] } {
  const unparsed = new Set(t.truth.unparsed);
  const byKey = new Map(symbols.filter((s) => s.language === t.language).map((s) => [at(s), s]));
  const bound = t.truth.declarations.filter((d) => d.bound && !unparsed.has(d.path));
  let found = 0;
  let sameKind = 0;
  let sameParent = 0;
  const missing: string[] = [];
  const otherKind: string[] = [];
  const otherParent: string[] = [];
  for (const d of bound) {
    const s = byKey.get(at(d));
    if (!s) {
      missing.push(`${at(d)} (parent ${d.parent || '-'})`);
      continue;
    }
    found++;
    if (normalizeKind(s.kind, s.language, s.parent ? s.parentKind : undefined) === d.kind) sameKind++;
    else otherKind.push(`${at(d)}: ${s.kind}, not ${d.kind}`);
    if ((s.parent ?? '') === d.parent) sameParent++;
    else otherParent.push(`${at(d)}: under ${s.parent || '-'}, not ${d.parent || '-'}`);
  }
  const missed = [...missing.slice(0, 5), ...otherKind.slice(0, 5), ...otherParent.slice(0, 5)];
  return { bound, found, sameKind, sameParent, nested: bound.filter((d) => d.depth === 'nested').length, missed };
}

/** Every `step`-th of `list`: the same sample in every run. */
const every = <T>(list: T[], step: number): T[] => list.filter((_, i) => i % step === 0);

function flatten(nodes: OutlineSymbol[], under: string[] = [], out: { node: OutlineSymbol; under: string[] }[] = []) {
  for (const node of nodes) {
    out.push({ node, under });
    if (node.children) flatten(node.children, [...under, node.name], out);
  }
  return out;
}

/** A file's outline, every page of it, each node with the names of the nodes it is under. */
async function outline(mcp: Connected, repo: string, path: string): Promise<{ node: OutlineSymbol; under: string[] }[]> {
  const out: { node: OutlineSymbol; under: string[] }[] = [];
  let cursor: string | undefined;
  do {
    const page = ok<OutlineOutput>(await call(mcp.client, 'get_file_outline', { repo, path, limit: 500, max_output_chars: 1_000_000, ...(cursor ? { cursor } : {}) }));
    // A symbol whose parent is on another page stands at the top of its own, naming its parent.
    out.push(...flatten(page.symbols).map((p) => (p.under.length === 0 && p.node.parent ? { ...p, under: [p.node.parent] } : p)));
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  return out;
}

/** The fewest bound functions, and nested ones, each tree has (what its parser read on the machines the tests run on, rounded down). */
const AT_LEAST: Record<Tree['language'], { bound: number; nested: number }> = {
  Go: { bound: 1000, nested: 1000 },
  Python: { bound: 100, nested: 30 },
  TypeScript: { bound: 4000, nested: 500 },
  JavaScript: { bound: 30, nested: 30 },
};

describe.each(['Go', 'Python', 'TypeScript', 'JavaScript'] as const)('%s: function values bound to a name, against its own parser', (language) => {
  let t: Tree;
  let mcp: Connected;
  beforeAll(async () => {
    t = tree(language);
    mcp = await connectInProcess({ url: t.url });
  });
  afterAll(() => mcp.close());

  it('each is in the index at its line, a function under the definition it is in', async () => {
    const files = [...new Set(t.truth.declarations.filter((d) => d.bound).map((d) => d.path))];
    const f = compare(t, await indexedSymbols(t.url, t.repo, files));
    console.log(
      `${t.repo}: ${f.bound.length} bound functions (${f.nested} nested in a function) read by the language's parser; ${f.found} in the index, ${f.sameKind} of its kind, ${f.sameParent} under its parent${f.missed.length ? `\n  ${f.missed.join('\n  ')}` : ''}`,
    );
    expect(f.bound.length).toBeGreaterThan(AT_LEAST[language].bound);
    expect(f.nested).toBeGreaterThan(AT_LEAST[language].nested);
    expect(f.found / f.bound.length, `recall ${f.found}/${f.bound.length}`).toBeGreaterThanOrEqual(TARGET);
    expect(f.sameKind / f.found, `same kind ${f.sameKind}/${f.found}`).toBeGreaterThanOrEqual(TARGET);
    expect(f.sameParent / f.found, `same parent ${f.sameParent}/${f.found}`).toBeGreaterThanOrEqual(TARGET);
  }, 300_000);

  it('search_symbols finds a sample by name, of its kind, under its parent; the outline nests them', async () => {
    const nested = t.truth.declarations.filter((d) => d.bound && d.depth === 'nested' && /^[A-Za-z_$][\w$]*$/.test(d.name) && !t.truth.unparsed.includes(d.path));
    const sample = every(nested, Math.max(1, Math.floor(nested.length / 25)));
    expect(sample.length).toBeGreaterThan(10);
    const missing: string[] = [];
    for (const d of sample) {
      const out = ok<{ symbols: { path: string; line: number; kind: string; parent?: string }[] }>(
        await call(mcp.client, 'search_symbols', { name: d.name, case_sensitive: true, repos: [t.repo], paths: [`/${d.path}`], include_vendored: true, limit: 100 }),
      );
      const s = out.symbols.find((x) => x.path === d.path && x.line === d.line);
      // The bare name of the parent; search_symbols reads a private method's `#` as a separator (`C#m`).
      const parent = d.parent.split('.').pop()?.replace(/^#/, '');
      if (!s || s.kind !== d.kind || s.parent !== parent) missing.push(`${at(d)}: ${s ? `${s.kind} under ${s.parent ?? '-'}` : 'not found'}, not ${d.kind} under ${parent}`);
    }
    expect(missing, `${missing.length} of ${sample.length} through search_symbols`).toEqual([]);
    // The outline of a few of their files: each under the node of its parent.
    const files = every([...new Set(sample.map((d) => d.path))], 3).slice(0, 6);
    const misplaced: string[] = [];
    for (const path of files) {
      const placed = new Map((await outline(mcp, t.repo, path)).map((p) => [`${p.node.line}:${p.node.name}`, p]));
      for (const d of nested.filter((x) => x.path === path)) {
        const p = placed.get(`${d.line}:${d.name}`);
        const parent = d.parent.split('.').pop();
        if (!p || p.node.kind !== d.kind || p.under[p.under.length - 1] !== parent) misplaced.push(`${at(d)}: ${p ? `${p.node.kind} under ${p.under.join('.') || 'the top'}` : 'not in the outline'}`);
      }
    }
    expect(misplaced, `${misplaced.length} misplaced in the outlines of ${files.join(', ')}`).toEqual([]);
  }, 300_000);
});
