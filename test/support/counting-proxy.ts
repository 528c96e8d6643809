/**
 * A proxy on loopback in front of a real zoekt-webserver that notes the query of each search it
 * passes on: what a tool call asked Zoekt, counted.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  url: string;
  /** The `Q` of every /api/search request, in the order they came. */
  searches: string[];
  close: () => Promise<void>;
}

export async function countingProxy(target: string): Promise<CountingProxy> {
  const searches: string[] = [];
  const server: Server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const sent = Buffer.concat(body);
      if (req.url === '/api/search') searches.push((JSON.parse(sent.toString()) as { Q: string }).Q);
      const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(sent);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, searches, close: () => new Promise((r) => server.close(() => r())) };
}

/** The searches of a call, without the first page's look for files the indexer skipped. */
export const pageSearches = (searches: readonly string[]): string[] => searches.filter((q) => !q.includes('NOT-INDEXED'));
