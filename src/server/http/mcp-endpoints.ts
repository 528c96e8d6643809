/**
 * The MCP endpoints. POST /mcp is Streamable HTTP, stateless: 2026-07-28 requests (and whatever
 * the SDK must refuse) go to the SDK's handler but for plain tool calls (modern-call.ts), 2025
 * ones to the JSON answers of legacy-post.ts (why: see there), so any replica serves any
 * request. GET /sse and POST /messages are the legacy SSE transport, whose sessions live in this
 * process.
 */
import type { IncomingMessage } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { classifyInboundRequest, createMcpHandler, isJsonContentType } from '@modelcontextprotocol/server';
import type { HttpConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import { ARRIVED_HEADER, type ServerFactory, type ToolHost } from '../factory.js';
import { readBody, sendJson } from './io.js';
import { checkJsonRpcBody, parseJsonRpcText, type CheckedBody } from '../jsonrpc-body.js';
import { acceptOk, legacyPostHandler } from './legacy-post.js';
import { answerDirectCall, directCall } from './modern-call.js';
import type { Route } from './routes.js';
import type { SseSessions } from './sse.js';

/** `{ [key]: value }`, or nothing when the value is absent (optional properties take no undefined). */
function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

export function mcpRoutes(runtime: ToolHost, factory: ServerFactory, sse: SseSessions, config: Pick<HttpConfig, 'maxBatch'>, log: Logger): [string, Route][] {
  /** The body of an MCP POST: one JSON-RPC message or a bounded batch, or a JSON-RPC error. */
  const readJsonRpc = async (req: IncomingMessage): Promise<CheckedBody> => {
    const text = await readBody(req);
    return checkJsonRpcBody(parseJsonRpcText(text), config.maxBatch, text);
  };
  const modern = toNodeHandler(createMcpHandler(factory, { legacy: 'reject', onerror: (err) => log.debug('mcp request refused', { reason: err.message }) }));
  const legacy = legacyPostHandler(runtime);
  const tools = new Set(runtime.catalog.list.tools.map((t) => t.name));

  const streamable: Route = {
    methods: ['POST'],
    mcp: true,
    handler: async (req, res) => {
      // The headers first: a refused request's body is not read.
      const arrived = Date.now();
      if (!acceptOk(req, res)) return;
      if (!isJsonContentType(req.headers['content-type'])) {
        sendJson(res, 415, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' } });
        return;
      }
      const { messages, batch } = await readJsonRpc(req);
      const body = batch ? messages : messages[0];
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
      const route = classifyInboundRequest({
        httpMethod: 'POST',
        body,
        ...optional('protocolVersionHeader', header('mcp-protocol-version')),
        ...optional('mcpMethodHeader', header('mcp-method')),
        ...optional('mcpNameHeader', header('mcp-name')),
      });
      if (route.kind === 'legacy') {
        await legacy(req, res, messages, batch, arrived);
        return;
      }
      const call = directCall(route, req, tools);
      if (call) {
        await answerDirectCall(runtime, call, res, arrived);
        return;
      }
      req.headers[ARRIVED_HEADER] = String(arrived);
      await modern(req, res, body);
    },
  };

  return [
    ['/mcp', streamable],
    [
      '/sse',
      {
        methods: ['GET'],
        mcp: true,
        handler: async (_req, res) => {
          await sse.open(res);
        },
      },
    ],
    ['/messages', { methods: ['POST'], mcp: true, handler: async (req, res, url) => sse.post(req, res, url.searchParams.get('sessionId'), await readJsonRpc(req)) }],
  ];
}
