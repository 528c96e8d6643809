import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { isGlob, nameGlobToRegex, pathGlobToRegex, repoGlobToRegex } from '../../src/patterns/globs.js';
import { toolErrorOf } from '../support/refusals.js';

const matches = (re: string, s: string) => new RegExp(re).test(s);

describe('pathGlobToRegex', () => {
  const cases: [string, string[], string[]][] = [
    ['*.go', ['main.go', 'cmd/server/main.go'], ['main.go.bak', 'main_go', 'go']],
    ['Makefile', ['Makefile', 'tools/Makefile'], ['Makefile.am', 'xMakefile', 'src/Makefiles/x']],
    ['/main.go', ['main.go'], ['cmd/main.go']],
    // Only a trailing slash: a directory of that name at any depth, as in gitignore.
    ['src/', ['src/a.ts', 'src/deep/b.ts', 'lib/src/a.ts'], ['srcx/a.ts', 'src', 'xsrc/a.ts']],
    ['src/api/', ['src/api/a.ts', 'src/api/v1/b.ts'], ['lib/src/api/a.ts', 'src/apix/a.ts']],
    ['test/', ['test/a.ts', 'pkg/test/b.ts'], ['tests/a.ts', 'test.ts']],
    ['src/**/*.ts', ['src/a.ts', 'src/x/y/b.ts'], ['lib/src/a.ts', 'src/a.tsx']],
    ['**/*.test.ts', ['a.test.ts', 'src/x/a.test.ts'], ['a.test.tsx', 'atest.ts']],
    ['**/Makefile', ['Makefile', 'a/b/Makefile'], ['xMakefile', 'Makefile/x']],
    ['**/', ['a/b'], []],
    ['*.test.ts', ['a.test.ts', 'deep/a.test.ts'], ['a.testXts', 'a.test.ts.map']],
    ['a.b', ['a.b', 'x/a.b'], ['aXb', 'a.bc']],
    ['find%user', ['find%user'], ['findXuser']],
    ['(', ['('], ['x']],
    ['a+b', ['a+b'], ['aab', 'ab']],
    ['file?.c', ['file1.c', 'fileA.c'], ['file10.c', 'file/.c']],
    ['[abc].md', ['a.md', 'x/c.md'], ['d.md', 'ab.md']],
    ['[!abc].md', ['d.md'], ['a.md']],
    ['src/*/index.ts', ['src/a/index.ts'], ['src/a/b/index.ts']],
    ['docs/ünïcødé.md', ['docs/ünïcødé.md'], ['docs/unicode.md']],
    ['\\*.md', ['*.md'], ['a.md']],
    // A leading `*` and nothing after it that can match a `/`: the path's end alone.
    ['*_test.go', ['a_test.go', '_test.go', 'x/y/a_test.go'], ['a_test.gox', 'a_test/go', 'x_test.go/y']],
    ['*foo*bar', ['foobar', 'x/afooxbar'], ['x/foo/bar', 'foo/xbar', 'foobarx']],
    ['*?.js', ['a.js', 'x/ab.js'], ['.js', 'x/.js']],
    ['*[!x].h', ['a.h', 'd/ab.h'], ['x.h', 'a/.h', '.h']],
    ['*', ['a', 'x/y'], []],
  ];
  it.each(cases)('%s', (glob, yes, no) => {
    const re = pathGlobToRegex(glob);
    for (const p of yes) expect(matches(re, p), `${glob} should match ${p} (${re})`).toBe(true);
    for (const p of no) expect(matches(re, p), `${glob} should not match ${p} (${re})`).toBe(false);
  });

  it('sends a leading-star glob as the end of the path, which Zoekt matches twice as fast', () => {
    expect(pathGlobToRegex('*.h')).toBe('\\.h$');
    expect(pathGlobToRegex('*foo*bar')).toBe('foo[^/]*bar$');
    // A class may match a `/`, and `**` does: those keep the segment's start.
    expect(pathGlobToRegex('*[!x].h')).toBe('(?:^|/)[^/]*[^/x]\\.h$');
    expect(pathGlobToRegex('**.h')).toBe('(?:^|/).*\\.h$');
    // `**/x` is `x` at any depth.
    expect(pathGlobToRegex('**/*.test.ts')).toBe('\\.test\\.ts$');
    expect(pathGlobToRegex('**/Makefile')).toBe('(?:^|/)Makefile$');
  });

  it('rejects empty globs and unclosed classes with INVALID_ARGUMENT', () => {
    expect(() => pathGlobToRegex('')).toThrow(/empty/);
    expect(() => pathGlobToRegex('[abc')).toThrow(/never closed/);
  });
});

describe('repoGlobToRegex', () => {
  it('anchors globs with a slash and matches bare names as a last segment', () => {
    const org = repoGlobToRegex('github.com/acme/*');
    expect(matches(org, 'github.com/acme/webapp')).toBe(true);
    expect(matches(org, 'github.com/acme/webapp/sub')).toBe(false);
    expect(matches(org, 'github.com/acmeX/webapp')).toBe(false);
    expect(matches(org, 'githubXcom/acme/webapp')).toBe(false);
    const bare = repoGlobToRegex('webapp');
    expect(matches(bare, 'github.com/acme/webapp')).toBe(true);
    expect(matches(bare, 'webapp')).toBe(true);
    expect(matches(bare, 'github.com/acme/webapp2')).toBe(false);
  });
});

describe('nameGlobToRegex', () => {
  it.each([
    ['get*', ['get', 'getUser', 'get_user'], ['aget', 'Get']],
    ['get_*', ['get_user_by_email'], ['getUser', 'getter']],
    ['*Handler', ['RequestHandler', 'Handler'], ['HandlerRegistry']],
    ['User*Service', ['UserService', 'UserAdminService'], ['UserServiceFactory']],
    ['a.b', ['a.b'], ['aXb', 'a.bc']],
    ['find%user*', ['find%user', 'find%userById'], ['findXuser']],
    ['(*', ['(', '(x'], ['x(']],
    ['a+*', ['a+', 'a+b'], ['aa', 'ab']],
    ['C\\+\\+*', ['C++', 'C++11'], ['C', 'CC']],
    ['$scope*', ['$scope', '$scopeX'], ['scope', 'x$scope']],
    ['grüße_*', ['grüße_welt'], ['grusse_welt', 'grüße']],
    ['日本*', ['日本語'], ['中国']],
  ])('%s', (glob, yes, no) => {
    const re = nameGlobToRegex(glob);
    for (const s of yes) expect(matches(re, s)).toBe(true);
    for (const s of no) expect(matches(re, s)).toBe(false);
  });

  it('tells globs from plain names', () => {
    expect(isGlob('get*')).toBe(true);
    expect(isGlob('a?')).toBe(true);
    expect(isGlob('plain_name')).toBe(false);
    expect(isGlob('\\*')).toBe(false);
  });
});

describe('classes that would make an invalid regex', () => {
  it.each(['[!]', '[]', '[^]', 'src/[!]/*.ts', '[z-a].go', '[a-\\\\].txt', 'x[!9-0]'])('%s is refused, naming the glob', (glob) => {
    const error = toolErrorOf(() => pathGlobToRegex(glob));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(`'${glob}'`);
    expect(() => nameGlobToRegex(glob)).toThrow(ToolError);
  });

  it('keeps a ] right after [ or [! as a member, as gitignore does', () => {
    expect(matches(pathGlobToRegex('[]]'), ']')).toBe(true);
    expect(matches(pathGlobToRegex('a[!]]'), 'ab')).toBe(true);
    expect(matches(pathGlobToRegex('a[!]]'), 'a]')).toBe(false);
    expect(matches(pathGlobToRegex('[-a]'), '-')).toBe(true);
    expect(matches(pathGlobToRegex('[a-]'), '-')).toBe(true);
  });
});
