/**
 * The checks every request passes before its handler, in order. The connection cap (503) comes
 * first, in the request loop; then here: path (404), Host on the MCP paths and /metrics (403),
 * Origin (403), a CORS preflight (answered), method (405), bearer token on the MCP paths and
 * /metrics (401: the static token, or an OAuth access token, 403 when it lacks the scope),
 * shutdown on the MCP paths (503). A check refuses by throwing an HttpError.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpConfig } from '../../config.js';
import type { Caller } from '../caller.js';
import type { AuthOutcome } from './auth.js';
import { hostAllowed } from './hosts.js';
import { HttpError } from './io.js';
import { originAllowed } from './origins.js';
import type { Refusal, ResourceServer } from './oauth.js';
import type { Route } from './routes.js';

const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID';
const CORS_EXPOSE_HEADERS = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate';

export interface CheckContext {
  config: Pick<HttpConfig, 'allowedHosts' | 'allowedOrigins' | 'oauth'>;
  checkToken: ((req: IncomingMessage) => AuthOutcome) | undefined;
  /** Resource-server mode: OAuth access tokens instead of the static token. */
  resourceServer?: ResourceServer | undefined;
  /** Told of every refusal of a token, by reason (/metrics). */
  refused?: (reason: Refusal | 'wrong_token') => void;
  draining: () => boolean;
}

interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  route: Route;
  /** Who the request is for, once a signed-in token said. */
  caller?: Caller;
}

/** Refuses by throwing; returns 'answered' when it has answered the request itself. */
type Check = (r: Request, ctx: CheckContext) => 'answered' | undefined | Promise<undefined>;

const guarded = (route: Route) => route.mcp || route.token === true;

const host: Check = ({ req, route }, { config }) => {
  // Probes answer any Host: an orchestrator asks by the pod's address, and they show no index
  // content. /metrics names backends and tools, so it is checked like the MCP endpoints.
  if (guarded(route) && !hostAllowed(req.headers.host, config.allowedHosts)) {
    const what = req.headers.host === undefined ? 'a request without a Host header' : `Host ${JSON.stringify(req.headers.host.slice(0, 100))}`;
    throw new HttpError(403, 'HOST_NOT_ALLOWED', `${what} is not allowed here; add the name clients use to --allowed-hosts (ZOEKT_MCP_ALLOWED_HOSTS) if it should be`);
  }
  return undefined;
};

const origin: Check = ({ req, res }, { config }) => {
  res.setHeader('vary', 'Origin');
  const from = req.headers.origin;
  if (from === undefined) return undefined;
  if (!originAllowed(from, config.allowedOrigins)) {
    throw new HttpError(403, 'ORIGIN_NOT_ALLOWED', `origin ${from} is not allowed; add it to --allowed-origins (ZOEKT_MCP_ALLOWED_ORIGINS) if it should be`);
  }
  res.setHeader('access-control-allow-origin', from);
  res.setHeader('access-control-expose-headers', CORS_EXPOSE_HEADERS);
  return undefined;
};

const allowOf = (route: Route) => [...route.methods, 'OPTIONS'].join(', ');

const preflight: Check = ({ req, res, route }) => {
  if (req.method !== 'OPTIONS') return undefined;
  // A browser's CORS preflight carries no credentials, so it is answered before the token check.
  const allow = allowOf(route);
  res.writeHead(204, { allow, 'access-control-allow-methods': allow, 'access-control-allow-headers': CORS_ALLOW_HEADERS, 'access-control-max-age': '600' });
  res.end();
  return 'answered';
};

const method: Check = ({ req, path, route }) => {
  if (route.methods.includes(req.method ?? '')) return undefined;
  const why = path === '/mcp' ? ' (this server is stateless: no standalone stream, no session to delete)' : '';
  throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; use ${route.methods.join(' or ')}${why}`, { allow: allowOf(route) });
};

const token: Check = (r, ctx) => {
  const { req, route } = r;
  if (!guarded(route)) return undefined;
  if (ctx.resourceServer) return accessToken(r, ctx.resourceServer, ctx);
  // Resource-server mode whose check is not built yet (it is, once the server is bound): never open.
  if (ctx.config.oauth) throw new HttpError(503, 'AUTH_UNAVAILABLE', 'the server is starting; retry shortly', { 'retry-after': '1' });
  if (!ctx.checkToken) return undefined;
  const auth = ctx.checkToken(req);
  if (auth.ok) return undefined;
  if (auth.reason === 'missing') ctx.refused?.('no_token');
  else ctx.refused?.('wrong_token');
  const challenge = auth.reason === 'missing' ? 'Bearer realm="zoekt-mcp"' : 'Bearer realm="zoekt-mcp", error="invalid_token", error_description="not the token this server was given"';
  const message =
    auth.reason === 'missing'
      ? 'this server needs the header Authorization: Bearer <token>, with the token it was given (--auth-token, ZOEKT_MCP_AUTH_TOKEN); set it in the client\'s server entry (docs/http.md)'
      : 'the bearer token is not the one this server was given (--auth-token, ZOEKT_MCP_AUTH_TOKEN); check the Authorization header the client sends';
  throw new HttpError(401, 'UNAUTHORIZED', message, { 'www-authenticate': challenge });
};

/** An OAuth access token: 401 with the challenge that leads to the metadata, 403 for a missing scope. */
async function accessToken(r: Request, rs: ResourceServer, ctx: CheckContext): Promise<undefined> {
  const outcome = await rs.check(r.req);
  if (outcome.ok) {
    r.caller = outcome.caller;
    return undefined;
  }
  ctx.refused?.(outcome.reason);
  if (outcome.reason === 'issuer_unreachable') throw new HttpError(503, 'AUTH_UNAVAILABLE', `${outcome.message}; retry shortly`, { 'retry-after': '5' });
  const scope = outcome.reason === 'insufficient_scope';
  throw new HttpError(scope ? 403 : 401, scope ? 'INSUFFICIENT_SCOPE' : 'UNAUTHORIZED', outcome.message, { 'www-authenticate': rs.challenge(outcome.reason, r.path) });
}

const shuttingDown: Check = ({ route }, { draining }) => {
  if (draining() && route.mcp) throw new HttpError(503, 'SHUTTING_DOWN', 'the server is shutting down; retry on another replica', { connection: 'close', 'retry-after': '1' });
  return undefined;
};

/** The ladder, in the order a request meets it. */
export const CHECKS: readonly Check[] = [host, origin, preflight, method, token, shuttingDown];

/** The route of a path (404 for none) and its caller; throws the first refusal; undefined when a check answered. */
export async function admit(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  routes: ReadonlyMap<string, Route>,
  ctx: CheckContext,
): Promise<{ route: Route; caller: Caller | undefined } | undefined> {
  const route = routes.get(path);
  if (!route && path.startsWith('/.well-known/oauth')) {
    // A client that took the 401's Bearer challenge for OAuth looks for metadata first.
    if (ctx.resourceServer) throw new HttpError(404, 'NOT_FOUND', `${path}: no such metadata here; this server's is at ${ctx.resourceServer.metadataUrl}`);
    throw new HttpError(404, 'NOT_FOUND', `${path}: this server does not use OAuth; it takes one static bearer token: configure the client to send Authorization: Bearer <token>, the token the server was given (--auth-token, ZOEKT_MCP_AUTH_TOKEN)`);
  }
  if (!route) throw new HttpError(404, 'NOT_FOUND', `no such path: ${path} (MCP is at /mcp, legacy SSE at /sse; probes at /healthz and /readyz, metrics at /metrics)`);
  const r: Request = { req, res, path, route };
  for (const check of CHECKS) {
    // Only the token check of resource-server mode waits (for the issuer's keys, once).
    let said = check(r, ctx);
    if (said instanceof Promise) said = await said;
    if (said === 'answered') return undefined;
  }
  return { route, caller: r.caller };
}
