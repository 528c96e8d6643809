/**
 * The legacy HTTP+SSE transport (deprecated by MCP since 2025-03-26, kept for old remote
 * agents): `GET /sse` opens a stream and names a `POST /messages?sessionId=…` endpoint; answers
 * come back on the stream. A session lives in this process only, so a load balancer has to keep
 * a client on one replica (Streamable HTTP at /mcp has no such need). Each stream is served by a
 * 2025-era Server from the runtime's factory.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import type { Logger } from '../../log.js';
import { currentCaller } from '../caller.js';
import type { Metrics } from '../../metrics.js';
import type { ServerFactory } from '../factory.js';
import { HttpError } from './io.js';
import type { CheckedBody } from '../jsonrpc-body.js';

/** Proxies and load balancers drop idle streams; an SSE comment every so often keeps one open. */
const KEEP_ALIVE_MS = 15_000;

export class SseSessions {
  /** Each session, with who opened it: only that caller may post to it. */
  private readonly sessions = new Map<string, { transport: SSEServerTransport; owner: string | undefined }>();

  constructor(
    private readonly factory: ServerFactory,
    private readonly log: Logger,
    private readonly messagesPath: string,
    private readonly maxSessions: number,
    private readonly metrics: Metrics,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Opens a stream on `res`; it stays open until the client goes or the server shuts down. */
  async open(res: ServerResponse): Promise<string> {
    if (this.sessions.size >= this.maxSessions) {
      this.metrics.connectionShed('too_many_sse_sessions');
      throw new HttpError(503, 'TOO_MANY_SESSIONS', `this server has ${this.maxSessions} SSE sessions open (--max-sse-sessions); retry shortly, or use Streamable HTTP at /mcp, which keeps no session`, { 'retry-after': '1' });
    }
    const transport = new SSEServerTransport(this.messagesPath, res);
    const id = transport.sessionId;
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    // The stream carries the answers to whoever posts to the session: it is bound to its opener.
    this.sessions.set(id, { transport, owner: currentCaller()?.id });
    const server = this.factory({ era: 'legacy' });
    // Set after connect(), which installs the server's own clean-up first.
    await server.connect(transport);
    const serverClose = transport.onclose;
    transport.onclose = () => {
      clearInterval(keepAlive);
      this.sessions.delete(id);
      serverClose?.();
    };
    this.log.debug('sse session opened', { session: id, sessions: this.sessions.size });
    res.on('close', () => this.log.debug('sse session closed', { session: id, sessions: this.sessions.size }));
    return id;
  }

  /** Hands one POSTed message, or each of a batch, to its session; the answers go out on its stream. */
  async post(req: IncomingMessage, res: ServerResponse, sessionId: string | null, body: CheckedBody): Promise<void> {
    if (!sessionId) throw new HttpError(400, 'BAD_REQUEST', 'POST /messages needs the ?sessionId=… that GET /sse announced');
    const session = this.sessions.get(sessionId);
    if (!session) {
      throw new HttpError(404, 'SESSION_NOT_FOUND', `no SSE session ${sessionId} here: it ended, or it lives on another replica (SSE sessions need sticky routing; prefer /mcp)`);
    }
    // Another user's token would run with its own repositories and have the answers go to the
    // opener's stream: refused, whatever the token grants.
    if (session.owner !== currentCaller()?.id) {
      throw new HttpError(403, 'SESSION_FORBIDDEN', 'this SSE session was opened with the access token of another user; open a session of your own with GET /sse');
    }
    const { transport } = session;
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'POST /messages takes Content-Type: application/json');
    }
    for (const message of body.messages) await transport.handleMessage(message);
    res.writeHead(202).end('Accepted');
  }

  /** Ends every stream; clients see the stream close and may reconnect elsewhere. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map(({ transport: t }) => t.close().catch(() => undefined)));
  }
}
