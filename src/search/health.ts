/**
 * get_health: is Zoekt reachable and ready, and what does the index hold. A down backend is an
 * answer here (status "down" with a hint), not a tool error: this is the tool to call when the
 * others fail.
 */
import { deadlineWithin, withDeadline } from '../deadline.js';
import { VERSION } from '../version.js';
import { z } from 'zod';
import { combineReadiness } from '../zoekt/fleet.js';
import { missingBackends } from './engine/completeness.js';
import { indexCoverage, inTime, LanguageCoverage, withoutSymbols } from './definitions/coverage.js';
import { keptPerSearcher, type Searcher } from './engine/searcher.js';
import { indexSkipped, NotIndexedCounts } from './engine/skipped.js';
import type { Metrics } from '../metrics.js';
import type { RepoInfo } from '../zoekt/wire.js';

export const GET_HEALTH = 'get_health';

const Probe = { url: z.string(), reachable: z.boolean(), ready: z.boolean(), latency_ms: z.number() };

export const HealthOutput = z.object({
  status: z.enum(['ok', 'degraded', 'down']),
  adapter: z.object({ version: z.string(), uptime_s: z.number() }),
  zoekt: z.object(Probe),
  /** With several Zoekt backends: each one, and how many repositories it serves. */
  backends: z.array(z.object({ ...Probe, repos: z.number().int(), reason: z.string().optional() })).optional(),
  index: z
    .object({
      repos: z.number().int(),
      shards: z.number().int(),
      documents: z.number().int(),
      index_bytes: z.number().int(),
      content_bytes: z.number().int(),
      repos_without_symbols: z.number().int(),
      /**
       * Files the indexer skipped (their names are indexed, their text is not), by reason, and in
       * how many repositories; list_repos has them per repository. Absent when none, or while
       * still being read.
       */
      not_indexed: NotIndexedCounts.extend({ repos: z.number().int(), complete: z.boolean() }).optional(),
      /**
       * Per language: files, files with at least one symbol, and the parser that produced them
       * (search/definitions/coverage.ts). Absent while it is still being read (the next call has it).
       */
      symbols: z.object({ languages: z.array(LanguageCoverage), complete: z.boolean() }).optional(),
      oldest_index_time: z.string().optional(),
      newest_index_time: z.string().optional(),
    })
    .optional(),
  /**
   * The definitions index description search ranks by (absent when none is configured): its
   * model and state, per repository how many definitions it holds of those the extractor found
   * (with documentation) and whether it is of the commit Zoekt serves, and its searches' figures.
   */
  definitions: z
    .object({
      state: z.enum(['building', 'current', 'behind', 'failed', 'unavailable']),
      location: z.string(),
      model: z.object({ name: z.string(), dimensions: z.number().int(), source: z.string() }),
      repos: z.array(
        z.object({
          repo: z.string(),
          definitions: z.number().int(),
          documented: z.number().int(),
          extracted: z.number().int(),
          coverage: z.number().describe('definitions ÷ extracted'),
          skipped_files: z.number().int(),
          built_at: z.string(),
          state: z.enum(['current', 'behind', 'unknown']).describe("current: of the commit Zoekt serves; behind: of another (a build of it follows Zoekt's); unknown: Zoekt names no commit (an index of a plain folder)"),
        }),
      ),
      /** Repositories Zoekt serves that the definitions index has nothing of. */
      repos_missing: z.array(z.string()).optional(),
      searches: z.object({
        searches: z.number().int(),
        p50_ms: z.number().optional(),
        p95_ms: z.number().optional(),
        p99_ms: z.number().optional(),
        embedding_cache_hit_rate: z.number().optional(),
      }),
      error: z.string().optional(),
    })
    .optional(),
  /** This process since start: latency per tool (percentiles of its recent calls), window cache lookups. */
  calls: z.object({
    in_flight: z.number().int(),
    tools: z.array(z.object({ tool: z.string(), calls: z.number().int(), errors: z.number().int(), p50_ms: z.number(), p95_ms: z.number(), p99_ms: z.number() })),
    /** Window cache lookups by later pages, and the heap bytes it holds against its budget. */
    cache: z.object({ hits: z.number().int(), misses: z.number().int(), hit_rate: z.number().optional(), bytes: z.number().int().optional(), max_bytes: z.number().int().optional() }),
    /** Over HTTP: open connections by state, and connections closed or requests refused before a tool, by reason. */
    connections: z.object({ unfinished: z.number().int(), active: z.number().int(), idle: z.number().int(), shed: z.record(z.string(), z.number().int()) }).optional(),
  }),
  hint: z.string().optional(),
});
export type HealthOutput = z.infer<typeof HealthOutput>;

const share = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 1000 : 0);

function callFigures(metrics: Metrics): HealthOutput['calls'] {
  const { hits, misses } = metrics.cacheLookups();
  const lookups = hits + misses;
  const connections = metrics.connections();
  const size = metrics.cacheSize();
  return {
    in_flight: metrics.callsInFlight(),
    tools: metrics.toolLatencies(),
    cache: { hits, misses, ...(lookups ? { hit_rate: share(hits, lookups) } : {}), ...(size ? { bytes: size.bytes, max_bytes: size.max_bytes } : {}) },
    ...(connections ? { connections: { ...connections.by_state, shed: connections.shed } } : {}),
  };
}

/** Reading symbol coverage stops this long before the call's deadline. */
const COVERAGE_MARGIN_MS = 250;

/** Probes and the listing get this share of what is left of the call's deadline. */
const PROBE_SHARE = 0.75;

function probeDeadline(): number {
  const now = Date.now();
  const callDeadline = deadlineWithin(Number.POSITIVE_INFINITY);
  return Number.isFinite(callDeadline) ? now + Math.floor((callDeadline - now) * PROBE_SHARE) : Number.POSITIVE_INFINITY;
}

interface Probed {
  each: Awaited<ReturnType<Searcher['zoekt']['readinessEach']>>;
  listed: Awaited<ReturnType<Searcher['list']>> | undefined;
  listError?: string;
}

/** The probe running for each searcher, if any. */
const probes = keptPerSearcher<{ running?: Promise<Probed> }>(() => ({}));

/**
 * One probe of the backends at a time per searcher: get_health skips the admission queue (it is
 * the call to make when others fail), so calls that come while a probe runs share its answer
 * instead of each listing the whole index again.
 */
function probe(searcher: Searcher): Promise<Probed> {
  const kept = probes(searcher);
  let running = kept.running;
  if (!running) {
    running = withDeadline(probeDeadline(), async () => {
      let listError: string | undefined;
      const list = searcher.list('').catch((err: unknown) => {
        listError = err instanceof Error ? err.message : String(err);
        return undefined;
      });
      // Every backend's probe and the listing run at once, and stop early enough in the call's
      // deadline that a hung backend is reported as down rather than the call timing out.
      const [each, listed] = await Promise.all([searcher.zoekt.readinessEach(), list]);
      return { each, listed, ...(listError === undefined ? {} : { listError }) };
    }).finally(() => delete kept.running);
    kept.running = running;
  }
  return running;
}

/**
 * The answer when the Zoekt at the configured URL must not be asked (under the local serve
 * command, one that is not its own index's): down, for `reason`, with no figure of that Zoekt's index.
 */
export function healthWithoutZoekt(searcher: Searcher, metrics: Metrics, reason: string, hint: string): HealthOutput {
  return {
    status: 'down',
    adapter: { version: VERSION, uptime_s: Math.round(process.uptime()) },
    zoekt: { url: searcher.zoekt.url, reachable: false, ready: false, latency_ms: 0 },
    calls: callFigures(metrics),
    hint: `${reason}. ${hint}`,
  };
}

export async function getHealth(searcher: Searcher, metrics: Metrics): Promise<HealthOutput> {
  const fleet = searcher.zoekt;
  const url = fleet.url;
  const { each, listed, listError } = await probe(searcher);
  const readiness = combineReadiness(each);
  const out: HealthOutput = {
    status: 'ok',
    adapter: { version: VERSION, uptime_s: Math.round(process.uptime()) },
    zoekt: { url, reachable: true, ready: readiness.ready, latency_ms: readiness.latencyMs },
    calls: callFigures(metrics),
  };
  if (fleet.several) {
    out.backends = each.map((e) => ({
      url: e.url,
      reachable: e.readiness.ready || e.readiness.answered,
      ready: e.readiness.ready,
      latency_ms: e.readiness.latencyMs,
      repos: listed?.repos.filter((r) => r.backend === e.url).length ?? 0,
      ...(e.readiness.ready ? {} : { reason: e.readiness.reason }),
    }));
    out.zoekt.reachable = out.backends.some((b) => b.reachable);
  }
  if (!listed && !readiness.ready && !readiness.answered) {
    out.status = 'down';
    out.zoekt.reachable = false;
    out.hint = `Zoekt does not answer at ${url} (${readiness.reason}). Start zoekt-webserver with -rpc there, or point ZOEKT_URL / --zoekt-url at it; check with: curl ${url}/healthz`;
    return out;
  }
  if (listed) {
    const times = listed.repos.map((r) => r.indexTime).filter((t): t is string => Boolean(t)).sort();
    out.index = {
      repos: listed.repos.length,
      shards: listed.stats.shards,
      documents: listed.stats.documents,
      index_bytes: listed.stats.indexBytes,
      content_bytes: listed.stats.contentBytes,
      repos_without_symbols: listed.repos.filter((r) => !r.hasSymbols).length,
    };
    // What the call has left for it, less a moment to answer in.
    const [coverage, skipped] = await Promise.all([
      inTime(indexCoverage(searcher, listed.repos), COVERAGE_MARGIN_MS),
      inTime(indexSkipped(searcher, listed.repos), COVERAGE_MARGIN_MS),
    ]);
    if (coverage) out.index.symbols = coverage;
    if (skipped && skipped.total.files > 0) out.index.not_indexed = { ...skipped.total, repos: skipped.byRepo.size, complete: skipped.complete };
    if (times.length) {
      out.index.oldest_index_time = times[0]!;
      out.index.newest_index_time = times[times.length - 1]!;
    }
  }
  const definitions = await definitionsHealth(searcher, listed?.repos);
  if (definitions) out.definitions = definitions;
  const problems: string[] = [];
  if (definitions?.error) problems.push(`the definitions index: ${definitions.error}; description search matches names meanwhile`);
  if (!readiness.ready) {
    problems.push(
      fleet.several
        ? `not every Zoekt backend is ready (${readiness.reason}): searches answer from the others and say which repositories are missing; retry in a few seconds`
        : `Zoekt is not ready (${readiness.reason}): it may still be loading shards; retry in a few seconds`,
    );
  }
  if (listError) problems.push(`listing the index failed (${listError})`);
  if (listed?.missing) problems.push(missingBackends(listed.missing));
  if (listed && listed.crashes > 0) problems.push(`${listed.crashes} index shard(s) failed to answer; check Zoekt's log`);
  if (listed && listed.repos.length === 0) {
    problems.push(searcher.scope.restricted ? `no indexed repository matches ${searcher.scope.origin} ${searcher.scope.describe()}` : 'nothing is indexed yet: run zoekt-git-index or zoekt-index');
  }
  if (problems.length) {
    out.status = 'degraded';
    out.hint = `${problems.join('; ')}.`;
  } else {
    const notes: string[] = [];
    if (out.index && out.index.repos_without_symbols > 0) {
      notes.push(`${out.index.repos_without_symbols} repo(s) were indexed without symbols: search_symbols and find_references find no definitions there (reindex them with zoekt-config/index)`);
    }
    const none = out.index?.symbols ? withoutSymbols(out.index.symbols) : [];
    // A few by name: the list of every language is index.symbols (cut to fit with the rest).
    const named = none.slice(0, 8).map((l) => `${l.language} (${l.files} files)`);
    if (none.length) notes.push(`no symbols for ${named.join(', ')}${none.length > named.length ? ` and ${none.length - named.length} more language(s)` : ''}: no symbol parser reads them; search_code finds their text`);
    if (out.index && !out.index.symbols) notes.push('symbol coverage per language is still being read from the index: call get_health again for it');
    if (notes.length) out.hint = `${notes.join('; ')}.`;
  }
  return out;
}

/** Repositories named as missing from the definitions index, at most. */
const MISSING_NAMED = 20;

/** The definitions index as health reports it, against what Zoekt serves. */
async function definitionsHealth(searcher: Searcher, served: readonly RepoInfo[] | undefined): Promise<HealthOutput['definitions']> {
  const index = searcher.definitions;
  if (!index) return undefined;
  const status = (await inTime(index.status(), COVERAGE_MARGIN_MS)) ?? {
    model: { name: 'unknown', dimensions: 0, source: 'not read' },
    state: 'unavailable' as const,
    error: 'the definitions index did not answer in time; call get_health again',
    location: 'unknown',
    repos: [],
    figures: { searches: 0 },
  };
  const versions = new Map((served ?? []).map((r) => [r.name, r.branches.map((b) => b.version).filter(Boolean)]));
  const repos = status.repos
    .filter((r) => searcher.scope.allows(r.repo))
    .map((r) => {
      const known = versions.get(r.repo);
      const state: 'current' | 'behind' | 'unknown' = !known?.length ? 'unknown' : known.includes(r.generation) ? 'current' : 'behind';
      return {
        repo: r.repo,
        definitions: r.definitions,
        documented: r.documented,
        extracted: r.extracted,
        coverage: r.extracted ? Math.round((r.definitions / r.extracted) * 1000) / 1000 : 1,
        skipped_files: r.skipped_files,
        built_at: r.built_at,
        state,
      };
    });
  const held = new Set(status.repos.map((r) => r.repo));
  const missing = (served ?? []).map((r) => r.name).filter((n) => !held.has(n));
  const behind = repos.some((r) => r.state === 'behind');
  // Another scope's repositories are never named, nor counted as failing.
  const failed = (status.repoErrors ?? []).filter((e) => searcher.scope.allows(e.repo));
  const error = [status.error, ...failed.map((e) => `${e.repo}: ${e.error}`)].filter(Boolean).join('; ');
  const state = status.state === 'failed' && failed.length === 0 ? 'current' : status.state;
  return {
    state: state === 'current' && behind ? 'behind' : state,
    location: status.location,
    model: status.model,
    repos,
    ...(missing.length ? { repos_missing: missing.slice(0, MISSING_NAMED) } : {}),
    searches: status.figures,
    ...(error ? { error } : {}),
  };
}
