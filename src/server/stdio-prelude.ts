/**
 * The first answers of a stdio connection, given before the MCP SDK is loaded. A client that
 * spawns the server sends `initialize`, `notifications/initialized` and `tools/list`, waiting for
 * each answer, and loading the SDK (its protocol schemas) is most of the time to those answers.
 * The build records what the SDK's own stdio server answers to them (scripts/bundle.mjs,
 * ZOEKT_MCP_STDIO_ANSWERS), and the prelude answers from that record.
 *
 * Nothing is lost on the way: every byte read is handed to the SDK's server afterwards, in order,
 * and the answers the prelude gave are dropped from what that server writes. The server sees the
 * whole conversation, so its state (the protocol version, the client's capabilities) is what it
 * would have been. Anything the prelude does not answer exactly as recorded (another method, a
 * 2026-07-28 opening, a field it does not know, a line that is not JSON) ends the prelude at once,
 * and the SDK answers it and everything after it. This module imports nothing of the SDK.
 */
import { PassThrough, Writable, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** What the SDK's stdio server answered, as the build recorded it: whole JSON-RPC responses. */
export interface StdioAnswers {
  /** The response to `initialize` per protocol version asked for (those the SDK supports). */
  initialize: Record<string, Record<string, unknown>>;
  toolsList: Record<string, unknown>;
}

/** Defined by scripts/bundle.mjs in the bundles it builds; undefined in tsc's output and under the tests. */
declare const ZOEKT_MCP_STDIO_ANSWERS: StdioAnswers | undefined;

export function builtStdioAnswers(): StdioAnswers | undefined {
  return typeof ZOEKT_MCP_STDIO_ANSWERS === 'object' ? ZOEKT_MCP_STDIO_ANSWERS : undefined;
}

type Id = string | number;

export class StdioPrelude {
  /** Resolves when the prelude has answered what it can: the SDK is needed from here on. */
  readonly done: Promise<void>;
  private finish: () => void = () => undefined;
  private readonly read: Buffer[] = [];
  private partial = '';
  /** A character split across chunks is decoded whole. */
  private readonly decoder = new StringDecoder('utf8');
  private stage: 'initialize' | 'list' | 'over' = 'initialize';
  /** The ids answered here, as JSON: the SDK's answers to them are dropped. */
  private readonly answered = new Set<string>();
  private ended = false;
  /** Writing to the output failed (the client stopped reading): handed to the SDK's transport. */
  private broken: Error | undefined;
  /** Reading the input failed: handed to the SDK's transport too. */
  private unread: Error | undefined;

  constructor(
    private readonly answers: StdioAnswers,
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    input.on('data', this.onData);
    input.once('end', () => (this.ended = true));
    output.on('error', this.onOutputError);
    input.on('error', this.onInputError);
  }

  private readonly onOutputError = (err: Error): void => {
    this.broken ??= err;
    this.over();
  };

  private readonly onInputError = (err: Error): void => {
    this.unread ??= err;
    this.over();
  };

  private readonly onData = (chunk: Buffer): void => {
    this.read.push(chunk);
    if (this.stage === 'over') return;
    const lines = (this.partial + this.decoder.write(chunk)).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) if (!this.take(line.replace(/\r$/, ''))) break;
  };

  /** Answers one line if it can; false when the prelude is over. */
  private take(line: string): boolean {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return this.over();
    }
    if (this.stage === 'initialize' && isInitialize(message)) {
      // Another version is for the SDK to negotiate.
      const answer = Object.hasOwn(this.answers.initialize, message.params.protocolVersion) ? this.answers.initialize[message.params.protocolVersion] : undefined;
      if (!answer) return this.over();
      this.answer(message.id, answer);
      this.stage = 'list';
      return true;
    }
    // A notification: nothing to answer.
    if (this.stage === 'list' && isBare(message, 'notifications/initialized', false)) return true;
    if (this.stage === 'list' && isBare(message, 'tools/list', true)) this.answer(message.id, this.answers.toolsList);
    return this.over();
  }

  private answer(id: Id, recorded: Record<string, unknown>): void {
    this.answered.add(JSON.stringify(id));
    // The recorded response with this request's id, in the SDK's order of keys.
    this.output.write(`${JSON.stringify({ ...recorded, id })}\n`);
  }

  private over(): false {
    this.stage = 'over';
    this.finish();
    return false;
  }

  /**
   * Ends the prelude: the streams an SDK transport reads and writes. It reads everything the
   * prelude read, then the rest of the input (the input's end when it ends, or at once if it has);
   * what it writes goes out but the answers already given.
   */
  handOver(): { input: Readable; output: Writable } {
    this.over();
    this.input.off('data', this.onData);
    const input = new PassThrough();
    const replayed = this.read.length;
    for (const chunk of this.read) input.write(chunk);
    this.read.length = 0;
    if (!this.ended) {
      this.input.pipe(input);
      // Closed without an end (destroyed): the transport's input ends there too.
      this.input.once('close', () => setImmediate(() => input.writableEnded || input.end()));
    } else if (!replayed) input.end();
    // As stdin's own end comes after its data, in an event of its own: once the transport has
    // read what came before it, and handled what it answers at once.
    else input.once('resume', () => setImmediate(() => input.end()));
    const answered = this.answered;
    const out = this.output;
    let pending = '';
    const output = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        const lines = (pending + chunk.toString()).split('\n');
        pending = lines.pop()!;
        const kept = lines.filter((line) => !answered.size || !isAnswerTo(line, answered));
        if (!kept.length) return callback();
        out.write(`${kept.join('\n')}\n`, () => callback());
      },
    });
    // A failed write reaches the transport as its own output's error, as it would have without
    // the prelude: it closes the connection. Later, once the transport listens (it does as it starts).
    const fail = (err: Error) => setImmediate(() => output.destroy(err));
    this.output.off('error', this.onOutputError);
    this.output.on('error', fail);
    if (this.broken) fail(this.broken);
    const failRead = (err: Error) => setImmediate(() => input.destroy(err));
    this.input.off('error', this.onInputError);
    this.input.on('error', failRead);
    if (this.unread) failRead(this.unread);
    return { input, output };
  }
}

/** A response (not a request or notification) whose id is one of `answered`, which it takes out. */
function isAnswerTo(line: string, answered: Set<string>): boolean {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return false;
  }
  if (!isObject(message) || 'method' in message || !('id' in message)) return false;
  return answered.delete(JSON.stringify(message.id));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is Id => typeof v === 'string' || Number.isSafeInteger(v);
const onlyKeys = (o: Record<string, unknown>, allowed: readonly string[]) => Object.keys(o).every((k) => allowed.includes(k));

/** Client information the SDK's schema accepts as it is: strings where it wants them, nothing else. */
function isClientInfo(v: unknown): boolean {
  if (!isObject(v) || typeof v.name !== 'string' || typeof v.version !== 'string') return false;
  return onlyKeys(v, ['name', 'version', 'title', 'description', 'websiteUrl']) && ['title', 'description', 'websiteUrl'].every((k) => v[k] === undefined || typeof v[k] === 'string');
}

/** An `initialize` request of the 2025 revisions, in the shape the SDK's schema takes without a remark. */
function isInitialize(m: unknown): m is { id: Id; params: { protocolVersion: string } } {
  if (!isObject(m) || m.jsonrpc !== '2.0' || m.method !== 'initialize' || !isId(m.id) || !onlyKeys(m, ['jsonrpc', 'id', 'method', 'params'])) return false;
  const p = m.params;
  if (!isObject(p) || !onlyKeys(p, ['protocolVersion', 'capabilities', 'clientInfo']) || typeof p.protocolVersion !== 'string') return false;
  // Each capability an object, as every capability of the schema is.
  return isObject(p.capabilities) && Object.values(p.capabilities).every(isObject) && isClientInfo(p.clientInfo);
}

/** A request (`withId`) or notification of `method` with no params, or empty ones. */
function isBare(m: unknown, method: string, withId: boolean): m is { id: Id } {
  if (!isObject(m) || m.jsonrpc !== '2.0' || m.method !== method) return false;
  if (withId ? !isId(m.id) : 'id' in m) return false;
  if (!onlyKeys(m, ['jsonrpc', 'id', 'method', 'params'])) return false;
  return m.params === undefined || (isObject(m.params) && Object.keys(m.params).length === 0);
}
