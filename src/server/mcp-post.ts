/**
 * POST /mcp answered straight from the dispatcher and the tool catalog. A CPU profile of HTTP
 * calls showed that the SDK's per-request path (a Server with its own Ajv instance, a transport,
 * and the conversion of each node request into a Web Request and back) cost more than the call's
 * own work beside Zoekt; a stateless JSON answer needs none of it. The HTTP checks and the
 * initialize negotiation follow the SDK's StreamableHTTPServerTransport and Server, so SDK clients
 * see no difference; SSE and stdio keep the SDK's transports.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  LoggingLevelSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { dispatcherFor, INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO, type ServerDeps } from './build.js';
import { sendJson } from './http-io.js';

/** The code the SDK transport uses for its HTTP-level refusals. */
const TRANSPORT_ERROR = -32000;

type Answer = { jsonrpc: '2.0'; id: string | number } & ({ result: unknown } | { error: { code: number; message: string } });

/** An HTTP refusal with the status and JSON-RPC error body the SDK transport would send. */
function refuse(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * Accept and Content-Type, checked before the body is read, with the SDK transport's rules: Accept
 * must name both application/json and text/event-stream (a substring test, as there), and the
 * body's media type must be application/json. Returns false when the request was refused.
 */
export function mcpHeadersOk(req: IncomingMessage, res: ServerResponse): boolean {
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    refuse(res, 406, TRANSPORT_ERROR, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    return false;
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    refuse(res, 415, TRANSPORT_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
    return false;
  }
  return true;
}

/** `arrived`: when the request came in, before its body was read: every call's deadline counts from it. */
type McpPostHandler = (req: IncomingMessage, res: ServerResponse, messages: JSONRPCMessage[], batch: boolean, arrived: number) => Promise<void>;

export function mcpPostHandler(deps: ServerDeps): McpPostHandler {
  const dispatcher = dispatcherFor(deps);

  const answer = async (m: JSONRPCRequest, signal: AbortSignal, arrived: number): Promise<Answer> => {
    const ok = (result: unknown): Answer => ({ jsonrpc: '2.0', id: m.id, result });
    const fail = (code: number, message: string): Answer => ({ jsonrpc: '2.0', id: m.id, error: { code, message } });
    const params = (m.params ?? {}) as Record<string, unknown>;
    switch (m.method) {
      case 'initialize': {
        if (!InitializeRequestSchema.safeParse(m).success) {
          return fail(ErrorCode.InvalidParams, 'Invalid params: initialize needs protocolVersion (a string), capabilities (an object) and clientInfo ({ name, version })');
        }
        const asked = params.protocolVersion as string;
        // The SDK's negotiation: the client's version when supported, else the latest.
        const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
        return ok({ protocolVersion, capabilities: SERVER_CAPABILITIES, serverInfo: SERVER_INFO, instructions: INSTRUCTIONS });
      }
      case 'ping':
        return ok({});
      case 'tools/list':
        return ok(dispatcher.catalog.list);
      case 'tools/call':
        // Every call, well-formed or not, goes through the dispatcher: one path for admission,
        // deadline, errors with a code and a hint, and metrics.
        return ok(await dispatcher.call(params.name, params.arguments, signal, arrived));
      case 'logging/setLevel':
        // Accepted as the SDK does; a stateless request has no later messages to filter.
        if (!LoggingLevelSchema.safeParse(params.level).success) {
          return fail(ErrorCode.InvalidParams, `Invalid params: level must be one of ${LoggingLevelSchema.options.join(', ')}`);
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
      refuse(res, 400, TRANSPORT_ERROR, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
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
