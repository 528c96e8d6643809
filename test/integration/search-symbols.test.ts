/**
 * search_symbols through the built CLI over stdio, against the real Zoekt (ctags symbols indexed
 * with -require_ctags). Expected definitions are the ones test/fixtures/FACTS.md lists; every
 * expected line is also checked against the fixture file's text.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SymbolResult } from '../../src/search/definitions/symbol.js';
import type { SymbolSearchOutput } from '../../src/search/symbols.js';
import { fileLines } from '../support/fixtures.js';
import { call, connectStdio, failed, ok, textOf, type Connected } from '../support/mcp.js';

let mcp: Connected;
beforeAll(async () => {
  mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
});
afterAll(() => mcp.close());

const R = (dir: string) => `github.com/acme/${dir}`;

async function symbols(args: Record<string, unknown>): Promise<SymbolSearchOutput> {
  return ok<SymbolSearchOutput>(await call(mcp.client, 'search_symbols', args));
}

const at = (s: SymbolResult) => `${s.repo.replace('github.com/acme/', '')}/${s.path}:${s.line}`;
const where = (out: SymbolSearchOutput) => out.symbols.map(at).sort();

/** 1-based column (in characters) of the first whole-word occurrence of `name` in a line. */
function columnOf(line: string, name: string): number {
  for (let i = line.indexOf(name); i >= 0; i = line.indexOf(name, i + 1)) {
    const before = line[i - 1] ?? ' ';
    const after = line[i + name.length] ?? ' ';
    if (!/\w/.test(before) && !/\w/.test(after)) return [...line.slice(0, i)].length + 1;
  }
  return -1;
}

/** [language filter, name, fixture dir, path, line, normalized kind, extra arguments] */
type Case = [string, string, string, string, number, string, Record<string, unknown>?];

const DEFINITIONS: Case[] = [
  ['TypeScript', 'UserService', 'webapp', 'src/services/UserService.ts', 50, 'class'],
  ['TypeScript', 'findAll', 'webapp', 'src/services/UserService.ts', 57, 'method'],
  ['TypeScript', 'getUser', 'webapp', 'src/services/UserService.ts', 69, 'function'],
  ['TypeScript', 'UserRepository', 'webapp', 'src/services/UserService.ts', 23, 'interface'],
  ['TypeScript', 'Role', 'webapp', 'src/services/UserService.ts', 8, 'enum'],
  ['TypeScript', 'UserId', 'webapp', 'src/services/UserService.ts', 6, 'type'],
  ['TypeScript', 'DEFAULT_PAGE_SIZE', 'webapp', 'src/services/UserService.ts', 14, 'constant'],
  ['TypeScript', 'email', 'webapp', 'src/services/UserService.ts', 19, 'property'],
  ['TSX', 'App', 'webapp', 'src/components/App.tsx', 9, 'function'],
  ['TSX', 'Widget', 'webapp', 'src/components/App.tsx', 19, 'class'],
  ['TSX', 'AppProps', 'webapp', 'src/components/App.tsx', 4, 'interface'],
  ['TSX', 'render', 'webapp', 'src/components/App.tsx', 22, 'method'],
  ['TSX', 'service', 'webapp', 'src/components/App.tsx', 27, 'constant'],
  ['JavaScript', 'createScope', 'webapp', 'src/util/strings.js', 7, 'function'],
  ['JavaScript', '$scope', 'webapp', 'src/util/strings.js', 3, 'constant'],
  ['JavaScript', '_private_helper', 'webapp', 'src/util/strings.js', 5, 'function'],
  ['JavaScript', 'UserService', 'webapp', 'vendor/legacy/UserService.js', 3, 'class', { include_vendored: true }],
  ['JavaScript', 'save', 'webapp', 'vendor/legacy/UserService.js', 12, 'method', { include_vendored: true }],
  ['Go', 'NewServer', 'gosvc', 'internal/server/server.go', 39, 'function'],
  ['Go', 'Stop', 'gosvc', 'internal/server/server.go', 64, 'method'],
  ['Go', 'Serve', 'gosvc', 'internal/server/server.go', 23, 'method'],
  ['Go', 'Server', 'gosvc', 'internal/server/server.go', 30, 'struct'],
  ['Go', 'Handler', 'gosvc', 'internal/server/server.go', 22, 'interface'],
  ['Go', 'Option', 'gosvc', 'internal/server/server.go', 27, 'type'],
  ['Go', 'DefaultPort', 'gosvc', 'internal/server/server.go', 13, 'constant'],
  ['Go', 'ErrStopped', 'gosvc', 'internal/server/server.go', 19, 'variable'],
  ['Go', 'timeout', 'gosvc', 'internal/server/server.go', 32, 'field'],
  ['Go', 'main', 'gosvc', 'cmd/server/main.go', 2, 'module'],
  ['Python', 'Server', 'pytools', 'acme_tools/server.py', 19, 'class'],
  ['Python', 'logged', 'pytools', 'acme_tools/server.py', 10, 'function'],
  ['Python', 'idle', 'pytools', 'acme_tools/server.py', 37, 'method'],
  ['Python', 'MAX_WORKERS', 'pytools', 'acme_tools/server.py', 5, 'variable'],
  ['Rust', 'Server', 'rustlib', 'src/server.rs', 27, 'struct'],
  ['Rust', 'Handler', 'rustlib', 'src/server.rs', 10, 'trait'],
  ['Rust', 'State', 'rustlib', 'src/server.rs', 20, 'enum'],
  ['Rust', 'run', 'rustlib', 'src/lib.rs', 18, 'function'],
  ['Rust', 'accept', 'rustlib', 'src/server.rs', 49, 'method'],
  ['Rust', 'Result', 'rustlib', 'src/lib.rs', 7, 'type'],
  ['Rust', 'log_line', 'rustlib', 'src/lib.rs', 11, 'macro'],
  ['Rust', 'server', 'rustlib', 'src/lib.rs', 2, 'module'],
  ['Rust', 'SERVER_NAME', 'rustlib', 'src/server.rs', 7, 'variable'],
  ['Rust', 'Idle', 'rustlib', 'src/server.rs', 21, 'constant'],
  ['Rust', 'connections', 'rustlib', 'src/server.rs', 29, 'field'],
  ['Java', 'UserService', 'javaapp', 'src/main/java/com/acme/UserService.java', 7, 'class'],
  ['Java', 'Main', 'javaapp', 'src/main/java/com/acme/Main.java', 4, 'class'],
  ['Java', 'Repository', 'javaapp', 'src/main/java/com/acme/UserService.java', 14, 'interface'],
  ['Java', 'Status', 'javaapp', 'src/main/java/com/acme/UserService.java', 18, 'enum'],
  ['Java', 'disable', 'javaapp', 'src/main/java/com/acme/UserService.java', 46, 'method'],
  ['Java', 'MAX_USERS', 'javaapp', 'src/main/java/com/acme/UserService.java', 8, 'field'],
  ['Java', 'ACTIVE', 'javaapp', 'src/main/java/com/acme/UserService.java', 19, 'constant'],
  ['Java', 'com.acme', 'javaapp', 'src/main/java/com/acme/Main.java', 1, 'namespace'],
  ['C', 'buffer', 'native', 'src/util.c', 10, 'struct'],
  ['C', 'buffer_init', 'native', 'src/util.c', 16, 'function'],
  ['C', 'byte', 'native', 'src/util.c', 8, 'type'],
  ['C', 'BUFFER_MAX', 'native', 'src/util.c', 4, 'macro'],
  ['C', 'color', 'native', 'src/util.c', 6, 'enum'],
  ['C', 'GREEN', 'native', 'src/util.c', 6, 'constant'],
  ['C', 'len', 'native', 'src/util.c', 12, 'field'],
  ['C++', 'UserService', 'native', 'include/user_service.h', 12, 'class'],
  ['C++', 'User', 'native', 'include/user_service.h', 7, 'struct'],
  ['C++', 'acme', 'native', 'include/user_service.h', 5, 'namespace'],
  ['C++', 'add', 'native', 'src/user_service.cpp', 23, 'method'],
  ['C++', 'main', 'native', 'src/main.cpp', 5, 'function'],
  ['C++', 'users_', 'native', 'include/user_service.h', 20, 'field'],
];

describe('definitions in eight languages, by exact name and by kind', () => {
  it.each(DEFINITIONS)('%s %s is a %s', async (language, name, dir, path, line, kind, extra = {}) => {
    const lineText = fileLines(dir, path)[line - 1]!;
    expect(lineText).toContain(name.split('.').pop());
    const base = { name, languages: [language], case_sensitive: true, limit: 100, ...extra };

    const all = await symbols(base);
    const found = all.symbols.find((s) => s.repo === R(dir) && s.path === path && s.line === line && s.name === name);
    expect(found, `${name} at ${dir}/${path}:${line} in ${JSON.stringify(all.symbols.map(at))}`).toBeDefined();
    expect(found!.kind).toBe(kind);
    expect(found!.language).toBe(language);
    expect(found!.signature).toBe(lineText.trim());
    expect(found!.column).toBe(columnOf(lineText, name));

    const ofKind = await symbols({ ...base, kinds: [kind] });
    expect(ofKind.symbols.map((s) => s.kind)).toEqual(ofKind.symbols.map(() => kind));
    expect(ofKind.symbols.map(at)).toContain(`${dir}/${path}:${line}`);
    expect(ofKind.symbols).toHaveLength(all.symbols.filter((s) => s.kind === kind).length);

    const other = kind === 'function' ? 'class' : 'function';
    const ofOther = await symbols({ ...base, kinds: [other] });
    expect(ofOther.symbols.map(at)).not.toContain(`${dir}/${path}:${line}`);
  });

  it("reports the parser's raw kind, the bare parent and a qualified name", async () => {
    const go = await symbols({ name: 'Start', languages: ['go'], case_sensitive: true });
    expect(go.symbols).toEqual([
      expect.objectContaining({ name: 'Start', kind: 'method', raw_kind: 'Method', parent: 'Server', parent_kind: 'Struct', qualified_name: 'Server.Start' }),
    ]);
    const cpp = await symbols({ name: 'size', languages: ['c++'] });
    expect(cpp.symbols.map((s) => s.line).sort((a, b) => a - b)).toEqual([17, 27]);
    expect(cpp.symbols.every((s) => s.kind === 'method' && s.raw_kind === 'Method' && s.parent === 'UserService' && s.qualified_name === 'UserService::size')).toBe(true);
    const java = await symbols({ name: 'UserService', languages: ['java'], case_sensitive: true });
    expect(java.symbols[0]).toMatchObject({ kind: 'class', raw_kind: 'Class' });
    // Markdown is Universal Ctags' (the extractor has no grammar for it): its own words stay.
    const md = await symbols({ name: 'Layout', languages: ['markdown'] });
    expect(md.symbols[0]).toMatchObject({ kind: 'section', raw_kind: 'section' });
    const text = textOf(await call(mcp.client, 'search_symbols', { name: 'Start', languages: ['go'] }));
    expect(text).toContain('github.com/acme/gosvc/internal/server/server.go (Go)');
    expect(text).toMatch(/53:18: func \(s \*Server\) Start\(\) error \{ {2}\[method Server\.Start\]/);
  });

  it('refuses an unknown kind, listing the valid ones', async () => {
    const err = failed(await call(mcp.client, 'search_symbols', { name: 'x', kinds: ['methods'] }));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.hint).toContain("'method'");
    expect(err.hint).toContain('function, method, class, struct, interface, trait, enum, type, variable, constant, field, property, module, namespace, macro');
  });
});

describe('names that are not names', () => {
  it.each(['..', '...', '.::', '::', '.', '..start'])('%s is INVALID_ARGUMENT with a hint, not a crash', async (name) => {
    const err = failed(await call(mcp.client, 'search_symbols', { name }));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.hint).toContain("'Server.");
    expect(`${err.message} ${err.hint}`).not.toMatch(/TypeError|undefined|Cannot read/);
  });

  it('refuses a glob class that would be an invalid regex, naming the glob', async () => {
    for (const args of [{ name: 'x', paths: ['[!]'] }, { name: 'get[z-a]*' }, { name: 'x', exclude_paths: ['src/[]'] }]) {
      const err = failed(await call(mcp.client, 'search_symbols', args));
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.message).toMatch(/'(\[!\]|get\[z-a\]\*|src\/\[\])'/);
    }
  });
});

describe('name globs', () => {
  // Lists from FACTS.md "Symbol-name globs", vendored entries aside.
  it.each([
    ['get*', false, ['javaapp/src/main/java/com/acme/UserService.java:42', 'webapp/src/services/UserService.ts:69', 'webapp/src/services/UserService.ts:73', 'webapp/src/services/UserService.ts:80', 'webapp/src/services/UserService.ts:85']],
    ['get_*', false, ['webapp/src/services/UserService.ts:73']],
    ['*Handler', true, ['gosvc/internal/server/server.go:22', 'rustlib/src/server.rs:10', 'webapp/src/handlers/ErrorHandler.ts:4', 'webapp/src/handlers/RequestHandler.ts:17']],
    // registry.ts:16's `handler` is a loop variable inside a function: a local, not a definition.
    ['*Handler', false, ['gosvc/internal/server/server.go:22', 'rustlib/src/server.rs:10', 'webapp/src/handlers/ErrorHandler.ts:4', 'webapp/src/handlers/RequestHandler.ts:17', 'webapp/src/handlers/registry.ts:23']],
    ['User*Service', false, ['javaapp/src/main/java/com/acme/UserService.java:7', 'native/include/user_service.h:12', 'pytools/acme_tools/users.py:12', 'webapp/src/handlers/UserAdminService.ts:5', 'webapp/src/handlers/UserQueryService.ts:5', 'webapp/src/services/UserService.ts:50']],
  ])('%s (case-sensitive: %s)', async (name, caseSensitive, expected) => {
    const out = await symbols({ name, case_sensitive: caseSensitive, limit: 100 });
    expect(where(out)).toEqual([...expected].sort());
    expect(out.next_cursor).toBeUndefined();
  });

  it('ranks the exact name first, then other case, then names that start with it', async () => {
    // `server`: the Go package (two files) and the Rust module; `Server`: structs and a class.
    const out = await symbols({ name: 'server', limit: 100 });
    const names = out.symbols.map((s) => s.name);
    expect(names.slice(0, 3)).toEqual(['server', 'server', 'server']);
    expect(names.slice(3).every((n) => n === 'Server')).toBe(true);
    expect(names.length).toBeGreaterThan(3);
    const prefix = await symbols({ name: 'getUser*', limit: 100 });
    expect(prefix.symbols.map((s) => s.name)).toEqual(['getUser', 'getUserName']);
  });

  it('ranks a glob\'s matches in its own case before those in another case, on every page', async () => {
    // `server*`: the Go package and the Rust module, then the `Server` structs and class.
    const all = await symbols({ name: 'server*', limit: 100 });
    const names = all.symbols.map((s) => s.name);
    const own = names.filter((n) => n.startsWith('server'));
    expect(own.length).toBeGreaterThan(0);
    expect(names.length).toBeGreaterThan(own.length);
    expect(names.slice(0, own.length)).toEqual(own);
    expect(all.stats.complete).toBe(true);
    // A page within the own-case matches says the other spellings are not counted yet.
    const first = await symbols({ name: 'server*', limit: 1 });
    expect(first.symbols.map((s) => s.name)).toEqual([names[0]]);
    expect(first.stats.complete).toBe(false);
    expect(first.hint).toContain("names that match 'server*' in its own case");
    expect(first.next_cursor).toBeDefined();
    // Each page names the query it was read with: the own case alone, or the search in any case.
    expect(first.zoekt_query).toMatch(/^case:yes sym:/);
    expect(all.zoekt_query).toMatch(/^case:no sym:/);
  });

  it('takes a regex when asked', async () => {
    const out = await symbols({ name: '^get(User|Status)$', regex: true, case_sensitive: true });
    expect(where(out)).toEqual(['javaapp/src/main/java/com/acme/UserService.java:42', 'webapp/src/services/UserService.ts:69']);
  });

  it('takes a bare alternation of words, which Zoekt itself refuses in sym: (HTTP 500)', async () => {
    const either = await symbols({ name: 'Server|UserService', regex: true, case_sensitive: true, limit: 100 });
    const one = await symbols({ name: 'Server', regex: true, case_sensitive: true, limit: 100 });
    const other = await symbols({ name: 'UserService', regex: true, case_sensitive: true, limit: 100 });
    expect(one.symbols.length).toBeGreaterThan(0);
    expect(other.symbols.length).toBeGreaterThan(0);
    expect(where(either)).toEqual([...where(one), ...where(other)].sort());
  });
});

describe('qualified names', () => {
  it('finds a Go method by receiver, and Python and Rust methods of a class of that name', async () => {
    const out = await symbols({ name: 'Server.start' });
    expect(where(out)).toEqual(['gosvc/internal/server/server.go:53', 'pytools/acme_tools/server.py:29', 'rustlib/src/server.rs:37']);
    // The module-level Python function start() (line 44) has no parent and is not a member.
    const exact = await symbols({ name: 'Server.Start', case_sensitive: true });
    expect(where(exact)).toEqual(['gosvc/internal/server/server.go:53']);
  });

  it('finds C++ members with ::, and members of a class in TypeScript, Java and Python', async () => {
    // The declarations in the class body (the header) and the definitions out of line.
    const cpp = await symbols({ name: 'UserService::find', languages: ['cpp'] });
    expect(where(cpp)).toEqual(['native/include/user_service.h:14', 'native/include/user_service.h:15', 'native/src/user_service.cpp:14', 'native/src/user_service.cpp:5']);
    const all = await symbols({ name: 'UserService.find' });
    expect(where(all)).toEqual([
      'javaapp/src/main/java/com/acme/UserService.java:23',
      'javaapp/src/main/java/com/acme/UserService.java:27',
      'javaapp/src/main/java/com/acme/UserService.java:31',
      'native/include/user_service.h:14',
      'native/include/user_service.h:15',
      'native/src/user_service.cpp:14',
      'native/src/user_service.cpp:5',
      'pytools/acme_tools/users.py:18',
      'webapp/src/services/UserService.ts:53',
    ]);
    expect(all.symbols.every((s) => s.parent === 'UserService' && s.name === 'find')).toBe(true);
  });

  it.each(['UserService::', 'UserService.*'])('%s lists the members of UserService and only those', async (name) => {
    const out = await symbols({ name, languages: ['typescript'], limit: 100 });
    expect(out.symbols.map((s) => `${s.name}:${s.line}`).sort()).toEqual(['constructor:51', 'find:53', 'findAll:57', 'repo:51', 'save:61']);
    expect(out.symbols.every((s) => s.parent === 'UserService' && s.path === 'src/services/UserService.ts')).toBe(true);
  });

  it('Server.* lists the fields and methods of the Go struct', async () => {
    const out = await symbols({ name: 'Server.*', languages: ['go'], limit: 100 });
    expect(out.symbols.map((s) => s.name).sort()).toEqual(['Addr', 'Start', 'Stop', 'addr', 'handle', 'handlers', 'mu', 'running', 'timeout']);
    const methods = await symbols({ name: 'Server.*', languages: ['go'], kinds: ['method'], limit: 100 });
    expect(methods.symbols.map((s) => s.name).sort()).toEqual(['Addr', 'Start', 'Stop', 'handle']);
  });
});

describe('kinds as a post-filter', () => {
  it('fills a page of methods even though functions, classes and constants rank alongside them', async () => {
    const mixed = await symbols({ name: 'process', limit: 5 });
    expect(new Set(mixed.symbols.map((s) => s.kind)).size).toBeGreaterThan(1);

    const seen: SymbolResult[] = [];
    let cursor: string | undefined;
    const pageSizes: number[] = [];
    do {
      const page = await symbols({ name: 'process', kinds: ['method'], limit: 5, ...(cursor ? { cursor } : {}) });
      expect(page.symbols.every((s) => s.kind === 'method')).toBe(true);
      pageSizes.push(page.symbols.length);
      seen.push(...page.symbols);
      cursor = page.next_cursor;
    } while (cursor);
    // FACTS.md: `process` is defined 30 times, 14 of them methods.
    expect(pageSizes).toEqual([5, 5, 4]);
    expect(new Set(seen.map(at)).size).toBe(14);
  });
});

describe('vendored code', () => {
  it('is left out unless include_vendored is true', async () => {
    const plain = await symbols({ name: 'getUser', case_sensitive: true });
    expect(where(plain)).toEqual(['webapp/src/services/UserService.ts:69']);
    const vendored = await symbols({ name: 'getUser', case_sensitive: true, include_vendored: true });
    expect(where(vendored)).toEqual([
      'webapp/node_modules/leftpad/index.js:14',
      'webapp/src/services/UserService.ts:69',
      'webapp/vendor/legacy/UserService.js:20',
    ]);
    const goPlain = await symbols({ name: 'Server', languages: ['go'], case_sensitive: true });
    expect(where(goPlain)).toEqual(['gosvc/internal/server/server.go:30']);
    const goAll = await symbols({ name: 'Server', languages: ['go'], case_sensitive: true, include_vendored: true });
    expect(where(goAll)).toEqual(['gosvc/internal/server/server.go:30', 'gosvc/third_party/legacy/server.go:7']);
  });

  it('says so when nothing outside vendored paths matches', async () => {
    const out = await symbols({ name: 'leftpad' });
    expect(out.symbols).toEqual([]);
    expect(out.hint).toContain('include_vendored: true');
  });
});

describe('languages and zero results', () => {
  it('source_code_only leaves out Markdown headings and keeps code', async () => {
    const md = await symbols({ name: 'Unicode sample' });
    expect(where(md)).toEqual(['docs-only/unicode.md:1']);
    expect(md.symbols[0]!.language).toBe('Markdown');
    const code = await symbols({ name: 'Unicode sample', source_code_only: true });
    expect(code.symbols).toEqual([]);
    const server = await symbols({ name: 'Server', source_code_only: true, case_sensitive: true });
    expect(new Set(server.symbols.map((s) => s.language))).toEqual(new Set(['Go', 'Python', 'Rust']));
  });

  it('explains an empty result with the next call to make', async () => {
    const out = await symbols({ name: 'NoSuchSymbolAnywhere' });
    expect(out.symbols).toEqual([]);
    // Each suspected cause was checked against the index, and none holds.
    expect(out.hint).toMatch(/nor any as a prefix \('NoSuchSymbolAnywhere\*'\), in vendored paths/);
    expect(out.hint).toMatch(/appears in no indexed file as text either/);
    expect(out.hint).toMatch(/list_repos/);
  });
});
