/**
 * Symbol coverage as get_health and list_repos report it, against what the fixture files hold:
 * per language, the files Zoekt has, those with at least one symbol, and the parser that made
 * them. Then an index where the same Go files were indexed by both parsers (one repository
 * through zoekt-config/index, one through Universal Ctags alone, as an index built elsewhere
 * would be), and search_symbols explaining an empty answer by the coverage of its languages.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LanguageCoverage } from '../../src/search/definitions/coverage.js';
import { listFiles } from '../support/corpora.js';
import { call, connectInProcess, ok, textOf, type Connected } from '../support/mcp.js';
import { tsDeclarations } from '../support/truth/ts-decls.js';
import { CTAGS_COMMAND, DEV_BRANCH_FILE, FIXTURES, fixtureRepos, git, REPO_PREFIX, runIndexer, startWebserver, ZOEKT_BIN, type RunningZoekt } from '../support/zoekt.js';

interface Health {
  index: { symbols?: { languages: LanguageCoverage[]; complete: boolean } };
  hint?: string;
}
interface Repos {
  repos: { name: string; symbols?: LanguageCoverage[] }[];
  hint?: string;
}

/** Calls `tool` until its answer has the coverage (the first call may answer before it is read, and says so). */
async function withCoverage<T>(mcp: Connected, tool: string, has: (out: T) => boolean, args: Record<string, unknown> = {}): Promise<{ out: T; text: string }> {
  for (let attempt = 0; ; attempt++) {
    const result = await call(mcp.client, tool, args);
    const out = ok<T & { hint?: string }>(result);
    if (has(out)) return { out, text: textOf(result) };
    expect(out.hint, 'an answer without coverage says it is still being read').toMatch(/still being read/);
    expect(attempt).toBeLessThan(20);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every fixture file, relative to test/fixtures (each top-level folder is a repository). */
const fixtureFiles = () => fixtureRepos().flatMap((r) => listFiles(join(FIXTURES, r), () => true).map((f) => `${r}/${f}`));
const text = (f: string) => readFileSync(join(FIXTURES, f), 'utf8');

describe('the fixture index', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInProcess({ url: inject('zoektUrl') });
  });
  afterAll(() => mcp.close());

  it('get_health reports each language: files, files with symbols and their parser, and names those without', async () => {
    const { out, text: rendered } = await withCoverage<Health>(mcp, 'get_health', (h) => Boolean(h.index.symbols));
    const byLanguage = new Map(out.index.symbols!.languages.map((l) => [l.language, l]));
    expect(out.index.symbols!.complete).toBe(true);
    const files = fixtureFiles();
    // Every Go file has a package clause.
    const go = files.filter((f) => f.endsWith('.go'));
    expect(byLanguage.get('Go')).toEqual({ language: 'Go', files: go.length, files_with_symbols: go.length, parser: 'tree-sitter' });
    // Markdown is Universal Ctags' (the extractor has no grammar for it): files with a heading.
    const md = files.filter((f) => f.endsWith('.md'));
    const headed = md.filter((f) => /^#{1,6} /m.test(text(f)));
    expect(byLanguage.get('Markdown')).toEqual({ language: 'Markdown', files: md.length, files_with_symbols: headed.length, parser: 'universal-ctags' });
    // TypeScript files with a declaration, as the TypeScript compiler reads them; and the file
    // the harness adds on webapp's dev branch (`export const dev_branch_only_marker`).
    const ts = files.filter((f) => f.endsWith('.ts'));
    const declaring = ts.filter((f) => tsDeclarations(f, text(f)).length > 0);
    expect(DEV_BRANCH_FILE.endsWith('.ts')).toBe(true);
    expect(byLanguage.get('TypeScript')).toEqual({ language: 'TypeScript', files: ts.length + 1, files_with_symbols: declaring.length + 1, parser: 'tree-sitter' });
    for (const [language, ext] of [['JSON', '.json'], ['YAML', '.yaml'], ['TOML', '.toml']] as const) {
      const count = files.filter((f) => f.endsWith(ext)).length;
      expect(byLanguage.get(language), language).toEqual({ language, files: count, files_with_symbols: 0, parser: 'none' });
      expect(rendered).toContain(`${language} (${count} files)`);
      expect(out.hint).toContain(`${language} (${count} files)`);
    }
    for (const language of ['Python', 'Rust', 'Java', 'C', 'C++', 'C#', 'JavaScript', 'TSX']) expect(byLanguage.get(language)?.parser, language).toBe('tree-sitter');
    expect(rendered).toMatch(/symbols: .*Go \d+ of \d+ files \(tree-sitter\)/);
    expect(rendered).not.toMatch(/100(\.0)?% of files/);
  });

  it('list_repos reports them per repository', async () => {
    const { out, text: rendered } = await withCoverage<Repos>(mcp, 'list_repos', (r) => r.repos.every((x) => x.symbols), { filter: 'gosvc' });
    expect(out.repos.map((r) => r.name)).toEqual([`${REPO_PREFIX}gosvc`]);
    const go = listFiles(join(FIXTURES, 'gosvc'), (f) => f.endsWith('.go')).length;
    expect(out.repos[0]!.symbols).toEqual([
      { language: 'Go', files: go, files_with_symbols: go, parser: 'tree-sitter' },
      { language: 'Go Module', files: 1, files_with_symbols: 0, parser: 'none' },
      { language: 'Makefile', files: 1, files_with_symbols: 0, parser: 'none' },
    ]);
    expect(rendered).toContain(`symbols: Go ${go}/${go} (tree-sitter); none for Go Module (1), Makefile (1)`);
  });

  it('search_symbols explains an empty answer by the coverage of the languages asked for', async () => {
    const json = ok<{ symbols: unknown[]; hint?: string }>(await call(mcp.client, 'search_symbols', { name: 'version', languages: ['json'] }));
    expect(json.symbols).toEqual([]);
    const count = fixtureFiles().filter((f) => f.endsWith('.json')).length;
    expect(json.hint).toContain(`JSON (${count} files, none with symbols) has no symbols in this index`);
    expect(json.hint).toContain('search_code');
    const kotlin = ok<{ symbols: unknown[]; hint?: string }>(await call(mcp.client, 'search_symbols', { name: 'main', languages: ['kotlin'] }));
    expect(kotlin.hint).toContain('the index has no Kotlin (no files) files in scope');
    // A language that has symbols gets the usual advice instead.
    const go = ok<{ hint?: string }>(await call(mcp.client, 'search_symbols', { name: 'NoSuchNameAnywhere', languages: ['go'] }));
    expect(go.hint).not.toContain('has no symbols in this index');
    expect(go.hint).toContain('NoSuchNameAnywhere*');
  });
});

describe('an index whose repositories were indexed by different parsers', () => {
  let work: string;
  let zoekt: RunningZoekt;
  let mcp: Connected;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-coverage-'));
    const index = join(work, 'index');
    mkdirSync(index);
    for (const name of ['extracted', 'ctags-only']) {
      const dir = join(work, name);
      cpSync(join(FIXTURES, 'gosvc'), dir, { recursive: true });
      git(dir, 'init', '-q', '-b', 'main');
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', name);
    }
    runIndexer('git', ['-index', index, join(work, 'extracted')]);
    // As an index built without zoekt-mcp's extractor would be: Universal Ctags for every language.
    execFileSync(join(ZOEKT_BIN, 'zoekt-git-index'), ['-require_ctags', '-index', index, join(work, 'ctags-only')], { env: { ...process.env, CTAGS_COMMAND }, stdio: 'ignore' });
    zoekt = await startWebserver({ indexDir: index, expectRepos: 2 });
    mcp = await connectInProcess({ url: zoekt.url });
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await zoekt?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('tells the parsers apart per repository, and says both for the index', async () => {
    const { out: repos } = await withCoverage<Repos>(mcp, 'list_repos', (r) => r.repos.every((x) => x.symbols));
    const goOf = (name: string) => repos.repos.find((r) => r.name === name)!.symbols!.find((l) => l.language === 'Go')!;
    const go = listFiles(join(FIXTURES, 'gosvc'), (f) => f.endsWith('.go')).length;
    expect(goOf('extracted')).toEqual({ language: 'Go', files: go, files_with_symbols: go, parser: 'tree-sitter' });
    expect(goOf('ctags-only')).toEqual({ language: 'Go', files: go, files_with_symbols: go, parser: 'universal-ctags' });
    const { out: health } = await withCoverage<Health>(mcp, 'get_health', (h) => Boolean(h.index.symbols));
    expect(health.index.symbols!.languages.find((l) => l.language === 'Go')).toEqual({ language: 'Go', files: 2 * go, files_with_symbols: 2 * go, parser: 'tree-sitter+universal-ctags' });
  });
});
