/**
 * The server factory: a low-level MCP Server answering tools/list from the catalog and
 * tools/call through the dispatcher, for any transport. What is costly (schemas, the searcher,
 * admission) is made once per process and shared by every session: stdio, each SSE session, and
 * the POSTs to /mcp, which src/server/mcp-post.ts answers without an SDK server.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULTS } from '../config.js';
import type { Logger } from '../log.js';
import { VERSION } from '../version.js';
import type { ZoektClient } from '../zoekt/client.js';
import { asFleet, type ZoektFleet } from '../zoekt/fleet.js';
import type { AnyTool } from '../tools/define.js';
import { TOOLS } from '../tools/index.js';
import { Searcher, type WalkLimits } from '../search/searcher.js';
import type { WindowCache } from '../search/window-cache.js';
import type { RepoScope } from '../search/scope.js';
import { Admission, type AdmissionLimits } from './admission.js';
import { catalogOf } from './catalog.js';
import { Dispatcher } from './dispatch.js';

export interface ServerDeps {
  /** One zoekt-webserver, or several each serving a share of the repositories. */
  zoekt: ZoektClient | ZoektFleet;
  log: Logger;
  /** Ranked windows shared by every session of this process. */
  cache?: WindowCache;
  /** The repositories every tool is confined to (--allow-repos). */
  scope?: RepoScope;
  /** How far a walk over pages goes (tests set small bounds to reach them). */
  walkLimits?: WalkLimits;
  tools?: readonly AnyTool[];
  /** The deadline of one tool call, queueing and every Zoekt request included (--timeout-ms). */
  timeoutMs?: number;
  /** Calls run at once and calls waiting, for the whole process (--max-in-flight, --max-queue). */
  admission?: AdmissionLimits;
  /** The key cursors are signed with (--cursor-secret); a random one per process when absent. */
  cursorSecret?: string;
  /** The text an answer may have unless a call asks for another bound (--max-output-chars). */
  maxOutputChars?: number;
}


/** Who this server is and what it offers, the same over every transport (src/server/mcp-post.ts answers initialize itself). */
export const SERVER_INFO = { name: 'zoekt-mcp', version: VERSION };
export const SERVER_CAPABILITIES = { tools: {}, logging: {} };
export const INSTRUCTIONS = [
  'zoekt-mcp searches source code indexed by Zoekt.',
  'Use search_code for text and regex search (Zoekt query syntax), search_symbols for where things are defined,',
  'search_files to find files by name or path, find_references for the definitions and usages of one identifier,',
  'get_file to read a file, list_repos for what is indexed, get_health when calls fail.',
  'Every list result is paginated: pass next_cursor back as cursor with the same arguments.',
  'Errors carry a code and a hint that says what to do next.',
].join(' ');

/** The per-process part, keyed by the deps object every transport of the process shares. */
const dispatchers = new WeakMap<ServerDeps, Dispatcher>();

export function dispatcherFor(deps: ServerDeps): Dispatcher {
  let d = dispatchers.get(deps);
  if (!d) {
    const zoekt = asFleet(deps.zoekt);
    d = new Dispatcher({
      catalog: catalogOf(deps.tools ?? TOOLS),
      zoekt,
      searcher: new Searcher(zoekt, deps.cache, deps.scope, deps.walkLimits, deps.cursorSecret),
      log: deps.log,
      admission: new Admission(deps.admission ?? { maxInFlight: DEFAULTS.maxInFlight, maxQueue: DEFAULTS.maxQueue }),
      timeoutMs: deps.timeoutMs ?? DEFAULTS.timeoutMs,
      maxOutputChars: deps.maxOutputChars ?? DEFAULTS.maxOutputChars,
    });
    dispatchers.set(deps, d);
  }
  return d;
}

export function buildServer(deps: ServerDeps): Server {
  const dispatcher = dispatcherFor(deps);
  const server = new Server(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: SERVER_CAPABILITIES });
  server.setRequestHandler(ListToolsRequestSchema, () => dispatcher.catalog.list);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => dispatcher.call(request.params.name, request.params.arguments, extra.signal));
  return server;
}

/**
 * Connects a new server to `transport`. A tools/call whose params the SDK would reject with a
 * bare protocol error (arguments that are not an object, a name that is not a string) is answered
 * here instead, as a tool error with a code and a hint like any other bad argument.
 */
export async function connectServer(deps: ServerDeps, transport: Transport): Promise<Server> {
  const server = buildServer(deps);
  await server.connect(transport);
  const dispatcher = dispatcherFor(deps);
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const bad = malformedCall(message);
    if (!bad) return onmessage?.(message, extra);
    // The dispatcher keeps the call's deadline; nothing here outlives it.
    void dispatcher
      .call(bad.name, bad.args, new AbortController().signal)
      .then((result) => transport.send({ jsonrpc: '2.0', id: bad.id, result }, { relatedRequestId: bad.id }))
      .catch(() => undefined);
  };
  return server;
}

function malformedCall(message: JSONRPCMessage): { id: string | number; name: unknown; args: unknown } | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== 'tools/call' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return undefined;
  const params = (m.params ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return { id: m.id, name: undefined, args: undefined };
  const args = params.arguments;
  const argsOk = args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args));
  if (typeof params.name === 'string' && argsOk) return undefined;
  return { id: m.id, name: params.name, args };
}
