/**
 * tools/call of the 2026-07-28 revision over POST /mcp, answered with JSON straight from the
 * runtime when the request is plainly well formed. The SDK's handler builds a Web Request, a
 * Server and a Response per POST: in a CPU profile of cached calls that cost about 0.8 ms of
 * server CPU a call more than a 2025 call on legacy-post.ts (bench/eras.mjs). The SDK has already
 * classified the request (classifyInboundRequest: the envelope, and the version and method
 * headers against the body); this takes only the calls its handler would dispatch as they are,
 * with nothing for it to stream or refuse: the Mcp-Name header naming a tool of the catalog as
 * written, params of a tools/call with no progress token, log level or other `_meta` than the
 * envelope (and a trace parent). Anything else goes to the SDK's handler (mcp-endpoints.ts), and
 * a test holds these answers to the ones it gives for the same requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  TRACEPARENT_META_KEY,
  type InboundClassificationOutcome,
} from '@modelcontextprotocol/server';
import { SERVER_INFO, type ToolHost } from '../factory.js';

/** The revision this path answers; the SDK serves every other. */
const MODERN_REVISION = '2026-07-28';

const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, TRACEPARENT_META_KEY]);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const header = (req: IncomingMessage, name: string): string | undefined => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);

/** A call this path answers: what the dispatcher gets. */
export interface DirectCall {
  id: string | number;
  name: string;
  arguments: Record<string, unknown> | undefined;
  traceparent?: string;
}

/**
 * The call, when the SDK's handler would dispatch it as it is and answer with one JSON result;
 * undefined for anything it must decide itself. `tools`: the names of the catalog.
 */
export function directCall(route: InboundClassificationOutcome, req: IncomingMessage, tools: ReadonlySet<string>): DirectCall | undefined {
  if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
  const { message, classification } = route;
  if (message.method !== 'tools/call' || classification.revision !== MODERN_REVISION) return undefined;
  // The SDK strips optional whitespace from these and decodes a Base64 Mcp-Name: only the plain forms here.
  if (header(req, 'mcp-protocol-version') !== MODERN_REVISION || header(req, 'mcp-method') !== 'tools/call') return undefined;
  const params = message.params;
  if (!isObject(params) || Object.keys(params).some((k) => !PARAM_KEYS.has(k))) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string' || !tools.has(name) || header(req, 'mcp-name') !== name) return undefined;
  if (args !== undefined && !isObject(args)) return undefined;
  if (!isObject(meta) || Object.keys(meta).some((k) => !ENVELOPE_KEYS.has(k))) return undefined;
  const traceparent = meta[TRACEPARENT_META_KEY];
  if (traceparent !== undefined && typeof traceparent !== 'string') return undefined;
  return { id: message.id, name, arguments: args, ...(traceparent === undefined ? {} : { traceparent: traceparent.slice(0, 100) }) };
}

/** Answers a direct call as the SDK's handler does: HTTP 200, the result with its revision's fields. */
export async function answerDirectCall(runtime: ToolHost, call: DirectCall, res: ServerResponse, arrived: number): Promise<void> {
  // The client going away aborts the call: the dispatcher stops waiting and frees the slot.
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const result = await runtime.dispatcher.call(call.name, call.arguments, { signal: abort.signal, arrived, ...(call.traceparent === undefined ? {} : { traceparent: call.traceparent }) });
  const body = JSON.stringify({ result: { ...result, resultType: 'complete', _meta: { ...result._meta, [SERVER_INFO_META_KEY]: SERVER_INFO } }, jsonrpc: '2.0', id: call.id });
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}
