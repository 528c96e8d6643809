/**
 * MCP over HTTP with node:http. Streamable HTTP at /mcp is stateless and serves both protocol
 * eras through the SDK's handler (2026-07-28 requests by their `_meta` envelope, 2025 ones by
 * the stateless legacy leg), so any replica can serve any request and a cursor from one replica
 * is resumed by another. The legacy SSE transport (GET /sse, POST /messages) keeps sessions in
 * this process. /healthz and /readyz are probes for orchestrators; /metrics is for Prometheus,
 * behind the bearer token when one is set.
 *
 * The SDK's handler checks the protocol (versions, headers against the body, methods of each
 * era) and validates nothing else; every request passes here first, in order: connection cap on
 * the MCP paths (503), path (404), Host on the MCP paths (403), Origin (403), method (405), bearer
 * token on the MCP paths (401), shutdown (503), on /mcp Content-Type (415), body size (413),
 * JSON-RPC shape. Slow clients are cut off by the timeouts of src/server/connections.ts (408).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpConfig } from '../config.js';
import { VERSION } from '../version.js';
import { combineReadiness } from '../zoekt/fleet.js';
import { bearerChecker } from './auth.js';
import { limitConnections, serverTimeouts } from './connections.js';
import { hostAllowed } from './hosts.js';
import { HttpError, readBody, sendError, sendJson } from './http-io.js';
import { checkJsonRpcBody, JsonRpcBodyError, parseJsonRpcText, type CheckedBody } from './jsonrpc-body.js';
import { originAllowed } from './origins.js';
import { SseSessions } from './sse.js';
import { classifyInboundRequest, createMcpHandler, isJsonContentType } from '@modelcontextprotocol/server';
import { acceptOk, legacyPostHandler } from './mcp-post.js';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { ARRIVED_HEADER, serverFactory, type ServerHost } from './factory.js';

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

interface Route {
  methods: readonly string[];
  /** MCP endpoints need the token; probes never do. */
  mcp: boolean;
  /** Not an MCP endpoint, but needs the token when one is set (/metrics: scrapers send it as a bearer token). */
  token?: boolean;
  handler: Handler;
}

export interface HttpServer {
  /** Where it listens, e.g. http://127.0.0.1:3000 (the real port when 0 was asked for). */
  url: string;
  address: AddressInfo;
  /**
   * Stops accepting connections, lets in-flight calls finish within the configured timeout,
   * then ends SSE streams and every remaining connection. Safe to call more than once.
   */
  shutdown(): Promise<void>;
}

const MCP_PATHS = new Set(['/mcp', '/sse', '/messages']);

/**
 * A refusal of the HTTP layer on an MCP path, as a JSON-RPC error (code -32001, in the range
 * JSON-RPC leaves to servers): its message starts with this server's code, which `data` repeats.
 */
function jsonRpcRefusal(err: HttpError): { jsonrpc: '2.0'; id: null; error: { code: number; message: string; data: { code: string; retry_after_ms?: number } } } {
  const retryAfter = err.headers?.['retry-after'];
  const data = { code: err.code, ...(retryAfter === undefined ? {} : { retry_after_ms: Number(retryAfter) * 1000 }) };
  return { jsonrpc: '2.0', id: null, error: { code: -32001, message: `${err.code}: ${err.message}`, data } };
}

const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID';
const CORS_EXPOSE_HEADERS = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate';

export async function serveHttp(config: HttpConfig, runtime: ServerHost): Promise<HttpServer> {
  const { log, fleet } = runtime;
  const started = Date.now();
  const checkToken = config.authToken === undefined ? undefined : bearerChecker(config.authToken);
  const factory = serverFactory(runtime);
  const sse = new SseSessions(factory, log, '/messages', config.maxSseSessions, runtime.metrics);
  /** Responses not finished yet, SSE streams left out: what shutdown waits for. */
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let nextId = 0;

  /** The body of an MCP POST: one JSON-RPC message or a bounded batch, or a JSON-RPC error. */
  const readJsonRpc = async (req: IncomingMessage): Promise<CheckedBody> => checkJsonRpcBody(parseJsonRpcText(await readBody(req)), config.maxBatch);

  // 2026-07-28 requests (and whatever the SDK must refuse) go to its handler; 2025 ones to the
  // JSON answers of mcp-post.ts (why: see there).
  const modern = toNodeHandler(createMcpHandler(factory, { legacy: 'reject', onerror: (err) => log.debug('mcp request refused', { reason: err.message }) }));
  const legacy = legacyPostHandler(runtime);
  const streamable: Handler = async (req, res) => {
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
    req.headers[ARRIVED_HEADER] = String(arrived);
    await modern(req, res, body);
  };

  const metrics = await runtime.metrics.enablePrometheus();
  const routes = new Map<string, Route>([
    [
      '/metrics',
      {
        methods: ['GET'],
        mcp: false,
        token: true,
        handler: async (_req, res) => {
          const text = await metrics.metrics();
          res.writeHead(200, { 'content-type': metrics.contentType }).end(text);
        },
      },
    ],
    ['/mcp', { methods: ['POST'], mcp: true, handler: streamable }],
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
    [
      '/messages',
      {
        methods: ['POST'],
        mcp: true,
        handler: async (req, res, url) => {
          await sse.post(req, res, url.searchParams.get('sessionId'), await readJsonRpc(req));
        },
      },
    ],
    [
      '/healthz',
      {
        methods: ['GET', 'HEAD'],
        mcp: false,
        handler: async (_req, res) => {
          sendJson(res, 200, { status: 'ok', version: VERSION, uptime_s: Math.round((Date.now() - started) / 1000) });
        },
      },
    ],
    [
      '/readyz',
      {
        methods: ['GET', 'HEAD'],
        mcp: false,
        handler: async (_req, res) => {
          if (draining) {
            sendJson(res, 503, { status: 'shutting_down', reason: 'the server is shutting down' });
            return;
          }
          const abort = new AbortController();
          res.on('close', () => abort.abort());
          const each = await fleet.readinessEach(abort.signal);
          const r = combineReadiness(each);
          const backends = fleet.several
            ? { backends: each.map((e) => ({ url: e.url, ready: e.readiness.ready, latency_ms: e.readiness.latencyMs, ...(e.readiness.ready ? {} : { reason: e.readiness.reason }) })) }
            : {};
          if (r.ready) sendJson(res, 200, { status: 'ready', zoekt: fleet.url, via: r.via, latency_ms: r.latencyMs, ...backends });
          // Some backends answer: this replica still serves, with answers that name what is missing.
          else if (each.some((e) => e.readiness.ready)) sendJson(res, 200, { status: 'degraded', reason: r.reason, zoekt: fleet.url, latency_ms: r.latencyMs, ...backends });
          else sendJson(res, 503, { status: 'unavailable', reason: r.reason, zoekt: fleet.url, via: r.via, latency_ms: r.latencyMs, ...backends });
        },
      },
    ],
  ]);

  /** Answers the checks that come before any handler; returns the route when the request may go on. */
  const admit = (req: IncomingMessage, res: ServerResponse, path: string): Route | undefined => {
    const route = routes.get(path);
    connections.arrived(req, res, route?.mcp ?? true);
    if (!route && path.startsWith('/.well-known/oauth')) {
      // A client that took the 401's Bearer challenge for OAuth looks for metadata first.
      throw new HttpError(404, 'NOT_FOUND', `${path}: this server does not use OAuth; it takes one static bearer token: configure the client to send Authorization: Bearer <token>, the token the server was given (--auth-token, ZOEKT_MCP_AUTH_TOKEN)`);
    }
    if (!route) throw new HttpError(404, 'NOT_FOUND', `no such path: ${path} (MCP is at /mcp, legacy SSE at /sse; probes at /healthz and /readyz, metrics at /metrics)`);
    // Probes answer any Host: an orchestrator asks by the pod's address, and they show no index
    // content. /metrics names backends and tools, so it is checked like the MCP endpoints.
    if ((route.mcp || route.token) && !hostAllowed(req.headers.host, config.allowedHosts)) {
      const host = req.headers.host === undefined ? 'a request without a Host header' : `Host ${JSON.stringify(req.headers.host.slice(0, 100))}`;
      throw new HttpError(403, 'HOST_NOT_ALLOWED', `${host} is not allowed here; add the name clients use to --allowed-hosts (ZOEKT_MCP_ALLOWED_HOSTS) if it should be`);
    }
    res.setHeader('vary', 'Origin');
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!originAllowed(origin, config.allowedOrigins)) {
        throw new HttpError(403, 'ORIGIN_NOT_ALLOWED', `origin ${origin} is not allowed; add it to --allowed-origins (ZOEKT_MCP_ALLOWED_ORIGINS) if it should be`);
      }
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', CORS_EXPOSE_HEADERS);
    }
    const allow = [...route.methods, 'OPTIONS'].join(', ');
    if (req.method === 'OPTIONS') {
      // A browser's CORS preflight carries no credentials, so it is answered before the token check.
      res.writeHead(204, {
        allow,
        'access-control-allow-methods': allow,
        'access-control-allow-headers': CORS_ALLOW_HEADERS,
        'access-control-max-age': '600',
      });
      res.end();
      return undefined;
    }
    if (!route.methods.includes(req.method ?? '')) {
      const why = path === '/mcp' ? ' (this server is stateless: no standalone stream, no session to delete)' : '';
      throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; use ${route.methods.join(' or ')}${why}`, { allow });
    }
    if ((route.mcp || route.token) && checkToken) {
      const auth = checkToken(req);
      if (!auth.ok) {
        const challenge = auth.reason === 'missing' ? 'Bearer realm="zoekt-mcp"' : 'Bearer realm="zoekt-mcp", error="invalid_token", error_description="not the token this server was given"';
        const message =
          auth.reason === 'missing'
            ? 'this server needs the header Authorization: Bearer <token>, with the token it was given (--auth-token, ZOEKT_MCP_AUTH_TOKEN); set it in the client\'s server entry (docs/http.md)'
            : 'the bearer token is not the one this server was given (--auth-token, ZOEKT_MCP_AUTH_TOKEN); check the Authorization header the client sends';
        throw new HttpError(401, 'UNAUTHORIZED', message, { 'www-authenticate': challenge });
      }
    }
    if (draining && route.mcp) throw new HttpError(503, 'SHUTTING_DOWN', 'the server is shutting down; retry on another replica', { connection: 'close', 'retry-after': '1' });
    return route;
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const id = ++nextId;
    const t0 = Date.now();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const isStream = req.method === 'GET' && url.pathname === '/sse';
    if (!isStream) {
      inFlight.add(res);
      res.on('close', () => inFlight.delete(res));
    }
    if (draining) res.setHeader('connection', 'close');
    res.on('close', () => {
      const fields = { id, method: req.method, path: url.pathname, status: res.statusCode, ms: Date.now() - t0 };
      if (res.statusCode === 401 || res.statusCode === 403) log.info('http request refused', fields);
      else log.debug('http request', fields);
    });
    try {
      const route = admit(req, res, url.pathname);
      if (route) await route.handler(req, res, url);
    } catch (err) {
      // A slow request closed by a timeout, or a client that went away: nobody to answer.
      if (res.destroyed) {
        log.debug('http request ended by the connection', { id, path: url.pathname, reason: err instanceof Error ? err.message : String(err) });
        return;
      }
      if (err instanceof HttpError) {
        // MCP clients show a JSON-RPC error's message (some show nothing else of a refusal).
        if (MCP_PATHS.has(url.pathname)) sendJson(res, err.status, jsonRpcRefusal(err), err.headers);
        else sendError(res, err);
        return;
      }
      if (err instanceof JsonRpcBodyError) {
        sendJson(res, 400, err.toJson());
        return;
      }
      log.error('http handler failed', { id, path: url.pathname, error: err instanceof Error ? err.message : String(err) });
      sendError(res, new HttpError(500, 'INTERNAL', 'internal error; see the server log'));
    }
  };

  const server: Server = createServer(serverTimeouts(config), (req, res) => void onRequest(req, res));
  const connections = limitConnections(server, config, log, runtime.metrics);
  await listen(server, config.host, config.port);
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  log.info('serving MCP over HTTP', {
    url,
    host: address.address,
    port: address.port,
    streamable_http: `${url}/mcp`,
    sse: `${url}/sse`,
    auth: checkToken ? 'bearer' : 'none',
    allowed_hosts: config.allowedHosts.map((h) => h.text),
    max_connections: config.maxConnections,
    max_unfinished: config.maxUnfinished,
    max_unfinished_per_peer: config.maxUnfinishedPerPeer,
    zoekt: fleet.url,
  });

  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      draining = true;
      server.close();
      server.closeIdleConnections();
      // Logged once the listener is closed: from here on a new connection is refused.
      log.info('shutting down: no new connections, waiting for in-flight calls', {
        in_flight: inFlight.size,
        sse_sessions: sse.size,
        calls_in_flight: runtime.metrics.callsInFlight(),
        timeout_ms: config.shutdownTimeoutMs,
      });
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      // Calls of SSE sessions answer on their streams: counted by the runtime, not as responses.
      const drained = await until(() => inFlight.size === 0 && runtime.metrics.callsInFlight() === 0, config.shutdownTimeoutMs);
      if (!drained) log.warn('shutdown timeout reached: abandoning in-flight calls', { in_flight: inFlight.size, calls_in_flight: runtime.metrics.callsInFlight() });
      await sse.closeAll();
      server.closeAllConnections();
      log.info('stopped');
    })());

  return { url, address, shutdown };
}

/** `{ [key]: value }`, or nothing when the value is absent (optional properties take no undefined). */
function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new Error(`cannot listen on ${host}:${port}: ${err.code ?? err.message}`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Resolves true once `done()` holds, or false when `timeoutMs` runs out first. */
async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  // Polling keeps the bookkeeping simple; 20 ms is nothing next to a shutdown.
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
