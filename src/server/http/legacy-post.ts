/**
 * POST /mcp for the 2025 protocol revisions, answered with JSON straight from the runtime. The
 * SDK's stateless legacy leg builds a Server, a Web Request and an SSE-framed response per POST,
 * which in a CPU profile of cached search_code calls cost far past the 5% this server allows its
 * protocol layer (bench/README.md, "Protocol layer", has the figures; bench/protocol.sh compares
 * builds). The
 * rules followed are those of the SDK's transport and Server (initialize negotiation, header
 * checks), so 2025 clients see no difference; 2026-07-28 requests and anything the SDK must
 * decide go to its handler (mcp-endpoints.ts routes them).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isJSONRPCRequest,
  isSpecType,
  LATEST_PROTOCOL_VERSION,
  ProtocolError,
  ProtocolErrorCode as ErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/server';
import { INSTRUCTIONS, SERVER_INFO, type ToolHost } from '../factory.js';
import { sendJson } from './io.js';

/** The code the SDK transport uses for its HTTP-level refusals. */
const TRANSPORT_ERROR = -32000;

/** What a 2025 client is told the server offers (logging: setLevel is accepted). */
const CAPABILITIES = { tools: {}, logging: {} };

/**
 * Each POST stands alone here (no session), so a level set by logging/setLevel reaches no later
 * call and no log message is ever sent: the client is told so, rather than left waiting for them.
 */
const STATELESS_INSTRUCTIONS = `${INSTRUCTIONS} Over this HTTP endpoint each request stands alone: logging/setLevel is accepted but no log messages are sent; use stdio or the legacy SSE transport (/sse) to receive log messages.`;

const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

type Answer = { jsonrpc: '2.0'; id: string | number } & ({ result: unknown } | { error: { code: number; message: string; data?: unknown } });

/** An HTTP refusal with the status and JSON-RPC error body the SDK transport would send. */
function refuse(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * Accept, checked before the body is read, with the SDK transport's rule: it must name both
 * application/json and text/event-stream (a substring test, as there). Returns false when the
 * request was refused.
 */
export function acceptOk(req: IncomingMessage, res: ServerResponse): boolean {
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    refuse(res, 406, TRANSPORT_ERROR, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    return false;
  }
  return true;
}

/** `arrived`: when the request came in, before its body was read: every call's deadline counts from it. */
export type LegacyPostHandler = (req: IncomingMessage, res: ServerResponse, messages: JSONRPCMessage[], batch: boolean, arrived: number) => Promise<void>;

export function legacyPostHandler(runtime: ToolHost): LegacyPostHandler {
  const { dispatcher, catalog } = runtime;

  const answer = async (m: JSONRPCRequest, signal: AbortSignal, arrived: number): Promise<Answer> => {
    const ok = (result: unknown): Answer => ({ jsonrpc: '2.0', id: m.id, result });
    const fail = (code: number, message: string): Answer => ({ jsonrpc: '2.0', id: m.id, error: { code, message } });
    const params = (m.params ?? {}) as Record<string, unknown>;
    switch (m.method) {
      case 'initialize': {
        if (!isSpecType.InitializeRequest(m)) {
          return fail(ErrorCode.InvalidParams, 'Invalid params: initialize needs protocolVersion (a string), capabilities (an object) and clientInfo ({ name, version })');
        }
        const asked = params.protocolVersion as string;
        // The SDK's negotiation: the client's version when supported, else the latest.
        const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
        return ok({ protocolVersion, capabilities: CAPABILITIES, serverInfo: SERVER_INFO, instructions: STATELESS_INSTRUCTIONS });
      }
      case 'ping':
        return ok({});
      case 'tools/list':
        return ok(catalog.list);
      case 'tools/call':
        // Every call, well-formed or not, goes through the dispatcher: one path for admission,
        // deadline, errors with a code and a hint, and metrics. A name that is no tool is a
        // protocol error, as the SDK's handler answers it.
        try {
          return ok(await dispatcher.call(params.name, params.arguments, { signal, arrived }));
        } catch (err) {
          if (!(err instanceof ProtocolError)) throw err;
          return { jsonrpc: '2.0', id: m.id, error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } };
        }
      case 'logging/setLevel':
        // Accepted as the SDK does; a stateless request has no later messages to filter.
        if (typeof params.level !== 'string' || !LOGGING_LEVELS.includes(params.level)) {
          return fail(ErrorCode.InvalidParams, `Invalid params: level must be one of ${LOGGING_LEVELS.join(', ')}`);
        }
        return ok({});
      default:
        return fail(ErrorCode.MethodNotFound, 'Method not found');
    }
  };

  return async (req, res, messages, batch, arrived) => {
    const initializing = messages.some((m) => isJSONRPCRequest(m) && m.method === 'initialize');
    if (initializing && messages.length > 1) {
      refuse(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: Only one initialization request is allowed');
      return;
    }
    // After initialize every request may name its protocol version; one this server does not speak is refused.
    const version = req.headers['mcp-protocol-version'];
    if (!initializing && typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      refuse(res, 400, TRANSPORT_ERROR, `Bad Request: Unsupported protocol version: ${version} (supported versions: 2026-07-28, ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
      return;
    }
    const requests = messages.filter(isJSONRPCRequest);
    // Notifications and the client's responses need no answer (a stateless server has nothing to cancel).
    if (requests.length === 0) {
      res.writeHead(202).end();
      return;
    }
    // The client going away aborts its calls: the dispatcher stops waiting and frees the slot.
    // A response already sent has nothing left to abort (and an abort costs a DOMException).
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const answers = await Promise.all(requests.map((m) => answer(m, abort.signal, arrived)));
    sendJson(res, 200, batch ? answers : answers[0]);
  };
}
