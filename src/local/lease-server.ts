/**
 * The supervisor's side of the leases: its unix socket, one connection per client. A client's
 * first line says which protocol it speaks and what it wants indexed (a Hello); later lines ask
 * for a check now. The supervisor lives while one lease is held.
 *
 * Only one process binds the socket of a data folder: on Linux an abstract socket, which the
 * kernel releases when the process dies (a crash never leaves a stale lock behind); elsewhere a
 * socket file, taken over when nothing answers on it.
 */
import { rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { PROTOCOL, type Hello } from './status.js';

export interface LeaseClient {
  /** Unique for the supervisor's life. */
  id: string;
  /** Without a list: an observer (a status reader), shown every repository the index keeps. */
  hello: Hello;
}

export interface LeaseEvents {
  /** A client said what it wants: answer it with a status. */
  joined(c: LeaseClient): void;
  left(c: LeaseClient | undefined): void;
  /** A client asks for a check now (a set-up, or a search that found a repository stale). */
  poked(c: LeaseClient): void;
  say(msg: string): void;
}

/** Lines a client may send before its Hello is read: enough for any list, and no more. */
const MAX_LINE = 1024 * 1024;

export class LeaseServer {
  private readonly sockets = new Map<Socket, LeaseClient | undefined>();
  private server?: Server;
  private next = 0;
  private closing = false;

  constructor(
    private readonly path: string,
    private readonly events: LeaseEvents,
  ) {}

  /** Binds the socket; false when another supervisor already serves this data folder. */
  async claim(): Promise<boolean> {
    const server = createServer((socket) => this.accept(socket));
    const bound = await new Promise<boolean>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)));
      server.listen(this.path, () => resolve(true));
    });
    if (bound) this.server = server;
    else if (!this.path.startsWith('\0') && !(await answersSocket(this.path))) {
      // A socket file left by a supervisor that died: take it over.
      rmSync(this.path, { force: true });
      return this.claim();
    }
    return bound;
  }

  /** Connections, with or without their Hello yet. */
  get size(): number {
    return this.sockets.size;
  }

  clients(): LeaseClient[] {
    return [...this.sockets.values()].filter((c): c is LeaseClient => c !== undefined);
  }

  /** Sends each client its own status line. */
  /** Sends each client its status; none to a client whose status is undefined (not due yet). */
  send(statusOf: (c: LeaseClient) => unknown): void {
    for (const [socket, c] of this.sockets) {
      if (!c || socket.destroyed) continue;
      const status = statusOf(c);
      if (status !== undefined) socket.write(`${JSON.stringify(status)}\n`);
    }
  }

  sendTo(id: string, status: unknown): void {
    for (const [socket, c] of this.sockets) if (c?.id === id && !socket.destroyed) socket.write(`${JSON.stringify(status)}\n`);
  }

  /** Refuses new leases and ends the held ones; the socket stays bound until `release`. */
  closeAll(): void {
    this.closing = true;
    for (const s of this.sockets.keys()) s.destroy();
  }

  release(): void {
    this.server?.close();
  }

  private accept(socket: Socket): void {
    if (this.closing) return void socket.destroy();
    this.sockets.set(socket, undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const c = this.sockets.get(socket);
      this.sockets.delete(socket);
      this.events.left(c);
    });
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        this.line(socket, line);
      }
      if (buf.length > MAX_LINE) socket.destroy();
    });
  }

  private line(socket: Socket, line: string): void {
    const c = this.sockets.get(socket);
    if (c) return this.events.poked(c);
    let hello: Partial<Hello> | undefined;
    try {
      hello = JSON.parse(line) as Partial<Hello>;
    } catch {
      hello = undefined;
    }
    if (!hello || typeof hello !== 'object' || hello.protocol !== PROTOCOL || (hello.list !== undefined && typeof hello.list?.base !== 'string')) {
      // An older (or newer) client: it cannot read this supervisor's statuses. Say so in the one
      // form every version reads (a protocol number), and let it replace or avoid this supervisor.
      this.events.say(`a client speaking protocol ${JSON.stringify(hello?.protocol ?? 1)} connected; this supervisor speaks ${PROTOCOL}`);
      socket.end(`${JSON.stringify({ protocol: PROTOCOL, pid: process.pid })}\n`);
      return;
    }
    const client: LeaseClient = { id: `c${++this.next}`, hello: hello as Hello };
    this.sockets.set(socket, client);
    this.events.joined(client);
  }
}

export function answersSocket(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
