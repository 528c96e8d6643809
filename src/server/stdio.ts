import { Transform, type Readable, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { isSpecType, ProtocolErrorCode, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import { serveStdio as serveOnStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { serverFactory, type ServerHost, type ToolHost } from './factory.js';
import { checkJsonRpcBody, JsonRpcBodyError } from './jsonrpc-body.js';

/** What the stdio server uses of the runtime: a Runtime, or src/main.ts's stand-in that loads one for the first call. */
export type StdioHost = ToolHost & Pick<ServerHost, 'log'>;

/**
 * Serves MCP over stdin/stdout, or over the streams a StdioPrelude hands over (stdio-prelude.ts),
 * until the client closes stdin. The client's opening message picks the era: `initialize` for the
 * 2025 revisions, `server/discover` or a request with the 2026-07-28 `_meta` envelope for the
 * current one.
 */
export function serveStdio(runtime: StdioHost, streams: { input: Readable; output: Writable } = { input: process.stdin, output: process.stdout }): void {
  const transport = new StdioServerTransport(answeringMalformed(streams.input, streams.output), streams.output);
  serveOnStdio(serverFactory(runtime), { transport, onerror: (err) => runtime.log.debug('stdio', { error: err.message }) });
}

/**
 * The input, but for requests of the wrong shape (params that are not an object, a `_meta` that
 * is not one): each of those is answered here with -32600 naming what is wrong, by its id; the
 * SDK's transport would drop it and the client would wait. Every other byte goes through as it
 * came, lines that are not JSON too.
 */
function answeringMalformed(input: Readable, output: Writable): Readable {
  const decoder = new StringDecoder('utf8');
  // The line read so far, while it is short enough to check; past the SDK's own cap on a message
  // its bytes go through unchecked (`passing`), so that the cap still closes the connection.
  let partial = '';
  let passing = false;
  const checked = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const text = decoder.write(chunk);
      let out = '';
      let from = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
        const piece = text.slice(from, nl + 1);
        from = nl + 1;
        if (passing) {
          out += piece;
          passing = false;
          continue;
        }
        const line = partial + piece;
        partial = '';
        const answer = refusal(line);
        if (answer) output.write(`${JSON.stringify(answer)}\n`);
        else out += line;
      }
      const rest = text.slice(from);
      if (passing) out += rest;
      else if (partial.length + rest.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
        out += partial + rest;
        partial = '';
        passing = true;
      } else partial += rest;
      callback(null, out || undefined);
    },
    flush(callback) {
      const rest = partial + decoder.end();
      callback(null, rest || undefined);
    },
  });
  input.on('error', (err) => checked.destroy(err));
  // Closed without an end (destroyed): the transport's input ends there too, as it did on stdin.
  input.once('close', () => setImmediate(() => checked.writableEnded || checked.end()));
  return input.pipe(checked);
}

/**
 * The answer to a request the SDK's transport would drop (its message schema refuses it): one
 * with a method and an id to answer to, worded as the HTTP endpoints word it. A line that is not
 * JSON, or has no usable id, is left to the SDK, which answers nothing: there is no id.
 */
function refusal(line: string): { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string } } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const { id, method } = message as { id?: unknown; method?: unknown };
  if (typeof method !== 'string' || !(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  if (isSpecType.JSONRPCMessage(message)) return undefined;
  let why = 'Invalid Request: the message is not a JSON-RPC 2.0 message';
  try {
    checkJsonRpcBody(message, 1);
  } catch (err) {
    if (!(err instanceof JsonRpcBodyError)) throw err;
    why = err.message.replace('the body is', 'the message is');
  }
  return { jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidRequest, message: why } };
}
