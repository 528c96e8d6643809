/**
 * The implementation first, through search_symbols against a real Zoekt (prominence.ts, the
 * rule): a monorepo that implements a class in src/ and declares it in two identical copies of
 * types/types.d.ts, one per package, the way Playwright ships its types; and a common name
 * defined at the top level and nested in functions and object literals; a function and a method
 * whose overload signatures come before their implementation. Indexed by the project's own indexer. The orders expected are written from the rule; where two copies are equal by
 * every rule, Zoekt's score picks, and the test only says which places they take. Walking the
 * order a page of one symbol at a time (the fetch plan, planNames) gives the same order, and so
 * do find_references' definitions.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectInProcess, ok, type Connected } from '../support/mcp.js';
import { git, runIndexer, startWebserver } from '../support/zoekt.js';

const TYPES = `/**
 * A frame of a page.
 */
export interface Frame {
  /**
   * Navigates the frame to a URL.
   */
  goto(url: string, options?: { timeout?: number }): Promise<null | Response>;

  url(): string;
}

export interface Response {
  status(): number;
}
`;

const FILES: Record<string, string> = {
  // The implementation, deeper than the declarations.
  'packages/core/src/client/frame.ts': `import type * as api from '../../types/types';

export class Frame implements api.Frame {
  private _url = '';

  async goto(url: string, options: { timeout?: number } = {}): Promise<null> {
    this._url = url;
    return null;
  }

  url(): string {
    return this._url;
  }
}
`,
  // Two copies of one declaration file.
  'packages/core/types/types.d.ts': TYPES,
  'packages/client/types/types.d.ts': TYPES,
  // Another declaration of the name, in a file of its own: no copy.
  'packages/core/src/server/protocol/protocol.d.ts': `export interface Frame {
  frameId: string;
}
`,
  // A common name: nested and local definitions in a shallow file.
  'store.ts': `export function makeStore() {
  function get(key: string) {
    return key;
  }
  return {
    get(key: string) {
      return get(key);
    },
  };
}

export const api = {
  get: async (key: string) => key,
};
`,
  // Its public top-level definitions, deeper.
  'lib/cache.ts': `export class Cache {
  get(key: string): string {
    return key;
  }
}
`,
  'lib/util/collections/get.ts': `export function get(object: Record<string, string>, key: string): string | undefined {
  return object[key];
}
`,
  // Overload signatures, then the implementation (Vue's \`h\`: no semicolons, a signature over
  // several lines); a class's method overloads likewise.
  'src/h.ts': `// a tag and its children
export function h(type: string, children?: string[]): VNode
// a component and its props
export function h(
  type: Component,
  props: Record<string, unknown>,
): VNode
export function h(
  type: any,
  propsOrChildren?: any,
): VNode {
  const normalize = (x: any) => x
  return normalize({ type, propsOrChildren })
}

export class Emitter {
  on(event: 'change', cb: () => void): this
  on(event: string, cb: (...args: unknown[]) => void): this {
    return this
  }
}
`,
  // A declaration of the name with no implementation after it, deeper.
  'src/types/ambient.ts': `declare function h(type: string): VNode
`,
  // Vue's \`setup\`: a component's method, local to the object it is in, in the project's code;
  // and the components its tests pass straight to a call, whose methods have no parent.
  'packages/runtime/src/keepAlive.ts': `const KeepAliveImpl = {
  name: 'KeepAlive',
  setup(props: object) {
    return () => props
  },
}
export const KeepAlive = KeepAliveImpl
`,
  'packages/runtime/__tests__/keepAlive.spec.ts': `describe('KeepAlive', () => {
  test('caches', () => {
    mount({
      setup() {
        return () => null
      },
    })
  })
})
`,
};

type Site = { path: string; line: number; kind: string };

describe('search_symbols puts the implementation first', () => {
  let work: string;
  let zoekt: Awaited<ReturnType<typeof startWebserver>>;
  let mcp: Connected;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-rank-'));
    const repo = join(work, 'mono');
    for (const [path, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'mono');
    mkdirSync(join(work, 'index'));
    runIndexer('git', ['-index', join(work, 'index'), repo]);
    zoekt = await startWebserver({ indexDir: join(work, 'index'), expectRepos: 1 });
    mcp = await connectInProcess({ url: zoekt.url });
  }, 120_000);
  afterAll(async () => {
    await mcp?.close();
    await zoekt?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const sites = async (name: string): Promise<string[]> => {
    const r = ok<{ symbols: Site[] }>(await call(mcp.client, 'search_symbols', { name, case_sensitive: true }));
    return r.symbols.map((s) => `${s.path}:${s.line}`);
  };
  /** The same order, a page of one symbol at a time. */
  const walked = async (name: string): Promise<string[]> => {
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const r = ok<{ symbols: Site[]; next_cursor?: string }>(await call(mcp.client, 'search_symbols', { name, case_sensitive: true, limit: 1, ...(cursor ? { cursor } : {}) }));
      out.push(...r.symbols.map((s) => `${s.path}:${s.line}`));
      cursor = r.next_cursor;
    } while (cursor !== undefined && out.length < 50);
    return out;
  };
  const COPIES = ['packages/client/types/types.d.ts', 'packages/core/types/types.d.ts'];

  it('a class: the class, then one copy of the declaration, the other declaration, the twin', async () => {
    const order = await sites('Frame');
    // The class has a body; the interfaces are declarations (.d.ts). One copy of types.d.ts
    // (which one: Zoekt's score) before the protocol's own declaration, deeper but no copy;
    // then the other copy.
    expect(order).toHaveLength(4);
    expect(order[0]).toBe('packages/core/src/client/frame.ts:3');
    expect(order[2]).toBe('packages/core/src/server/protocol/protocol.d.ts:1');
    expect([order[1], order[3]].map((s) => s!.replace(/:\d+$/, '')).sort()).toEqual(COPIES);
    expect([order[1], order[3]].map((s) => s!.replace(/^.*:/, ''))).toEqual(['4', '4']);
    expect(await walked('Frame')).toEqual(order);
  });

  it('a method, by its qualified name: the method with a body, then the copies', async () => {
    for (const [name, line, declared] of [
      ['Frame.goto', 6, 8],
      ['Frame.url', 11, 10],
    ] as const) {
      const order = await sites(name);
      expect(order).toHaveLength(3);
      expect(order[0]).toBe(`packages/core/src/client/frame.ts:${line}`);
      expect(order.slice(1).sort()).toEqual(COPIES.map((p) => `${p}:${declared}`));
      expect(await walked(name)).toEqual(order);
    }
  });

  it('find_references lists the definitions in the same order', async () => {
    const definitions = async (symbol: string) => ok<{ definitions: Site[] }>(await call(mcp.client, 'find_references', { symbol })).definitions.map((d) => `${d.path}:${d.line}`);
    const frame = await definitions('Frame');
    expect(frame).toHaveLength(4);
    expect(frame[0]).toBe('packages/core/src/client/frame.ts:3');
    expect(frame[2]).toBe('packages/core/src/server/protocol/protocol.d.ts:1');
    expect([frame[1], frame[3]].map((s) => s!.replace(/:\d+$/, '')).sort()).toEqual(COPIES);
    expect(await definitions('get')).toEqual(['lib/cache.ts:2', 'lib/util/collections/get.ts:1', 'store.ts:2', 'store.ts:6', 'store.ts:13']);
    expect(await definitions('h')).toEqual(['src/h.ts:8', 'src/h.ts:2', 'src/h.ts:4', 'src/types/ambient.ts:1']);
  });

  it('overloads: the implementation first, then its signatures in line order, then a declaration elsewhere', async () => {
    const order = await sites('h');
    // The three exported, one folder deep: the implementation has a body, its two signatures (one
    // over four lines) have none. The ambient declaration is not exported.
    expect(order).toEqual(['src/h.ts:8', 'src/h.ts:2', 'src/h.ts:4', 'src/types/ambient.ts:1']);
    expect(await walked('h')).toEqual(order);
    const kinds = ok<{ symbols: { line: number; kind: string; raw_kind: string }[] }>(await call(mcp.client, 'search_symbols', { name: 'h', case_sensitive: true, paths: ['src/h.ts'] }));
    // Each is a function; the signatures are told apart by their parser's word.
    expect(kinds.symbols.map((s) => `${s.line} ${s.kind} ${s.raw_kind}`)).toEqual(['8 function Function', '2 function Prototype', '4 function Prototype']);
    expect(await sites('Emitter.on')).toEqual(['src/h.ts:18', 'src/h.ts:17']);
  });

  it('get_file_outline puts what the implementation holds under it, not under a signature', async () => {
    const repo = ok<{ symbols: { repo: string }[] }>(await call(mcp.client, 'search_symbols', { name: 'Emitter' })).symbols[0]!.repo;
    const out = ok<{ symbols: { name: string; line: number; children?: { name: string; line: number }[] }[] }>(await call(mcp.client, 'get_file_outline', { repo, path: 'src/h.ts' }));
    expect(out.symbols.map((s) => `${s.line} ${s.name}${s.children ? ` [${s.children.map((c) => `${c.line} ${c.name}`).join(', ')}]` : ''}`)).toEqual([
      '2 h',
      '4 h',
      '8 h [12 normalize]',
      '16 Emitter [17 on, 18 on]',
    ]);
  });

  it("the project's own nested definitions before what its tests define", async () => {
    // Neither is public; the test's is not nested, but the project's own code comes first.
    const order = await sites('setup');
    expect(order).toEqual(['packages/runtime/src/keepAlive.ts:3', 'packages/runtime/__tests__/keepAlive.spec.ts:4']);
    expect(await walked('setup')).toEqual(order);
  });

  it('a common name: the public top-level definitions and members first, the nested ones after', async () => {
    const order = await sites('get');
    expect(order).toEqual([
      // Public: a method of an exported class (one folder deep), an exported function (three).
      'lib/cache.ts:2',
      'lib/util/collections/get.ts:1',
      // Nested in a function or an object literal, though shallower: in the order of their lines.
      'store.ts:2',
      'store.ts:6',
      'store.ts:13',
    ]);
    expect(await walked('get')).toEqual(order);
  });
});
