/**
 * get_file_outline on real files, against what each language's own parser declares in them
 * (test/support/truth/: go/parser over Go's tree, ast over CPython's standard library, the
 * TypeScript compiler over `effect` and `undici`): every declaration of the main kinds is in the
 * outline at its line (at the recall the symbol tests hold the extractor to), each member is
 * under its type when the type is declared in the same file, and every level is in line order.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { OutlineOutput, OutlineSymbol } from '../../src/search/outline.js';
import { call, connectInProcess, failed, ok, type Connected } from '../support/mcp.js';
import { scanCorpus } from '../support/truth.js';
import { goDeclarations, pythonDeclarations, scriptDeclarations, type Declarations } from '../support/truth/declarations.js';

const MAIN_KINDS = new Set(['function', 'method', 'class', 'struct', 'interface', 'type', 'enum']);
const HOLDER_KINDS = new Set(['class', 'struct', 'interface', 'type', 'enum']);
const SAMPLE = 40;
const RECALL = 0.99;

/** Every `step`-th file of a sorted list: the same sample in every run. */
function sample(files: string[], n: number): string[] {
  const sorted = [...files].sort();
  const step = Math.max(1, Math.floor(sorted.length / n));
  return sorted.filter((_, i) => i % step === 0).slice(0, n);
}

interface Placed {
  node: OutlineSymbol;
  /** The names of the nodes it is under, outermost first. */
  under: string[];
}

function flatten(nodes: OutlineSymbol[], under: string[] = [], out: Placed[] = []): Placed[] {
  for (const node of nodes) {
    out.push({ node, under });
    if (node.children) flatten(node.children, [...under, node.name], out);
  }
  return out;
}

/** Line order at every level. */
function inLineOrder(nodes: OutlineSymbol[]): boolean {
  return nodes.every((n, i) => (i === 0 || nodes[i - 1]!.line <= n.line) && inLineOrder(n.children ?? []));
}

async function outline(mcp: Connected, repo: string, path: string): Promise<OutlineOutput> {
  return ok<OutlineOutput>(await call(mcp.client, 'get_file_outline', { repo, path, limit: 500, max_output_chars: 1_000_000 }));
}

async function check(mcp: Connected, repo: string, files: string[], truth: Declarations): Promise<{ declared: number; found: number; members: number; nested: number }> {
  const unparsed = new Set(truth.unparsed);
  let declared = 0;
  let found = 0;
  let members = 0;
  let nested = 0;
  const missed: string[] = [];
  for (const path of files.filter((f) => !unparsed.has(f))) {
    const out = await outline(mcp, repo, path);
    expect(out.next_cursor, path).toBeUndefined();
    expect(inLineOrder(out.symbols), `${path} in line order`).toBe(true);
    const placed = flatten(out.symbols);
    const at = new Map(placed.map((p) => [`${p.node.line}:${p.node.name}`, p]));
    const decls = truth.declarations.filter((d) => d.path === path && MAIN_KINDS.has(d.kind));
    const holders = new Set(truth.declarations.filter((d) => d.path === path && HOLDER_KINDS.has(d.kind)).map((d) => d.name));
    for (const d of decls) {
      declared++;
      const p = at.get(`${d.line}:${d.name}`);
      if (!p) {
        missed.push(`${path}:${d.line}:${d.name}`);
        continue;
      }
      found++;
      if (d.parent && holders.has(d.parent)) {
        members++;
        if (p.under[p.under.length - 1] === d.parent) nested++;
        else missed.push(`${path}:${d.line}:${d.name} not under ${d.parent} (under ${p.under.join('.') || 'the top'})`);
      }
    }
  }
  if (missed.length) console.log(`${repo}: ${missed.length} not found or not nested:\n  ${missed.slice(0, 10).join('\n  ')}`);
  return { declared, found, members, nested };
}

function expectFigures(what: string, f: { declared: number; found: number; members: number; nested: number }): void {
  console.log(`${what}: ${f.found}/${f.declared} declarations in the outline, ${f.nested}/${f.members} members under their type`);
  expect(f.declared).toBeGreaterThan(100);
  expect(f.found / f.declared).toBeGreaterThanOrEqual(RECALL);
  expect(f.members).toBeGreaterThan(10);
  expect(f.nested / f.members).toBeGreaterThanOrEqual(RECALL);
}

describe("Go's tree against go/parser", () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInProcess({ url: inject('goZoektUrl') });
  });
  afterAll(() => mcp.close());

  it(`${SAMPLE} files: their declarations, nested and in order`, async () => {
    const root = inject('goSrcRoot');
    const files = sample(scanCorpus(root).indexed.filter((f) => f.endsWith('.go') && !f.includes('testdata/')), SAMPLE);
    expectFigures("Go's tree", await check(mcp, inject('goRepo'), files, goDeclarations(root, files)));
  }, 300_000);

  it('says NOT_FOUND with the nearest paths for a file that is not there', async () => {
    const err = failed(await call(mcp.client, 'get_file_outline', { repo: inject('goRepo'), path: 'bufio/scanner.go' }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.hint).toContain('bufio/scan.go');
  });

  it('pages a long outline in line order, each symbol once', async () => {
    const repo = inject('goRepo');
    const path = 'net/http/server.go';
    const whole = flatten((await outline(mcp, repo, path)).symbols).map((p) => `${p.node.line}:${p.node.name}`);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const out = ok<OutlineOutput>(await call(mcp.client, 'get_file_outline', { repo, path, limit: 40, ...(cursor ? { cursor } : {}) }));
      seen.push(...flatten(out.symbols).map((p) => `${p.node.line}:${p.node.name}`));
      cursor = out.next_cursor;
      if (!cursor) break;
    }
    expect(whole.length).toBeGreaterThan(200);
    expect([...seen].sort()).toEqual([...whole].sort());
  });
});

describe.each(['Python', 'TypeScript', 'JavaScript'] as const)('%s against its own parser', (language) => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInProcess({ url: inject('corporaZoektUrl') });
  });
  afterAll(() => mcp.close());

  it(`${SAMPLE} files: their declarations, nested and in order`, async () => {
    const corpus = inject('corpora').find((c) => c.language === language)!;
    const files = sample(corpus.files, SAMPLE);
    const truth = language === 'Python' ? pythonDeclarations(corpus.root, files) : scriptDeclarations(corpus.root, files);
    expectFigures(corpus.repo, await check(mcp, corpus.repo, files, truth));
  }, 300_000);
});

describe('get_file with symbol: one definition\'s lines', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInProcess({ url: inject('goZoektUrl') });
  });
  afterAll(() => mcp.close());

  /** The lines go/parser gives a declaration, doc comment included (go-decls.go prints none: read the file). */
  it('Go: a function from its doc comment to its closing brace, a method by Type.name', async () => {
    const repo = inject('goRepo');
    const root = inject('goSrcRoot');
    const lines = (await import('node:fs')).readFileSync(`${root}/bufio/scan.go`, 'utf8').split('\n');
    const out = ok<{ start_line: number; end_line: number; content: string }>(await call(mcp.client, 'get_file', { repo, path: 'bufio/scan.go', symbol: 'Scanner.Buffer' }));
    // Independently: the doc comment starts after the blank line above, the body ends at the first `}` in column 0.
    const decl = lines.findIndex((l) => l.startsWith('func (s *Scanner) Buffer(')) + 1;
    let docStart = decl;
    while (lines[docStart - 2]!.startsWith('//')) docStart--;
    const end = lines.findIndex((l, i) => i >= decl && l === '}') + 1;
    expect([out.start_line, out.end_line]).toEqual([docStart, end]);
    expect(out.content.trimEnd().endsWith('}')).toBe(true);
  });

  it('names what the file defines when the symbol is not there, and refuses symbol with a range', async () => {
    const repo = inject('goRepo');
    const missing = failed(await call(mcp.client, 'get_file', { repo, path: 'bufio/scan.go', symbol: 'NoSuchThing' }));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.hint).toMatch(/get_file_outline lists them all/);
    const both = failed(await call(mcp.client, 'get_file', { repo, path: 'bufio/scan.go', symbol: 'Scanner', start_line: 3 }));
    expect(both.code).toBe('INVALID_ARGUMENT');
  });
});
