/**
 * find_references through the built CLI over stdio against the real Zoekt. Expected lines are
 * read from the fixture files (grepCorpus) and match test/fixtures/FACTS.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ReferenceOutput } from '../../src/search/references.js';
import { grepCorpus } from '../support/fixtures.js';
import { call, connectStdio, failed, ok, textOf, type Connected } from '../support/mcp.js';
import { CTAGS_COMMAND, startWebserver, ZOEKT_BIN, type RunningZoekt } from '../support/zoekt.js';

let mcp: Connected;
beforeAll(async () => {
  mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
});
afterAll(() => mcp.close());

async function refs(args: Record<string, unknown>): Promise<ReferenceOutput> {
  return ok<ReferenceOutput>(await call(mcp.client, 'find_references', args));
}

const at = (r: { repo: string; path: string; line: number }) => `${r.repo.replace('github.com/acme/', '')}/${r.path}:${r.line}`;

/** Lines of the corpus where `word` stands as a whole identifier (not inside foobar, foo_bar, xfoo, a$b). */
function wholeWordLines(word: string): string[] {
  const re = new RegExp(`(?<![\\w$])${word.replace(/[$]/g, '\\$')}(?![\\w$])`);
  return grepCorpus(re).map((h) => at(h)).sort();
}

describe('find_references', () => {
  it('labels the definitions and lists them first, then whole-word usages only', async () => {
    const out = await refs({ symbol: 'foo', limit: 200 });
    expect(out.definitions).toEqual([
      { repo: 'github.com/acme/webapp', path: 'src/util/strings.js', line: 11, column: 17, kind: 'function', text: 'export function foo(s) {' },
    ]);
    const usages = out.usages.map(at).sort();
    // FACTS.md: 7 whole-word lines, one of them the definition.
    expect(usages).toEqual(wholeWordLines('foo').filter((l) => l !== 'webapp/src/util/strings.js:11'));
    expect(usages).toHaveLength(6);
    for (const u of out.usages) expect(u.text).toMatch(/(?<![\w$])foo(?![\w$])/);
    expect(out.usages.map((u) => u.text).join('\n')).not.toMatch(/foobar|foo_bar|xfoo|Foo\(/);
    expect(out.stats).toMatchObject({ definition_count: 1, usage_count: 6, files: 2 });
    expect(out.zoekt_queries.usages).toContain('case:yes');
    expect(out.zoekt_queries.definitions).toContain('sym:"^foo$"');
    const text = textOf(await call(mcp.client, 'find_references', { symbol: 'foo' }));
    expect(text.indexOf('definitions of foo (1):')).toBe(0);
    expect(text).toContain('github.com/acme/webapp/src/util/strings.js:11:17: export function foo(s) {  [function]');
  });

  it('is case-sensitive: Foo is another symbol', async () => {
    const out = await refs({ symbol: 'Foo', limit: 200 });
    expect(out.definitions.map(at)).toEqual(['webapp/src/util/strings.js:27']);
    expect(out.usages.map(at).sort()).toEqual(wholeWordLines('Foo').filter((l) => l !== 'webapp/src/util/strings.js:27'));
    expect(out.usages.every((u) => /(?<![\w$])Foo(?![\w$])/.test(u.text))).toBe(true);
  });

  it('escapes $ and _ identifiers and keeps them whole', async () => {
    const scope = await refs({ symbol: '$scope' });
    expect(scope.definitions.map(at)).toEqual(['webapp/src/util/strings.js:3']);
    expect(scope.definitions[0]!.kind).toBe('constant');
    expect(scope.usages.map(at)).toEqual(['webapp/src/util/strings.js:5']);
    expect(scope.usages[0]!.column).toBe(32);
    const helper = await refs({ symbol: '_private_helper' });
    expect(helper.definitions.map(at)).toEqual(['webapp/src/util/strings.js:5']);
    expect(helper.usages.map(at)).toEqual(['webapp/src/util/strings.js:37']);
    expect(helper.usages[0]!.column).toBe(28);
  });

  it('never lists a definition site as a usage', async () => {
    const out = await refs({ symbol: 'process', limit: 200 });
    expect(out.definitions).toHaveLength(30);
    const sites = new Set(out.definitions.map(at));
    expect(out.usages.filter((u) => sites.has(at(u)))).toEqual([]);
    // `export const process = (…) => …` is a function.
    expect(new Set(out.definitions.map((d) => d.kind))).toEqual(new Set(['function', 'method', 'class']));
    const methods = await refs({ symbol: 'process', kind: 'method', limit: 200 });
    expect(methods.definitions).toHaveLength(14);
    // The other 16 definition lines are still definitions, not usages.
    expect(methods.usages.filter((u) => sites.has(at(u)))).toEqual([]);
  });

  it('gives definitions on the first page only, and pages over usage lines', async () => {
    const page1 = await refs({ symbol: 'process', limit: 10 });
    expect(page1.definitions).toHaveLength(30);
    expect(page1.usages).toHaveLength(10);
    const page2 = await refs({ symbol: 'process', limit: 10, cursor: page1.next_cursor });
    expect(page2.definitions).toEqual([]);
    expect(page2.stats.definition_count).toBe(30);
    const all = await refs({ symbol: 'process', limit: 200 });
    expect(page2.usages).toEqual(all.usages.slice(10, 20));
    const without = await refs({ symbol: 'process', limit: 10, include_definitions: false });
    expect(without.definitions).toEqual([]);
    expect(without.usages).toEqual(page1.usages);
  });

  it('finds a qualified member', async () => {
    const out = await refs({ symbol: 'UserService::find' });
    expect(out.definitions.map(at).sort()).toEqual([
      'javaapp/src/main/java/com/acme/UserService.java:23',
      'javaapp/src/main/java/com/acme/UserService.java:27',
      'javaapp/src/main/java/com/acme/UserService.java:31',
      'native/include/user_service.h:14',
      'native/include/user_service.h:15',
      'native/src/user_service.cpp:14',
      'native/src/user_service.cpp:5',
      'pytools/acme_tools/users.py:18',
      'webapp/src/services/UserService.ts:53',
      'webapp/vendor/legacy/UserService.js:8',
    ]);
  });

  it('keeps usages to the family of the definitions, says so, and widens when asked', async () => {
    const repos = ['rustlib', 'webapp', 'gosvc', 'docs-only'];
    const narrow = await refs({ symbol: 'run', repos, limit: 200 });
    expect(narrow.definitions.map(at)).toEqual(['rustlib/src/lib.rs:18']);
    expect(narrow.scope).toMatch(/Rust language family/);
    expect(narrow.scope).toMatch(/languages|source_code_only/);
    expect(narrow.usages.length).toBeGreaterThan(0);
    expect(narrow.usages.every((u) => u.path.endsWith('.rs'))).toBe(true);

    const code = await refs({ symbol: 'run', repos, source_code_only: true, limit: 200 });
    expect(code.scope).toBeUndefined();
    const paths = code.usages.map(at);
    expect(paths).toEqual(expect.arrayContaining(['gosvc/Makefile:' + grepCorpus(/^\s*go run/).find((h) => h.repo.endsWith('gosvc'))?.line]));
    expect(paths.some((p) => p.endsWith('.md') || p.endsWith('.yaml'))).toBe(false);

    const every = await refs({ symbol: 'run', repos, languages: ['rust', 'markdown', 'yaml', 'makefile'], limit: 200 });
    expect(every.scope).toBeUndefined();
    expect(every.usages.some((u) => u.path.endsWith('README.md'))).toBe(true);
    expect(every.usages.some((u) => u.path.endsWith('ci.yaml'))).toBe(true);

    // Definitions in two families (TypeScript methods and a Rust function): no narrowing.
    const both = await refs({ symbol: 'run', limit: 200 });
    expect(both.scope).toBeUndefined();
    expect(new Set(both.definitions.map((d) => d.path.split('.').pop()))).toEqual(new Set(['ts', 'rs']));
  });

  it('shows context lines when asked', async () => {
    const out = await refs({ symbol: '_private_helper', context_lines: 1 });
    expect(out.usages[0]).toMatchObject({ line: 37, before: [expect.any(String)], after: [expect.any(String)] });
  });

  it('answers an unknown identifier with a hint, and refuses non-identifiers and unknown kinds', async () => {
    const none = await refs({ symbol: 'noSuchIdentifierAnywhere' });
    expect(none.definitions).toEqual([]);
    expect(none.usages).toEqual([]);
    expect(none.hint).toMatch(/holds 'noSuchIdentifierAnywhere' nowhere, in any case or inside other words: check the spelling/);
    const text = failed(await call(mcp.client, 'find_references', { symbol: 'foo bar(' }));
    expect(text.code).toBe('INVALID_ARGUMENT');
    expect(text.hint).toMatch(/search_code/);
    for (const symbol of ['..', '...', '.::', '::', '.']) {
      const separators = failed(await call(mcp.client, 'find_references', { symbol }));
      expect(separators.code).toBe('INVALID_ARGUMENT');
      expect(separators.hint).toMatch(/Server\.start/);
    }
    const kind = failed(await call(mcp.client, 'find_references', { symbol: 'foo', kind: 'funtion' }));
    expect(kind.code).toBe('INVALID_ARGUMENT');
    expect(kind.hint).toContain("'function'");
  });
});

describe('a ctags tag on a call site', () => {
  // Universal Ctags at some versions tags the callee of `const x = f(…)` as a constant named f;
  // the pinned one does not, so the index here is built by the real ctags with one extra regex
  // that makes exactly those tags, through the real zoekt-index and zoekt-webserver.
  let zoekt: RunningZoekt;
  let conn: Connected;
  let work: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-calltags-'));
    const repo = join(work, 'calltags');
    mkdirSync(repo);
    writeFileSync(join(repo, 'config.ts'), 'export function loadConfig(path: string): string {\n  return path;\n}\n');
    writeFileSync(
      join(repo, 'app.ts'),
      "import { loadConfig } from './config';\n\nexport const settings = loadConfig('app.json');\nconst fallback = loadConfig('default.json');\n",
    );
    const ctags = join(work, 'ctags-tagging-calls');
    writeFileSync(ctags, `#!/bin/sh\nexec '${CTAGS_COMMAND}' '--regex-TypeScript=/=[ \\t]*([A-Za-z_$][A-Za-z0-9_$]*)\\(/\\1/C,constant/' "$@"\n`, { mode: 0o755 });
    const index = join(work, 'index');
    mkdirSync(index);
    execFileSync(join(ZOEKT_BIN, 'zoekt-index'), ['-require_ctags', '-index', index, repo], { env: { ...process.env, CTAGS_COMMAND: ctags }, stdio: 'ignore' });
    zoekt = await startWebserver({ indexDir: index, expectRepos: 1 });
    conn = await connectStdio({ ZOEKT_URL: zoekt.url });
    // The index really holds the false tags, or this test would prove nothing.
    const raw = await fetch(`${zoekt.url}/api/search`, { method: 'POST', body: JSON.stringify({ Q: 'case:yes sym:^loadConfig$', Opts: { MaxDocDisplayCount: 10 } }) });
    const files = ((await raw.json()) as { Result: { Files: { FileName: string }[] } }).Result.Files.map((f) => f.FileName);
    expect(files.sort()).toEqual(['app.ts', 'config.ts']);
  });
  afterAll(async () => {
    await conn?.close();
    await zoekt?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('is neither reported as a definition nor hidden from the usages', async () => {
    const out = ok<ReferenceOutput>(await call(conn.client, 'find_references', { symbol: 'loadConfig' }));
    expect(out.definitions.map((d) => `${d.path}:${d.line}`)).toEqual(['config.ts:1']);
    expect(out.usages.map((u) => `${u.path}:${u.line}`).sort()).toEqual(['app.ts:1', 'app.ts:3', 'app.ts:4']);
    expect(out.stats).toMatchObject({ definition_count: 1, usage_count: 3, complete: true });
  });

  it('is not a definition for search_symbols either', async () => {
    const out = ok<{ symbols: { path: string; line: number; kind: string }[] }>(await call(conn.client, 'search_symbols', { name: 'loadConfig' }));
    expect(out.symbols.map((s) => `${s.path}:${s.line}:${s.kind}`)).toEqual(['config.ts:1:function']);
  });
});
