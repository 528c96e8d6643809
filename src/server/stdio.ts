import { Transform, type Readable, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { isSpecType, ProtocolErrorCode, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import { serveStdio as serveOnStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { serverFactory, type ServerHost, type ToolHost } from './factory.js';
import { checkJsonRpcBody, JsonRpcBodyError } from './jsonrpc-body.js';
import { answerIdText, errorAnswerText, idTexts } from './jsonrpc-id.js';

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
 * The input, but for lines the SDK's transport would drop unanswered, each of which a client
 * would wait on forever: each of those is answered here, as JSON-RPC 2.0 wants, and not passed
 * on. A line that is not JSON gets -32700 (Parse error) with the id null; a request of the wrong
 * shape (params that are not an object, a null id, an id past 2^53 - 1) gets -32600 naming what
 * is wrong, by its id as the line spelled it when one could be read; a batch gets the same by
 * each of its requests (refusal below); a notification or a response of the wrong shape, nothing.
 * Every other byte goes through as it came.
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
        let answer: string | undefined;
        try {
          answer = refusal(line);
        } catch {
          // A check that fails must not end the server, whose stdin this is: the line goes on
          // to the SDK's transport as it came, which drops what it cannot read.
          answer = undefined;
        }
        if (answer === undefined) out += line;
        else if (answer) output.write(`${answer}\n`);
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
 * The answer to a line the SDK's transport would drop, as JSON text; undefined for a line to pass
 * on, '' for one to drop with nothing to answer (a malformed notification or response, which the
 * SDK would drop too). Blank lines pass (the transport skips them).
 * Over stdio a line is one message: MCP has had no JSON-RPC batches since 2025-06-18 and the SDK
 * reads none, so the requests of a batch are refused, as an array of answers (JSON-RPC's answer
 * to a batch), and its notifications and responses, which want none, are dropped with it.
 */
function refusal(line: string): string | undefined {
  if (line.trim() === '') return undefined;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return errorAnswerText('null', ProtocolErrorCode.ParseError, 'Parse error: the line is not valid JSON; send one JSON-RPC 2.0 message per line');
  }
  if (Array.isArray(message)) {
    if (message.length === 0) return errorAnswerText('null', ProtocolErrorCode.InvalidRequest, 'Invalid Request: the batch is empty; send one JSON-RPC 2.0 message per line');
    const ids = idTexts(line);
    const answers = message.flatMap((item, i) =>
      wantsNoAnswer(item) ? [] : [errorAnswerText(answerIdText(item, ids[i]), ProtocolErrorCode.InvalidRequest, 'Invalid Request: over stdio this server takes one JSON-RPC message per line, not a batch; send each request on a line of its own')],
    );
    return answers.length ? `[${answers.join(',')}]` : '';
  }
  if (isSpecType.JSONRPCMessage(message)) return undefined;
  // JSON-RPC 2.0 answers neither, even when malformed: a response (a client's own parse error
  // with the id null among them) is not a request, and answering it, two strict peers would
  // answer each other's answers forever.
  if (wantsNoAnswer(message)) return '';
  const idText = answerIdText(message, idTexts(line)[0]);
  let why = 'Invalid Request: the message is not a JSON-RPC 2.0 message';
  try {
    checkJsonRpcBody(message, 1, line);
  } catch (err) {
    if (!(err instanceof JsonRpcBodyError)) throw err;
    why = err.message.replace('the body is', 'the message is');
  }
  return errorAnswerText(idText, ProtocolErrorCode.InvalidRequest, why);
}

/** A notification (a method and no id) or a response (a result or an error, no method): neither wants an answer, of the wrong shape or not. */
function wantsNoAnswer(item: unknown): boolean {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return false;
  return 'method' in item ? !('id' in item) : 'result' in item || 'error' in item;
}
