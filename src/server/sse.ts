/**
 * The legacy HTTP+SSE transport: `GET /sse` opens a stream and names a `POST /messages?sessionId=…`
 * endpoint; answers come back on the stream. A session lives in this process only, so a load
 * balancer has to keep a client on one replica (Streamable HTTP at /mcp has no such need).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { connectServer, type ServerDeps } from './build.js';
import { HttpError } from './http-io.js';
import type { CheckedBody } from './jsonrpc-body.js';

/** Proxies and load balancers drop idle streams; an SSE comment every so often keeps one open. */
const KEEP_ALIVE_MS = 15_000;

/** Counts the requests a session has received and not yet answered, so shutdown can wait for them. */
class TrackedTransport extends SSEServerTransport {
  readonly pending = new Set<RequestId>();

  override async handleMessage(message: unknown, extra?: MessageExtraInfo): Promise<void> {
    if (isJSONRPCRequest(message)) this.pending.add(message.id);
    await super.handleMessage(message, extra);
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    try {
      await super.send(message);
    } finally {
      if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.pending.delete(message.id as RequestId);
    }
  }
}

export class SseSessions {
  private readonly sessions = new Map<string, TrackedTransport>();

  constructor(
    private readonly deps: ServerDeps,
    private readonly messagesPath: string,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Requests received over any session and not answered yet. */
  get pending(): number {
    let n = 0;
    for (const t of this.sessions.values()) n += t.pending.size;
    return n;
  }

  /** Opens a stream on `res`; it stays open until the client goes or the server shuts down. */
  async open(res: ServerResponse): Promise<string> {
    const transport = new TrackedTransport(this.messagesPath, res);
    const id = transport.sessionId;
    let closed = false;
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    // Set before connect(), which chains the server's own clean-up after this one.
    transport.onclose = () => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      this.sessions.delete(id);
    };
    this.sessions.set(id, transport);
    await connectServer(this.deps, transport);
    this.deps.log.debug('sse session opened', { session: id, sessions: this.sessions.size });
    res.on('close', () => this.deps.log.debug('sse session closed', { session: id, sessions: this.sessions.size }));
    return id;
  }

  /** Hands one POSTed message to its session; the answer goes out on that session's stream. */
  async post(req: IncomingMessage, res: ServerResponse, sessionId: string | null, body: CheckedBody): Promise<void> {
    if (!sessionId) throw new HttpError(400, 'BAD_REQUEST', 'POST /messages needs the ?sessionId=… that GET /sse announced');
    const transport = this.sessions.get(sessionId);
    if (!transport) {
      throw new HttpError(404, 'SESSION_NOT_FOUND', `no SSE session ${sessionId} here: it ended, or it lives on another replica (SSE sessions need sticky routing; prefer /mcp)`);
    }
    if (!body.batch) {
      await transport.handlePostMessage(req, res, body.messages[0]);
      return;
    }
    // The SDK's SSE transport takes one message per POST; a batch is handed over one by one, and
    // every answer goes out on the stream as usual.
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'POST /messages takes Content-Type: application/json');
    }
    for (const message of body.messages) await transport.handleMessage(message, { requestInfo: { headers: req.headers } });
    res.writeHead(202).end('Accepted');
  }

  /** Ends every stream; clients see the stream close and may reconnect elsewhere. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((t) => t.close().catch(() => undefined)));
  }
}
