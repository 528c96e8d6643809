/**
 * The stdio server's first answers, given before the MCP SDK loads (src/server/stdio-prelude.ts),
 * against the SDK's own stdio server over the same server factory: for each opening below, every
 * line the built server writes, in order, equals what the SDK's server writes for the same input
 * (ids included), whether the prelude answers it, hands it over at once, or hands over halfway.
 * Input is written in one piece; some openings also byte by byte, and in lines with CRLF ends.
 */
import { spawn } from 'node:child_process';
import { PassThrough, Writable } from 'node:stream';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { describeTools } from '../../src/server/catalog.js';
import { serverFactory } from '../../src/server/factory.js';
import { TOOLS } from '../../src/tools/index.js';
import { CLI } from '../support/mcp.js';

type Message = Record<string, unknown>;

const init = (protocolVersion: string, extra: Record<string, unknown> = {}, id: number | string = 1): Message => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'prelude-test', version: '1.0.0' }, ...extra },
});
const initialized: Message = { jsonrpc: '2.0', method: 'notifications/initialized' };
const list = (id: number | string = 2, params?: Record<string, unknown>): Message => ({ jsonrpc: '2.0', id, method: 'tools/list', ...(params ? { params } : {}) });
const ping = (id: number): Message => ({ jsonrpc: '2.0', id, method: 'ping' });

/** Openings: [name, lines (a string is sent as it is)]. */
const OPENINGS: [string, (Message | string)[]][] = [
  ...SUPPORTED_PROTOCOL_VERSIONS.map((v): [string, Message[]] => [`initialize ${v}, initialized, tools/list, ping`, [init(v), initialized, list(), ping(3)]]),
  ['capabilities and a title, string ids', [init('2025-11-25', { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} }, clientInfo: { name: 'c', version: '2', title: 'Client' } }, 'a'), initialized, list('b')]],
  // Sent byte by byte, its characters are split across reads.
  ['a client name beyond ASCII', [init('2025-06-18', { clientInfo: { name: 'clé 客户端 🔎', version: '1' } }), initialized, list()]],
  ['tools/list before initialized', [init('2025-06-18'), list(), initialized, ping(3)]],
  ['a version the SDK does not know', [init('2099-01-01'), initialized, list()]],
  ['initialize with _meta', [init('2025-06-18', { _meta: { progressToken: 1 } }), initialized, list()]],
  ['a client name that is not a string', [{ ...init('2025-06-18'), params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 7, version: '1' } } }, list()]],
  ['a capability that is not an object', [init('2025-06-18', { capabilities: { roots: true } }), initialized, list()]],
  ['tools/list first', [list(1), init('2025-06-18', {}, 2), list(3)]],
  ['tools/list with a cursor', [init('2025-06-18'), initialized, list(2, { cursor: 'abc' })]],
  ['a line that is not JSON', [init('2025-06-18'), 'not json', list()]],
  ['a second initialize', [init('2025-06-18'), init('2025-06-18', {}, 2), list(3)]],
  ['ping first', [ping(1), init('2025-06-18', {}, 2), list(3)]],
  ['the 2026-07-28 opening', [{ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} }]],
];

/** The openings also sent byte by byte and with CRLF ends. */
const SPLIT = new Set([OPENINGS[0]![0], 'a client name beyond ASCII', 'tools/list before initialized', 'a line that is not JSON']);

const PARSE_ERROR = { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: the line is not valid JSON/) } };

const lineOf = (m: Message | string) => (typeof m === 'string' ? m : JSON.stringify(m));

/** What the SDK's stdio server writes for `lines`, over the server factory with the built tool list. */
async function sdkAnswers(lines: string[], expected: number): Promise<Message[]> {
  const host = { catalog: { list: { tools: describeTools(TOOLS) } }, dispatcher: { call: () => Promise.reject(new Error('no call here')) }, log: silentLogger };
  const input = new PassThrough();
  const out: Message[] = [];
  let enough: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (enough = resolve));
  const output = new Writable({
    write(chunk: Buffer, _e, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) out.push(JSON.parse(l) as Message);
      if (out.length >= expected) enough();
      cb();
    },
  });
  const handle = serveStdio(serverFactory(host), { transport: new StdioServerTransport(input, output) });
  input.write(lines.map((l) => `${l}\n`).join(''));
  await Promise.race([done, new Promise((r) => setTimeout(r, 3000))]);
  await handle.close();
  return out;
}

/** What the built server writes for `lines`, sent as `how`; stdin stays open until `expected` lines came. */
async function builtAnswers(lines: string[], expected: number, how: 'whole' | 'bytes' | 'crlf'): Promise<Message[]> {
  return (await builtLines(lines, expected, how)).map((l) => JSON.parse(l) as Message);
}

/** The lines the built server writes, as text (an id past 2^53 - 1 survives only there). */
async function builtLines(lines: string[], expected: number, how: 'whole' | 'bytes' | 'crlf'): Promise<string[]> {
  const child = spawn(process.execPath, [CLI], { env: { PATH: process.env.PATH ?? '', ZOEKT_URL: inject('zoektUrl'), ZOEKT_MCP_LOG_LEVEL: 'warn' }, stdio: ['pipe', 'pipe', 'ignore'] });
  // Taken at once: a server that dies early has exited before the wait below.
  const exited = new Promise((r) => child.once('exit', r));
  child.stdin.on('error', () => undefined);
  const out: string[] = [];
  let text = '';
  const done = new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      const parts = text.split('\n');
      text = parts.pop()!;
      out.push(...parts);
      if (out.length >= expected) resolve();
    });
  });
  const payload = lines.map((l) => `${l}${how === 'crlf' ? '\r\n' : '\n'}`).join('');
  if (how === 'bytes') {
    for (const byte of Buffer.from(payload)) {
      child.stdin.write(Buffer.of(byte));
      await new Promise((r) => setImmediate(r));
    }
  } else child.stdin.write(payload);
  await Promise.race([done, exited, new Promise((r) => setTimeout(r, 10_000))]);
  child.stdin.end();
  await exited;
  return out;
}

describe('the first answers over stdio equal the SDK stdio server\'s', { timeout: 60_000 }, () => {
  it.each(OPENINGS)('%s', async (name, messages) => {
    const lines = messages.map(lineOf);
    // Every request gets one answer from the SDK (the 2026-07-28 opening too); notifications and
    // a line that is not JSON none (the SDK reports it to its error callback).
    const expected = messages.filter((m) => typeof m !== 'string' && 'id' in m).length;
    const reference = await sdkAnswers(lines, expected);
    expect(reference.length, 'the SDK answers every request').toBe(expected);
    // The SDK drops a line that is not JSON; the built server answers it, in its place, with
    // JSON-RPC's Parse error (id null: none could be read), and nothing else changes.
    let next = 0;
    const answers = messages.flatMap((m) => (typeof m === 'string' ? [PARSE_ERROR] : 'id' in m ? [reference[next++]!] : []));
    // Byte by byte and with CRLF ends where the prelude answers, or hands over halfway.
    const hows = SPLIT.has(name) ? (['whole', 'bytes', 'crlf'] as const) : (['whole'] as const);
    for (const how of hows) expect(await builtAnswers(lines, answers.length, how), how).toEqual(answers);
  });

  it('a client that stops reading does not crash the server, which ends when its stdin closes', async () => {
    const child = spawn(process.execPath, [CLI], { env: { PATH: process.env.PATH ?? '', ZOEKT_URL: inject('zoektUrl'), ZOEKT_MCP_LOG_LEVEL: 'warn' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Its answers meet a closed pipe: in the prelude, and again after the SDK took over.
    child.stdout.destroy();
    child.stdin.write(`${lineOf(init('2025-06-18'))}\n`);
    await new Promise((r) => setTimeout(r, 300));
    child.stdin.write([initialized, list(), ping(3)].map((m) => `${lineOf(m)}\n`).join(''));
    await new Promise((r) => setTimeout(r, 1000));
    child.stdin.end();
    expect(await exited, stderr).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Error/);
  });

  it('answers initialize and tools/list with stdin closed right after, and what follows them', async () => {
    const lines = [init('2025-06-18'), initialized, list(), ping(3)].map(lineOf);
    const reference = await sdkAnswers(lines, 3);
    const child = spawn(process.execPath, [CLI], { env: { PATH: process.env.PATH ?? '', ZOEKT_URL: inject('zoektUrl'), ZOEKT_MCP_LOG_LEVEL: 'warn' }, stdio: ['pipe', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stdin.end(lines.map((l) => `${l}\n`).join(''));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
    expect(text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Message)).toEqual(reference);
  });
});

describe('requests of the wrong shape over stdio', { timeout: 60_000 }, () => {
  // The SDK's own stdio transport drops each of these unanswered, and its client waits forever.
  const WRONG: [string, Record<string, unknown>, RegExp][] = [
    ['params that are a string', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: 'x' }, /"params" must be an object/],
    ['params that are an array', { jsonrpc: '2.0', id: 6, method: 'tools/call', params: [1] }, /"params" must be an object/],
    ['params that are null', { jsonrpc: '2.0', id: 'seven', method: 'tools/call', params: null }, /"params" must be an object/],
    ['a _meta that is not an object', { jsonrpc: '2.0', id: 8, method: 'ping', params: { _meta: 3 } }, /"params\._meta" must be an object/],
    ['a member JSON-RPC does not have', { jsonrpc: '2.0', id: 9, method: 'ping', extra: 1 }, /a request has "jsonrpc", "id", "method" and "params" only/],
    ['another JSON-RPC version', { jsonrpc: '1.0', id: 10, method: 'ping' }, /expected "jsonrpc": "2.0"/],
  ];

  it('each gets -32600 by its id, saying what is wrong, before the opening and after it; the rest is answered as before', async () => {
    const before = WRONG[0]![1];
    const lines = [lineOf(before), ...[init('2025-06-18'), initialized, ...WRONG.slice(1).map(([, m]) => m as Message), ping(11)].map(lineOf)];
    const out = await builtAnswers(lines, WRONG.length + 2, 'whole');
    for (const [what, message, reason] of WRONG) {
      const answer = out.find((m) => m.id === message.id) as { error?: { code: number; message: string } } | undefined;
      expect(answer?.error?.code, what).toBe(-32600);
      expect(answer?.error?.message, what).toMatch(reason);
    }
    expect(out.find((m) => m.id === 1)).toHaveProperty('result.serverInfo.name', 'zoekt-mcp');
    expect(out.find((m) => m.id === 11)).toHaveProperty('result', {});
  });

  it('a line that is not JSON, a null id, an id past 2^53 - 1 and a batch each get JSON-RPC\'s answer, by the id as sent', async () => {
    // Ids and codes as JSON-RPC 2.0 gives them (section 5.1): -32700 with id null for text that
    // is not JSON (a notification's too: nothing tells it apart), -32600 with the request's id
    // when it could be read, null otherwise; an array of answers for a batch. A blank line is no message.
    const big = '9007199254740993';
    const cases: [string, string, string | undefined][] = [
      ['not JSON', 'not json', '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,'],
      ['a notification cut short', '{"jsonrpc":"2.0","method":"notifications/initialized"', '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,'],
      ['a blank line', '  ', undefined],
      ['a null id', '{"jsonrpc":"2.0","id":null,"method":"tools/list"}', '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,'],
      ['an id past 2^53 - 1', `{"jsonrpc":"2.0","id":${big},"method":"tools/list"}`, `{"jsonrpc":"2.0","id":${big},"error":{"code":-32600,`],
      ['a string id and params that are a number', '{"jsonrpc":"2.0","id":"s","method":"tools/list","params":1}', '{"jsonrpc":"2.0","id":"s","error":{"code":-32600,'],
      ['a number', '42', '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,'],
      ['an empty batch', '[]', '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,'],
      // A notification and a response want no answer; 5 is no message: -32600 with id null.
      ['a batch', `[{"jsonrpc":"2.0","id":${big},"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"result":{}},5]`, `[{"jsonrpc":"2.0","id":${big},"error":{"code":-32600,`],
    ];
    const lines = [lineOf(init('2025-06-18')), lineOf(initialized), ...cases.map(([, line]) => line), lineOf(ping(11))];
    const answered = cases.filter(([, , answer]) => answer !== undefined);
    const out = await builtLines(lines, answered.length + 2, 'whole');
    const errors = out.filter((l) => l.includes('"error"'));
    expect(errors).toHaveLength(answered.length);
    // Refusals are written in the order of their lines.
    answered.forEach(([what, , start], i) => expect(errors[i]?.startsWith(start!), `${what}: ${errors[i]}`).toBe(true));
    const bigAnswer = JSON.parse(errors[answered.findIndex(([what]) => what === 'an id past 2^53 - 1')]!) as { error: { message: string } };
    expect(bigAnswer.error.message).toMatch(new RegExp(`"id" ${big} is past 2\\^53 - 1`));
    const batch = JSON.parse(errors[errors.length - 1]!) as { id: unknown }[];
    expect(batch.map((a) => a.id)).toEqual([Number(big), null]);
    expect(errors[errors.length - 1]).toMatch(/one JSON-RPC message per line/);
    // The server still answers what follows.
    expect(out.map((l) => JSON.parse(l) as Message).find((m) => m.id === 11)).toHaveProperty('result', {});
  });

  it('a line nested 50,000 deep, which JSON.parse takes, is answered like any other and the server goes on', async () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const lines = [
      lineOf(init('2025-06-18')),
      lineOf(initialized),
      // A request whose params are an array: -32600 by its id, as when shallow.
      `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":${deep(50_000)}}`,
      // A batch of one array: JSON-RPC's answer to a batch, one -32600 with the id null.
      deep(50_000),
      lineOf(ping(11)),
    ];
    const out = (await builtLines(lines, 4, 'whole')).map((l) => JSON.parse(l) as Message);
    expect(out[0]).toHaveProperty('result.serverInfo.name', 'zoekt-mcp');
    expect(out[1]).toMatchObject({ id: 2, error: { code: -32600, message: expect.stringMatching(/"params" must be an object/) } });
    expect(out[2]).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/not a batch/) } }]);
    expect(out[3]).toEqual({ jsonrpc: '2.0', id: 11, result: {} });
  });

  it('a response and a notification, even of the wrong shape, get no answer: only the request after them does', async () => {
    // JSON-RPC 2.0: a notification is never answered, and a response (the client's own parse
    // error included) is not a request; answering it, two strict peers would answer each other forever.
    const unanswered = [
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}',
      '{"jsonrpc":"2.0","id":3,"result":{},"extra":1}',
      '{"jsonrpc":"2.0","method":"notifications/initialized","params":5}',
      '{"jsonrpc":"1.0","method":"notifications/cancelled"}',
    ];
    const lines = [lineOf(init('2025-06-18')), lineOf(initialized), ...unanswered, lineOf(ping(11))];
    // Refusals are written as their lines are read, before the request after them is answered:
    // a wrong answer would come second, in the place of the ping's.
    const out = (await builtLines(lines, 2, 'whole')).map((l) => JSON.parse(l) as Message);
    expect(out[0]).toHaveProperty('result.serverInfo.name', 'zoekt-mcp');
    expect(out.slice(1)).toEqual([{ jsonrpc: '2.0', id: 11, result: {} }]);
  });

  it('a line past the SDK\'s cap on a message (10 MiB), with no end, still closes the connection', async () => {
    const child = spawn(process.execPath, [CLI], { env: { PATH: process.env.PATH ?? '', ZOEKT_URL: inject('zoektUrl'), ZOEKT_MCP_LOG_LEVEL: 'warn' }, stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin.on('error', () => undefined);
    child.stdin.write(`${lineOf(init('2025-06-18'))}\n`);
    const chunk = 'x'.repeat(64 * 1024);
    // 12.5 MiB, a newline never sent: the checking of lines must neither hold it nor go quadratic.
    for (let i = 0; i < 200 && child.exitCode === null; i++) await new Promise((r) => child.stdin.write(chunk, r));
    expect(await exited).toBe(0);
  });
});
