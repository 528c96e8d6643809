/**
 * Pagination of every list tool against the real Zoekt: walking all pages gives one big page,
 * cursors are checked, survive a restart, and later pages come from the window cache.
 * Zoekt requests are counted with the client's onRequest hook (in-process server, real MCP
 * Client over an in-memory transport); restarts use the built CLI over stdio.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WindowCache } from '../../src/search/engine/window-cache.js';
import { call, connectInProcess, connectStdio, failed, ok, type Connected } from '../support/mcp.js';

type Out = Record<string, unknown> & { next_cursor?: string };

/** Each list tool, a query with more than three pages, its page size and its list field. */
/**
 * `pageReads`: Zoekt requests a page makes beyond its ranked window (none for search_symbols by
 * an exact name: its results' documentation comes from the lines of that window).
 */
const WALKS: { tool: string; args: Record<string, unknown>; limit: number; big: number; list: string; pages: number; ranked?: false; pageReads?: number; cachedPage?: number }[] = [
  { tool: 'search_code', args: { query: 'paginate_marker', context_lines: 0 }, limit: 10, big: 50, list: 'results', pages: 5, cachedPage: 2 },
  { tool: 'search_symbols', args: { name: 'process' }, limit: 5, big: 100, list: 'symbols', pages: 6, pageReads: 0, cachedPage: 2 },
  { tool: 'search_files', args: { pattern: '*.spec.ts' }, limit: 10, big: 200, list: 'files', pages: 4 },
  { tool: 'find_references', args: { symbol: 'paginate_marker' }, limit: 50, big: 200, list: 'usages', pages: 4 },
  // Nine fixture repos; /api/list is one cheap call with no ranked window to cache.
  { tool: 'list_repos', args: {}, limit: 2, big: 500, list: 'repos', pages: 5, ranked: false },
];

let stdio: Connected;
beforeAll(async () => {
  stdio = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
});
afterAll(() => stdio.close());

async function walk(client: Client, tool: string, args: Record<string, unknown>, list: string): Promise<{ items: unknown[]; pages: Out[] }> {
  const pages: Out[] = [];
  let cursor: string | undefined;
  do {
    const page = ok<Out>(await call(client, tool, { ...args, ...(cursor ? { cursor } : {}) }));
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor && pages.length < 50);
  return { items: pages.flatMap((p) => p[list] as unknown[]), pages };
}

function identity(tool: string, item: Record<string, unknown>): string {
  if (tool === 'list_repos') return String(item.name);
  return tool === 'search_code' || tool === 'search_files' ? `${String(item.repo)}/${String(item.path)}` : `${String(item.repo)}/${String(item.path)}:${String(item.line)}`;
}

describe('walking every page of each list tool', () => {
  it.each(WALKS)('$tool: all pages equal one big page, in order, once each', async ({ tool, args, limit, big, list, pages }) => {
    const one = ok<Out>(await call(stdio.client, tool, { ...args, limit: big }));
    expect(one.next_cursor).toBeUndefined();
    const all = one[list] as Record<string, unknown>[];
    const walked = await walk(stdio.client, tool, { ...args, limit }, list);
    expect(walked.pages).toHaveLength(pages);
    expect(walked.pages.at(-1)!.next_cursor).toBeUndefined();
    expect(walked.pages.slice(0, -1).every((p) => (p[list] as unknown[]).length === limit)).toBe(true);
    const ids = (walked.items as Record<string, unknown>[]).map((i) => identity(tool, i));
    expect(new Set(ids).size).toBe(ids.length);
    expect(walked.items).toEqual(all);
  });
});

describe('cursors', () => {
  const first = async (tool: string, args: Record<string, unknown>) => ok<Out>(await call(stdio.client, tool, args)).next_cursor!;

  it.each(WALKS)('$tool: garbage, altered, truncated, foreign and reused cursors are INVALID_CURSOR', async ({ tool, args, limit }) => {
    const cursor = await first(tool, { ...args, limit });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const other = WALKS.find((w) => w.tool !== tool)!;
    const foreign = await first(other.tool, { ...other.args, limit: other.limit });
    const bytes = Buffer.from(cursor, 'base64url');
    const mid = Math.floor(bytes.length / 2);
    bytes[mid] = bytes[mid]! ^ 0x01;
    const flipped = bytes.toString('base64url');
    const otherArgs = tool === 'search_code' ? { ...args, context_lines: 1 } : tool === 'list_repos' ? { filter: 'github.com/acme/*' } : { ...args, repos: ['manyhits'] };
    for (const [what, bad, callArgs] of [
      ['garbage', 'not a cursor!', { ...args, limit }],
      ['base64 garbage', Buffer.from('hello world').toString('base64url'), { ...args, limit }],
      ['flipped byte', flipped, { ...args, limit }],
      ['truncated', cursor.slice(0, -6), { ...args, limit }],
      ['another tool', foreign, { ...args, limit }],
      ['other arguments', cursor, { ...otherArgs, limit }],
      ['another page size', cursor, { ...args, limit: limit + 1 }],
    ] as const) {
      const err = failed(await call(stdio.client, tool, { ...callArgs, cursor: bad }));
      expect(err.code, what).toBe('INVALID_CURSOR');
      expect(err.hint.length, what).toBeGreaterThan(10);
    }
  });

  it.each(WALKS)('$tool: a cursor edited and re-checksummed without the key is refused', async ({ tool, args, limit }) => {
    const cursor = await first(tool, { ...args, limit });
    const body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    body[3] = (body[3] as number) + limit;
    body[6] = createHash('sha256').update(JSON.stringify(body.slice(0, 6))).digest().subarray(0, 16).toString('base64url');
    const err = failed(await call(stdio.client, tool, { ...args, limit, cursor: Buffer.from(JSON.stringify(body)).toString('base64url') }));
    expect(err.code).toBe('INVALID_CURSOR');
    expect(err.message).toMatch(/signature does not match/);
  });

  it.each(WALKS)('$tool: a cursor still works after the server process restarts with the same secret', async ({ tool, args, limit, big, list }) => {
    const env = { ZOEKT_URL: inject('zoektUrl'), ZOEKT_MCP_CURSOR_SECRET: 'restart-keeps-this-secret-0123456789' };
    const a = await connectStdio(env);
    const cursor = ok<Out>(await call(a.client, tool, { ...args, limit })).next_cursor!;
    await a.close();
    const b = await connectStdio(env);
    try {
      const page2 = ok<Out>(await call(b.client, tool, { ...args, limit, cursor }));
      const all = ok<Out>(await call(b.client, tool, { ...args, limit: big }))[list] as unknown[];
      expect(page2[list]).toEqual(all.slice(limit, 2 * limit));
    } finally {
      await b.close();
    }
  });
});

describe('cursors without a configured secret', () => {
  // A stdio server keeps its user's key in the user's state folder (XDG_STATE_HOME): here folders
  // of the test's own, one per "user".
  let home: string;
  const stateOf = (user: string) => join(home, user);
  const search = { query: 'paginate_marker', context_lines: 0 };
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'zoekt-mcp-state-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  /** The first page's cursor, from a server process that ends right after. */
  async function cursorOf(user: string): Promise<string> {
    const a = await connectStdio({ ZOEKT_URL: inject('zoektUrl'), XDG_STATE_HOME: stateOf(user) });
    try {
      return ok<Out>(await call(a.client, 'search_code', { ...search, limit: 10 })).next_cursor!;
    } finally {
      await a.close();
    }
  }

  it("a second process of the same user pages on with the first one's cursor; the key is the user's alone", async () => {
    const cursor = await cursorOf('ann');
    const file = join(stateOf('ann'), 'zoekt-mcp', 'cursor-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    const b = await connectStdio({ ZOEKT_URL: inject('zoektUrl'), XDG_STATE_HOME: stateOf('ann') });
    try {
      const page2 = ok<Out>(await call(b.client, 'search_code', { ...search, limit: 10, cursor }));
      const all = ok<Out>(await call(b.client, 'search_code', { ...search, limit: 50 })).results as unknown[];
      expect(page2.results).toEqual(all.slice(10, 20));
    } finally {
      await b.close();
    }
  });

  it("another user's server refuses the cursor, naming the likely cause and how to share a key", async () => {
    const cursor = await cursorOf('ann');
    const other = await connectStdio({ ZOEKT_URL: inject('zoektUrl'), XDG_STATE_HOME: stateOf('bob') });
    try {
      const err = failed(await call(other.client, 'search_code', { ...search, limit: 10, cursor }));
      expect(err.code).toBe('INVALID_CURSOR');
      expect(err.message).toMatch(/issued by another server process, with another cursor secret/);
      expect(err.hint).toMatch(/--cursor-secret/);
      expect(err.hint).toMatch(/zoekt-mcp\/cursor-secret/);
    } finally {
      await other.close();
    }
  });

  it('a key file other users may read is not used: cursors then stay within their process, and the log says why', async () => {
    const cursor = await cursorOf('cy');
    chmodSync(join(stateOf('cy'), 'zoekt-mcp', 'cursor-secret'), 0o644);
    const next = await connectStdio({ ZOEKT_URL: inject('zoektUrl'), XDG_STATE_HOME: stateOf('cy') });
    try {
      const err = failed(await call(next.client, 'search_code', { ...search, limit: 10, cursor }));
      expect(err.code).toBe('INVALID_CURSOR');
      expect(next.stderr()).toMatch(/cursor key not kept.*chmod 600/);
    } finally {
      await next.close();
    }
  });
});

describe('the window cache', () => {
  async function counted(cache?: WindowCache) {
    const counter = { requests: 0, lists: 0, inFlight: 0, maxInFlight: 0, running: new Set<string>(), together: [] as string[][] };
    const conn = await connectInProcess(
      {
        url: inject('zoektUrl'),
        onRequest: ({ path, phase, query = '' }) => {
          if (phase === 'start') {
            counter.requests++;
            if (path === 'api/list') counter.lists++;
            counter.inFlight++;
            counter.maxInFlight = Math.max(counter.maxInFlight, counter.inFlight);
            counter.running.add(query);
            counter.together.push([...counter.running]);
          } else {
            counter.inFlight--;
            counter.running.delete(query);
          }
        },
      },
      cache,
      undefined,
      // Warm and cold servers sign alike, as replicas given one --cursor-secret do.
      'pagination-test-secret-0123456789abcdef',
    );
    return { conn, counter };
  }

  // A first page asks Zoekt for the files it shows and one more, and the page after it reads for
  // two pages, so the one after that is cached; search_code's first page, under a match cap, and
  // search_symbols' by an exact name read for the second page too.
  it.each(WALKS.filter((w) => w.ranked !== false))('$tool: a walk\'s later pages come from the cache when warm, and from Zoekt, the same, when cold', async ({ tool, args, limit, list, pageReads = 0, cachedPage = 3 }) => {
    const warm = await counted();
    const cold = await counted(new WindowCache({ maxBytes: 0, ttlMs: 1000 }));
    const upTo = async (conn: Connected, page: number): Promise<{ last: Out; before: number }> => {
      let out = ok<Out>(await call(conn.client, tool, { ...args, limit }));
      let before = 0;
      for (let p = 2; p <= page; p++) {
        expect(out.next_cursor, `page ${p}`).toBeDefined();
        before = (conn === warm.conn ? warm : cold).counter.requests;
        out = ok<Out>(await call(conn.client, tool, { ...args, limit, cursor: out.next_cursor }));
      }
      return { last: out, before };
    };
    try {
      const hot = await upTo(warm.conn, cachedPage);
      // The ranked window is not asked for again; only what the page itself reads.
      expect(warm.counter.requests - hot.before).toBe(pageReads);
      const chill = await upTo(cold.conn, cachedPage);
      expect(cold.counter.requests - chill.before).toBeGreaterThan(pageReads);
      expect(chill.last[list]).toEqual(hot.last[list]);
      expect(chill.last.next_cursor).toBe(hot.last.next_cursor);
    } finally {
      await warm.conn.close();
      await cold.conn.close();
    }
  });

  it('find_references sends its two Zoekt queries together', async () => {
    const { conn, counter } = await counted(new WindowCache({ maxBytes: 0, ttlMs: 1000 }));
    try {
      const out = ok<Out>(await call(conn.client, 'find_references', { symbol: 'getUser' }));
      expect((out.definitions as unknown[]).length).toBeGreaterThan(0);
      // Definitions (sym:) and usages (content:) at once; the third asks which files of the
      // index were not indexed, once for this new server's index generation, which one
      // repository list tells (started first, they may end before the other two start).
      expect(counter.lists).toBe(1);
      expect(counter.requests - counter.lists).toBe(3);
      const both = counter.together.some((q) => q.some((x) => x.includes('sym:')) && q.some((x) => x.includes('content:') && !x.includes('NOT-INDEXED')));
      expect(both).toBe(true);
    } finally {
      await conn.close();
    }
  });
});
