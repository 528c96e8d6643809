/**
 * Walking every page when each path has a different version on each branch: a repository of 300
 * files changed on a second branch, indexed with both branches by the real zoekt-git-index.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectStdio, ok, type Connected } from '../support/mcp.js';
import { git, runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';

const FILES = 300;
/**
 * Paths whose versions each hold hundreds of matches, past the ranked part: a page asks for such
 * a file alone, and its other version comes too and could take the whole match cap (the file
 * asked for was then missing, and the page said the index had changed).
 */
const DENSE = 8;
const DENSE_LINES = 400;

let work: string;
let zoekt: RunningZoekt;
let mcp: Connected;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-branches-'));
  const repo = join(work, 'forked');
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'zoekt.name', 'github.com/acme/forked');
  const write = (branch: string) => {
    for (let i = 0; i < FILES; i++) writeFileSync(join(repo, 'src', `f${String(i).padStart(3, '0')}.ts`), `export const needle${i} = '${branch}';\nlet x = needle${i};\nconsole.log(x);\n`);
    for (let i = 0; i < DENSE; i++) {
      // Inside longer words and in comments: ranked below the files that define a needle.
      const lines = Array.from({ length: DENSE_LINES }, (_, n) => `// aneedleb ${branch} ${n}`);
      writeFileSync(join(repo, 'src', `g${i}.ts`), `${lines.join('\n')}\n`);
    }
  };
  write('main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'main');
  git(repo, 'checkout', '-q', '-b', 'dev');
  write('dev');
  git(repo, 'commit', '-q', '-am', 'dev');
  git(repo, 'checkout', '-q', 'main');
  const index = join(work, 'index');
  mkdirSync(index);
  runIndexer('git', ['-branches', 'main,dev', '-index', index, repo]);
  zoekt = await startWebserver({ indexDir: index, expectRepos: 1 });
  mcp = await connectStdio({ ZOEKT_URL: zoekt.url });
});

afterAll(async () => {
  await mcp?.close();
  await zoekt?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function walk(tool: string, args: Record<string, unknown>, listKey: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 200; guard++) {
    const out = ok<Record<string, unknown> & { next_cursor?: string; partial?: unknown; truncated?: unknown }>(await call(mcp.client, tool, { ...args, ...(cursor ? { cursor } : {}) }));
    expect(out.partial).toBeUndefined();
    const page = out[listKey] as Record<string, unknown>[];
    items.push(...page);
    if (!out.next_cursor) break;
    // A page is short only when the results run out, or when the output budget cut it (and says so).
    if (!out.truncated) expect(page.length).toBe(args.limit);
    cursor = out.next_cursor;
  }
  return items;
}

const paths = [...Array.from({ length: FILES }, (_, i) => `src/f${String(i).padStart(3, '0')}.ts`), ...Array.from({ length: DENSE }, (_, i) => `src/g${i}.ts`)];
const expected = paths.flatMap((p) => [`${p}@main`, `${p}@dev`]);

describe('a walk over paths that differ between branches', () => {
  it('search_code reaches every version of every path once, past the ranked 200', async () => {
    const items = await walk('search_code', { query: 'needle', limit: 50 }, 'results');
    const got = items.map((r) => `${r.path as string}@${(r.branches as string[]).join(',')}`);
    expect(new Set(got).size).toBe(got.length);
    expect(got.sort()).toEqual([...expected].sort());
  });

  it('search_files lists every version once and says which branch each is', async () => {
    const items = await walk('search_files', { pattern: 'src/', limit: 70 }, 'files');
    const got = items.map((r) => `${r.path as string}@${(r.branches as string[]).join(',')}`);
    expect(got.sort()).toEqual([...expected].sort());
  });

  it('find_references reaches every usage line of every version', async () => {
    // x is defined on line 2 of every file and used on line 3: one usage per version of each path.
    const items = await walk('find_references', { symbol: 'x', limit: 50 }, 'usages');
    const got = items.map((u) => `${u.path as string}:${u.line as number}`);
    const lines = Array.from({ length: FILES }, (_, i) => `src/f${String(i).padStart(3, '0')}.ts:3`);
    expect(got.sort()).toEqual([...lines, ...lines].sort());
  });
});
