/**
 * /healthz and /readyz, for orchestrators, and /metrics, for Prometheus. /readyz is about Zoekt
 * only: it does not fail under load, which would take every replica out at once.
 */
import { VERSION } from '../../version.js';
import { combineReadiness } from '../../zoekt/fleet.js';
import type { ServerHost } from '../factory.js';
import { sendJson } from './io.js';
import type { Route } from './routes.js';

export async function probeRoutes(runtime: Pick<ServerHost, 'fleet' | 'metrics'>, started: number, draining: () => boolean): Promise<[string, Route][]> {
  const { fleet } = runtime;
  const prometheus = await runtime.metrics.enablePrometheus();
  const healthz: Route = {
    methods: ['GET', 'HEAD'],
    mcp: false,
    handler: async (_req, res) => sendJson(res, 200, { status: 'ok', version: VERSION, uptime_s: Math.round((Date.now() - started) / 1000) }),
  };
  const readyz: Route = {
    methods: ['GET', 'HEAD'],
    mcp: false,
    handler: async (_req, res) => {
      if (draining()) {
        sendJson(res, 503, { status: 'shutting_down', reason: 'the server is shutting down' });
        return;
      }
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const each = await fleet.readinessEach(abort.signal);
      const r = combineReadiness(each);
      const backends = fleet.several
        ? { backends: each.map((e) => ({ url: e.url, ready: e.readiness.ready, latency_ms: e.readiness.latencyMs, ...(e.readiness.ready ? {} : { reason: e.readiness.reason }) })) }
        : {};
      if (r.ready) sendJson(res, 200, { status: 'ready', zoekt: fleet.url, via: r.via, latency_ms: r.latencyMs, ...backends });
      // Some backends answer: this replica still serves, with answers that name what is missing.
      else if (each.some((e) => e.readiness.ready)) sendJson(res, 200, { status: 'degraded', reason: r.reason, zoekt: fleet.url, latency_ms: r.latencyMs, ...backends });
      else sendJson(res, 503, { status: 'unavailable', reason: r.reason, zoekt: fleet.url, via: r.via, latency_ms: r.latencyMs, ...backends });
    },
  };
  const metrics: Route = {
    methods: ['GET'],
    mcp: false,
    token: true,
    handler: async (_req, res) => {
      const text = await prometheus.metrics();
      res.writeHead(200, { 'content-type': prometheus.contentType }).end(text);
    },
  };
  return [
    ['/metrics', metrics],
    ['/healthz', healthz],
    ['/readyz', readyz],
  ];
}
