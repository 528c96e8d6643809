/**
 * The composition root: everything a server needs, built once and shared by every transport and
 * every session of it (stdio, each POST to /mcp, each legacy SSE stream). The Zoekt fleet, the
 * window cache, the searcher with its cursor key, admission, metrics and the dispatcher live
 * here; nothing of it is a module-level singleton, so two runtimes in one process (tests, the
 * local serve command) never share state.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from './config.js';
import { DEFAULTS } from './config.js';
import type { Logger } from './log.js';
import { Metrics, type DefinitionsFigures } from './metrics.js';
import type { LocalIndexSource } from './search/vocab/local-index.js';
import { openDefinitionsIndex, type OnFirstUse } from './definitions-index/open.js';
import { WeaviateDefinitionsIndex } from './definitions-index/weaviate.js';
import { RepoScope } from './search/engine/scope.js';
import { Searcher, type WalkLimits } from './search/engine/searcher.js';
import { WindowCache } from './search/engine/window-cache.js';
import { Admission, type AdmissionLimits } from './server/admission.js';
import { catalogOf, type ToolCatalog } from './server/catalog.js';
import { Dispatcher } from './server/dispatch.js';
import type { ServerHost } from './server/factory.js';
import type { AnyTool } from './tools/define.js';
import { TOOLS } from './tools/index.js';
import type { ZoektClient } from './zoekt/client.js';
import { asFleet, ZoektFleet } from './zoekt/fleet.js';


export interface RuntimeOptions {
  /** One zoekt-webserver, or several each serving a share of the repositories. */
  zoekt: ZoektClient | ZoektFleet;
  log: Logger;
  /** Ranked windows shared by every session of this server. */
  cache?: WindowCache;
  /** The repositories every tool is confined to (--allow-repos), or where to read them at each call. */
  scope?: RepoScope | (() => RepoScope);
  /** How far a walk over pages goes (tests set small bounds to reach them). */
  walkLimits?: WalkLimits;
  tools?: readonly AnyTool[];
  /** The deadline of one tool call, queueing and every Zoekt request included (--timeout-ms). */
  timeoutMs?: number;
  /** Calls run at once and calls waiting, for the whole server (--max-in-flight, --max-queue). */
  admission?: AdmissionLimits;
  /** The key cursors are signed with (--cursor-secret); a random one per runtime when absent. */
  cursorSecret?: string | Buffer;
  /** The text an answer may have unless a call asks for another bound (--max-output-chars). */
  maxOutputChars?: number;
  metrics?: Metrics;
  local?: LocalIndexSource;
}

/** What the server transports take (ServerHost, declared in server/), and what the runtime holds besides. */
export interface Runtime extends ServerHost {
  readonly log: Logger;
  readonly fleet: ZoektFleet;
  readonly searcher: Searcher;
  readonly metrics: Metrics;
  readonly catalog: ToolCatalog;
  readonly dispatcher: Dispatcher;
  readonly local: LocalIndexSource | undefined;
  /** Ends what the runtime holds open (Zoekt connections). */
  close(): Promise<void>;
}

export function createRuntime(o: RuntimeOptions): Runtime {
  const metrics = o.metrics ?? new Metrics();
  const fleet = asFleet(o.zoekt);
  const searcher = new Searcher(fleet, o.cache ?? new WindowCache(undefined, metrics), o.scope, o.walkLimits, o.cursorSecret ?? randomBytes(32));
  const catalog = catalogOf(o.tools ?? TOOLS);
  const dispatcher = new Dispatcher({
    catalog,
    zoekt: fleet,
    searcher,
    log: o.log,
    metrics,
    local: o.local,
    admission: new Admission(o.admission ?? { maxInFlight: DEFAULTS.maxInFlight, maxQueue: DEFAULTS.maxQueue }),
    timeoutMs: o.timeoutMs ?? DEFAULTS.timeoutMs,
    maxOutputChars: o.maxOutputChars ?? DEFAULTS.maxOutputChars,
  });
  return { log: o.log, fleet, searcher, metrics, catalog, dispatcher, local: o.local, close: () => fleet.close() };
}

/** A runtime as the configuration says: its backends, cache, scope, limits and cursor key. */
/** `listed`: the local serve command's repositories, the only ones its answers may show. */
export function runtimeFromConfig(config: Config, log: Logger, local?: LocalIndexSource, listed?: () => readonly string[] | undefined): Runtime {
  const metrics = new Metrics();
  const zoekt = ZoektFleet.fromUrls(config.zoektUrl.split(','), { timeoutMs: config.timeoutMs, logger: log, metrics });
  const runtime = createRuntime({
    zoekt,
    log,
    metrics,
    local,
    cache: new WindowCache({ maxBytes: config.cacheMb * 1024 * 1024, ttlMs: config.cacheTtlMs }, metrics),
    scope: listed ? listScope(new RepoScope(config.allowRepos), listed) : new RepoScope(config.allowRepos),
    timeoutMs: config.timeoutMs,
    maxOutputChars: config.maxOutputChars,
    admission: { maxInFlight: config.maxInFlight, maxQueue: config.maxQueue },
    ...(config.cursorSecret ? { cursorSecret: config.cursorSecret } : {}),
  });
  const definitions = definitionsOf(config);
  if (definitions) {
    runtime.searcher.definitions = definitions;
    // Only the server's repositories, read once per scrape.
    const scope = new RepoScope(config.allowRepos);
    let kept: { at: number; status: Promise<DefinitionsFigures | undefined> } | undefined;
    metrics.watchDefinitions(() => {
      if (!kept || Date.now() - kept.at > 1000) {
        kept = { at: Date.now(), status: definitions.statusIfOpen().then((s) => s && { ...s, repos: s.repos.filter((r) => scope.allows(r.repo)) }) };
      }
      return kept.status;
    });
    const close = runtime.close;
    (runtime as { close: () => Promise<void> }).close = async () => {
      await Promise.all([close(), definitions.close()]);
    };
  }
  return runtime;
}

/** The definitions index the configuration names: a Weaviate server's, or a folder's. */
function definitionsOf(config: Config): OnFirstUse | undefined {
  if (config.definitionsUrl) {
    const url = config.definitionsUrl;
    return openDefinitionsIndex({ remote: (embedder) => new WeaviateDefinitionsIndex({ url, timeoutMs: config.timeoutMs, embedder }) }, url);
  }
  return config.definitions ? openDefinitionsIndex({ dir: config.definitions }, config.definitions) : undefined;
}

/**
 * The local serve command's list as the scope: exactly its repositories (those --allow-repos
 * also allows, if given), made again only when the list changes.
 */
function listScope(allowed: RepoScope, names: () => readonly string[] | undefined): () => RepoScope {
  let made: { key: string; scope: RepoScope } | undefined;
  return () => {
    const listed = names();
    if (!listed) return allowed;
    const now = listed.filter((n) => allowed.allows(n));
    const key = now.join('\n');
    if (made?.key !== key) made = { key, scope: RepoScope.exactly(now) };
    return made.scope;
  };
}
