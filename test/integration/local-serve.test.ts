/**
 * The serve command as an MCP client runs it (`bash scripts/serve.sh`, stdio) on a set-up
 * machine: it answers at once without re-indexing, clients share one Zoekt and may quit in any
 * order, the index follows commits, edits and the list, and a first index shows its progress.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELTAS_MAX, isShardOf, shadowDir, type IndexerPaths } from '../../src/local/indexer.js';
import type { CodeSearchOutput } from '../../src/search/code.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { allIndexed, gitIn, health, serveEnv, spawnServe, supervisorGone, supervisorStatus, waitFor, type LocalClient } from '../support/local.js';
import { call, failed, ok, textOf } from '../support/mcp.js';
import { FIXTURES, procState, ROOT, TOOLS_DIR } from '../support/zoekt.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-local-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A git repository copied from a fixture, with one commit. */
function gitRepo(fixture: string, dir: string, name?: string): string {
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
  if (name) gitIn(dir, 'config', 'zoekt.name', name);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

async function search(c: LocalClient, query: string): Promise<CodeSearchOutput> {
  return ok<CodeSearchOutput>(await call(c.client, 'search_code', { query, context_lines: 0 }));
}

async function names(c: LocalClient): Promise<string[]> {
  return ok<ListReposOutput>(await call(c.client, 'list_repos', {})).repos.map((r) => r.name);
}

describe('a set-up machine', () => {
  let data: string;
  let repo: string;
  beforeAll(async () => {
    data = join(work, 'data-start');
    repo = gitRepo('rustlib', join(work, 'rustlib'), 'acme/rustlib');
    // The set-up step: indexes with progress, then exits.
    const out = execFileSync('bash', [join(ROOT, 'scripts/setup.sh'), 'index'], { env: serveEnv({ data, repos: repo }), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toBe('');
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);

  it('a cursor from one spawn pages on in the next: one key per data folder, private to the user', async () => {
    const args = { query: 'fn', context_lines: 0, limit: 1 };
    const first = await spawnServe({ data, repos: repo });
    let page2: CodeSearchOutput;
    let cursor: string;
    try {
      const page1 = ok<CodeSearchOutput>(await call(first.client, 'search_code', args));
      cursor = page1.next_cursor!;
      expect(cursor).toBeDefined();
      page2 = ok<CodeSearchOutput>(await call(first.client, 'search_code', { ...args, cursor }));
    } finally {
      await first.close();
    }
    const second = await spawnServe({ data, repos: repo });
    try {
      const again = ok<CodeSearchOutput>(await call(second.client, 'search_code', { ...args, cursor }));
      expect(again.results.map((r) => r.path)).toEqual(page2.results.map((r) => r.path));
    } finally {
      await second.close();
    }
    expect(statSync(join(data, 'cursor-secret')).mode & 0o777).toBe(0o600);
  });

  it('serves initialize and tools/list at once, starting Zoekt but re-indexing nothing', async () => {
    const before = readFileSync(join(data, 'state.json'), 'utf8');
    const c = await spawnServe({ data, repos: repo });
    try {
      process.stderr.write(`serve.sh on a set-up machine: initialize + tools/list in ${c.startMs.toFixed(0)} ms (bench/serve-start.mjs measures it)\n`);
      const h = await allIndexed(c.client);
      expect(h.status).toBe('ok');
      // What was indexed, when, from which snapshot (whether a client lists it is not the index).
      const indexed = (text: string) => Object.values((JSON.parse(text) as { repos: Record<string, { unlisted_since?: string }> }).repos).map((r) => ({ ...r, unlisted_since: undefined }));
      expect(indexed(readFileSync(join(data, 'state.json'), 'utf8'))).toEqual(indexed(before));
      expect(readFileSync(join(data, 'supervisor.log'), 'utf8').match(/indexing acme\/rustlib/g)).toHaveLength(1);
      const out = await search(c, 'fn start');
      expect(out.results.map((r) => `${r.repo}/${r.path}`)).toContain('acme/rustlib/src/server.rs');
      expect(textOf(await call(c.client, 'search_code', { query: 'fn start' }))).toMatch(/index: acme\/rustlib indexed \d+ s ago, current/);
      // How old the index is, in the structured answer too.
      expect(out.index_age).toEqual([{ repo: 'acme/rustlib', index_time: expect.any(String), index_age_s: expect.any(Number), state: 'current', checked_s: expect.any(Number) }]);
      expect(out.stats.complete).toBe(true);
      expect(out.partial).toBeUndefined();
      // The output budget holds with the index line the local command adds after the tool.
      const tight = await call(c.client, 'search_code', { query: 'e', limit: 50, context_lines: 10, max_matches_per_file: 100, max_output_chars: 2000 });
      expect(textOf(tight)).toMatch(/\nindex: acme\/rustlib indexed \d+ s ago, current$/);
      expect(textOf(tight).length).toBeLessThanOrEqual(2000);
      expect(JSON.stringify(tight.structuredContent).length).toBeLessThanOrEqual(4000);
      expect(ok<CodeSearchOutput>(tight).truncated).toBeDefined();
      const listed = ok<ListReposOutput>(await call(c.client, 'list_repos', {})).repos;
      expect(listed).toEqual([expect.objectContaining({ name: 'acme/rustlib', index_state: 'current', index_age_s: expect.any(Number), index_time: expect.any(String) })]);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 60_000);

  it('two set-ups at once share one supervisor and leave one sound index', async () => {
    const fresh = join(work, 'data-two-setups');
    const run = () =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn('bash', [join(ROOT, 'scripts/setup.sh'), 'index'], { env: serveEnv({ data: fresh, repos: repo }), stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('exit', (code) => resolve({ code, err }));
      });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    expect(`${a.err}${b.err}`).toMatch(/1 of 1 repository indexed/);
    expect(readdirSync(join(fresh, 'index')).filter((f) => f.endsWith('.zoekt'))).toEqual(['acme%2Frustlib_v16.00000.zoekt']);
    expect(readFileSync(join(fresh, 'supervisor.log'), 'utf8').match(/indexing acme\/rustlib/g)).toHaveLength(1);
    expect(await supervisorGone(fresh)).toBe(true);
  }, 120_000);

  it('a supervisor killed outright is replaced at once; the new one adopts its Zoekt and clients keep working', async () => {
    const c = await spawnServe({ data, repos: repo });
    try {
      // A first answer: the server serves MCP at once, and its first call waits for the lease.
      expect((await search(c, 'fn start')).results.length).toBeGreaterThan(0);
      const first = await supervisorStatus(data);
      const zoektPid = Number(readFileSync(join(data, 'zoekt-webserver.pid'), 'utf8'));
      // Its Zoekt serving first: the supervisor names the URL while Zoekt still loads, and one
      // killed before it answers leaves a Zoekt the next supervisor does not adopt but replaces.
      await waitFor('Zoekt answering', async () => (await fetch(`${first!.zoekt_url}/healthz`).catch(() => undefined))?.ok);
      const joined = () => readFileSync(join(data, 'supervisor.log'), 'utf8').split('a client joined with').length;
      const joinedBefore = joined();
      process.kill(first!.pid, 'SIGKILL');
      expect((await search(c, 'fn start')).results.length).toBeGreaterThan(0);
      // The client's lease on the new supervisor first: a status read through a lease of the
      // test's own, dropped at once, would otherwise be its only client, and with no linger it
      // would stop when that lease is dropped.
      await waitFor("the client's lease on a new supervisor", async () => joined() > joinedBefore);
      const next = await waitFor('a new supervisor', async () => {
        const st = await supervisorStatus(data);
        return st && st.pid !== first!.pid ? st : undefined;
      });
      expect(next.zoekt_url).toBe(first!.zoekt_url);
      expect(readFileSync(join(data, 'supervisor.log'), 'utf8')).toContain(`adopting zoekt-webserver ${zoektPid}`);
      expect((await search(c, 'fn start')).results.length).toBeGreaterThan(0);
      await c.close();
      expect(await supervisorGone(data)).toBe(true);
      await waitFor('its Zoekt stopped', async () => ['gone', 'Z'].includes(procState(zoektPid)));
    } catch (err) {
      // What the supervisors and Zoekt said, for a failure that only a busy machine has shown.
      const tail = (file: string) => {
        try {
          return readFileSync(join(data, file), 'utf8').trim().split('\n').slice(-20).join('\n');
        } catch {
          return '(none)';
        }
      };
      throw new Error(`${String(err)}\n--- supervisor.log\n${tail('supervisor.log')}\n--- webserver.log\n${tail('webserver.log')}\n--- the server's stderr\n${c.stderr().slice(-2000)}`, { cause: err });
    } finally {
      await c.close().catch(() => undefined);
    }
  }, 60_000);

  it('--repo PATH, or a folder as the first argument, serves that folder alone', async () => {
    const plain = join(work, 'one-project');
    cpSync(join(FIXTURES, 'javaapp'), plain, { recursive: true });
    const home = work; // names are paths under the home folder
    for (const args of [['--repo', plain], [plain]]) {
      const c = await spawnServe({ data: join(work, 'data-repo-flag'), extra: { HOME: home } }, args);
      try {
        await allIndexed(c.client);
        expect(await names(c)).toEqual(['one-project']);
      } finally {
        await c.close();
      }
    }
    expect(await supervisorGone(join(work, 'data-repo-flag'))).toBe(true);
  }, 60_000);

  function orders(n: number): number[][] {
    if (n === 1) return [[0]];
    return orders(n - 1).flatMap((o) => Array.from({ length: n }, (_, i) => [...o.slice(0, i), n - 1, ...o.slice(i)]));
  }

  it.each([2, 3])('%i clients spawned at once share one Zoekt; quitting in every order, each call is answered', async (n) => {
    for (const order of orders(n)) {
      const clients = await Promise.all(Array.from({ length: n }, () => spawnServe({ data, repos: repo })));
      try {
        for (const c of clients) {
          expect((await search(c, 'fn start')).results.length).toBeGreaterThan(0);
        }
        const shared = (await supervisorStatus(data))!;
        expect(shared.leases).toBeGreaterThanOrEqual(n);
        const open = new Set(clients);
        for (const i of order) {
          const quitting = clients[i]!;
          open.delete(quitting);
          // The others' calls are in flight while this client quits.
          const inFlight = [...open].map((c) => search(c, 'fn start'));
          await quitting.close();
          for (const out of await Promise.all(inFlight)) expect(out.results.length, `order ${order.join(',')}`).toBeGreaterThan(0);
          for (const c of open) {
            const out = await search(c, 'fn start');
            expect(out.results.length, `order ${order.join(',')}`).toBeGreaterThan(0);
          }
          if (open.size) {
            // Still the one supervisor, and the one Zoekt, that every client started with.
            const st = (await supervisorStatus(data))!;
            expect([st.pid, st.zoekt_url], `order ${order.join(',')}`).toEqual([shared.pid, shared.zoekt_url]);
          }
        }
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      }
      expect(await supervisorGone(data)).toBe(true);
    }
  }, 240_000);
});

describe('the index follows the code and the list', () => {
  let data: string;
  let list: string;
  let git: string;
  let plain: string;
  let c: LocalClient;
  beforeAll(async () => {
    data = join(work, 'data-follow');
    const base = join(work, 'follow');
    mkdirSync(base);
    git = gitRepo('gosvc', join(base, 'gosvc'));
    plain = join(base, 'notes');
    cpSync(join(FIXTURES, 'pytools'), plain, { recursive: true });
    list = join(base, 'repos');
    // A git root, a subdirectory of it (its own plain repository), a plain folder.
    writeFileSync(list, '# test list\ngosvc\ngosvc/internal\nnotes\n');
    // What no client lists leaves the index at once (by default, an hour later).
    c = await spawnServe({ data, repos: list, extra: { ZOEKT_MCP_KEEP_UNLISTED_MS: '0' } });
    await allIndexed(c.client);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await supervisorGone(data);
  });

  it('names each entry by its path relative to the list, and indexes exactly that directory', async () => {
    expect(await names(c)).toEqual(['gosvc', 'gosvc/internal', 'notes']);
    const inner = ok<CodeSearchOutput>(await call(c.client, 'search_code', { query: 'package', repos: ['gosvc/internal'], limit: 50 }));
    expect(inner.results.length).toBeGreaterThan(0);
    expect(inner.results.every((r) => !r.path.startsWith('internal/'))).toBe(true);
  });

  it('a commit is searchable within seconds, without a restart', async () => {
    writeFileSync(join(git, 'committed.go'), 'package main\n\nfunc committedMarkerFunc() {}\n');
    gitIn(git, 'add', '-A');
    gitIn(git, 'commit', '-q', '-m', 'more');
    const out = await waitFor('the commit indexed', async () => {
      const r = await search(c, 'committedMarkerFunc');
      return r.results.length ? r : undefined;
    });
    expect(out.results.map((r) => `${r.repo}/${r.path}`)).toEqual(['gosvc/committed.go']);
    // Incrementally: a delta of the one changed file, not the whole repository again. (Zoekt may
    // serve the new shard a moment before the supervisor has copied the indexer's output to its log.)
    await waitFor('the delta in the log', async () => /indexing gosvc \(.*\n(.*\n)*?.*attempting to index 1 total files/.test(readFileSync(join(data, 'supervisor.log'), 'utf8')));
  }, 60_000);

  it('the work tree is what is searched: an uncommitted edit, a new file, a deletion and a revert, each within seconds; ignored files stay out', async () => {
    const timed = async (what: string, done: () => Promise<boolean>) => {
      const t0 = Date.now();
      await waitFor(what, done);
      process.stderr.write(`work tree: ${what} searchable in ${Date.now() - t0} ms\n`);
    };
    const found = async (marker: string) => (await search(c, marker)).results.map((r) => r.path);
    // An edit, not committed.
    const file = join(git, 'cmd/server/main.go');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, `${original}\nfunc uncommittedEditMarker() {}\n`);
    await timed('an uncommitted edit', async () => (await found('uncommittedEditMarker')).includes('cmd/server/main.go'));
    // A new file, never added; and one .gitignore leaves out.
    writeFileSync(join(git, '.gitignore'), 'ignored_*.go\n');
    writeFileSync(join(git, 'ignored_scratch.go'), 'package main\n\nfunc ignoredFileMarker() {}\n');
    writeFileSync(join(git, 'untracked.go'), 'package main\n\nfunc untrackedFileMarker() {}\n');
    await timed('a new, untracked file', async () => (await found('untrackedFileMarker')).includes('untracked.go'));
    expect(await found('ignoredFileMarker')).toEqual([]);
    // A deletion, and a revert of the edit (git checkout -- file).
    rmSync(join(git, 'untracked.go'));
    await timed('a deletion', async () => (await found('untrackedFileMarker')).length === 0);
    gitIn(git, 'checkout', '--', 'cmd/server/main.go');
    await timed('a revert', async () => (await found('uncommittedEditMarker')).length === 0);
    rmSync(join(git, 'ignored_scratch.go'));
    rmSync(join(git, '.gitignore'));
    // Once caught up, the index says so.
    await waitFor('current again', async () => (await search(c, 'package')).index_age?.every((a) => a.state === 'current') ?? false);
  }, 90_000);

  it('a checkout of another branch is searchable within seconds, and so is the way back', async () => {
    gitIn(git, 'checkout', '-q', '-b', 'topic');
    writeFileSync(join(git, 'topic.go'), 'package main\n\nfunc topicBranchMarker() {}\n');
    gitIn(git, 'add', '-A');
    gitIn(git, 'commit', '-q', '-m', 'topic');
    await waitFor('the checkout indexed', async () => (await search(c, 'topicBranchMarker')).results.length > 0);
    gitIn(git, 'checkout', '-q', 'main');
    await waitFor('the way back indexed', async () => (await search(c, 'topicBranchMarker')).results.length === 0);
  }, 60_000);

  it('an edited file of a plain directory is searchable within seconds, its old text gone', async () => {
    const file = join(plain, 'acme_tools/__init__.py');
    writeFileSync(file, readFileSync(file, 'utf8').replace('a small worker server', 'an edited_marker_text server'));
    const old = async () => ok<CodeSearchOutput>(await call(c.client, 'search_code', { query: 'acme_tools: a small worker server', literal: true, repos: ['notes'] })).results;
    expect(await old()).toHaveLength(1);
    const out = await waitFor('the edit indexed', async () => {
      const r = await search(c, 'edited_marker_text');
      return r.results.length ? r : undefined;
    });
    expect(out.results.map((r) => `${r.repo}/${r.path}`)).toEqual(['notes/acme_tools/__init__.py']);
    expect(await old()).toEqual([]);
    await waitFor('the delta in the log', async () => /indexing notes \(.*\n(.*\n)*?.*attempting to index 1 total files/.test(readFileSync(join(data, 'supervisor.log'), 'utf8')));
  }, 60_000);

  it('an entry added to the list is indexed; one taken off leaves the index; a bad one is named by its line', async () => {
    const extra = join(work, 'follow', 'extra');
    mkdirSync(extra);
    writeFileSync(join(extra, 'x.ts'), 'export const addedEntryMarker = 1;\n');
    writeFileSync(list, '# test list\ngosvc\ngosvc/internal\nextra\nno-such-dir\n');
    await waitFor('the new entry searchable', async () => (await search(c, 'addedEntryMarker')).results.length > 0);
    await waitFor('notes gone', async () => !(await names(c)).includes('notes'));
    // Its shards and its snapshot copy go too (at once with ZOEKT_MCP_KEEP_UNLISTED_MS=0, once the supervisor has run 10 s).
    const shadow = basename(shadowDir({ shadows: join(data, 'shadow') } as IndexerPaths, { dir: realpathSync(plain) }));
    await waitFor(
      'its shards and snapshot deleted',
      async () => !readdirSync(join(data, 'index')).some((f) => f.startsWith('notes_')) && !readdirSync(join(data, 'shadow')).includes(shadow),
      20_000,
    );
    expect(readFileSync(join(data, 'supervisor.log'), 'utf8')).toMatch(/notes \(.*\) is listed by no client: removed \d+ shard file\(s\)/);
    // The supervisor's status reaches the server a moment (at most 100 ms) after Zoekt's index changed.
    const h = await waitFor('the list error reported', async () => {
      const x = await health(c.client);
      return x.indexing!.list_errors.length ? x : undefined;
    });
    expect(h.indexing!.list_errors).toEqual([expect.stringMatching(/repos:5: no-such-dir: no such directory/)]);
    expect(h.status).toBe('degraded');
    // The set-up step refuses the list, naming the line.
    let failedSetup = '';
    try {
      execFileSync('node', [join(ROOT, 'dist/serve-cli.js'), '--setup'], { env: serveEnv({ data, repos: list }), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      failedSetup = String((err as { stderr: string }).stderr);
    }
    expect(failedSetup).toMatch(/error: .*repos:5: no-such-dir: no such directory/);
  }, 60_000);

  it('an entry taken off while no supervisor runs, its state lost, leaves the index at the next start', async () => {
    await c.close();
    expect(await supervisorGone(data)).toBe(true);
    expect(readdirSync(join(data, 'index')).some((f) => f.startsWith('extra_'))).toBe(true);
    writeFileSync(list, '# test list\ngosvc\ngosvc/internal\n');
    rmSync(join(data, 'state.json'));
    c = await spawnServe({ data, repos: list, extra: { ZOEKT_MCP_KEEP_UNLISTED_MS: '0' } });
    await allIndexed(c.client);
    expect(await names(c)).toEqual(['gosvc', 'gosvc/internal']);
    expect(readdirSync(join(data, 'index')).some((f) => f.startsWith('extra_'))).toBe(false);
    expect(readdirSync(join(data, 'shadow'))).toHaveLength(2);
  }, 120_000);
});

/**
 * A tools folder whose zoekt-git-index waits while `gate` exists (only for whole builds when
 * `wholeOnly`), then runs the real one.
 */
function gatedTools(tag: string, gate: string, wholeOnly = false): string {
  const version = /^ZOEKT_VERSION=(\S+)$/m.exec(readFileSync(join(ROOT, 'zoekt-config/zoekt.env'), 'utf8'))![1]!;
  const realBin = join(TOOLS_DIR, 'zoekt', version, 'bin');
  const tools = join(work, `tools-${tag}`);
  const bin = join(tools, 'zoekt', version, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const f of readdirSync(realBin)) if (f !== 'zoekt-git-index') symlinkSync(join(realBin, f), join(bin, f));
  const wait = `while [ -e '${gate}' ]; do sleep 0.05; done`;
  const held = wholeOnly ? `case "$*" in *whole-build*) ${wait};; esac` : wait;
  writeFileSync(join(bin, 'zoekt-git-index'), `#!/bin/sh\n${held}\nexec '${join(realBin, 'zoekt-git-index')}' "$@"\n`, { mode: 0o755 });
  return tools;
}

/** A client of its own data folder and copy of gosvc, its indexer held while `gate` exists (gatedTools). */
async function gatedClient(tag: string, name: string, extra: Record<string, string> = {}, wholeOnly = false): Promise<{ data: string; repo: string; gate: string; c: LocalClient }> {
  const data = join(work, `data-${tag}`);
  const repo = gitRepo('gosvc', join(work, `gosvc-${tag}`), name);
  const gate = join(work, `gate-${tag}`);
  const c = await spawnServe({ data, repos: repo, extra: { ZOEKT_MCP_TOOLS_DIR: gatedTools(tag, gate, wholeOnly), ...extra } });
  return { data, repo, gate, c };
}

describe('index_age is honest', () => {
  it('after a save the answer says behind (or indexing), never current, until the change is searchable; then current', async () => {
    // The indexer held at a gate: a change cannot be indexed before the test has looked.
    const { data, repo, gate, c } = await gatedClient('honest', 'acme/gosvc');
    try {
      await allIndexed(c.client);
      const before = (await search(c, 'package')).index_age!;
      expect(before).toEqual([expect.objectContaining({ repo: 'acme/gosvc', state: 'current', checked_s: expect.any(Number) })]);
      writeFileSync(gate, '');
      const file = join(repo, 'cmd/server/main.go');
      writeFileSync(file, `${readFileSync(file, 'utf8')}\nfunc honestAgeMarker() {}\n`);
      const saved = Date.now();
      // The watch sees the save: no longer current.
      const age = await waitFor('the index said to be behind', async () => {
        const a = (await search(c, 'package')).index_age![0]!;
        return a.state !== 'current' ? a : undefined;
      }, 10_000);
      process.stderr.write(`index_age: not current ${Date.now() - saved} ms after the save (${age.state}, behind_s ${age.behind_s})\n`);
      expect(['behind', 'indexing']).toContain(age.state);
      expect(age.behind_s).toEqual(expect.any(Number));
      expect(age.retry_after_s).toBeGreaterThan(0);
      expect(textOf(await call(c.client, 'search_code', { query: 'package', limit: 1 }))).toMatch(/index: acme\/gosvc indexed \d+ s ago, behind the files on disk changed \d+ s ago/);
      // While the change is not searchable, no answer claims the index is current.
      for (let i = 0; i < 5; i++) {
        const out = await search(c, 'honestAgeMarker');
        expect(out.results).toEqual([]);
        expect(out.index_age![0]!.state).not.toBe('current');
        await new Promise((r) => setTimeout(r, 100));
      }
      rmSync(gate);
      await waitFor('the change searchable', async () => (await search(c, 'honestAgeMarker')).results.length > 0);
      await waitFor('current again', async () => (await search(c, 'package')).index_age![0]!.state === 'current');
    } finally {
      if (existsSync(gate)) rmSync(gate);
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);
});

describe('a change while its folder is being indexed', () => {
  it('is checked once the build ends, and the supervisor waits meanwhile instead of passing over and over', async () => {
    const { data, repo, gate, c } = await gatedClient('busy', 'acme/busy');
    const file = join(repo, 'cmd/server/main.go');
    const append = (line: string) => writeFileSync(file, `${readFileSync(file, 'utf8')}\n${line}\n`);
    try {
      await allIndexed(c.client);
      writeFileSync(gate, '');
      append('func busyMarkerOne() {}');
      await waitFor('the build held at the gate', async () => (await supervisorStatus(data))?.repos.find((r) => r.name === 'acme/busy')?.state === 'indexing');
      // Changed again while its build runs: the folder waits for that build, and so does the loop.
      append('func busyMarkerTwo() {}');
      await new Promise((r) => setTimeout(r, 300));
      const first = (await supervisorStatus(data))!.pass;
      await new Promise((r) => setTimeout(r, 1500));
      const second = (await supervisorStatus(data))!.pass;
      // A pass for each wake (an observer's connection, a change settling) and the 2 s poll; a
      // loop that passed again at once while the folder stayed marked made thousands.
      expect(second - first).toBeLessThan(10);
      rmSync(gate);
      await waitFor('the second change searchable', async () => (await search(c, 'busyMarkerTwo')).results.length > 0, 20_000);
      expect((await search(c, 'busyMarkerOne')).results.length).toBeGreaterThan(0);
    } finally {
      if (existsSync(gate)) rmSync(gate);
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);
});

describe('whole builds in the background', () => {
  it('once quiet, deltas are built whole beside the index; edits meanwhile are searchable at once; the build then takes them in; nothing is lost', async () => {
    const { data, repo, gate, c } = await gatedClient('idle', 'acme/idle', { ZOEKT_MCP_IDLE_BUILD_MS: '400' }, true);
    const log = () => readFileSync(join(data, 'supervisor.log'), 'utf8');
    const shards = () => readdirSync(join(data, 'index')).filter((f) => isShardOf(f, 'acme/idle', false)).length;
    const file = join(repo, 'cmd/server/main.go');
    const edit = async (n: number) => {
      writeFileSync(file, `${readFileSync(file, 'utf8')}\nfunc idleMarker${n}() {}\n`);
      const t0 = Date.now();
      await waitFor(`edit ${n} searchable`, async () => (await search(c, `idleMarker${n}`)).results.length > 0);
      return Date.now() - t0;
    };
    try {
      await allIndexed(c.client);
      const base = shards();
      writeFileSync(gate, '');
      for (const n of [1, 2, 3]) await edit(n);
      expect(shards()).toBe(base + 3);
      // Quiet for 400 ms: a whole build starts in the background (held at the gate).
      await waitFor('the whole build started', async () => /building acme\/idle whole in the background/.test(log()));
      // Edits meanwhile are deltas, searchable at once; the whole build goes on.
      const times = [await edit(4), await edit(5)];
      process.stderr.write(`background whole build: edits during it searchable in ${times.join(', ')} ms\n`);
      expect(shards()).toBe(base + 5);
      expect(log()).not.toMatch(/built acme\/idle whole/);
      rmSync(gate);
      await waitFor('built whole and swapped in', async () => /built acme\/idle whole in .* swapped in/.test(log()), 30_000);
      // The whole build, plus at most one delta of what changed while it ran.
      expect(shards()).toBeLessThanOrEqual(base + 1);
      for (const n of [1, 2, 3, 4, 5]) expect((await search(c, `idleMarker${n}`)).results.map((r) => r.path), `edit ${n}`).toEqual(['cmd/server/main.go']);
      const files = execFileSync('git', ['-C', repo, 'ls-files'], { encoding: 'utf8' }).trim().split('\n').length;
      const listed = ok<ListReposOutput>(await call(c.client, 'list_repos', {})).repos[0]!;
      expect(listed.files).toBeGreaterThanOrEqual(files);
      expect(listed.files).toBeLessThanOrEqual(files + 1);
      expect(readdirSync(data)).not.toContain('whole-build');
    } finally {
      if (existsSync(gate)) rmSync(gate);
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);
});

describe('counts over 20 commits', () => {
  it('every commit searchable at once; at most ten shards but while a whole build runs; once quiet, the counts are those of the files', async () => {
    const data = join(work, 'data-commits');
    const repo = gitRepo('pytools', join(work, 'pytools-commits'), 'acme/commits');
    const c = await spawnServe({ data, repos: repo, extra: { ZOEKT_MCP_IDLE_BUILD_MS: '1000' } });
    const shards = () => readdirSync(join(data, 'index')).filter((f) => isShardOf(f, 'acme/commits', false)).length;
    const log = () => readFileSync(join(data, 'supervisor.log'), 'utf8');
    /** Background whole builds of the repository, started and swapped in, as its log tells them. */
    const builds = () => ({ started: log().split('building acme/commits whole in the background').length - 1, ended: log().split(/built acme\/commits whole in .* swapped in/).length - 1 });
    try {
      await allIndexed(c.client);
      const base = shards();
      const file = join(repo, 'acme_tools/__init__.py');
      const times: number[] = [];
      for (let n = 1; n <= 20; n++) {
        writeFileSync(file, `${readFileSync(file, 'utf8')}\nCOMMIT_MARKER_${n} = ${n}\n`);
        gitIn(repo, 'commit', '-q', '-am', `change ${n}`);
        const t0 = Date.now();
        await waitFor(`commit ${n} searchable`, async () => (await search(c, `COMMIT_MARKER_${n}\\b`)).results.length === 1);
        times.push(Date.now() - t0);
        // Nine deltas at most, unless a whole build runs in the background: edits go on as
        // deltas meanwhile, and the build takes them in when it ends (docs/local-mode.md). On a
        // busy machine that build can outlast nine commits.
        const before = builds();
        const count = shards();
        const after = builds();
        const underWay = before.started > before.ended || after.started > after.ended || after.ended > before.ended;
        if (!underWay) expect(count, `${count} shards with no whole build under way`).toBeLessThanOrEqual(base + DELTAS_MAX);
      }
      times.sort((a, b) => a - b);
      process.stderr.write(`20 commits: searchable in a median ${times[10]} ms, max ${times[19]} ms\n`);
      const files = execFileSync('git', ['-C', repo, 'ls-files'], { encoding: 'utf8' }).trim().split('\n').length;
      const stable = await waitFor('built whole once quiet', async () => {
        const listed = ok<ListReposOutput>(await call(c.client, 'list_repos', {})).repos[0]!;
        if (listed.index_state === 'current' && shards() === base && listed.files === files) return listed;
        // What it waits for, named in the timeout's message.
        throw new Error(`state ${listed.index_state}, ${shards()} shards (base ${base}), ${listed.files} of ${files} files`);
        // The whole build runs once the folder is quiet: on a machine busy with other tests it
        // waits its turn behind their indexing, so this waits as long as the test allows.
      }, 100_000);
      expect(stable.index_state).toBe('current');
      for (const n of [1, 10, 20]) expect((await search(c, `COMMIT_MARKER_${n}\\b`)).results.length, `commit ${n}`).toBe(1);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 180_000);
});

describe('in a terminal', () => {
  it('prints a client entry that starts it the same way, then shows indexing progress', async () => {
    const data = join(work, 'data-terminal');
    const repo = gitRepo('rustlib', join(work, 'rustlib-terminal'), 'acme/rustlib');
    const env = { ...serveEnv({ data }), TERM: 'dumb' };
    // `script` gives it a terminal on stdin, as when a person runs it.
    const child = spawn('script', ['-qec', `bash ${join(ROOT, 'scripts/serve.sh')} --repo ${repo}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor('the entry and the first index', async () => out.includes('acme/rustlib: indexed in'));
      const json = out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1).replace(/\r/g, '');
      const entry = JSON.parse(json.slice(0, json.indexOf('\n}') + 2)) as { mcpServers: { zoekt: { args: string[]; env?: Record<string, string> } } };
      expect(entry.mcpServers.zoekt.args.slice(1)).toEqual(['--repo', repo]);
      expect(entry.mcpServers.zoekt.env).toMatchObject({ ZOEKT_MCP_DATA: data });
    } finally {
      child.kill('SIGINT');
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);
});

describe('a first index', () => {
  it('an indexer left running by a supervisor killed outright is stopped by the next one before it indexes', async () => {
    const data = join(work, 'data-orphan-indexer');
    const repo = gitRepo('webapp', join(work, 'webapp-orphan'), 'acme/webapp');
    const gate = join(work, 'gate-orphan');
    const bin = join(work, 'slow-bin-orphan');
    mkdirSync(bin);
    const real = execFileSync('bash', ['-c', 'command -v ctags-universal || command -v universal-ctags'], { encoding: 'utf8' }).trim();
    // ctags writes to the indexer's stderr while held: an indexer whose output went through its
    // killed supervisor would die of the broken pipe, instead of being found and stopped.
    writeFileSync(join(bin, 'ctags-universal'), `#!/bin/sh\nwhile [ -e '${gate}' ]; do echo 'ctags held' >&2; sleep 0.1; done\nexec '${real}' "$@"\n`, { mode: 0o755 });
    writeFileSync(gate, '');
    const c = await spawnServe({ data, repos: repo, extra: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    try {
      await waitFor('the indexer started', async () => existsSync(join(data, 'indexer.pid')));
      const indexer = Number(readFileSync(join(data, 'indexer.pid'), 'utf8'));
      // Its output goes to a file of its own, not through the supervisor about to be killed.
      expect(readlinkSync(`/proc/${indexer}/fd/2`)).toBe(realpathSync(join(data, 'indexer.log')));
      const first = (await supervisorStatus(data))!;
      process.kill(first.pid, 'SIGKILL');
      await waitFor('the next supervisor', async () => {
        const st = await supervisorStatus(data);
        return st && st.pid !== first.pid;
      });
      await waitFor('the orphan indexer stopped', async () => ['gone', 'Z'].includes(procState(indexer)));
      expect(readFileSync(join(data, 'supervisor.log'), 'utf8')).toContain(`stopping zoekt-git-index ${indexer}, left by an earlier supervisor`);
      rmSync(gate);
      await allIndexed(c.client);
      expect((await search(c, 'export')).results.length).toBeGreaterThan(0);
      expect(readdirSync(join(data, 'index')).filter((f) => !f.endsWith('.meta'))).toEqual(['acme%2Fwebapp_v16.00000.zoekt']);
    } finally {
      if (existsSync(gate)) rmSync(gate);
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 180_000);

  it('shows progress through get_health; a search that needs it is told to retry, one that got results from the others says it is partial', async () => {
    const data = join(work, 'data-progress');
    const ready = gitRepo('rustlib', join(work, 'rustlib-progress'), 'acme/rustlib');
    const repo = gitRepo('webapp', join(work, 'webapp'), 'acme/webapp');
    const list = join(work, 'progress-repos');
    writeFileSync(list, `${ready}\n`);
    // Universal Ctags held at a gate: an index cannot finish before the test has looked.
    const gate = join(work, 'gate');
    const bin = join(work, 'slow-bin');
    mkdirSync(bin);
    const real = execFileSync('bash', ['-c', 'command -v ctags-universal || command -v universal-ctags'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'ctags-universal'), `#!/bin/sh\nwhile [ -e '${gate}' ]; do sleep 0.1; done\nexec '${real}' "$@"\n`, { mode: 0o755 });
    const c = await spawnServe({ data, repos: list, extra: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    try {
      await allIndexed(c.client);
      writeFileSync(gate, '');
      writeFileSync(list, `${ready}\n${repo}\n`);
      const h = await waitFor('indexing progress', async () => {
        const x = await health(c.client);
        const r = x.indexing?.repos.find((e) => e.name === 'acme/webapp');
        return r?.state === 'indexing' && r.progress ? x : undefined;
      });
      expect(h.status).toBe('degraded');
      expect(h.indexing!.repos[1]!.progress!.files).toBeGreaterThan(0);
      expect(h.hint).toMatch(/acme\/webapp: indexing \d+ files .*% after .* left/);
      // Needs only the repository being indexed: nothing to show, so retry.
      const err = failed(await call(c.client, 'search_code', { query: 'export', repos: ['acme/webapp'] }));
      expect(err.code).toBe('UNAVAILABLE');
      expect(err.retryable).toBe(true);
      expect(err.message).toMatch(/not indexed yet \(acme\/webapp: indexing/);
      expect(err.hint).toMatch(/Retry the same call in about \d+ (s|min)/);
      // Covers both: the results of the indexed one, said to be partial, with when to retry.
      const part = await search(c, 'fn start');
      expect(part.results.map((r) => r.repo)).toContain('acme/rustlib');
      expect(part.stats.complete).toBe(false);
      expect(part.partial!.reason).toMatch(/a repository this call covers is not indexed yet, so its results are missing \(acme\/webapp: indexing/);
      expect(part.partial!.hint).toMatch(/Retry the same call in about \d+ (s|min) for the whole answer/);
      expect(part.index_age).toEqual([
        { repo: 'acme/rustlib', index_time: expect.any(String), index_age_s: expect.any(Number), state: 'current', checked_s: expect.any(Number) },
        { repo: 'acme/webapp', state: 'indexing', retry_after_s: expect.any(Number) },
      ]);
      expect(textOf(await call(c.client, 'search_code', { query: 'fn start' }))).toMatch(/partial: a repository this call covers is not indexed yet/);
      const listed = ok<ListReposOutput>(await call(c.client, 'list_repos', {}));
      expect(listed.repos.map((r) => [r.name, r.index_state])).toEqual([['acme/rustlib', 'current']]);
      expect(listed.partial!.reason).toMatch(/acme\/webapp: indexing/);
      rmSync(gate);
      await allIndexed(c.client);
      expect((await search(c, 'export')).results.length).toBeGreaterThan(0);
      const whole = await search(c, 'fn start');
      expect(whole.stats.complete).toBe(true);
      expect(whole.partial).toBeUndefined();
      expect(whole.index_age!.map((a) => a.state)).toEqual(['current']);
    } finally {
      if (existsSync(gate)) rmSync(gate);
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 180_000);
});
