/**
 * list_repos, get_file and get_health through the built CLI over stdio, against the real Zoekt.
 * Expected contents are read from the fixture files on disk.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { GetFileOutput } from '../../src/search/file.js';
import type { HealthOutput } from '../../src/search/health.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { corpusFiles } from '../support/fixtures.js';
import { call, connectStdio, failed, ok, textOf, type Connected } from '../support/mcp.js';
import { DEV_BRANCH_FILE, DEV_BRANCH_MARKER, FIXTURES, freePort, git, REPO_PREFIX, runIndexer, startWebserver } from '../support/zoekt.js';

let mcp: Connected;
beforeAll(async () => {
  mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
});
afterAll(() => mcp.close());

const repos = async (args: Record<string, unknown>) => ok<ListReposOutput>(await call(mcp.client, 'list_repos', args));
const file = async (args: Record<string, unknown>) => ok<GetFileOutput>(await call(mcp.client, 'get_file', args));
const disk = (dir: string, path: string) => readFileSync(join(FIXTURES, dir, path), 'utf8');

describe('list_repos', () => {
  it('lists every indexed repo sorted by name, with branches, index time, symbols and sizes', async () => {
    const out = await repos({});
    const names = inject('repos');
    expect(out.repos.map((r) => r.name)).toEqual([...names].sort());
    expect(out.next_cursor).toBeUndefined();
    const webapp = out.repos.find((r) => r.name === `${REPO_PREFIX}webapp`)!;
    expect(webapp.branches.map((b) => b.name)).toEqual(['main', 'dev']);
    expect(webapp.branches.every((b) => /^[0-9a-f]{40}$/.test(b.version))).toBe(true);
    expect(webapp.url).toBe(`https://${REPO_PREFIX}webapp`);
    for (const r of out.repos) {
      expect(r.has_symbols, r.name).toBe(true);
      expect(Date.parse(r.index_time!), r.name).toBeGreaterThan(Date.now() - 3_600_000);
      const onDisk = corpusFiles().filter((f) => f.repo === r.name).length;
      // webapp's dev branch adds one file.
      expect(r.files, r.name).toBe(onDisk + (r.name.endsWith('/webapp') ? 1 : 0));
      expect(r.content_bytes, r.name).toBeGreaterThan(0);
    }
    expect(out.totals).toMatchObject({ repos: names.length, shards: names.length });
    expect(out.totals.documents).toBe(out.repos.reduce((n, r) => n + r.files, 0));
    expect(out.totals.index_bytes).toBeGreaterThan(0);
  });

  it('pages: all pages of 3 equal one page, and the last page has no cursor', async () => {
    const all = await repos({ limit: 500 });
    const walked: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await repos({ limit: 3, ...(cursor ? { cursor } : {}) });
      walked.push(...page.repos.map((r) => r.name));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(walked).toEqual(all.repos.map((r) => r.name));
    const bad = failed(await call(mcp.client, 'list_repos', { limit: 4, cursor: 'garbage' }));
    expect(bad.code).toBe('INVALID_CURSOR');
  });

  it('filters by glob and by bare name, and explains an empty result', async () => {
    expect((await repos({ filter: 'github.com/acme/*' })).repos).toHaveLength(inject('repos').length);
    expect((await repos({ filter: 'webapp' })).repos.map((r) => r.name)).toEqual([`${REPO_PREFIX}webapp`]);
    expect((await repos({ filter: 'github.com/acme/*app' })).repos.map((r) => r.name)).toEqual([`${REPO_PREFIX}javaapp`, `${REPO_PREFIX}webapp`]);
    const none = await repos({ filter: 'nosuchrepo' });
    expect(none.repos).toEqual([]);
    expect(none.hint).toMatch(/bare name/);
    expect(textOf(await call(mcp.client, 'list_repos', { filter: 'gosvc' }))).toMatch(/^github\.com\/acme\/gosvc {2}\[main@[0-9a-f]{10}\]/);
  });
});

describe('get_file', () => {
  it('returns the first 400 lines by default, with total_lines and truncated', async () => {
    const text = disk('docs-only', 'long.txt');
    const lines = text.split('\n');
    const out = await file({ repo: `${REPO_PREFIX}docs-only`, path: 'long.txt' });
    expect(out).toMatchObject({ start_line: 1, end_line: 400, total_lines: 2500, truncated: true, language: 'Text' });
    expect(out.content).toBe(lines.slice(0, 400).join('\n') + '\n');
  });

  it('returns a line range, and caps a call at 2000 lines', async () => {
    const lines = disk('docs-only', 'long.txt').split('\n');
    const mid = await file({ repo: `${REPO_PREFIX}docs-only`, path: 'long.txt', start_line: 1000, end_line: 1004 });
    expect(mid).toMatchObject({ start_line: 1000, end_line: 1004, total_lines: 2500, truncated: true });
    expect(mid.content).toBe(lines.slice(999, 1004).join('\n') + '\n');
    // A bound large enough for 2000 lines: the call's own cap is what is tested here.
    const capped = await file({ repo: `${REPO_PREFIX}docs-only`, path: 'long.txt', start_line: 1, end_line: 2500, max_output_chars: 200_000 });
    expect(capped).toMatchObject({ start_line: 1, end_line: 2000, truncated: true });
    expect(capped.content.split('\n')).toHaveLength(2001);
    const tail = await file({ repo: `${REPO_PREFIX}docs-only`, path: 'long.txt', start_line: 2401 });
    expect(tail).toMatchObject({ start_line: 2401, end_line: 2500, truncated: false });
    expect(tail.content).toBe(lines.slice(2400).join('\n'));
    const text = textOf(await call(mcp.client, 'get_file', { repo: `${REPO_PREFIX}docs-only`, path: 'long.txt', start_line: 9, end_line: 10 }));
    expect(text.split('\n')[1]).toBe(` 9  ${lines[8]}`);
    expect(text).toMatch(/2490 more line\(s\): call again with start_line 11/);
  });

  it('gives non-ASCII content byte for byte', async () => {
    const out = await file({ repo: `${REPO_PREFIX}docs-only`, path: 'unicode.md' });
    expect(Buffer.from(out.content, 'utf8').equals(readFileSync(join(FIXTURES, 'docs-only', 'unicode.md')))).toBe(true);
    expect(out.truncated).toBe(false);
    expect(out.version).toMatch(/^[0-9a-f]{40}$/);
  });

  it('reads a branch', async () => {
    const dev = await file({ repo: `${REPO_PREFIX}webapp`, path: DEV_BRANCH_FILE, branch: 'dev' });
    expect(dev.content).toContain(DEV_BRANCH_MARKER);
    expect(dev.branches).toEqual(['dev']);
    const main = failed(await call(mcp.client, 'get_file', { repo: `${REPO_PREFIX}webapp`, path: DEV_BRANCH_FILE, branch: 'main' }));
    expect(main.code).toBe('NOT_FOUND');
    expect(main.hint).toContain("'dev'");
  });

  /**
   * A repository of its own, indexed apart from the fixtures: version.txt differs between main
   * and dev (Zoekt then holds two documents for the path, returned in no fixed order), and files
   * Zoekt keeps without their text or in another encoding.
   */
  async function withOddRepo(run: (client: Connected['client']) => Promise<void>): Promise<void> {
    const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-odd-'));
    const repoDir = join(work, 'odd');
    mkdirSync(repoDir);
    git(repoDir, 'init', '-q', '-b', 'main');
    git(repoDir, 'config', 'zoekt.name', ODD);
    writeFileSync(join(repoDir, 'version.txt'), 'version on main\n');
    writeFileSync(join(repoDir, 'empty.txt'), '');
    writeFileSync(join(repoDir, 'tiny.txt'), '\n');
    writeFileSync(join(repoDir, 'data.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02, 0x03]));
    writeFileSync(join(repoDir, 'big.txt'), 'a line of text that repeats\n'.repeat(200_000));
    writeFileSync(join(repoDir, 'latin1.txt'), Buffer.from('caf\xe9 cr\xe8me\n', 'latin1'));
    git(repoDir, 'add', '-A');
    git(repoDir, 'commit', '-q', '-m', 'main');
    git(repoDir, 'checkout', '-q', '-b', 'dev');
    writeFileSync(join(repoDir, 'version.txt'), 'version on dev\n');
    git(repoDir, 'commit', '-q', '-am', 'dev');
    git(repoDir, 'checkout', '-q', 'main');
    runIndexer('git', ['-branches', 'main,dev', '-index', join(work, 'index'), repoDir]);
    const zoekt = await startWebserver({ indexDir: join(work, 'index'), expectRepos: 1 });
    const own = await connectStdio({ ZOEKT_URL: zoekt.url });
    try {
      await run(own.client);
    } finally {
      await own.close();
      await zoekt.stop();
      rmSync(work, { recursive: true, force: true });
    }
  }
  const ODD = `${REPO_PREFIX}odd`;

  it('reads branches that differ, empty and non-UTF-8 files, and refuses files Zoekt kept no text of', async () => {
    await withOddRepo(async (client) => {
      const get = (path: string, extra: Record<string, unknown> = {}) => call(client, 'get_file', { repo: ODD, path, ...extra });
      // Without a branch: the default branch's version, every time.
      for (let i = 0; i < 10; i++) {
        const out = ok<GetFileOutput>(await get('version.txt'));
        expect(out.content).toBe('version on main\n');
        expect(out.branches).toEqual(['main']);
      }
      const dev = ok<GetFileOutput>(await get('version.txt', { branch: 'dev' }));
      expect(dev.content).toBe('version on dev\n');
      expect(dev.branches).toEqual(['dev']);
      // A branch that does not have it: the hint names every branch that does.
      const wrong = failed(await get('version.txt', { branch: 'ma' }));
      expect(wrong.code).toBe('NOT_FOUND');
      expect(wrong.hint).toMatch(/'main'/);
      expect(wrong.hint).toMatch(/'dev'/);

      // Zoekt leaves Content out for an empty file: it exists, with no lines.
      const empty = ok<GetFileOutput>(await get('empty.txt'));
      expect(empty).toMatchObject({ content: '', total_lines: 0, truncated: false });

      // Zoekt stores "NOT-INDEXED: <reason>" instead of these files' text.
      for (const [path, reason] of [
        ['tiny.txt', /too few trigrams/],
        ['data.bin', /binary content/],
        ['big.txt', /maximum size limit/],
      ] as const) {
        const err = failed(await get(path));
        expect(err.code, path).toBe('NOT_FOUND');
        expect(err.message, path).toMatch(reason);
        expect(err.message, path).toMatch(/without its content/);
        expect(err.hint, path).toMatch(/-file_limit/);
      }

      // Latin-1 is indexed as it is; the text cannot be byte-exact, and the answer says so.
      const latin1 = ok<GetFileOutput & { hint?: string }>(await get('latin1.txt'));
      expect(latin1.content).toBe('caf\ufffd cr\ufffdme\n');
      expect(latin1.hint).toMatch(/not valid UTF-8/);
      const utf8 = ok<GetFileOutput & { hint?: string }>(await get('version.txt'));
      expect(utf8.hint).toBeUndefined();
    });
  });

  it('answers NOT_FOUND with the nearest repository or paths', async () => {
    const repo = failed(await call(mcp.client, 'get_file', { repo: 'github.com/acme/webap', path: 'src/literal.ts' }));
    expect(repo.code).toBe('NOT_FOUND');
    expect(repo.hint).toContain(`'${REPO_PREFIX}webapp'`);
    const bare = failed(await call(mcp.client, 'get_file', { repo: 'webapp', path: 'src/literal.ts' }));
    expect(bare.hint).toContain(`'${REPO_PREFIX}webapp'`);
    const path = failed(await call(mcp.client, 'get_file', { repo: `${REPO_PREFIX}webapp`, path: 'src/services/UserServise.ts' }));
    expect(path.code).toBe('NOT_FOUND');
    expect(path.hint).toContain("'src/services/UserService.ts'");
    const moved = failed(await call(mcp.client, 'get_file', { repo: `${REPO_PREFIX}gosvc`, path: 'server.go' }));
    expect(moved.hint).toContain("'internal/server/server.go'");
  });

  it('refuses impossible ranges', async () => {
    const past = failed(await call(mcp.client, 'get_file', { repo: `${REPO_PREFIX}docs-only`, path: 'unicode.md', start_line: 22 }));
    expect(past.code).toBe('INVALID_ARGUMENT');
    expect(past.message).toContain('21 lines');
    const reversed = failed(await call(mcp.client, 'get_file', { repo: `${REPO_PREFIX}docs-only`, path: 'unicode.md', start_line: 5, end_line: 2 }));
    expect(reversed.code).toBe('INVALID_ARGUMENT');
    const zero = failed(await call(mcp.client, 'get_file', { repo: `${REPO_PREFIX}docs-only`, path: 'unicode.md', start_line: 0 }));
    expect(zero.code).toBe('INVALID_ARGUMENT');
  });
});

describe('get_health', () => {
  it('is ok with the real figures of the index', async () => {
    const out = ok<HealthOutput>(await call(mcp.client, 'get_health', {}));
    const listed = await repos({ limit: 500 });
    expect(out.status).toBe('ok');
    expect(out.zoekt).toMatchObject({ url: inject('zoektUrl'), reachable: true, ready: true });
    expect(out.zoekt.latency_ms).toBeGreaterThanOrEqual(0);
    expect(out.adapter.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(out.index).toMatchObject({
      repos: inject('repos').length,
      shards: listed.totals.shards,
      documents: listed.totals.documents,
      index_bytes: listed.totals.index_bytes,
      content_bytes: listed.totals.content_bytes,
      repos_without_symbols: 0,
    });
    expect(Date.parse(out.index!.oldest_index_time!)).toBeLessThanOrEqual(Date.parse(out.index!.newest_index_time!));
    expect(textOf(await call(mcp.client, 'get_health', {}))).toMatch(/^status: ok\n/);
  });

  it('is degraded, not down, when Zoekt answers but is not ready', async () => {
    // The pinned Zoekt has no /readyz and cannot be made "not ready" on demand, so this stands in
    // for a newer Zoekt still loading its shards: /readyz and /api/list answer 503.
    const fake = createServer((req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end(req.url === '/readyz' ? 'shards are still loading' : 'not ready');
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    const loading = await connectStdio({ ZOEKT_URL: url, ZOEKT_MCP_TIMEOUT_MS: '2000' });
    try {
      const out = ok<HealthOutput>(await call(loading.client, 'get_health', {}));
      expect(out.status).toBe('degraded');
      expect(out.zoekt).toMatchObject({ url, reachable: true, ready: false });
      expect(out.hint).toMatch(/not ready .*shards are still loading.*retry/);
      expect(out.hint).not.toMatch(/does not answer/);
    } finally {
      await loading.close();
      await new Promise((r) => fake.close(r));
    }
  });

  it('is down with a hint, not an error, when Zoekt is not there', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const down = await connectStdio({ ZOEKT_URL: url, ZOEKT_MCP_TIMEOUT_MS: '2000' });
    try {
      const result = await call(down.client, 'get_health', {});
      expect(result.isError).toBeFalsy();
      const out = ok<HealthOutput>(result);
      expect(out.status).toBe('down');
      expect(out.zoekt).toMatchObject({ url, reachable: false, ready: false });
      expect(out.index).toBeUndefined();
      expect(out.hint).toContain(`curl ${url}/healthz`);
    } finally {
      await down.close();
    }
  });
});
