/**
 * Live figures of one server: tool latency per tool and outcome, Zoekt request latency, window
 * cache hits and misses, errors by code, calls in flight. get_health reads the summaries below in
 * every mode; in HTTP mode the same events also feed a Prometheus registry served at /metrics.
 * prom-client is loaded only then, so the stdio server does not pay for it at start. The runtime
 * (src/runtime.ts) makes one and hands it to everything that counts.
 */
import type { Registry } from 'prom-client';
import { importCommonJs } from './cjs.js';

/** Latency percentiles come from each tool's most recent calls. */
const RESERVOIR = 1024;
/** Seconds: from a cached page (sub-millisecond) to a long walk over a large index. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface Recent {
  samples: Float64Array;
  next: number;
  filled: number;
  calls: number;
  errors: number;
}

/** HTTP connections: sending a request, being answered or streaming, or kept alive between requests. */
export type ConnectionState = 'unfinished' | 'active' | 'idle';

/** The window cache's heap bytes, as counted against its budget. */
export interface CacheFigures {
  bytes: number;
  max_bytes: number;
}

/** The definitions index, as /metrics reports it (the port's status, search/definitions/definitions-index.ts). */
export interface DefinitionsFigures {
  state: string;
  repos: { repo: string; definitions: number; documented: number; extracted: number }[];
  figures: { searches: number; p50_ms?: number; p95_ms?: number; p99_ms?: number; embedding_cache_hit_rate?: number };
}

export interface ConnectionFigures {
  by_state: Record<ConnectionState, number>;
  /** Connections closed or requests refused by the HTTP layer since start, by reason. */
  shed: Record<string, number>;
}

interface Prometheus {
  registry: Registry;
  toolSeconds: import('prom-client').Histogram<'tool' | 'outcome'>;
  zoektSeconds: import('prom-client').Histogram<'backend' | 'endpoint'>;
  cacheLookups: import('prom-client').Counter<'result'>;
  errors: import('prom-client').Counter<'tool' | 'code'>;
  inFlight: import('prom-client').Gauge;
  shed: import('prom-client').Counter<'reason'>;
  authRefusals: import('prom-client').Counter<'reason'>;
}

export interface ToolLatency {
  tool: string;
  calls: number;
  errors: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

export class Metrics {
  private readonly recent = new Map<string, Recent>();
  private readonly cache = { hits: 0, misses: 0 };
  private calls = 0;
  private connectionSource: (() => Record<ConnectionState, number>) | undefined;
  private cacheSource: (() => CacheFigures) | undefined;
  private unsentSource: (() => number) | undefined;
  private definitionsSource: (() => Promise<DefinitionsFigures | undefined>) | undefined;
  private readonly shedCounts = new Map<string, number>();
  private readonly authRefusalCounts = new Map<string, number>();
  private prom: Prometheus | undefined;
  private enabling: Promise<Registry> | undefined;

  /** A tool call that ended after `ms`, with `ok` or its error code. */
  recordToolCall(tool: string, ms: number, code: string | 'ok'): void {
    let r = this.recent.get(tool);
    if (!r) this.recent.set(tool, (r = { samples: new Float64Array(RESERVOIR), next: 0, filled: 0, calls: 0, errors: 0 }));
    r.samples[r.next] = ms;
    r.next = (r.next + 1) % RESERVOIR;
    r.filled = Math.min(RESERVOIR, r.filled + 1);
    r.calls++;
    if (code !== 'ok') r.errors++;
    if (!this.prom) return;
    this.prom.toolSeconds.observe({ tool, outcome: code }, ms / 1000);
    if (code !== 'ok') this.prom.errors.inc({ tool, code });
  }

  /** Counts a call as in flight; the returned function ends it. */
  trackInFlight(): () => void {
    this.calls++;
    this.prom?.inFlight.inc();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.calls--;
      this.prom?.inFlight.dec();
    };
  }

  /** The HTTP server's live connection counts (HTTP mode only). */
  watchConnections(source: () => Record<ConnectionState, number>): void {
    this.connectionSource = source;
  }

  /** The window cache's size, read when get_health or /metrics asks. */
  watchCache(source: () => CacheFigures): void {
    this.cacheSource = source;
  }

  /** The definitions index's figures, read when /metrics asks. */
  watchDefinitions(source: () => Promise<DefinitionsFigures | undefined>): void {
    this.definitionsSource = source;
  }

  cacheSize(): CacheFigures | undefined {
    return this.cacheSource?.();
  }

  /** A connection closed or a request refused by the HTTP layer (src/server/connections.ts), by reason. */
  connectionShed(reason: string): void {
    this.shedCounts.set(reason, (this.shedCounts.get(reason) ?? 0) + 1);
    this.prom?.shed.inc({ reason });
  }

  /** A request refused for its token (no token, bad signature, wrong audience, expired, insufficient scope …), by reason. */
  authRefused(reason: string): void {
    this.authRefusalCounts.set(reason, (this.authRefusalCounts.get(reason) ?? 0) + 1);
    this.prom?.authRefusals.inc({ reason });
  }

  /** The bytes HTTP connections hold written but not taken by their clients, read when /metrics asks. */
  watchUnsent(source: () => number): void {
    this.unsentSource = source;
  }

  /** Connections by state and what was shed, when serving HTTP. */
  connections(): ConnectionFigures | undefined {
    if (!this.connectionSource) return undefined;
    return { by_state: this.connectionSource(), shed: Object.fromEntries([...this.shedCounts].sort(([a], [b]) => a.localeCompare(b))) };
  }

  /** One HTTP request to a Zoekt backend (`endpoint`: search, list, readyz …). */
  zoektRequest(backend: string, endpoint: string, ms: number): void {
    this.prom?.zoektSeconds.observe({ backend, endpoint }, ms / 1000);
  }

  /** A lookup in the window cache: a later page found its window, or had to ask Zoekt. */
  cacheLookup(hit: boolean): void {
    if (hit) this.cache.hits++;
    else this.cache.misses++;
    this.prom?.cacheLookups.inc({ result: hit ? 'hit' : 'miss' });
  }

  /** Per tool since start: calls and errors, and latency percentiles of the recent calls. */
  toolLatencies(): ToolLatency[] {
    return [...this.recent]
      .map(([tool, r]) => {
        const s = Array.from(r.samples.subarray(0, r.filled)).sort((a, b) => a - b);
        const at = (p: number) => Math.round(s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]! * 10) / 10;
        return { tool, calls: r.calls, errors: r.errors, p50_ms: at(0.5), p95_ms: at(0.95), p99_ms: at(0.99) };
      })
      .sort((a, b) => a.tool.localeCompare(b.tool));
  }

  cacheLookups(): { hits: number; misses: number } {
    return { ...this.cache };
  }

  callsInFlight(): number {
    return this.calls;
  }

  /**
   * Turns on the Prometheus registry (HTTP mode). Events from here on are observed by it; the
   * counters start at what this server has counted so far.
   */
  enablePrometheus(): Promise<Registry> {
    this.enabling ??= (async () => {
      const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = await importCommonJs(import('prom-client'));
      const registry = new Registry();
      collectDefaultMetrics({ register: registry, prefix: 'zoekt_mcp_' });
      const prom: Prometheus = {
        registry,
        toolSeconds: new Histogram({ name: 'zoekt_mcp_tool_call_duration_seconds', help: 'Tool call latency by tool and outcome (ok or the error code).', labelNames: ['tool', 'outcome'], buckets: BUCKETS, registers: [registry] }),
        zoektSeconds: new Histogram({ name: 'zoekt_mcp_zoekt_request_duration_seconds', help: 'Latency of HTTP requests to Zoekt by backend and endpoint.', labelNames: ['backend', 'endpoint'], buckets: BUCKETS, registers: [registry] }),
        cacheLookups: new Counter({ name: 'zoekt_mcp_window_cache_lookups_total', help: 'Window cache lookups by later pages, by result (hit or miss).', labelNames: ['result'], registers: [registry] }),
        errors: new Counter({ name: 'zoekt_mcp_tool_errors_total', help: 'Tool calls that ended in an error, by tool and error code.', labelNames: ['tool', 'code'], registers: [registry] }),
        inFlight: new Gauge({ name: 'zoekt_mcp_tool_calls_in_flight', help: 'Tool calls being answered now.', registers: [registry] }),
        shed: new Counter({ name: 'zoekt_mcp_http_connections_shed_total', help: 'HTTP connections closed or requests refused before reaching a tool, by reason.', labelNames: ['reason'], registers: [registry] }),
        authRefusals: new Counter({
          name: 'zoekt_mcp_http_auth_refusals_total',
          help: 'HTTP requests refused for their token, by reason: no_token, wrong_token (static token), malformed, bad_signature, unknown_key, wrong_issuer, wrong_audience, expired, not_yet_valid, insufficient_scope, inactive (introspection), issuer_unreachable.',
          labelNames: ['reason'],
          registers: [registry],
        }),
      };
      const source = () => this.connectionSource?.();
      new Gauge({
        name: 'zoekt_mcp_http_connections',
        help: 'Open HTTP connections by state: unfinished (request still arriving), active (being answered or streaming), idle (kept alive).',
        labelNames: ['state'],
        registers: [registry],
        collect() {
          const now = source();
          if (now) for (const [state, n] of Object.entries(now)) this.set({ state }, n);
        },
      });
      const unsent = () => this.unsentSource?.();
      new Gauge({
        name: 'zoekt_mcp_http_unsent_bytes',
        help: 'Bytes of answers written to HTTP connections and not yet taken by their clients; a connection past --write-budget-mb whose client takes nothing is closed.',
        registers: [registry],
        collect() {
          const now = unsent();
          if (now !== undefined) this.set(now);
        },
      });
      const cache = () => this.cacheSource?.();
      new Gauge({
        name: 'zoekt_mcp_window_cache_bytes',
        help: 'Heap bytes held by the window cache of ranked Zoekt answers, as counted against its budget (--cache-mb).',
        registers: [registry],
        collect() {
          const now = cache();
          if (now) this.set(now.bytes);
        },
      });
      const definitions = () => this.definitionsSource?.().catch(() => undefined);
      new Gauge({
        name: 'zoekt_mcp_definitions',
        help: 'Definitions in the definitions index by repository, with and without documentation (documented: yes or no), and those the extractor found (documented: any, kind: extracted).',
        labelNames: ['repo', 'documented', 'kind'],
        registers: [registry],
        async collect() {
          const now = await definitions();
          this.reset();
          for (const r of now?.repos ?? []) {
            this.set({ repo: r.repo, documented: 'yes', kind: 'indexed' }, r.documented);
            this.set({ repo: r.repo, documented: 'no', kind: 'indexed' }, r.definitions - r.documented);
            this.set({ repo: r.repo, documented: 'any', kind: 'extracted' }, r.extracted);
          }
        },
      });
      new Gauge({
        name: 'zoekt_mcp_definitions_index_state',
        help: 'The definitions index state: 1 for the current one of building, current, failed, unavailable (get_health also says behind, per repository).',
        labelNames: ['state'],
        registers: [registry],
        async collect() {
          const now = await definitions();
          this.reset();
          if (now) this.set({ state: now.state }, 1);
        },
      });
      new Gauge({
        name: 'zoekt_mcp_description_search_seconds',
        help: 'Description search latency in the definitions index over its recent searches, by quantile (0.5, 0.95, 0.99).',
        labelNames: ['quantile'],
        registers: [registry],
        async collect() {
          const f = (await definitions())?.figures;
          this.reset();
          for (const [quantile, ms] of [['0.5', f?.p50_ms], ['0.95', f?.p95_ms], ['0.99', f?.p99_ms]] as const) if (ms !== undefined) this.set({ quantile }, ms / 1000);
        },
      });
      new Gauge({
        name: 'zoekt_mcp_description_embedding_cache_hit_ratio',
        help: 'Of the descriptions embedded for description search, the share whose vector was already cached.',
        registers: [registry],
        async collect() {
          const rate = (await definitions())?.figures.embedding_cache_hit_rate;
          this.reset();
          if (rate !== undefined) this.set(rate);
        },
      });
      for (const [reason, n] of this.shedCounts) prom.shed.inc({ reason }, n);
      for (const [reason, n] of this.authRefusalCounts) prom.authRefusals.inc({ reason }, n);
      prom.cacheLookups.inc({ result: 'hit' }, this.cache.hits);
      prom.cacheLookups.inc({ result: 'miss' }, this.cache.misses);
      prom.inFlight.set(this.calls);
      this.prom = prom;
      return registry;
    })();
    return this.enabling;
  }
}
