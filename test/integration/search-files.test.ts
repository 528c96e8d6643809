/**
 * search_files, and the language filters shared by search_code, search_symbols and search_files,
 * through the built CLI over stdio against the real Zoekt. The expected file sets come from
 * walking test/fixtures/ (corpusFiles), not from Zoekt.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import type { FileSearchOutput } from '../../src/search/files.js';
import { corpusFiles } from '../support/fixtures.js';
import { call, connectStdio, failed, ok, textOf, type Connected } from '../support/mcp.js';
import { DEV_BRANCH_FILE, REPO_PREFIX } from '../support/zoekt.js';

let mcp: Connected;
beforeAll(async () => {
  mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
});
afterAll(() => mcp.close());

async function files(args: Record<string, unknown>): Promise<FileSearchOutput> {
  return ok<FileSearchOutput>(await call(mcp.client, 'search_files', args));
}

const short = (f: { repo: string; path: string }) => `${f.repo.replace('github.com/acme/', '')}/${f.path}`;
const listed = (out: FileSearchOutput) => out.files.map(short).sort();
/** The files of every indexed branch: main, plus the one file webapp's dev branch adds. */
const indexed = () => [...corpusFiles(), { repo: `${REPO_PREFIX}webapp`, path: DEV_BRANCH_FILE }];
const corpus = (keep: (path: string) => boolean) => indexed().filter((f) => keep(f.path)).map(short).sort();

describe('search_files', () => {
  it.each([
    ['**/*.test.ts', (p: string) => p.endsWith('.test.ts')],
    ['*.test.ts', (p: string) => p.endsWith('.test.ts')],
    ['Makefile', (p: string) => p === 'Makefile' || p.endsWith('/Makefile')],
    ['/Makefile', (p: string) => p === 'Makefile'],
    ['src/', (p: string) => p.startsWith('src/') || p.includes('/src/')],
    ['internal/**/*.go', (p: string) => p.startsWith('internal/') && p.endsWith('.go')],
    ['*_test.go', (p: string) => p.endsWith('_test.go')],
    ['page0?.spec.ts', (p: string) => /(^|\/)page0\d\.spec\.ts$/.test(p)],
  ])('glob %s', async (pattern, keep) => {
    const out = await files({ pattern, limit: 200 });
    expect(listed(out)).toEqual(corpus(keep));
    expect(out.next_cursor).toBeUndefined();
  });

  it('takes RE2 regexes over the path', async () => {
    const out = await files({ pattern: '(^|/)(Makefile|CMakeLists\\.txt)$', regex: true, limit: 200 });
    expect(listed(out)).toEqual(corpus((p) => /(^|\/)(Makefile|CMakeLists\.txt)$/.test(p)));
    const spec = await files({ pattern: 'page3[0-5]\\.spec\\.ts$', regex: true });
    expect(listed(spec)).toEqual(corpus((p) => /page3[0-5]\.spec\.ts$/.test(p)));
    expect(spec.files).toHaveLength(6);
  });

  it('never returns a file that only matched by content', async () => {
    // paginate_marker is in 45 files' content and in no path.
    const out = await files({ pattern: 'paginate_marker', regex: true });
    expect(out.files).toEqual([]);
    expect(out.hint).toBeDefined();
    const glob = await files({ pattern: '*paginate_marker*' });
    expect(glob.files).toEqual([]);
  });

  it('pages through many files in one stable order', async () => {
    const all = await files({ pattern: '*.spec.ts', limit: 200 });
    expect(all.files).toHaveLength(35);
    const walked: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await files({ pattern: '*.spec.ts', limit: 10, ...(cursor ? { cursor } : {}) });
      walked.push(...page.files.map(short));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(walked).toEqual(all.files.map(short));
  });

  it('combines with repos, paths and languages filters', async () => {
    const out = await files({ pattern: '*.go', repos: ['gosvc'], exclude_paths: ['third_party/'] });
    expect(listed(out)).toEqual(['gosvc/cmd/server/main.go', 'gosvc/internal/server/server.go', 'gosvc/internal/server/server_test.go']);
    const mod = await files({ pattern: '*', languages: ['go module'] });
    expect(listed(mod)).toEqual(['gosvc/go.mod']);
    expect(mod.files[0]!.language).toBe('Go Module');
  });

  it('renders one file per line and explains an anchored miss', async () => {
    const text = textOf(await call(mcp.client, 'search_files', { pattern: '*_test.go' }));
    expect(text).toContain('github.com/acme/gosvc/internal/server/server_test.go (Go)');
    const miss = await files({ pattern: 'server/server_test.go' });
    expect(miss.files).toEqual([]);
    expect(miss.hint).toContain("'**/server/server_test.go'");
    const found = await files({ pattern: '**/server/server_test.go' });
    expect(listed(found)).toEqual(['gosvc/internal/server/server_test.go']);
  });

  it('refuses bad globs and bad regexes with a hint', async () => {
    const glob = failed(await call(mcp.client, 'search_files', { pattern: 'src/[abc' }));
    expect(glob.code).toBe('INVALID_ARGUMENT');
    // Each would reach Zoekt as an invalid regex ('[^]', '[z-a]') that the caller never wrote.
    for (const pattern of ['[!]', '[]', '*.[z-a]']) {
      const cls = failed(await call(mcp.client, 'search_files', { pattern }));
      expect(cls.code).toBe('INVALID_ARGUMENT');
      expect(cls.message).toContain(`'${pattern}'`);
      expect(cls.hint).not.toMatch(/literal: true/);
    }
    const re = failed(await call(mcp.client, 'search_files', { pattern: '(unclosed', regex: true }));
    expect(re.code).toBe('QUERY_ERROR');
    expect(re.hint.length).toBeGreaterThan(0);
  });
});

const NON_CODE = ['Markdown', 'JSON', 'YAML', 'TOML', 'XML', 'Text', 'INI', 'Maven POM', 'Go Module'];

describe('language filters on every search tool', () => {
  it('source_code_only never returns prose, config or data files, and still returns code', async () => {
    const all = await files({ pattern: '*', limit: 200 });
    const langs = new Set(all.files.map((f) => f.language));
    for (const l of ['Markdown', 'JSON', 'YAML', 'TOML', 'XML', 'Text']) expect(langs).toContain(l);

    const seen: FileSearchOutput['files'] = [];
    let cursor: string | undefined;
    do {
      const page = await files({ pattern: '*', source_code_only: true, limit: 200, ...(cursor ? { cursor } : {}) });
      seen.push(...page.files);
      cursor = page.next_cursor;
    } while (cursor);
    const codeLangs = new Set(seen.map((f) => f.language));
    for (const l of NON_CODE) expect(codeLangs).not.toContain(l);
    for (const l of ['Go', 'TypeScript', 'TSX', 'JavaScript', 'Python', 'Rust', 'Java', 'C', 'C++']) expect(codeLangs).toContain(l);
    expect(seen.length).toBe(all.files.filter((f) => !NON_CODE.includes(f.language)).length);

    const code = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'Grüße', source_code_only: true }));
    expect(code.results.map((r) => r.language)).toEqual(['TypeScript']);
    const everywhere = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'Grüße' }));
    expect(everywhere.results.map((r) => r.language).sort()).toEqual(['Markdown', 'TypeScript']);
  });

  it('languages takes names and aliases in any case, OR-ed', async () => {
    for (const alias of ['golang', 'Go', 'GO']) {
      const out = await files({ pattern: '*', languages: [alias], limit: 200 });
      expect(new Set(out.files.map((f) => f.language))).toEqual(new Set(['Go']));
      expect(out.files).toHaveLength(4);
    }
    const both = await files({ pattern: '*', languages: ['ts', 'tsx'], limit: 200 });
    expect(new Set(both.files.map((f) => f.language))).toEqual(new Set(['TypeScript', 'TSX']));
    const code = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'UserService', languages: ['c++'], limit: 50 }));
    expect(new Set(code.results.map((r) => r.language))).toEqual(new Set(['C++']));
    expect(code.zoekt_query).toContain('lang:"C++"');
  });

  it('exclude_languages leaves those out and works with source_code_only', async () => {
    const out = await files({ pattern: '*', repos: ['gosvc'], exclude_languages: ['go'], limit: 200 });
    expect(listed(out)).toEqual(['gosvc/Makefile', 'gosvc/go.mod']);
    const both = await files({ pattern: '*', repos: ['gosvc'], exclude_languages: ['go'], source_code_only: true });
    expect(listed(both)).toEqual(['gosvc/Makefile']);
  });

  it.each(['search_code', 'search_symbols', 'search_files'])('%s refuses conflicting or unknown languages', async (tool) => {
    const base = tool === 'search_code' ? { query: 'Server' } : tool === 'search_symbols' ? { name: 'Server' } : { pattern: '*' };
    const combo = failed(await call(mcp.client, tool, { ...base, languages: ['go'], source_code_only: true }));
    expect(combo.code).toBe('INVALID_ARGUMENT');
    expect(combo.message).toContain('source_code_only');
    const both = failed(await call(mcp.client, tool, { ...base, languages: ['ts', 'go'], exclude_languages: ['typescript'] }));
    expect(both.code).toBe('INVALID_ARGUMENT');
    expect(both.message).toContain("'TypeScript'");
    const unknown = failed(await call(mcp.client, tool, { ...base, languages: ['pyhton'] }));
    expect(unknown.code).toBe('INVALID_ARGUMENT');
    expect(unknown.hint).toContain("'Python'");
    const symbolsLang = await call(mcp.client, tool, { ...base, languages: ['rust'] });
    expect(symbolsLang.isError).toBeFalsy();
  });
});
