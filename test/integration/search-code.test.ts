/**
 * search_code through the built CLI over stdio, against the real Zoekt serving test/fixtures/.
 * Expected positions come from reading the fixture files (test/support/fixtures.ts), not from Zoekt.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { grepCorpus, locate, locateAll } from '../support/fixtures.js';
import { call, connectStdio, failed, ok, textOf, type Connected } from '../support/mcp.js';
import { DEV_BRANCH_MARKER } from '../support/zoekt.js';

let mcp: Connected;
beforeAll(async () => {
  mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
});
afterAll(() => mcp.close());

async function search(args: Record<string, unknown>): Promise<CodeSearchOutput> {
  return ok<CodeSearchOutput>(await call(mcp.client, 'search_code', args));
}

/** Every matched line of a result set, as repo:path:line. */
function matchedLines(out: CodeSearchOutput): string[] {
  return out.results.flatMap((r) => r.matches.map((m) => `${r.repo}:${r.path}:${m.line}`)).sort();
}

function corpusLines(needle: string | RegExp): string[] {
  return grepCorpus(needle)
    .map((h) => `${h.repo}:${h.path}:${h.line}`)
    .sort();
}

const ALL = { limit: 50, max_matches_per_file: 100 };

describe('search_code results', () => {
  it('gives the exact repo, path, line, column, text and context lines of a match', async () => {
    const where = locate('gosvc', 'internal/server/server.go', 'func (s *Server) Start() error');
    // The vendored copy under third_party/ has the same line; exclude it.
    const out = await search({ query: 'func (s *Server) Start() error', literal: true, context_lines: 2, exclude_paths: ['third_party/'] });
    expect(out.results).toHaveLength(1);
    const [file] = out.results;
    expect(file).toMatchObject({ repo: 'github.com/acme/gosvc', path: 'internal/server/server.go', language: 'Go', omitted_matches: 0 });
    expect(file!.branches).toEqual(['main']);
    expect(file!.version).toMatch(/^[0-9a-f]{40}$/);
    expect(file!.matches).toEqual([
      {
        line: where.line,
        column: where.column,
        text: where.text,
        before: where.lines.slice(where.line - 3, where.line - 1),
        after: where.lines.slice(where.line, where.line + 2),
      },
    ]);
    expect(out.zoekt_query).toBe('regex:"func \\\\(s \\\\*Server\\\\) Start\\\\(\\\\) error" -file:"(?:^|/)third_party/"');
    expect(out.stats).toMatchObject({ files: 1, matches: 1 });
    expect(out.next_cursor).toBeUndefined();
    expect(out.hint).toBeUndefined();
  });

  it('renders grep-like text grouped by file', async () => {
    const where = locate('gosvc', 'internal/server/server.go', 'func (s *Server) Start() error');
    const result = await call(mcp.client, 'search_code', { query: 'func (s *Server) Start() error', literal: true, context_lines: 1, paths: ['internal/'] });
    const text = textOf(result);
    expect(text).toContain('github.com/acme/gosvc/internal/server/server.go (Go)');
    expect(text).toContain(`${where.line}:${where.column}: ${where.text}`);
    expect(text).toContain(`${where.line - 1}- ${where.lines[where.line - 2]}`);
    expect(text).toContain(`${where.line + 1}- ${where.lines[where.line]}`);
  });

  it('caps matched lines per file and counts the rest', async () => {
    const lines = grepCorpus('paginate_marker').filter((h) => h.path === grepCorpus('paginate_marker')[0]!.path && h.repo.endsWith('manyhits'));
    expect(lines.length).toBeGreaterThan(1);
    const out = await search({ query: 'paginate_marker', paths: [`/${lines[0]!.path}`], max_matches_per_file: 1, context_lines: 0 });
    expect(out.results).toHaveLength(1);
    expect(out.results[0]!.matches).toHaveLength(1);
    expect(out.results[0]!.matches[0]!.line).toBe(lines[0]!.line);
    expect(out.results[0]!.omitted_matches).toBe(lines.length - 1);
  });
});

describe('literal search', () => {
  it.each([
    ['foo(bar[0])', 'foo(bar[0])'],
    ['a.b', 'a.b'],
    ['$x', /\$x/i],
    ['C++', 'C++'],
  ])('finds %s exactly where the corpus has it, and nowhere else', async (query, needle) => {
    const out = await search({ query, literal: true, ...ALL, context_lines: 0 });
    expect(out.results.length).toBeGreaterThan(0);
    expect(matchedLines(out)).toEqual(corpusLines(needle));
  });

  it('does not match aXb for a literal a.b, which a regex a.b would', async () => {
    const aXb = corpusLines('aXb');
    expect(aXb.length).toBeGreaterThan(0);
    const literal = matchedLines(await search({ query: 'a.b', literal: true, ...ALL }));
    for (const line of aXb) expect(literal).not.toContain(line);
    const regex = matchedLines(await search({ query: 'a.b', case_sensitive: 'yes', ...ALL }));
    for (const line of aXb) expect(regex).toContain(line);
  });

  it('keeps quotes, parentheses and query words inert', async () => {
    const out = await search({ query: '") or repo:x (', literal: true });
    expect(out.results).toEqual([]);
    expect(out.zoekt_query).toBe('regex:"\\"\\\\) or repo:x \\\\("');
  });
});

describe('case sensitivity', () => {
  const variants = () => grepCorpus(/maxretries/i);

  it('auto: a lowercase query matches every case', async () => {
    expect(variants()).toHaveLength(3);
    expect(matchedLines(await search({ query: 'maxretries', ...ALL }))).toEqual(corpusLines(/maxretries/i));
  });

  it('auto: a query with an uppercase letter is case-sensitive', async () => {
    expect(matchedLines(await search({ query: 'MaxRetries', ...ALL }))).toEqual(corpusLines('MaxRetries'));
  });

  it('yes and no force it either way', async () => {
    expect(matchedLines(await search({ query: 'maxretries', case_sensitive: 'yes', ...ALL }))).toEqual(corpusLines('maxretries'));
    expect(matchedLines(await search({ query: 'MaxRetries', case_sensitive: 'no', ...ALL }))).toEqual(corpusLines(/maxretries/i));
  });

  it('a case: atom in the query works like the argument', async () => {
    const out = await search({ query: 'case:yes MAXRETRIES', ...ALL });
    expect(matchedLines(out)).toEqual(corpusLines('MAXRETRIES'));
    expect(out.zoekt_query).toBe('case:yes ( MAXRETRIES )');
  });

  it('a zero-result case-sensitive search blames case only when a case-insensitive one finds files', async () => {
    // `MaxRetriesEnv` is in no file in any case; 'MAXRETRIES is read' only in another case.
    const exact = grepCorpus(/maxretries is read/i);
    expect(grepCorpus('MAXRETRIES is read')).toEqual([]);
    const byCase = await search({ query: 'MAXRETRIES is read', literal: true });
    expect(byCase.results).toEqual([]);
    expect(exact.length).toBeGreaterThan(0);
    expect(byCase.hint).toMatch(new RegExp(`case-sensitive.*case_sensitive: 'no' finds ${new Set(exact.map((h) => h.path)).size} file`));
    const nowhere = await search({ query: 'MaxRetriesEnv' });
    expect(grepCorpus(/maxretriesenv/i)).toEqual([]);
    expect(nowhere.results).toEqual([]);
    expect(nowhere.hint).not.toMatch(/case_sensitive/);
    expect(nowhere.hint).toMatch(/No indexed file matches, nor does one case-insensitively/);
  });
});

describe('incomplete searches', () => {
  // The pinned Zoekt panics in one shard on this query (type:file under an `or` with repo:) and
  // reports the shard as crashed: a real partial answer, with no fault injection.
  it('reports a crashed shard as partial, and an empty answer says matches may exist', async () => {
    const out = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'type:file Server or repo:gosvc' }));
    expect(out.partial?.reason).toMatch(/1 index shard\(s\) failed/);
    expect(out.results).toEqual([]);
    expect(out.hint).toMatch(/^The search did not complete .* matches may exist/);
  });
});

describe('query errors', () => {
  it.each([
    ['foo(', /never closed.*foo\\\(/],
    ['foo(?=x)', /no lookahead \(\?=…\)/],
    ['foo(?!x)', /no negative lookahead \(\?!…\)/],
    ['(?<=x)foo', /no lookbehind \(\?<=…\)/],
    ['(?<!x)foo', /no negative lookbehind \(\?<!…\)/],
    ['(a)\\1', /no backreferences/],
    ['x{3,1}', /min ≤ max/],
    ['[z-a]', /low to high/],
    ['src**', /'\*\*' is a glob/],
    ['*.ts', /write '\.\*'/],
  ])('a malformed regex %j is QUERY_ERROR with a hint naming the problem', async (query, hint) => {
    const err = failed(await call(mcp.client, 'search_code', { query }));
    expect(err.code).toBe('QUERY_ERROR');
    expect(err.retryable).toBe(false);
    expect(err.hint).toMatch(hint);
  });

  it('a sym: alternation of plain words, which Zoekt answers with HTTP 500, is QUERY_ERROR with the fix', async () => {
    const err = failed(await call(mcp.client, 'search_code', { query: 'sym:Server|UserService' }));
    expect(err.code).toBe('QUERY_ERROR');
    expect(err.hint).toMatch(/sym:\^\(foo\|bar\)\$/);
    const fixed = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'sym:^(Server|UserService)$' }));
    expect(fixed.results.length).toBeGreaterThan(0);
  });

  it.each(['foo )', '( foo', 'a ) or ( b'])('an unbalanced parenthesis %j is QUERY_ERROR', async (query) => {
    const err = failed(await call(mcp.client, 'search_code', { query }));
    expect(err.code).toBe('QUERY_ERROR');
    expect(err.hint).toMatch(/\\\)|\\\(/);
  });

  it('bad arguments are INVALID_ARGUMENT naming the argument', async () => {
    const tooMany = failed(await call(mcp.client, 'search_code', { query: 'x', limit: 51 }));
    expect(tooMany.code).toBe('INVALID_ARGUMENT');
    expect(tooMany.message).toContain('limit');
    const unknown = failed(await call(mcp.client, 'search_code', { qurey: 'x' }));
    expect(unknown.code).toBe('INVALID_ARGUMENT');
    expect(unknown.hint).toContain("did you mean 'query'");
    const empty = failed(await call(mcp.client, 'search_code', { query: '   ' }));
    expect(empty.code).toBe('INVALID_ARGUMENT');
  });

  it('a cursor that does not decode is INVALID_CURSOR', async () => {
    expect(failed(await call(mcp.client, 'search_code', { query: 'x', cursor: 'garbage!' })).code).toBe('INVALID_CURSOR');
  });
});

describe('filters', () => {
  it('repos limits results to matching repositories', async () => {
    const out = await search({ query: 'Server', repos: ['gosvc'], ...ALL });
    expect(out.results.length).toBeGreaterThan(0);
    expect(new Set(out.results.map((r) => r.repo))).toEqual(new Set(['github.com/acme/gosvc']));
  });

  it('an unknown repo gives zero results and a hint that says so', async () => {
    const out = await search({ query: 'Server', repos: ['github.com/nobody/*'] });
    expect(out.results).toEqual([]);
    expect(out.hint).toMatch(/No indexed repository matches/);
  });

  it('paths and exclude_paths are applied inside the query', async () => {
    const goOnly = await search({ query: 'Server', paths: ['*.go'], ...ALL });
    expect(goOnly.results.length).toBeGreaterThan(0);
    for (const r of goOnly.results) expect(r.path).toMatch(/\.go$/);
    const noVendor = await search({ query: 'Server', paths: ['*.go'], exclude_paths: ['third_party/'], ...ALL });
    expect(noVendor.results.length).toBeGreaterThan(0);
    expect(noVendor.results.length).toBeLessThan(goOnly.results.length);
    for (const r of noVendor.results) expect(r.path).not.toMatch(/(^|\/)third_party\//);
  });

  it('branch selects a branch', async () => {
    const all = await search({ query: DEV_BRANCH_MARKER });
    expect(all.results).toHaveLength(1);
    expect(all.results[0]!.branches).toEqual(['dev']);
    expect((await search({ query: DEV_BRANCH_MARKER, branch: 'dev' })).results).toHaveLength(1);
    const onMain = await search({ query: DEV_BRANCH_MARKER, branch: 'main' });
    expect(onMain.results).toEqual([]);
    expect(onMain.hint).toContain('branch');
  });
});

describe('symbols (indexed with the tree-sitter extractor)', () => {
  it('a sym: query returns the definition with its symbol kind', async () => {
    const where = locate('gosvc', 'internal/server/server.go', /^type Server struct/);
    const out = await search({ query: 'sym:^Server$', repos: ['gosvc'], paths: ['internal/'], context_lines: 0 });
    expect(out.results).toHaveLength(1);
    expect(out.results[0]!.matches).toEqual([{ line: where.line, column: 6, text: where.text, symbol: { name: 'Server', kind: 'struct' } }]);
  });

  it('a method carries its receiver type as a bare parent', async () => {
    const where = locate('gosvc', 'internal/server/server.go', 'func (s *Server) Start() error');
    const out = await search({ query: 'sym:^Start$', repos: ['gosvc'], paths: ['internal/'], context_lines: 0 });
    const match = out.results.flatMap((r) => r.matches).find((m) => m.line === where.line);
    expect(match?.symbol).toEqual({ name: 'Start', kind: 'method', parent: 'Server' });
  });

  it('TSX files get their symbols from the TSX grammar', async () => {
    const where = locate('webapp', 'src/components/App.tsx', /class Widget/);
    const out = await search({ query: 'sym:^Widget$', repos: ['webapp'], context_lines: 0 });
    const file = out.results.find((r) => r.path === 'src/components/App.tsx');
    expect(file?.matches[0]).toMatchObject({ line: where.line, symbol: { name: 'Widget', kind: 'class' } });
  });
});

describe('columns in characters', () => {
  it.each([
    ["'日本語のあいさつ: こんにちは Grüße'", '日本語'],
    ["'😀 smile then Grüße'", '😀'],
  ])('counts code points, not bytes, before the match on %s', async (_line, marker) => {
    const where = locate('webapp', 'src/i18n/greetings.ts', new RegExp(`${marker}.*Grüße`, 'u'));
    const column = [...where.text.slice(0, where.text.lastIndexOf('Grüße'))].length + 1;
    expect(Buffer.byteLength(where.text.slice(0, where.text.lastIndexOf('Grüße')))).toBeGreaterThan(column - 1);
    const out = await search({ query: 'Grüße', paths: ['src/i18n/'], context_lines: 0 });
    const match = out.results[0]!.matches.find((m) => m.line === where.line);
    expect(match).toEqual({ line: where.line, column, text: where.text });
  });
});

describe('symbols are indexed in every fixture language', () => {
  it.each([
    ['TypeScript', 'webapp', 'src/services/UserService.ts', 'UserService', 'class'],
    ['TSX', 'webapp', 'src/components/App.tsx', 'App', 'function'],
    ['JavaScript', 'webapp', 'src/util/strings.js', 'foobar', 'function'],
    ['Go', 'gosvc', 'internal/server/server.go', 'NewServer', 'function'],
    ['Python', 'pytools', 'acme_tools/server.py', 'MAX_WORKERS', 'variable'],
    ['Rust', 'rustlib', 'src/server.rs', 'State', 'enum'],
    ['Java', 'javaapp', 'src/main/java/com/acme/UserService.java', 'MAX_USERS', 'field'],
    ['C', 'native', 'src/util.c', 'buffer_init', 'function'],
    ['C++', 'native', 'src/user_service.cpp', 'count_users', 'function'],
  ])('%s: sym:%s finds the definition', async (_language, repoDir, path, name, kind) => {
    const out = await search({ query: `sym:^${name}$`, repos: [repoDir], context_lines: 0, max_matches_per_file: 100 });
    const file = out.results.find((r) => r.path === path);
    expect(file, JSON.stringify(out.results.map((r) => r.path))).toBeDefined();
    const defs = file!.matches.filter((m) => m.symbol?.name === name);
    expect(defs.length).toBeGreaterThan(0);
    expect(defs[0]!.symbol!.kind).toBe(kind);
    const lines = locateAll(repoDir, path, new RegExp(`\\b${name.replace('$', '\\$')}\\b`)).map((l) => l.line);
    for (const d of defs) expect(lines).toContain(d.line);
  });
});
