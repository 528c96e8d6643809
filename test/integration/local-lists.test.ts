/**
 * Several clients of one data folder with different repository lists (overlapping and
 * disjoint), started one after another and quitting in every order: each client's answers hold
 * exactly its own list's repositories, and no repository a live client lists ever leaves the
 * index. What no client lists any more leaves it (ZOEKT_MCP_KEEP_UNLISTED_MS, short here).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isShardOf } from '../../src/local/indexer.js';
import { socketFor } from '../../src/local/lease.js';
import { PROTOCOL } from '../../src/local/status.js';
import type { CodeSearchOutput } from '../../src/search/code.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { allIndexed, gitIn, spawnServe, supervisorGone, supervisorStatus, waitFor, type LocalClient } from '../support/local.js';
import { call, ok } from '../support/mcp.js';
import { FIXTURES } from '../support/zoekt.js';

const KEEP_MS = 400;
let work: string;
let data: string;
const dirs: Record<string, string> = {};

interface Spec {
  label: string;
  repos: string[];
  /** How it is started: a list file in ZOEKT_MCP_REPOS, or --repo arguments. */
  how: 'file' | 'args';
}

const SPECS: Spec[] = [
  { label: 'one', repos: ['acme/a', 'acme/b'], how: 'file' },
  { label: 'two', repos: ['acme/b', 'acme/c'], how: 'file' },
  { label: 'three', repos: ['acme/c'], how: 'args' },
];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-lists-'));
  data = join(work, 'data');
  for (const [name, fixture] of [
    ['acme/a', 'rustlib'],
    ['acme/b', 'gosvc'],
    ['acme/c', 'pytools'],
  ] as const) {
    const dir = join(work, name.split('/')[1]!);
    cpSync(join(FIXTURES, fixture), dir, { recursive: true });
    writeFileSync(join(dir, 'marker.txt'), `LIST_SCOPE_MARKER of ${name}\n`);
    gitIn(dir, 'init', '-q', '-b', 'main');
    gitIn(dir, 'config', 'zoekt.name', name);
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-q', '-m', 'first');
    dirs[name] = dir;
  }
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function start(spec: Spec): Promise<LocalClient> {
  const extra = { ZOEKT_MCP_KEEP_UNLISTED_MS: String(KEEP_MS) };
  if (spec.how === 'args') return spawnServe({ data, extra }, spec.repos.flatMap((r) => ['--repo', dirs[r]!]));
  const file = join(work, `list-${spec.label}`);
  writeFileSync(file, `${spec.repos.map((r) => dirs[r]).join('\n')}\n`);
  return spawnServe({ data, repos: file, extra });
}

/** The repositories a client's answers show: a search that matches in every repository, and list_repos. */
async function seen(c: LocalClient): Promise<{ search: string[]; listed: string[] }> {
  const out = ok<CodeSearchOutput>(await call(c.client, 'search_code', { query: 'LIST_SCOPE_MARKER', context_lines: 0 }));
  const listed = ok<ListReposOutput>(await call(c.client, 'list_repos', {}));
  return { search: [...new Set(out.results.map((r) => r.repo))].sort(), listed: listed.repos.map((r) => r.name).sort() };
}

function indexedNames(): string[] {
  const files = readdirSync(join(data, 'index'));
  return Object.keys(dirs).filter((n) => files.some((f) => isShardOf(f, n, false)));
}

function orders(items: number[]): number[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) => orders([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest]));
}

const CASES: { title: string; clients: number[] }[] = [
  { title: 'two overlapping lists', clients: [0, 1] },
  { title: 'two disjoint lists', clients: [0, 2] },
  { title: 'three lists', clients: [0, 1, 2] },
];

describe('clients with different lists on one supervisor', () => {
  for (const { title, clients: members } of CASES) {
    it(`${title}: each sees exactly its own repositories, quitting in every order`, async () => {
      for (const order of orders(members.map((_, i) => i))) {
        const tag = `${title}, quitting ${order.map((i) => SPECS[members[i]!]!.label).join(' then ')}`;
        const live = new Map<number, LocalClient>();
        try {
          // One after another: each has said what it wants before the next one starts.
          for (const [i, m] of members.entries()) {
            live.set(i, await start(SPECS[m]!));
            await allIndexed(live.get(i)!.client);
          }
          for (const i of [...order, -1]) {
            const wanted = new Set([...live.keys()].flatMap((k) => SPECS[members[k]!]!.repos));
            // What the clients still here list stays indexed; each still sees exactly its own.
            for (const [k, c] of live) {
              const own = [...SPECS[members[k]!]!.repos].sort();
              expect(await seen(c), tag).toEqual({ search: own, listed: own });
            }
            expect(indexedNames().filter((n) => wanted.has(n)).sort(), tag).toEqual([...wanted].sort());
            if (i < 0) break;
            const quitting = live.get(i)!;
            live.delete(i);
            await quitting.close();
            const still = new Set([...live.keys()].flatMap((k) => SPECS[members[k]!]!.repos));
            const gone = SPECS[members[i]!]!.repos.filter((r) => !still.has(r));
            if (live.size) {
              // What no client lists any more leaves the index once kept KEEP_MS; the rest never does.
              await waitFor(`${gone.join(', ')} removed (${tag})`, async () => gone.every((r) => !indexedNames().includes(r)), 20_000);
              expect(indexedNames().filter((n) => still.has(n)).sort(), tag).toEqual([...still].sort());
            }
          }
        } finally {
          await Promise.all([...live.values()].map((c) => c.close().catch(() => undefined)));
        }
        expect(await supervisorGone(data), tag).toBe(true);
        // The last client gone: nothing was removed for it (it may come back).
        expect(indexedNames().length, tag).toBeGreaterThan(0);
      }
    }, 300_000);
  }

  // 1: no `protocol` field, one list per supervisor; 2: a Zoekt found answering on the port may be
  // another index's, which this version never answers from.
  it.each([
    [1, {}],
    [2, { protocol: 2, foreign_zoekt: true }],
  ])('a supervisor of the older protocol %i is stopped and replaced, not misread', async (version, fields) => {
    // What a supervisor of an earlier release answers. Played by a small process here, as that
    // release is not installed.
    const status = { ...fields, pid: 0, zoekt_url: 'http://127.0.0.1:9', started_at: '', leases: 1, pass: 1, list: 'old', list_errors: [], repos: [] };
    const old = spawn(
      process.execPath,
      [
        '-e',
        `const net = require('node:net');
         const srv = net.createServer((s) => s.write(JSON.stringify({ ...JSON.parse(process.argv[2]), pid: process.pid }) + '\\n'));
         srv.listen(Buffer.from(process.argv[1], 'hex').toString(), () => process.stdout.write('listening\\n'));
         process.on('SIGTERM', () => { process.stdout.write('stopped\\n'); process.exit(0); });`,
        Buffer.from(socketFor(data)).toString('hex'),
        JSON.stringify(status),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let said = '';
    old.stdout.on('data', (d: Buffer) => (said += d.toString()));
    await waitFor('the old supervisor listening', async () => said.includes('listening'));
    const c = await start(SPECS[2]!);
    try {
      await allIndexed(c.client);
      expect(said).toContain('stopped');
      expect(c.stderr()).toMatch(new RegExp(`replacing the local supervisor \\d+ \\(protocol ${version}, this version speaks ${PROTOCOL}\\)`));
      expect(await seen(c)).toEqual({ search: ['acme/c'], listed: ['acme/c'] });
      expect((await supervisorStatus(data))!.protocol).toBe(PROTOCOL);
    } finally {
      await c.close();
      old.kill('SIGKILL');
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);

  it('an observer sees the union; one supervisor and one Zoekt served them all', async () => {
    const [a, b] = [await start(SPECS[0]!), await start(SPECS[2]!)];
    try {
      await allIndexed(a.client);
      await allIndexed(b.client);
      const st = (await supervisorStatus(data))!;
      expect(st.repos.map((r) => r.name).sort()).toEqual(['acme/a', 'acme/b', 'acme/c']);
      expect(st.leases).toBeGreaterThanOrEqual(2);
    } finally {
      await a.close();
      await b.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 120_000);
});
