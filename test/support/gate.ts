/**
 * A proxy in front of the real Zoekt that holds every /api/search request until released, to keep
 * a tool call in flight for as long as a test needs: a real Zoekt cannot be made slow on demand
 * (and a frozen one would also freeze the answers the test waits for).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';

export interface Gate {
  url: string;
  /** Resolves when a search request has reached the gate and is being held. */
  arrived: Promise<void>;
  /** Resolves when the adapter gave up on a held request (closed its connection). */
  abandoned: Promise<void>;
  release(): void;
  server: Server;
}

export async function gate(target: string): Promise<Gate> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let arrive!: () => void;
  const arrived = new Promise<void>((r) => (arrive = r));
  let abandon!: () => void;
  const abandoned = new Promise<void>((r) => (abandon = r));
  const server = createServer((req, res) => {
    const forward = () => {
      if (res.destroyed) return;
      const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (req.url !== '/api/search') return forward();
    res.on('close', () => {
      if (!res.writableFinished) abandon();
    });
    arrive();
    void released.then(forward);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return { url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, arrived, abandoned, release, server };
}
