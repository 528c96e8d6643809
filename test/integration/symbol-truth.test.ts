/**
 * The symbols in the index, checked against what each language's own parser reads from the same
 * files (test/support/truth/): Go's tree with go/parser, CPython's standard library with ast, the
 * TypeScript of `effect` and the JavaScript of `undici` with the TypeScript compiler. Per kind,
 * and per depth (a file's own, a member of a type, nested in a function or an object literal):
 * recall (the parser's declarations that the index has, at that line under that name) and
 * precision (the index's symbols that are such declarations). The figures are printed.
 *
 * The index is read from Zoekt's own API (every symbol of the files); a sample of declarations is
 * then asked for through search_symbols over MCP, the way an agent asks.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { normalizeKind } from '../../src/search/vocab/kinds.js';
import type { Corpus } from '../support/corpora.js';
import { indexedSymbols, type IndexedSymbol } from '../support/index-symbols.js';
import { call, connectInProcess, ok, type Connected } from '../support/mcp.js';
import { scanCorpus } from '../support/truth.js';
import { goDeclarations, pythonDeclarations, scriptDeclarations, type Declaration, type Declarations } from '../support/truth/declarations.js';

/** The kinds the recall target is for, per language (Go has structs where others have classes). */
const MAIN_KINDS: Record<string, string[]> = {
  Go: ['function', 'method', 'struct', 'interface', 'type'],
  Python: ['class', 'method', 'function'],
  TypeScript: ['class', 'method', 'function', 'interface', 'type', 'enum'],
  JavaScript: ['class', 'method', 'function'],
};

const TARGET = 0.99;

type Depth = Declaration['depth'];
const DEPTHS: Depth[] = ['top', 'member', 'nested'];

interface Figures {
  kind: string;
  /** A depth, or all of them. */
  depth: Depth | 'all';
  declarations: number;
  found: number;
  recall: number;
  /** Of those found, how many carry the same kind, and the same parent. */
  sameKind: number;
  sameParent: number;
  returned: number;
  real: number;
  precision: number;
}

const at = (x: { path: string; line: number; name: string }) => `${x.path}:${x.line}:${x.name}`;

/** Where a symbol the language's parser does not declare stands, by what encloses it. */
function depthOf(s: IndexedSymbol): Depth {
  if (!s.parent) return 'top';
  return /^(function|method|constructor|variable|constant|property)$/i.test(s.parentKind) ? 'nested' : 'member';
}

function compare(language: string, truth: Declarations, symbols: IndexedSymbol[]): Figures[] {
  const unparsed = new Set(truth.unparsed);
  const declared = new Map(truth.declarations.map((d) => [at(d), d]));
  const files = new Set(truth.declarations.map((d) => d.path));
  // The index's symbols in the files the language's parser read, in that language.
  const ours = symbols.filter((s) => s.language === language && files.has(s.path) && !unparsed.has(s.path));
  const byKey = new Map(ours.map((s) => [at(s), s]));
  const kindOf = (s: IndexedSymbol) => normalizeKind(s.kind, s.language, s.parent ? s.parentKind : undefined) ?? s.kind.toLowerCase();
  // Each symbol's key, kind and depth worked out once: the figures below read them per kind and depth.
  const mine = ours.map((s) => {
    const key = at(s);
    return { s, kind: kindOf(s), depth: declared.get(key)?.depth ?? depthOf(s), real: declared.has(key) };
  });
  const kinds = [...new Set([...truth.declarations.map((d) => d.kind), ...mine.map((m) => m.kind)])].sort();
  // Each declaration's symbol in the index, and whether it agrees, worked out once; then both
  // sides by kind, so that each figure reads its own kind only (Go's tree has 100k declarations).
  const decls = new Map<string, { d: Declaration; s: IndexedSymbol | undefined; sameKind: boolean; sameParent: boolean }[]>();
  for (const d of truth.declarations) {
    const s = byKey.get(at(d));
    const row = { d, s, sameKind: s !== undefined && kindOf(s) === d.kind, sameParent: s !== undefined && (s.parent ?? '') === d.parent };
    const list = decls.get(d.kind);
    if (list) list.push(row);
    else decls.set(d.kind, [row]);
  }
  const mineByKind = new Map<string, typeof mine>();
  for (const m of mine) {
    const list = mineByKind.get(m.kind);
    if (list) list.push(m);
    else mineByKind.set(m.kind, [m]);
  }
  const figures = (kind: string, depth: Depth | 'all'): Figures => {
    const of = (decls.get(kind) ?? []).filter((r) => depth === 'all' || r.d.depth === depth);
    const hits = of.filter((r) => r.s !== undefined);
    const returned = (mineByKind.get(kind) ?? []).filter((m) => depth === 'all' || m.depth === depth);
    const real = returned.filter((m) => m.real).length;
    return {
      kind,
      depth,
      declarations: of.length,
      found: hits.length,
      recall: of.length ? hits.length / of.length : 1,
      sameKind: hits.filter((r) => r.sameKind).length,
      sameParent: hits.filter((r) => r.sameParent).length,
      returned: returned.length,
      real,
      precision: returned.length ? real / returned.length : 1,
    };
  };
  return kinds.flatMap((kind) => [figures(kind, 'all'), ...DEPTHS.map((depth) => figures(kind, depth)).filter((f) => f.declarations || f.returned)]);
}

function print(title: string, figures: Figures[], truth: Declarations): void {
  const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
  const rows = figures.map(
    (f) =>
      `  ${(f.depth === 'all' ? f.kind : `  ${f.depth}`).padEnd(10)} recall ${`${f.found}/${f.declarations}`.padStart(15)} ${pct(f.recall).padStart(8)}  same kind ${pct(f.found ? f.sameKind / f.found : 1).padStart(8)}  same parent ${pct(f.found ? f.sameParent / f.found : 1).padStart(8)}   precision ${`${f.real}/${f.returned}`.padStart(15)} ${pct(f.precision).padStart(8)}`,
  );
  const all = figures.filter((f) => f.depth === 'all');
  const returned = all.reduce((n, f) => n + f.returned, 0);
  const real = all.reduce((n, f) => n + f.real, 0);
  console.log(
    `${title}: ${truth.declarations.length} declarations read by the language's parser (${truth.unparsed.length} file(s) it could not parse left out); per kind, then per depth (top, member, nested)\n${rows.join('\n')}\n  all symbols precision ${real}/${returned} ${pct(returned ? real / returned : 1)}`,
  );
}

function expectTargets(language: string, figures: Figures[]): void {
  const all = figures.filter((f) => f.depth === 'all');
  for (const f of all) {
    if (!MAIN_KINDS[language]!.includes(f.kind) || f.declarations === 0) continue;
    expect(f.recall, `${language} ${f.kind} recall ${f.found}/${f.declarations}`).toBeGreaterThanOrEqual(TARGET);
    expect(f.sameKind / Math.max(1, f.found), `${language} ${f.kind}: found with another kind`).toBeGreaterThanOrEqual(TARGET);
    expect(f.precision, `${language} ${f.kind} precision ${f.real}/${f.returned}`).toBeGreaterThanOrEqual(TARGET);
  }
  const returned = all.reduce((n, f) => n + f.returned, 0);
  const real = all.reduce((n, f) => n + f.real, 0);
  expect(real / returned, `${language}: all symbols, precision ${real}/${returned}`).toBeGreaterThanOrEqual(TARGET);
}

/** Definitions at every depth: what functions and object literals hold is found too, where the language has it. */
function expectNested(language: string, figures: Figures[]): void {
  const nested = figures.filter((f) => f.depth === 'nested' && MAIN_KINDS[language]!.includes(f.kind));
  const declarations = nested.reduce((n, f) => n + f.declarations, 0);
  const found = nested.reduce((n, f) => n + f.found, 0);
  expect(declarations, `${language}: nested declarations`).toBeGreaterThan(100);
  expect(found / declarations, `${language}: nested recall ${found}/${declarations}`).toBeGreaterThanOrEqual(0.98);
}

/** Every `step`-th declaration of the main kinds, asked for by name through search_symbols. */
async function spotCheck(mcp: Connected, language: string, truth: Declaration[], repo: string, step: number): Promise<void> {
  const sample = truth.filter((d) => MAIN_KINDS[language]!.includes(d.kind) && /^[A-Za-z_$][\w$]*$/.test(d.name)).filter((_, i) => i % step === 0);
  expect(sample.length).toBeGreaterThan(10);
  const missing: string[] = [];
  for (const d of sample) {
    const out = ok<{ symbols: { path: string; line: number; kind: string }[] }>(
      await call(mcp.client, 'search_symbols', { name: d.name, case_sensitive: true, repos: [repo], paths: [`/${d.path}`], include_vendored: true, limit: 100 }),
    );
    if (!out.symbols.some((s) => s.path === d.path && s.line === d.line)) missing.push(at(d));
  }
  expect(missing, `${missing.length} of ${sample.length} not found through search_symbols`).toEqual([]);
}

describe("Go's tree against go/parser", () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInProcess({ url: inject('goZoektUrl') });
  });
  afterAll(() => mcp.close());

  it('recall and precision per kind', async () => {
    const root = inject('goSrcRoot');
    const files = scanCorpus(root).indexed.filter((f) => f.endsWith('.go'));
    const truth = goDeclarations(root, files);
    const figures = compare('Go', truth, await indexedSymbols(inject('goZoektUrl'), inject('goRepo'), files));
    print("Go's tree (go/parser)", figures, truth);
    expectTargets('Go', figures);
    await spotCheck(mcp, 'Go', truth.declarations, inject('goRepo'), 2000);
  }, 300_000);
});

describe.each(['Python', 'TypeScript', 'JavaScript'] as const)('%s corpus against its own parser', (language) => {
  let mcp: Connected;
  let corpus: Corpus;
  beforeAll(async () => {
    corpus = inject('corpora').find((c) => c.language === language)!;
    mcp = await connectInProcess({ url: inject('corporaZoektUrl') });
  });
  afterAll(() => mcp.close());

  it('recall and precision per kind', async () => {
    const truth = language === 'Python' ? pythonDeclarations(corpus.root, corpus.files) : scriptDeclarations(corpus.root, corpus.files);
    const figures = compare(language, truth, await indexedSymbols(inject('corporaZoektUrl'), corpus.repo, corpus.files));
    print(`${corpus.repo} (${language === 'Python' ? 'ast' : 'the TypeScript compiler'})`, figures, truth);
    expectTargets(language, figures);
    expectNested(language, figures);
    await spotCheck(mcp, language, truth.declarations, corpus.repo, language === 'Python' ? 1000 : 100);
  }, 300_000);
});
