/**
 * The JSON-RPC shape of a POSTed body, checked before a transport sees it. The SDK's transports
 * answer an empty batch `[]` with 202 as if it held only notifications, take batches of up to 100
 * messages, answer a message of the wrong shape with -32700 (Parse error) on /mcp and with plain
 * text on /messages, and lose an answer when two requests of one batch share an id. Here each of
 * those gets a JSON-RPC error that says what was wrong, and a batch is bounded so that one HTTP
 * request cannot carry more work than a few calls. Over stdio, each line is checked the same way
 * (stdio.ts): the SDK's stdio transport drops a request of the wrong shape unanswered.
 */
import { isJSONRPCRequest, isSpecType, ProtocolErrorCode as ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { answerIdText, errorAnswerText, idTexts } from './jsonrpc-id.js';

/** An answer to a body that is not a JSON-RPC message or batch: HTTP 400 with a JSON-RPC error. */
export class JsonRpcBodyError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** The id of the request refused, as the body spelled it; `null` when none could be read (a batch, an unreadable id). */
    readonly idText = 'null',
  ) {
    super(message);
    this.name = 'JsonRpcBodyError';
  }

  /** The JSON-RPC error answer, as JSON text (an id past 2^53 - 1 comes back digit for digit). */
  toText(): string {
    return errorAnswerText(this.idText, this.code, this.message);
  }
}

export interface CheckedBody {
  messages: JSONRPCMessage[];
  batch: boolean;
}

/** Parses the body text as JSON; a JSON-RPC parse error otherwise. */
export function parseJsonRpcText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new JsonRpcBodyError(ErrorCode.ParseError, 'Parse error: the request body is not valid JSON; send one JSON-RPC 2.0 message object, or an array of them');
  }
}

/**
 * Checks a parsed body: one JSON-RPC message, or a non-empty batch of at most `maxBatch` of them.
 * `text`, the body as sent, gives the refused request's id as it spelled it; a refusal of a batch
 * is about the batch as a whole, and carries the id null.
 */
export function checkJsonRpcBody(body: unknown, maxBatch: number, text?: string): CheckedBody {
  const batch = Array.isArray(body);
  const items: unknown[] = batch ? body : [body];
  if (batch && items.length === 0) throw new JsonRpcBodyError(ErrorCode.InvalidRequest, 'Invalid Request: the batch is empty; send at least one JSON-RPC message');
  if (items.length > maxBatch) {
    throw new JsonRpcBodyError(ErrorCode.InvalidRequest, `Invalid Request: the batch has ${items.length} messages and this server takes at most ${maxBatch} per HTTP request; split it`);
  }
  const messages: JSONRPCMessage[] = [];
  const ids = new Set<string | number>();
  items.forEach((item, i) => {
    const where = batch ? `message ${i} of the batch` : 'the body';
    if (!isSpecType.JSONRPCMessage(item)) {
      const idText = answerIdText(item, text === undefined ? undefined : idTexts(text)[i]);
      throw new JsonRpcBodyError(ErrorCode.InvalidRequest, `Invalid Request: ${where} is not a JSON-RPC 2.0 message (${describeShape(item, idText)})`, batch ? 'null' : idText);
    }
    const message = item;
    if (isJSONRPCRequest(message)) {
      if (ids.has(message.id)) throw new JsonRpcBodyError(ErrorCode.InvalidRequest, `Invalid Request: ${where} reuses the id ${JSON.stringify(message.id)}; each request of a batch needs its own`);
      ids.add(message.id);
    }
    messages.push(message);
  });
  return { messages, batch };
}

/** What is wrong with an item, in words: no echo of the value itself but its id (`idText`, as sent). */
function describeShape(item: unknown, idText: string): string {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return `expected an object with "jsonrpc": "2.0", got ${item === null ? 'null' : Array.isArray(item) ? 'an array' : typeof item}`;
  }
  const o = item as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return 'expected "jsonrpc": "2.0"';
  if ('method' in o) {
    if (typeof o.method !== 'string') return '"method" must be a string';
    if ('id' in o) {
      if (typeof o.id === 'number' && Number.isInteger(o.id) && !Number.isSafeInteger(o.id)) return `"id" ${idText === 'null' ? o.id : idText} is past 2^53 - 1, where JSON numbers stop being exact; use a smaller number or a string`;
      if (!(typeof o.id === 'string' || (typeof o.id === 'number' && Number.isInteger(o.id)))) return '"id" must be a string or a whole number';
    }
    if ('params' in o) {
      if (!isObject(o.params)) return '"params" must be an object';
      if ('_meta' in o.params) {
        const meta = o.params._meta;
        if (!isObject(meta)) return '"params._meta" must be an object';
        if ('progressToken' in meta && !isToken(meta.progressToken)) return '"params._meta.progressToken" must be a string or a whole number (the schema\'s ProgressToken is a string or an integer)';
      }
    }
    return 'a request has "jsonrpc", "id", "method" and "params" only; a notification has no "id"';
  }
  if ('result' in o || 'error' in o) return 'a response has "jsonrpc", "id" and one of "result" or "error"';
  return 'expected a request ("method", "id"), a notification ("method") or a response ("id", "result" or "error")';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** What the schema takes for a request id or progress token: a string or a safe whole number. */
function isToken(v: unknown): boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));
}
