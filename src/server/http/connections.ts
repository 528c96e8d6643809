/**
 * Connections by what they cost. A connection that has not finished sending a request
 * ("unfinished": no complete head, or a body still arriving) costs an attacker nothing and needs
 * no token, so it gets its own budget, apart from the connections serving a request or streaming
 * ("active") and the kept-alive ones between requests ("idle"):
 *
 * - node:http's own `headersTimeout` / `requestTimeout` bound the time one request may take to
 *   arrive (408), as nginx's `client_header_timeout` / `client_body_timeout` do.
 * - `--max-unfinished` and `--max-unfinished-per-peer` bound how many there are, as nginx's
 *   `limit_conn` does per address, but the way Envoy's overload manager sheds: past a budget the
 *   oldest unfinished connection is closed to make room, never the newcomer refused. A connection
 *   is only closed that way once it has had UNFINISHED_GRACE_MS to send its request, so a burst
 *   of new connections cannot push out a client that sends its request at once. A peer whose MCP
 *   requests are being answered (a burst of clients from one address, slow to send because the
 *   machine is busy) may hold more than its budget, by PROGRESS_ALLOWANCE per request answered in
 *   the last UNFINISHED_GRACE_MS and at most PROGRESS_FACTOR times its budget: progress widens
 *   the budget with its pace, and never lifts it (a probe or a ping a second would otherwise let
 *   one address fill the global budget, which then closes other addresses' connections).
 * - `--max-connections` bounds open sockets (file descriptors): past it the oldest idle
 *   connection is closed, then the oldest unfinished one past its grace; only when there is
 *   neither (every connection active, or just opened) is the newcomer answered 503 with Retry-After.
 *
 * - `--write-budget-mb` bounds what a connection holds for a client that does not read its
 *   answers: bytes written but not yet taken by the kernel (the socket's `writableLength`, which
 *   grows with every answer the client leaves unread). Past the budget a connection whose client
 *   has taken nothing for WRITE_STALL_MS is closed, and what it held is freed; a client that
 *   reads, however slowly, keeps its connection.
 *
 * Probes are always answered: an orchestrator that sees a live process fail its liveness probe
 * restarts it, which sheds every call in flight.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import type { ConnectionState, Metrics } from '../../metrics.js';
import { HttpError } from './io.js';

/**
 * Connections past the cap are still accepted, up to this many more, so that they get a readable
 * 503 instead of a reset; past that the kernel's accept is answered by closing at once.
 */
const REFUSAL_HEADROOM = 64;
/**
 * How long a new connection may take to send its request before another may push it out. A
 * client sends its request as soon as it connects (milliseconds); an attacker's connections reach
 * this age and are closed, oldest first, at the rate newcomers arrive.
 */
export const UNFINISHED_GRACE_MS = 1_000;
/**
 * Unfinished connections a peer may hold beyond its budget for each of its MCP requests answered
 * (not refused: status below 400) in the last UNFINISHED_GRACE_MS. Each client of a burst sends a
 * few requests (initialize, its notification, a call), each answered in milliseconds, so a burst
 * that makes progress at all has a pace that covers its waiting connections; a peer holding
 * connections open beside a request now and then has one that covers a few.
 */
export const PROGRESS_ALLOWANCE = 4;
/** The most a peer's progress lifts its budget to, as a multiple of it (with the default 64, the global 256). */
export const PROGRESS_FACTOR = 4;
/** Seconds a refused client is told to wait (Retry-After). */
export const RETRY_AFTER_S = 1;
/**
 * How long a connection past its write budget may take nothing before it is closed. A client
 * that reads takes some bytes as soon as the kernel has room: this is not how fast it must read,
 * only that it reads at all.
 */
export const WRITE_STALL_MS = 2_000;
/** How often the write budgets are checked. */
const WRITE_CHECK_MS = 500;

type Limits = Pick<HttpConfig, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections' | 'maxUnfinished' | 'maxUnfinishedPerPeer' | 'writeBudgetMb'>;

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

interface Conn {
  socket: Socket;
  peer: string;
  state: ConnectionState;
  /** When it entered its state. */
  since: number;
  /** The request being received or answered. */
  req?: IncomingMessage;
  /** The answer being written, so a late close never writes over it. */
  res?: ServerResponse;
  /** Accepted past the cap with no connection to close instead: its requests get 503. */
  over: boolean;
  /** Since when it holds more than its write budget, and the bytes its client had taken then. */
  overBudget?: { since: number; taken: number };
  /** Answers not yet handed to the socket: those of requests sent one after another without waiting (pipelined) wait their turn. */
  pending: Set<ServerResponse>;
}

/**
 * What a connection holds for its client: bytes its socket has not handed to the kernel, and the
 * answers queued behind the one being written (a response's writableLength counts its socket's
 * buffer once it has the socket, its own queued bytes before).
 */
function heldBy(c: Conn): number {
  let held = c.socket.writableLength;
  for (const res of c.pending) if (res.socket !== c.socket) held += res.writableLength;
  return held;
}

/** Why a connection was closed or a request refused by this layer: the label of the refusal metric. */
export type ShedReason =
  | 'unfinished_budget'
  | 'unfinished_per_peer'
  | 'connection_cap_idle'
  | 'connection_cap_unfinished'
  | 'too_many_connections'
  | 'request_timeout'
  | 'bad_request'
  | 'write_budget';

export interface ConnectionLimiter {
  /** Called first for every request: notes it, and throws 503 on a connection accepted past the cap. */
  arrived(req: IncomingMessage, res: ServerResponse, mcp: boolean): void;
}

/** A JSON answer written straight to the socket, for a connection whose request never finished. */
function writeAndClose(socket: Socket, status: number, reason: string, code: string, message: string, extra = ''): void {
  if (socket.writable) {
    const body = `${JSON.stringify({ error: { code, message } })}\n`;
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `cache-control: no-store\r\nconnection: close\r\n${extra}\r\n${body}`,
    );
  }
  socket.destroySoon();
}

export function limitConnections(server: Server, limits: Limits, log: Logger, metrics: Metrics): ConnectionLimiter {
  const conns = new Map<Socket, Conn>();
  // Each in the order its connections entered the state: the first is the oldest.
  const inState: Record<ConnectionState, Map<Socket, Conn>> = { unfinished: new Map(), active: new Map(), idle: new Map() };
  const unfinishedOf = new Map<string, Map<Socket, Conn>>();
  /**
   * How many MCP requests of each peer were answered in the last UNFINISHED_GRACE_MS, kept the
   * way sliding-window rate limiters keep it (the count of this window, and of the one before,
   * weighed by how much of it is still within the last UNFINISHED_GRACE_MS): constant work per
   * request and per peer, however many requests.
   */
  const paceOf = new Map<string, { start: number; count: number; before: number }>();
  const paceAt = (peer: string, now: number) => {
    const pace = paceOf.get(peer);
    if (!pace) return undefined;
    const windows = Math.floor((now - pace.start) / UNFINISHED_GRACE_MS);
    if (windows > 0) {
      pace.before = windows === 1 ? pace.count : 0;
      pace.count = 0;
      pace.start += windows * UNFINISHED_GRACE_MS;
    }
    return pace;
  };
  const recentlyAnswered = (peer: string, now: number) => {
    const pace = paceAt(peer, now);
    return pace ? pace.count + pace.before * (1 - (now - pace.start) / UNFINISHED_GRACE_MS) : 0;
  };
  const answered = (peer: string) => {
    const now = Date.now();
    const pace = paceAt(peer, now);
    if (pace) pace.count++;
    else paceOf.set(peer, { start: now, count: 1, before: 0 });
  };
  /** How many unfinished connections `peer` may hold before the oldest is closed for its budget. */
  const peerBudget = (peer: string, now: number) =>
    Math.min(limits.maxUnfinishedPerPeer + Math.floor(PROGRESS_ALLOWANCE * recentlyAnswered(peer, now)), PROGRESS_FACTOR * limits.maxUnfinishedPerPeer);
  const warned = new Set<ShedReason>();

  /** Takes `c` out of the tables of its state (a peer with no unfinished connection left is dropped). */
  const leave = (c: Conn) => {
    inState[c.state].delete(c.socket);
    const of = unfinishedOf.get(c.peer);
    of?.delete(c.socket);
    if (of?.size === 0) unfinishedOf.delete(c.peer);
  };
  const move = (c: Conn, state: ConnectionState) => {
    leave(c);
    c.state = state;
    c.since = Date.now();
    inState[state].set(c.socket, c);
    if (state === 'unfinished') {
      let of = unfinishedOf.get(c.peer);
      if (!of) unfinishedOf.set(c.peer, (of = new Map()));
      of.set(c.socket, c);
    }
  };
  const forget = (c: Conn) => {
    leave(c);
    conns.delete(c.socket);
  };
  /** A request node has read whole counts as active, whether or not the handler read its body. */
  const settle = (c: Conn) => {
    if (c.state === 'unfinished' && c.req?.complete) move(c, 'active');
  };
  const shed = (reason: ShedReason, fields: Record<string, unknown>) => {
    metrics.connectionShed(reason);
    // One warning per reason for the life of the process; the metric counts every one.
    if (!warned.has(reason)) {
      warned.add(reason);
      log.warn('connection shed', { reason, ...fields });
    } else log.debug('connection shed', { reason, ...fields });
  };
  /** The oldest unfinished connection of `of` that has had its grace, if any. */
  const oldestUnfinished = (of: Map<Socket, Conn> | undefined, now: number, grace: number): Conn | undefined => {
    for (const c of of?.values() ?? []) {
      settle(c);
      if (c.state !== 'unfinished') continue;
      // Ordered by age: the first one too young means all after it are too.
      return now - c.since >= grace ? c : undefined;
    }
    return undefined;
  };
  const closeUnfinished = (c: Conn, reason: ShedReason, why: string) => {
    forget(c);
    shed(reason, { peer: c.peer, age_ms: Date.now() - c.since });
    if (c.res?.headersSent) c.socket.destroy();
    else writeAndClose(c.socket, 503, 'Service Unavailable', 'UNFINISHED_REQUEST', why, `retry-after: ${RETRY_AFTER_S}\r\n`);
  };

  server.maxConnections = limits.maxConnections + REFUSAL_HEADROOM;
  server.on('connection', (socket: Socket) => {
    const now = Date.now();
    const c: Conn = { socket, peer: socket.remoteAddress ?? 'unknown', state: 'unfinished', since: now, over: false, pending: new Set() };
    conns.set(socket, c);
    move(c, 'unfinished');
    socket.once('close', () => {
      forget(c);
      // An answer queued behind one its client never took (it sent its requests one after
      // another) never gets the socket, and node gives it no 'close' when the socket goes: its
      // call would run on for nobody, and whoever waits for its end (the shutdown's count of
      // responses in flight, which holds the answer) would hold it for good. It ends here, as
      // the one being written does.
      for (const res of c.pending) {
        if (res.socket) continue;
        res.destroy();
        res.emit('close');
      }
    });

    const peer = unfinishedOf.get(c.peer)!;
    // A peer whose MCP requests are being answered is many clients starting at once on a busy
    // machine (each sends its request when it gets to it): its budget widens with that pace, up
    // to a bound, so that connections held open beside a request now and then are still closed.
    const budget = peerBudget(c.peer, now);
    if (peer.size > budget) {
      const victim = oldestUnfinished(peer, now, UNFINISHED_GRACE_MS);
      if (victim) closeUnfinished(victim, 'unfinished_per_peer', `this connection had not sent a whole request after ${now - victim.since} ms while its address held ${budget} such connections (--max-unfinished-per-peer ${limits.maxUnfinishedPerPeer}, more while its requests are answered); send the request as soon as the connection opens`);
    }
    if (inState.unfinished.size > limits.maxUnfinished) {
      const victim = oldestUnfinished(inState.unfinished, now, UNFINISHED_GRACE_MS);
      if (victim) closeUnfinished(victim, 'unfinished_budget', `this connection had not sent a whole request after ${now - victim.since} ms while the server held ${limits.maxUnfinished} such connections (--max-unfinished); send the request as soon as the connection opens`);
    }
    if (conns.size > limits.maxConnections) {
      const idle = inState.idle.values().next().value;
      if (idle) {
        forget(idle);
        shed('connection_cap_idle', { peer: idle.peer, idle_ms: now - idle.since });
        idle.socket.destroy();
        return;
      }
      const unfinished = oldestUnfinished(inState.unfinished, now, UNFINISHED_GRACE_MS);
      if (unfinished) {
        closeUnfinished(unfinished, 'connection_cap_unfinished', `the server holds ${limits.maxConnections} connections (--max-connections) and this one had not sent a whole request; send the request as soon as the connection opens`);
        return;
      }
      c.over = true;
    }
  });

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const c = conns.get(socket);
    if (c) forget(c);
    // The client left (a reset, often of a stream it was reading): nothing was refused, nothing to answer.
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
      socket.destroy();
      return;
    }
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    shed(timedOut ? 'request_timeout' : 'bad_request', { peer: socket.remoteAddress, error: err.code });
    if (c?.res?.headersSent) {
      socket.destroy();
      return;
    }
    if (timedOut) {
      writeAndClose(socket, 408, 'Request Timeout', 'REQUEST_TIMEOUT', `the request did not arrive in time (headers within ${limits.headersTimeoutMs} ms, all of it within ${limits.requestTimeoutMs} ms)`);
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      writeAndClose(socket, 431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'the request headers are too large');
    } else {
      writeAndClose(socket, 400, 'Bad Request', 'BAD_REQUEST', 'the request is not valid HTTP/1.1');
    }
  });

  /** Closes each connection past its write budget whose client has taken nothing for WRITE_STALL_MS. */
  const budget = limits.writeBudgetMb * 1024 * 1024;
  const checkWrites = () => {
    const now = Date.now();
    // The same sweep forgets the peers with no request answered within the grace.
    for (const peer of [...paceOf.keys()]) if (recentlyAnswered(peer, now) === 0) paceOf.delete(peer);
    for (const c of [...conns.values()]) {
      const held = heldBy(c);
      if (held <= budget) {
        c.overBudget = undefined;
        continue;
      }
      // bytesWritten counts what the socket still buffers too: the rest went to the kernel.
      const taken = c.socket.bytesWritten - c.socket.writableLength;
      if (!c.overBudget || taken > c.overBudget.taken) {
        c.overBudget = { since: now, taken };
        continue;
      }
      if (now - c.overBudget.since < WRITE_STALL_MS) continue;
      forget(c);
      shed('write_budget', { peer: c.peer, held_bytes: held, stalled_ms: now - c.overBudget.since });
      c.socket.destroy();
    }
  };
  const writes = setInterval(checkWrites, WRITE_CHECK_MS).unref();
  server.once('close', () => clearInterval(writes));

  metrics.watchUnsent(() => {
    let held = 0;
    for (const c of conns.values()) held += heldBy(c);
    return held;
  });
  metrics.watchConnections(() => {
    for (const c of [...inState.unfinished.values()]) settle(c);
    return { unfinished: inState.unfinished.size, active: inState.active.size, idle: inState.idle.size };
  });

  return {
    arrived(req, res, mcp) {
      const c = conns.get(req.socket);
      if (c) {
        c.req = req;
        c.res = res;
        c.pending.add(res);
        const done = () => c.pending.delete(res);
        res.once('finish', done);
        res.once('close', done);
        // Progress of MCP clients: an MCP request answered, not refused. A probe is no client's
        // progress, and costs nothing to repeat.
        if (mcp) res.once('finish', () => res.statusCode < 400 && answered(c.peer));
        // A kept-alive connection starting its next request: unfinished again until it has arrived.
        if (c.state !== 'unfinished') move(c, 'unfinished');
        // node marks a request without a body complete only after this event: it has arrived whole.
        const bodyless = req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] ?? '0') === '0';
        if (bodyless) move(c, 'active');
        else settle(c);
        req.once('end', () => settle(c));
        res.once('close', () => {
          // Answered before the body arrived (a refusal): still unfinished while the rest trickles in.
          if (conns.get(c.socket) === c && !c.socket.destroyed && req.complete) move(c, 'idle');
        });
      }
      if (!mcp || !c?.over) return;
      metrics.connectionShed('too_many_connections');
      throw new HttpError(503, 'TOO_MANY_CONNECTIONS', `this server has ${limits.maxConnections} connections open, all serving requests or just opened (--max-connections); retry shortly or on another replica`, {
        connection: 'close',
        'retry-after': String(RETRY_AFTER_S),
      });
    },
  };
}
