/** Listening, and stopping: no new connections, in-flight calls finish within a bound, then the rest is closed. */
import type { Server, ServerResponse } from 'node:http';
import type { HttpConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import type { SseSessions } from './sse.js';

export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new Error(`cannot listen on ${host}:${port}: ${err.code ?? err.message}`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

export interface Draining {
  /** True from the start of a shutdown on. */
  readonly draining: () => boolean;
  /** Stops the server (see HttpServer.shutdown). Safe to call more than once. */
  readonly shutdown: () => Promise<void>;
}

/**
 * The shutdown of `server`: `inFlight` holds the responses not finished yet (SSE streams left
 * out), which it waits for together with the calls of SSE sessions (counted by the metrics).
 */
export function drainer(server: Server, inFlight: ReadonlySet<ServerResponse>, sse: SseSessions, metrics: Pick<Metrics, 'callsInFlight'>, config: Pick<HttpConfig, 'shutdownTimeoutMs'>, log: Logger): Draining {
  let draining = false;
  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      draining = true;
      server.close();
      server.closeIdleConnections();
      // Logged once the listener is closed: from here on a new connection is refused.
      log.info('shutting down: no new connections, waiting for in-flight calls', {
        in_flight: inFlight.size,
        sse_sessions: sse.size,
        calls_in_flight: metrics.callsInFlight(),
        timeout_ms: config.shutdownTimeoutMs,
      });
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      const drained = await until(() => inFlight.size === 0 && metrics.callsInFlight() === 0, config.shutdownTimeoutMs);
      if (!drained) log.warn('shutdown timeout reached: abandoning in-flight calls', { in_flight: inFlight.size, calls_in_flight: metrics.callsInFlight() });
      await sse.closeAll();
      server.closeAllConnections();
      log.info('stopped');
    })());
  return { draining: () => draining, shutdown };
}

/** Resolves true once `done()` holds, or false when `timeoutMs` runs out first. */
async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  // Polling keeps the bookkeeping simple; 20 ms is nothing next to a shutdown.
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
