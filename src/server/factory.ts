/**
 * The MCP server of a runtime, as the SDK's serving entries take it: a factory that builds a
 * low-level Server for one serving unit (a stdio connection, one POST to /mcp, one legacy SSE
 * stream) and one protocol era. Both eras get the same tools: tools/list from the catalog,
 * tools/call through the dispatcher. Everything costly lives in the runtime; a Server here is a
 * few handlers over it.
 */
import { LOG_LEVEL_META_KEY, Server, TRACEPARENT_META_KEY, type CacheHint, type McpRequestContext, type RequestId, type ServerContext, type Transport } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { VERSION } from '../version.js';
import type { ZoektFleet } from '../zoekt/fleet.js';
import type { ToolCatalog } from './catalog.js';
import type { CallOptions, Dispatcher } from './dispatch.js';

export const SERVER_INFO = { name: 'zoekt-mcp', version: VERSION };

export const INSTRUCTIONS = [
  'zoekt-mcp searches source code indexed by Zoekt.',
  'Use search_code for text and regex search (Zoekt query syntax), search_symbols for where things are defined,',
  'search_files to find files by name or path, find_references for the definitions and usages of one identifier,',
  'get_file_outline for the symbols of one file, get_file to read a file, list_repos for what is indexed, get_health when calls fail.',
  'Every list result is paginated: pass next_cursor back as cursor with the same arguments.',
  'Besides its own fields an answer may carry: partial {reason, hint} (the search did not cover everything, and how to narrow it),',
  'truncated (what the output bound, max_output_chars, cut), hint (what to call next), not_indexed (files in scope kept by name only) and index_age.',
  'Errors carry {error: {code, message, hint, retryable}}: the hint says what to do next.',
].join(' ');

/**
 * The tool list and what this server offers change only when the server is upgraded, and are the
 * same for every caller: a client may keep them an hour.
 */
const STABLE: CacheHint = { ttlMs: 3_600_000, cacheScope: 'public' };

export type ServerFactory = (ctx: McpRequestContext) => Server;

/**
 * What a Server uses of the runtime: the tools/list answer and the dispatcher. A Runtime is one;
 * so is the stdio server's stand-in that answers from the built list and loads the runtime for
 * the first call (src/main.ts).
 */
export interface ToolHost {
  readonly catalog: Pick<ToolCatalog, 'list'>;
  readonly dispatcher: Pick<Dispatcher, 'call'>;
}

/**
 * What the HTTP server uses of the runtime, declared here by its consumer: the tools, the log, the
 * metrics, and the backends it probes. src/runtime.ts's Runtime is one.
 */
export interface ServerHost extends ToolHost {
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly fleet: Pick<ZoektFleet, 'url' | 'several' | 'readinessEach'>;
}

/** tools/call params as they come: the dispatcher checks them and says what is wrong. */
const ANY_PARAMS = z.record(z.string(), z.unknown());

/** Malformed calls waiting for their handler, at most: the SDK may refuse one before it runs. */
const HELD_CALLS = 64;

/**
 * A Server that answers a tools/call whose params do not have the protocol's shape (arguments
 * that are not an object, a name that is not a string) like any other bad call: by the
 * dispatcher, with a code and a hint, not the SDK's bare -32602. The SDK checks a tools/call's
 * shape before any handler runs, so such a call reaches it with well-formed placeholder params,
 * and the handler takes the params as sent from here, by request id; nothing in the message can
 * claim to be them. The Server sees each message after a callback the transport already had
 * (Protocol.connect keeps it and calls it first), which is where the params are swapped.
 * Answering tools/call from `fallbackRequestHandler` instead would make every unknown method
 * "handled", so a 2026-07-28 client would get -32601 with HTTP 200 where SEP-2575 wants 404 (the
 * conformance suite checks it).
 */
class ToolServer extends Server {
  /** A 2025 client asked for log messages (logging/setLevel) on this connection. */
  levelSet = false;
  private readonly malformed = new Map<RequestId, unknown>();

  override connect(transport: Transport): Promise<void> {
    // Connected already: the SDK refuses, and this transport is not ours to change.
    if (this.transport) return super.connect(transport);
    const before = transport.onmessage;
    transport.onmessage = (message, extra) => {
      before?.(message, extra);
      if (!('method' in message) || !('id' in message)) return;
      if (message.method === 'logging/setLevel') this.levelSet = true;
      else if (message.method === 'tools/call') {
        this.malformed.delete(message.id);
        if (!malformedCall(message.params)) return;
        if (this.malformed.size >= HELD_CALLS) this.malformed.delete(this.malformed.keys().next().value!);
        this.malformed.set(message.id, message.params);
        message.params = placeholder(message.params);
      }
    };
    return super.connect(transport);
  }

  /** The name and arguments of tools/call `id` as the client sent them. */
  sent(id: RequestId, params: { name?: unknown; arguments?: unknown }): { name?: unknown; arguments?: unknown } {
    if (!this.malformed.has(id)) return params;
    const sent = this.malformed.get(id);
    this.malformed.delete(id);
    // Params that are not an object name no tool: the dispatcher says so.
    return sent !== null && typeof sent === 'object' && !Array.isArray(sent) ? (sent as { name?: unknown; arguments?: unknown }) : {};
  }
}

function malformedCall(params: unknown): boolean {
  if (params === undefined || typeof params !== 'object' || params === null || Array.isArray(params)) return true;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  return typeof name !== 'string' || !(args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args)));
}

/** Params of the protocol's shape in place of malformed ones; the envelope (`_meta`) stays where the SDK reads it. */
function placeholder(params: unknown): Record<string, unknown> {
  const meta = params !== null && typeof params === 'object' && !Array.isArray(params) ? (params as { _meta?: unknown })._meta : undefined;
  return { name: '', arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) };
}

/** What the dispatcher needs to know of one tools/call request. */
function callOptions(server: ToolServer, ctx: ServerContext, arrived: number | undefined): CallOptions {
  const meta = ctx.mcpReq._meta;
  const token = meta?.progressToken;
  const traceparent = meta?.[TRACEPARENT_META_KEY];
  const options: CallOptions = { signal: ctx.mcpReq.signal, ...(arrived === undefined ? {} : { arrived }) };
  if (typeof traceparent === 'string') options.traceparent = traceparent.slice(0, 100);
  if (token !== undefined) {
    options.progress = (progress, message) => {
      void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
    };
  }
  // Only to a client that asked: logging/setLevel on this connection (2025), or a log level in
  // the request's `_meta` (2026-07-28, where setLevel is gone); the SDK filters by that level.
  const perRequest = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY];
  if (server.levelSet || perRequest !== undefined) options.notify = (level, data) => ctx.mcpReq.log(level, data, 'zoekt-mcp').catch(() => undefined);
  return options;
}

/**
 * Set by the HTTP layer on each request it hands to the SDK (any value a client sent is
 * replaced): when the request came in, so a call's deadline counts the time its body took.
 */
export const ARRIVED_HEADER = 'x-zoekt-mcp-arrived';

/** The server factory of a runtime. */
export function serverFactory(runtime: ToolHost): ServerFactory {
  // One validator for every Server (the SDK would build one per instance; no tool elicits).
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  return ({ requestInfo }) => {
    const header = Number(requestInfo?.headers.get(ARRIVED_HEADER));
    const arrived = Number.isFinite(header) && header > 0 ? header : undefined;
    const server = new ToolServer(SERVER_INFO, {
      instructions: INSTRUCTIONS,
      // Log messages go only to clients that ask; in 2026-07-28 by a level in each request's
      // `_meta` (logging/setLevel and ping are not methods there, and the SDK answers -32601).
      capabilities: { tools: {}, logging: {} },
      cacheHints: { 'tools/list': STABLE, 'server/discover': STABLE },
      jsonSchemaValidator,
    });
    server.setRequestHandler('tools/list', () => runtime.catalog.list);
    // Params of any shape reach the dispatcher, which answers a malformed call as a tool error
    // (the method-keyed form would refuse it first with a bare -32603).
    server.setRequestHandler('tools/call', { params: ANY_PARAMS }, (params, ctx) => {
      const p = server.sent(ctx.mcpReq.id, params as { name?: unknown; arguments?: unknown });
      return runtime.dispatcher.call(p.name, p.arguments, callOptions(server, ctx, arrived));
    });
    return server;
  };
}
