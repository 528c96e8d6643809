import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answers, listenError } from '../../src/local/webserver.js';

const servers: { close(): unknown }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function listening<T extends Server | ReturnType<typeof createNetServer>>(server: T): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the supervisor's question whether Zoekt answers", () => {
  it('is yes for a 2xx from /healthz, and no for another status', async () => {
    const paths: string[] = [];
    const url = await listening(
      createHttpServer((req, res) => {
        paths.push(req.url ?? '');
        res.statusCode = paths.length === 1 ? 200 : 503;
        res.end('{}');
      }),
    );
    expect(await answers(url)).toBe(true);
    expect(await answers(url)).toBe(false);
    expect(paths).toEqual(['/healthz', '/healthz']);
  });

  it('is no where nothing listens, for a port out of range, and after a second of silence', async () => {
    const closed = createNetServer();
    const free = await listening(closed);
    closed.close();
    expect(await answers(free)).toBe(false);
    expect(await answers('http://127.0.0.1:99999')).toBe(false);
    const silent = await listening(createNetServer(() => undefined));
    const started = Date.now();
    expect(await answers(silent)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});

describe('whether Zoekt could serve on a port', () => {
  it('is no while another program listens there, on 127.0.0.1 or on every address, and yes once it is free', async () => {
    for (const host of ['127.0.0.1', '0.0.0.0']) {
      const held = createNetServer();
      servers.push(held);
      await new Promise<void>((resolve) => held.listen(0, host, resolve));
      const port = (held.address() as AddressInfo).port;
      expect(await listenError(port), host).toBe('EADDRINUSE');
      await new Promise((r) => held.close(r));
      expect(await listenError(port), host).toBeUndefined();
    }
  });
});
