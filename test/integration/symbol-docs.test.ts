/**
 * search_symbols carries each definition's documentation, checked against each language's own
 * tools where they exist (`go doc` for Go's tree, Python's `__doc__` for CPython's library) and
 * against the fixture files for TSDoc, Javadoc and Rust's `///`.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, connectInProcess, ok, type Connected } from '../support/mcp.js';
import { REPO_PREFIX } from '../support/zoekt.js';

interface Sym {
  name: string;
  path: string;
  kind: string;
  documentation?: string;
}

async function docOf(mcp: Connected, args: Record<string, unknown>, path: string): Promise<string | undefined> {
  const out = ok<{ symbols: Sym[] }>(await call(mcp.client, 'search_symbols', { limit: 50, ...args }));
  const hit = out.symbols.find((s) => s.path === path);
  expect(hit, `${JSON.stringify(args)} in ${path}`).toBeDefined();
  return hit!.documentation;
}

/** Whitespace-insensitive: the tools wrap and indent differently. */
const words = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

describe("Go's tree, against go doc", () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInProcess({ url: inject('goZoektUrl') });
  });
  afterAll(() => mcp.close());

  it.each([
    ['ReadAll', 'io', 'io/io.go'],
    ['Split', 'strings', 'strings/strings.go'],
    ['NewScanner', 'bufio', 'bufio/scan.go'],
  ])('%s in %s', async (name, pkg, path) => {
    const doc = await docOf(mcp, { name, kinds: ['function'] }, path);
    // `go doc` prints the declaration, then the doc comment indented.
    const printed = execFileSync('go', ['doc', '-short=false', `${pkg}.${name}`], { encoding: 'utf8', cwd: inject('goSrcRoot') });
    const comment = printed.split('\n').filter((l) => l.startsWith('    ')).join(' ');
    expect(doc).toBeDefined();
    // go doc prints a doc link `[Scanner]` as `Scanner`.
    expect(words(comment).startsWith(words(doc).replace(/…$/, '').replace(/\[([^\]]+)\]/g, '$1')), `${doc}\n${comment}`).toBe(true);
  });

  // Comments longer than the lines first read around a name: 31, 42, 119 and 141 lines.
  it.each([
    ['Reader', 'io', 'io/io.go'],
    ['Parse', 'time', 'time/format.go'],
    ['ServeMux', 'net/http', 'net/http/server.go'],
    ['Marshal', 'encoding/json', 'encoding/json/encode.go'],
  ])('%s in %s, a long comment, from its first line', async (name, pkg, path) => {
    const doc = await docOf(mcp, { name }, path);
    const printed = execFileSync('go', ['doc', '-short=false', `${pkg}.${name}`], { encoding: 'utf8', cwd: inject('goSrcRoot') });
    // The comment is indented by four spaces, a type's body by a tab.
    const comment = printed.split('\n').filter((l) => l.startsWith('    ')).join(' ');
    expect(doc).toBeDefined();
    // go doc prints a doc link `[Marshaler]` as `Marshaler`; the documentation may end inside one.
    const unlinked = (s: string | undefined) => words(s).replace(/…$/, '').replace(/[[\]]/g, '');
    expect(unlinked(comment).startsWith(unlinked(doc)), `${doc}\n${comment}`).toBe(true);
  });
});

describe("CPython's library, against __doc__", () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInProcess({ url: inject('corporaZoektUrl') });
  });
  afterAll(() => mcp.close());

  it.each([
    ['dedent', 'textwrap', 'textwrap.py'],
    ['shorten', 'textwrap', 'textwrap.py'],
    ['TextWrapper', 'textwrap', 'textwrap.py'],
  ])('%s in %s', async (name, module, path) => {
    const doc = await docOf(mcp, { name, repos: ['cpython'] }, path);
    const truth = execFileSync('python3', ['-c', `import inspect, ${module}; print(inspect.cleandoc(${module}.${name}.__doc__))`], { encoding: 'utf8' });
    expect(doc).toBeDefined();
    expect(words(truth).startsWith(words(doc).replace(/…$/, ''))).toBe(true);
  });
});

describe('the fixtures: TSDoc, Javadoc, Rust ///', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInProcess({ url: inject('zoektUrl') });
  });
  afterAll(() => mcp.close());

  it.each([
    [{ name: 'backoff', repos: [`${REPO_PREFIX}webapp`] }, 'src/config/retries.ts', 'Milliseconds to wait before the given attempt: 100, 200, 400, ... capped at 5 s.'],
    [{ name: 'Circle', repos: [`${REPO_PREFIX}javaapp`] }, 'src/main/java/com/acme/Shapes.java', 'A circle, nested and static.'],
    [{ name: 'Server', kinds: ['struct'], repos: [`${REPO_PREFIX}rustlib`] }, 'src/server.rs', 'A connection server.'],
  ])('%j', async (args, path, expected) => {
    expect(await docOf(mcp, args, path)).toBe(expected);
  });
});

describe('references: true counts what find_references counts', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInProcess({ url: inject('goZoektUrl') });
  });
  afterAll(() => mcp.close());

  it('for each result, the usage_count of find_references on its qualified name', async () => {
    const out = ok<{ symbols: (Sym & { parent?: string; references?: { count: number; complete: boolean } })[] }>(
      await call(mcp.client, 'search_symbols', { name: 'Buffer', limit: 6, references: true }),
    );
    expect(out.symbols.length).toBeGreaterThan(2);
    for (const s of out.symbols) {
      expect(s.references, s.name).toBeDefined();
      const refs = ok<{ stats: { usage_count: number; complete: boolean } }>(
        await call(mcp.client, 'find_references', { symbol: s.parent ? `${s.parent}.${s.name}` : s.name, limit: 1 }),
      );
      expect(s.references).toEqual({ count: refs.stats.usage_count, complete: refs.stats.complete });
    }
    // Without asking, no count (it costs a search per result).
    const plain = ok<{ symbols: { references?: unknown }[] }>(await call(mcp.client, 'search_symbols', { name: 'Buffer', limit: 6 }));
    expect(plain.symbols.every((s) => s.references === undefined)).toBe(true);
  });
});
