import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shardPrefix } from '../../src/local/indexer.js';
import { listLines, nameFromOrigin, plainName, readRepoList } from '../../src/local/repos.js';
import { parseServeArgs } from '../../src/local/serve-args.js';
import { DEFAULT_PORT_ENV, SERVE_ENV, serveEnvNumber, zoektPort } from '../../src/local/serve-env.js';

const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-repos-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'ignore' });

describe('the repo list', () => {
  it('keeps line numbers and drops comments and blanks', () => {
    expect(listLines('# head\n\n a \nb # note\n#c\n')).toEqual([
      { line: 3, text: 'a' },
      { line: 4, text: 'b' },
    ]);
  });

  it('names a repository from its origin as Zoekt does, and leaves local paths alone', () => {
    expect(nameFromOrigin('https://github.com/acme/api.git')).toBe('github.com/acme/api');
    expect(nameFromOrigin('git@github.com:acme/api.git')).toBe('github.com/acme/api');
    expect(nameFromOrigin('ssh://git@gitlab.example.com:2222/team/x')).toBe('gitlab.example.com:2222/team/x');
    expect(nameFromOrigin('/home/me/src/api')).toBeUndefined();
    expect(nameFromOrigin('../api')).toBeUndefined();
  });

  it('names a plain folder by its path under the base, else under home, else absolute', () => {
    expect(plainName('/w/proj/node_modules/typescript', '/w/proj')).toBe('node_modules/typescript');
    expect(plainName('/w/proj', '/w/proj')).toBe('proj');
    expect(plainName('/usr/local/go/src', '/w/proj')).toBe('usr/local/go/src');
  });

  it('indexes each entry as listed: a work tree root as git, its subfolder as a folder of its own; bad lines are named', () => {
    const base = join(work, 'base');
    const repo = join(base, 'app');
    mkdirSync(join(repo, 'node_modules/typescript'), { recursive: true });
    writeFileSync(join(repo, 'node_modules/typescript/index.d.ts'), 'export {};\n');
    git(repo, 'init', '-q', '-b', 'main');
    const other = join(base, 'other');
    mkdirSync(join(other, 'app'), { recursive: true });
    writeFileSync(join(base, 'file.txt'), '');
    const list = join(base, 'repos');
    writeFileSync(list, 'app\napp/node_modules/typescript\n\nmissing\nfile.txt\napp\n');
    const out = readRepoList({ file: list, base, label: 'repos' });
    expect(out.entries.map((e) => [e.name, e.kind])).toEqual([
      ['app', 'git'],
      ['app/node_modules/typescript', 'dir'],
    ]);
    expect(out.errors).toEqual([expect.stringMatching(/^repos:4: missing: no such directory/), expect.stringMatching(/^repos:5: file.txt: is a file, not a folder/)]);
  });

  it('names a work tree root by its zoekt.name, else by its origin, else by its path', () => {
    const base = join(work, 'names');
    for (const d of ['named', 'cloned', 'plain']) {
      mkdirSync(join(base, d), { recursive: true });
      git(join(base, d), 'init', '-q', '-b', 'main');
    }
    git(join(base, 'named'), 'config', 'zoekt.name', 'team/named');
    git(join(base, 'named'), 'remote', 'add', 'origin', 'https://example.com/ignored/named.git');
    git(join(base, 'cloned'), 'remote', 'add', 'origin', 'git@example.com:acme/cloned.git');
    writeFileSync(join(base, 'repos'), 'named\ncloned\nplain\n');
    const out = readRepoList({ file: join(base, 'repos'), base, label: 'repos' });
    expect(out.entries.map((e) => [e.name, e.kind])).toEqual([
      ['team/named', 'git'],
      ['example.com/acme/cloned', 'git'],
      ['plain', 'git'],
    ]);
    expect(out.errors).toEqual([]);
  });

  it('refuses two entries with one name, naming both lines', () => {
    const base = join(work, 'clash');
    for (const d of ['a', 'b']) {
      mkdirSync(join(base, d), { recursive: true });
      git(join(base, d), 'init', '-q', '-b', 'main');
      git(join(base, d), 'config', 'zoekt.name', 'same');
    }
    writeFileSync(join(base, 'repos'), 'a\nb\n');
    const out = readRepoList({ file: join(base, 'repos'), base, label: 'repos' });
    expect(out.entries.map((e) => e.name)).toEqual(['same']);
    expect(out.errors).toEqual([expect.stringMatching(/^repos:2: b: its name "same" is already taken by repos:1/)]);
  });
});

describe('shard names', () => {
  it('escape a repository name as Go url.QueryEscape does', () => {
    expect(shardPrefix('github.com/acme/api')).toBe('github.com%2Facme%2Fapi');
    expect(shardPrefix("a b!'()*~")).toBe('a+b%21%27%28%29%2A~');
  });
});

describe('serve arguments', () => {
  it('takes --repo PATH (repeatable), --repo=PATH, a folder first, and --setup; passes the rest on', () => {
    expect(parseServeArgs(['--repo', work, '--repo=/x', '--http', '--port', '8080'])).toEqual({ repos: [work, '/x'], setup: false, rest: ['--http', '--port', '8080'] });
    expect(parseServeArgs([work, '--setup'])).toEqual({ repos: [work], setup: true, rest: [] });
    expect(parseServeArgs(['--log-level', 'debug'])).toEqual({ repos: [], setup: false, rest: ['--log-level', 'debug'] });
    expect(() => parseServeArgs(['--repo'])).toThrow(/--repo needs a folder/);
  });
});

describe('serve environment', () => {
  it('reads whole numbers within bounds, defaults when unset or empty, and names a bad variable', () => {
    expect(serveEnvNumber(SERVE_ENV.lingerMs, {})).toBe(60_000);
    expect(serveEnvNumber(SERVE_ENV.lingerMs, { ZOEKT_MCP_LINGER_MS: '' })).toBe(60_000);
    expect(serveEnvNumber(SERVE_ENV.pollMs, { ZOEKT_MCP_POLL_MS: '500' })).toBe(500);
    expect(() => serveEnvNumber(SERVE_ENV.pollMs, { ZOEKT_MCP_POLL_MS: '10' })).toThrow(/ZOEKT_MCP_POLL_MS must be a whole number from 100 to/);
    expect(() => serveEnvNumber(SERVE_ENV.port, { ZOEKT_PORT: '70000' })).toThrow(/ZOEKT_PORT/);
    expect(() => serveEnvNumber(SERVE_ENV.lingerMs, { ZOEKT_MCP_LINGER_MS: '1e3' })).toThrow(/ZOEKT_MCP_LINGER_MS/);
  });

  it("tells Zoekt's port chosen by the user from the default, which tests may move off 6070", () => {
    expect(zoektPort({})).toEqual({ port: 6070, portGiven: false });
    expect(zoektPort({ ZOEKT_PORT: '' })).toEqual({ port: 6070, portGiven: false });
    expect(zoektPort({ ZOEKT_PORT: '6070' })).toEqual({ port: 6070, portGiven: true });
    expect(zoektPort({ ZOEKT_PORT: '0' })).toEqual({ port: 0, portGiven: true });
    expect(zoektPort({ [DEFAULT_PORT_ENV]: '7123' })).toEqual({ port: 7123, portGiven: false });
    expect(zoektPort({ [DEFAULT_PORT_ENV]: '7123', ZOEKT_PORT: '7000' })).toEqual({ port: 7000, portGiven: true });
    expect(() => zoektPort({ [DEFAULT_PORT_ENV]: 'x' })).toThrow(new RegExp(DEFAULT_PORT_ENV));
  });
});
