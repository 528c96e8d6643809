/**
 * Slow and surplus clients: node:http's own timeouts for the request head, the whole request and
 * idle kept-alive connections, a cap on open connections, and JSON answers where node would send
 * a bare status line. A connection that never finishes its request would otherwise hold a socket
 * (and, with a body, a buffer) for as long as the client likes, and no token is needed for that:
 * the token is only read once the head has arrived.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpConfig } from '../config.js';
import type { Logger } from '../log.js';
import { HttpError } from './http-io.js';

/**
 * Connections past the cap are still accepted, up to this many more, so that they get a readable
 * 503 instead of a reset; past that the kernel's accept is answered by closing at once.
 */
const REFUSAL_HEADROOM = 64;

type Limits = Pick<HttpConfig, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections'>;

/** The options node:http takes at creation for these limits. */
export function serverTimeouts(limits: Limits): { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number } {
  // The configuration keeps headersTimeoutMs within requestTimeoutMs.
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // node checks the two timeouts on this interval (30 s by default), so a timeout is kept to
    // within a quarter of itself rather than to within 30 s.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/**
 * Counts the open connections of `server` and marks the ones past the cap. Returns the check the
 * request handler makes first: a request on a marked connection is refused with 503.
 */
export function limitConnections(server: Server, limits: Limits, log: Logger): { refuseIfOver(res: ServerResponse, socket: Socket, mcp: boolean): void } {
  const over = new WeakSet<Socket>();
  /** The answer being written on each connection, so a late timeout never writes over it. */
  const answering = new WeakMap<Socket, ServerResponse>();
  let open = 0;
  let refusedSinceLog = 0;
  server.maxConnections = limits.maxConnections + REFUSAL_HEADROOM;
  server.on('connection', (socket: Socket) => {
    open += 1;
    socket.once('close', () => {
      open -= 1;
    });
    if (open > limits.maxConnections) {
      over.add(socket);
      // One line per burst, not one per connection.
      if (refusedSinceLog++ === 0) log.warn('connection cap reached: refusing new connections with 503', { max_connections: limits.maxConnections });
    } else refusedSinceLog = 0;
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const res = answering.get(socket);
    if (socket.writable && !res?.headersSent) {
      const [status, reason, code, message] =
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'REQUEST_TIMEOUT', `the request did not arrive in time (headers within ${limits.headersTimeoutMs} ms, all of it within ${limits.requestTimeoutMs} ms)`]
          : err.code === 'HPE_HEADER_OVERFLOW'
            ? [431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'the request headers are too large']
            : [400, 'Bad Request', 'BAD_REQUEST', 'the request is not valid HTTP/1.1'];
      const body = `${JSON.stringify({ error: { code, message } })}\n`;
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
          `cache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroySoon();
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') log.debug('slow request closed', { remote: socket.remoteAddress });
  });
  return {
    refuseIfOver(res, socket, mcp) {
      answering.set(socket, res);
      // Probes are answered whatever the load: an orchestrator that sees a live process fail its
      // liveness probe restarts it, which sheds every call in flight.
      if (!mcp || !over.has(socket)) return;
      throw new HttpError(503, 'TOO_MANY_CONNECTIONS', `this server has ${limits.maxConnections} connections open already; retry shortly or on another replica`, {
        connection: 'close',
        'retry-after': '1',
      });
    },
  };
}
