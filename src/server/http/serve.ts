/**
 * MCP over HTTP with node:http: the routes (mcp-endpoints.ts, probes.ts), the checks before them
 * (checks.ts), the request loop that turns a refusal into its answer, and listening and draining
 * (drain.ts). Slow clients are cut off by the timeouts of connections.ts (408); the SDK's handler
 * checks the protocol itself (versions, headers against the body, methods of each era).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpConfig } from '../../config.js';
import { serverFactory, type ServerHost } from '../factory.js';
import { bearerChecker } from './auth.js';
import { asCaller } from '../caller.js';
import { admit } from './checks.js';
import { limitConnections, serverTimeouts } from './connections.js';
import { drainer, listen } from './drain.js';
import { HttpError, sendError, sendJson, sendJsonText } from './io.js';
import { JsonRpcBodyError } from '../jsonrpc-body.js';
import { mcpRoutes } from './mcp-endpoints.js';
import { metadataRoutes, ResourceServer } from './oauth.js';
import { probeRoutes } from './probes.js';
import { MCP_PATHS, type Route } from './routes.js';
import { SseSessions } from './sse.js';

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

/**
 * A refusal of the HTTP layer on an MCP path, as a JSON-RPC error (code -32001, in the range
 * JSON-RPC leaves to servers): its message starts with this server's code, which `data` repeats.
 */
function jsonRpcRefusal(err: HttpError): { jsonrpc: '2.0'; id: null; error: { code: number; message: string; data: { code: string; retry_after_ms?: number } } } {
  const retryAfter = err.headers?.['retry-after'];
  const data = { code: err.code, ...(retryAfter === undefined ? {} : { retry_after_ms: Number(retryAfter) * 1000 }) };
  return { jsonrpc: '2.0', id: null, error: { code: -32001, message: `${err.code}: ${err.message}`, data } };
}

export async function serveHttp(config: HttpConfig, runtime: ServerHost): Promise<HttpServer> {
  const { log, fleet } = runtime;
  const started = Date.now();
  const factory = serverFactory(runtime);
  const sse = new SseSessions(factory, log, '/messages', config.maxSseSessions, runtime.metrics);
  /** Responses not finished yet, SSE streams left out: what shutdown waits for. */
  const inFlight = new Set<ServerResponse>();
  let nextId = 0;

  const server: Server = createServer(serverTimeouts(config), (req, res) => void onRequest(req, res));
  const connections = limitConnections(server, config, log, runtime.metrics);
  const { draining, shutdown } = drainer(server, inFlight, sse, runtime.metrics, config, log);
  const routes = new Map<string, Route>([...(await probeRoutes(runtime, started, draining)), ...mcpRoutes(runtime, factory, sse, config, log)]);
  let resourceServer: ResourceServer | undefined;
  const checks = {
    config,
    checkToken: config.authToken === undefined ? undefined : bearerChecker(config.authToken),
    get resourceServer() {
      return resourceServer;
    },
    refused: (reason: string) => runtime.metrics.authRefused(reason),
    draining,
  };

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = ++nextId;
    const t0 = Date.now();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const isStream = req.method === 'GET' && url.pathname === '/sse';
    if (!isStream) {
      inFlight.add(res);
      res.on('close', () => inFlight.delete(res));
    }
    if (draining()) res.setHeader('connection', 'close');
    res.on('close', () => {
      const fields = { id, method: req.method, path: url.pathname, status: res.statusCode, ms: Date.now() - t0 };
      if (res.statusCode === 401 || res.statusCode === 403) log.info('http request refused', fields);
      else log.debug('http request', fields);
    });
    try {
      // The connection cap first (503), then the checks of checks.ts.
      connections.arrived(req, res, routes.get(url.pathname)?.mcp ?? true);
      const admitted = await admit(req, res, url.pathname, routes, checks);
      // The handler runs as its caller: every tool call it carries sees the caller's repositories.
      if (admitted) await asCaller(admitted.caller, () => admitted.route.handler(req, res, url));
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
        sendJsonText(res, 400, err.toText());
        return;
      }
      log.error('http handler failed', { id, path: url.pathname, error: err instanceof Error ? err.message : String(err) });
      sendError(res, new HttpError(500, 'INTERNAL', 'internal error; see the server log'));
    }
  }

  await listen(server, config.host, config.port);
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  if (config.oauth) {
    // Known once bound: without --public-url, the server is named by its bound address.
    resourceServer = new ResourceServer(config.oauth, config.publicUrl ?? url, log);
    for (const [path, route] of metadataRoutes(resourceServer)) routes.set(path, route);
  }
  for (const warning of config.warnings ?? []) log.warn(warning);
  log.info('serving MCP over HTTP', {
    url,
    host: address.address,
    port: address.port,
    streamable_http: `${url}/mcp`,
    sse: `${url}/sse`,
    auth: resourceServer ? 'oauth' : checks.checkToken ? 'bearer' : 'none',
    ...(resourceServer ? { oauth_issuers: resourceServer.issuers, oauth_resource: resourceServer.resource, oauth_metadata: resourceServer.metadataUrl } : {}),
    allowed_hosts: config.allowedHosts.map((h) => h.text),
    max_connections: config.maxConnections,
    max_unfinished: config.maxUnfinished,
    max_unfinished_per_peer: config.maxUnfinishedPerPeer,
    zoekt: fleet.url,
  });
  return { url, address, shutdown };
}
