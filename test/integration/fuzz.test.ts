/**
 * Property: whatever an agent sends, every tools/call is answered, within its deadline, with a
 * result or a contract error (a known code other than INTERNAL, a message and a hint), and no
 * JavaScript error text or stack ever reaches the client. Thousands of generated calls with a
 * fixed seed, over stdio and Streamable HTTP, against the real Zoekt over the fixture index;
 * plus generated raw POST bodies against /mcp. The arguments are generated from the tools'
 * own advertised input schemas, so a new argument is fuzzed without touching this file.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { connectStreamable, MCP_HEADERS, raw, startAdapter, type Adapter } from '../support/http.js';
import { connectStdio, textOf, type Connected } from '../support/mcp.js';
import { startIssuer, type Issuer } from '../support/oauth-issuer.js';
import { REPO_PREFIX } from '../support/zoekt.js';

const SEED = 20261123;
/** A call answered later than this is a hang: the server's deadline is 3 s. */
const HANG_MS = 15_000;
const ENV = { ZOEKT_MCP_TIMEOUT_MS: '3000' };

/** Text that has broken parsers before: separators, glob and regex edge cases, query syntax, deep nesting. */
const nastyText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('..', '...', '.::', '::', '.', '*', '?', '**', '[!]', '[]', '[z-a]', '{', '}', '{a,', '(', ')', '\\', '"', "'", '""', 'a|b', '(?<=x)y', '(?!x)', 'x{1001}', '(a*)*',
    'sym:', 'repo:', 'file:', 'lang:', 'type:filename', 'or', 'not', '-', 'case:yes', 'branch:', 'content:', '\u0000', '\uFFFF', '\uD800', '𝒳', ' ', '\t\n',
    'func', 'Server', 'main', 'User', 'get*', 'Server.start', 'UserService::', 'github.com/acme/*', 'src/**/*.ts', 'cmd/') },
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.stringMatching(/^[a-zA-Z0-9_ ().*?|\\[\]{}:^$+\-/"']{0,30}$/),
  fc.integer({ min: 1, max: 40 }).map((n) => `${'( '.repeat(n)}a${' )'.repeat(n)}`),
  fc.integer({ min: 1, max: 40 }).map((n) => Array.from({ length: n }, (_, i) => `t${i}`).join(' or ')),
);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), nastyText, fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 3 }));

interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  items?: PropertySchema;
  minimum?: number;
  maximum?: number;
}

/** A value for one argument: mostly of the advertised type (edge values included), sometimes anything at all. */
function valueFor(schema: PropertySchema, name: string): fc.Arbitrary<unknown> {
  const cursor = name === 'cursor' ? [fc.base64String({ maxLength: 60 }).map((s) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''))] : [];
  const typed: (fc.Arbitrary<unknown> | fc.WeightedArbitrary<unknown>)[] = [];
  if (schema.enum) typed.push(fc.constantFrom(...schema.enum));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') typed.push(nastyText, ...cursor);
  if (type === 'integer' || type === 'number') {
    const lo = schema.minimum ?? 0;
    const hi = schema.maximum ?? 1000;
    typed.push({ weight: 5, arbitrary: fc.integer({ min: lo, max: Math.min(hi, lo + 50) }) }, fc.constantFrom(lo, hi, lo - 1, hi + 1, 0, -1, 1.5, 1e12));
  }
  if (type === 'boolean') typed.push(fc.boolean());
  if (type === 'array') typed.push(fc.array(schema.items ? valueFor(schema.items, name) : nastyText, { maxLength: 4 }));
  if (!typed.length) typed.push(anyJson);
  return fc.oneof({ weight: 30, arbitrary: fc.oneof(...typed) }, { weight: 1, arbitrary: anyJson });
}

/** The tool's required arguments and up to two optional ones, as real calls mostly are; sometimes stray keys or not an object. */
function argumentsFor(tool: Tool): fc.Arbitrary<unknown> {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, PropertySchema>;
  const required = new Set(tool.inputSchema.required ?? []);
  const optional = Object.keys(props).filter((k) => !required.has(k));
  const pick = (keys: string[]) => fc.record(Object.fromEntries(keys.map((k) => [k, valueFor(props[k]!, k)])));
  const usual = fc.subarray(optional, { maxLength: Math.min(2, optional.length) }).chain((chosen) => pick([...required, ...chosen]));
  const withStray = fc.tuple(usual, fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), anyJson, { minKeys: 1, maxKeys: 2 })).map(([a, b]) => ({ ...b, ...a }));
  return fc.oneof({ weight: 30, arbitrary: usual }, { weight: 1, arbitrary: pick(Object.keys(props)) }, { weight: 1, arbitrary: withStray }, { weight: 1, arbitrary: anyJson });
}

function callArbitrary(tools: Tool[]): fc.Arbitrary<{ name: unknown; args: unknown }> {
  const known = fc.oneof(...tools.map((t) => argumentsFor(t).map((args) => ({ name: t.name as unknown, args }))));
  const unknown = fc.record({ name: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('search_cod', 'SEARCH_CODE', ''), anyJson), args: anyJson });
  return fc.oneof({ weight: 20, arbitrary: known }, { weight: 1, arbitrary: unknown });
}

const JS_ERROR_TEXT = /TypeError|ReferenceError|RangeError|SyntaxError: |Cannot read propert|is not a function|undefined is not|\n\s+at .+:\d+:\d+|ZodError|"code":\s*"invalid_type"/;

/**
 * What is wrong with one answer, or undefined when it keeps the contract. A name that is no tool
 * is answered with the protocol's error for it, -32602, with the hint in `data`.
 */
function breach(result: CallToolResult | Error, isTool: boolean): string | undefined {
  if (result instanceof Error) {
    const e = result as Error & { code?: unknown; data?: { hint?: unknown } };
    if (!isTool && e.code === -32602 && typeof e.data?.hint === 'string' && e.data.hint) return undefined;
    return `protocol error: ${result.message.slice(0, 300)}`;
  }
  const text = textOf(result);
  if (JS_ERROR_TEXT.test(text) || JS_ERROR_TEXT.test(JSON.stringify(result.structuredContent ?? {}))) return `JS error text: ${text.slice(0, 300)}`;
  if (!result.isError) return text.length ? undefined : 'empty text on success';
  const error = (result.structuredContent as { error?: { code?: unknown; message?: unknown; hint?: unknown } } | undefined)?.error;
  if (!error) return `error without structured error: ${text.slice(0, 200)}`;
  if (!(ERROR_CODES as readonly unknown[]).includes(error.code)) return `unknown code ${String(error.code)}`;
  if (error.code === 'INTERNAL') return `INTERNAL: ${String(error.message)}`;
  if (typeof error.message !== 'string' || !error.message || typeof error.hint !== 'string' || !error.hint) return 'error without message or hint';
  if (!text.startsWith(`${String(error.code)}: `)) return `text does not start with the code: ${text.slice(0, 100)}`;
  return undefined;
}

async function send(client: Client, name: unknown, args: unknown): Promise<CallToolResult | Error> {
  const request = client.request({ method: 'tools/call', params: { name: name as string, arguments: args as Record<string, unknown> } }, CallToolResultSchema, { timeout: HANG_MS });
  return (request as Promise<CallToolResult>).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
}

async function fuzzCalls(mcp: Connected, runs: number, seed: number): Promise<{ problems: string[]; counts: Record<string, number> }> {
  const { tools } = await mcp.client.listTools();
  const problems: string[] = [];
  const counts: Record<string, number> = {};
  await fc.assert(
    fc.asyncProperty(callArbitrary(tools), async ({ name, args }) => {
      const result = await send(mcp.client, name, args);
      const outcome = result instanceof Error ? 'protocol-error' : result.isError ? String((result.structuredContent as { error: { code: string } }).error.code) : 'ok';
      counts[outcome] = (counts[outcome] ?? 0) + 1;
      const why = breach(result, tools.some((t) => t.name === name));
      if (why && problems.length < 20) problems.push(`${JSON.stringify(name)} ${JSON.stringify(args)?.slice(0, 300)} → ${why}`);
    }),
    { seed, numRuns: runs, endOnFailure: true },
  );
  return { problems, counts };
}

describe('fuzzed tools/call', () => {
  it('over stdio: 1,200 generated calls, each answered in the contract', { timeout: 300_000 }, async () => {
    const mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl'), ...ENV });
    try {
      const { problems, counts } = await fuzzCalls(mcp, 1200, SEED);
      console.log('stdio outcomes', counts);
      expect(problems).toEqual([]);
      // The generator reaches both successes and refusals (search_symbols needs one of two optional
      // arguments, and get_file_outline a real path, so fewer generated calls succeed).
      expect(counts.ok ?? 0).toBeGreaterThan(250);
      expect(counts.INVALID_ARGUMENT ?? 0).toBeGreaterThan(50);
    } finally {
      await mcp.close();
    }
  });

  describe('over Streamable HTTP', () => {
    let adapter: Adapter;
    beforeAll(async () => {
      adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), env: ENV });
    });
    afterAll(() => adapter.stop());

    it('800 generated calls, each answered in the contract', { timeout: 300_000 }, async () => {
      const mcp = await connectStreamable(adapter.url);
      try {
        const { problems, counts } = await fuzzCalls(mcp, 800, SEED + 1);
        console.log('http outcomes', counts);
        expect(problems).toEqual([]);
        expect(counts.ok ?? 0).toBeGreaterThan(150);
      } finally {
        await mcp.close();
      }
    });

    it('500 generated raw POST bodies: never a 500, never a hang, never a stack', async () => {
      const message = fc.oneof(
        fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), method: fc.constantFrom('tools/call', 'tools/list', 'ping', 'nope'), params: anyJson }, { requiredKeys: ['jsonrpc', 'method'] }),
        anyJson,
      );
      const body = fc.oneof(
        message.map((m) => JSON.stringify(m)),
        fc.array(message, { maxLength: 4 }).map((m) => JSON.stringify(m)),
        fc.string({ maxLength: 50 }),
        fc.constantFrom('', '{', '[', 'null', '[]', '{"jsonrpc":"2.0"}', '\u0000'),
      );
      const statuses: Record<number, number> = {};
      const problems: string[] = [];
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          const res = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: b });
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status >= 500 || JS_ERROR_TEXT.test(res.text)) problems.push(`${JSON.stringify(b).slice(0, 200)} → ${res.status} ${res.text.slice(0, 200)}`);
        }),
        { seed: SEED + 2, numRuns: 500 },
      );
      expect(problems.slice(0, 10)).toEqual([]);
      // Still serving afterwards.
      expect((await raw(`${adapter.url}/healthz`)).status).toBe(200);
    });
  });
});

describe('fuzzed tools/call, signed in (resource-server mode)', () => {
  let issuer: Issuer;
  let adapter: Adapter;
  let token: string;
  beforeAll(async () => {
    issuer = await startIssuer();
    adapter = await startAdapter({
      zoektUrl: inject('zoektUrl'),
      env: { ...ENV, ZOEKT_MCP_OAUTH_ISSUER: issuer.url, ZOEKT_MCP_OAUTH_REPOS_CLAIM: 'groups', ZOEKT_MCP_OAUTH_REPOS_MAP: `team-a=${REPO_PREFIX}webapp|${REPO_PREFIX}gosvc` },
    });
    token = await issuer.token('agent-a', adapter.url);
  });
  afterAll(async () => {
    await adapter?.stop();
    await issuer?.stop();
  });

  it('400 generated calls with a token, each answered in the contract', { timeout: 300_000 }, async () => {
    const mcp = await connectStreamable(adapter.url, { authorization: `Bearer ${token}` });
    try {
      const { problems, counts } = await fuzzCalls(mcp, 400, SEED + 3);
      console.log('signed-in http outcomes', counts);
      expect(problems).toEqual([]);
      expect(counts.ok ?? 0).toBeGreaterThan(75);
    } finally {
      await mcp.close();
    }
  });

  it('300 generated raw POST bodies and Authorization headers: never a 500, never a hang, never a stack, never the token', async () => {
    const authorization = fc.oneof(
      fc.constant(`Bearer ${token}`),
      fc.string({ maxLength: 40 }).map((s) => `Bearer ${s.replace(/[\r\n]/g, '')}`),
      fc.constantFrom('Bearer', 'Basic abc', `bearer ${token}x`, `Bearer ${token.split('.').slice(0, 2).join('.')}.`, `Bearer ${token} ${token}`),
    );
    const body = fc.oneof(fc.constantFrom('', '{', '[]', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })), fc.string({ maxLength: 50 }));
    const statuses: Record<number, number> = {};
    const problems: string[] = [];
    await fc.assert(
      fc.asyncProperty(authorization, body, async (auth, b) => {
        const res = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: auth }, body: b });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const leaked = res.text.includes(token.split('.')[2]!) || JSON.stringify(res.headers).includes(token.split('.')[2]!);
        if (res.status >= 500 || JS_ERROR_TEXT.test(res.text) || leaked) problems.push(`${auth.slice(0, 30)} ${JSON.stringify(b).slice(0, 100)} → ${res.status} ${res.text.slice(0, 200)}`);
      }),
      { seed: SEED + 4, numRuns: 300 },
    );
    expect(problems.slice(0, 10)).toEqual([]);
    expect(statuses[401] ?? 0).toBeGreaterThan(0);
    expect(adapter.stderr()).not.toContain(token.split('.')[2]!);
  });
});
