/**
 * get_health: is Zoekt reachable and ready, and what does the index hold. A down backend is an
 * answer here (status "down" with a hint), not a tool error: this is the tool to call when the
 * others fail.
 */
import { VERSION } from '../version.js';
import type { RepoListResult } from '../zoekt/wire.js';
import type { Searcher } from './searcher.js';

export const GET_HEALTH = 'get_health';

export interface HealthOutput {
  status: 'ok' | 'degraded' | 'down';
  adapter: { version: string; uptime_s: number };
  zoekt: { url: string; reachable: boolean; ready: boolean; latency_ms: number; version?: string };
  index?: {
    repos: number;
    shards: number;
    documents: number;
    index_bytes: number;
    content_bytes: number;
    repos_without_symbols: number;
    oldest_index_time?: string;
    newest_index_time?: string;
  };
  hint?: string;
}

export async function getHealth(searcher: Searcher, signal?: AbortSignal): Promise<HealthOutput> {
  const url = searcher.zoekt.url;
  const readiness = await searcher.zoekt.readiness(signal);
  const out: HealthOutput = {
    status: 'ok',
    adapter: { version: VERSION, uptime_s: Math.round(process.uptime()) },
    zoekt: { url, reachable: true, ready: readiness.ready, latency_ms: readiness.latencyMs },
  };
  let listed: RepoListResult | undefined;
  let listError: string | undefined;
  try {
    listed = await searcher.list('', signal);
  } catch (err) {
    listError = err instanceof Error ? err.message : String(err);
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
    if (times.length) {
      out.index.oldest_index_time = times[0]!;
      out.index.newest_index_time = times[times.length - 1]!;
    }
  }
  const problems: string[] = [];
  if (!readiness.ready) problems.push(`Zoekt is not ready (${readiness.reason}): it may still be loading shards; retry in a few seconds`);
  if (listError) problems.push(`listing the index failed (${listError})`);
  if (listed && listed.crashes > 0) problems.push(`${listed.crashes} index shard(s) failed to answer; check Zoekt's log`);
  if (listed && listed.repos.length === 0) {
    problems.push(searcher.scope.restricted ? `no indexed repository matches --allow-repos ${searcher.scope.describe()}` : 'nothing is indexed yet: run zoekt-git-index or zoekt-index');
  }
  if (problems.length) {
    out.status = 'degraded';
    out.hint = `${problems.join('; ')}.`;
  } else if (out.index && out.index.repos_without_symbols > 0) {
    out.hint = `${out.index.repos_without_symbols} repo(s) were indexed without ctags symbols: search_symbols and find_references find no definitions there (reindex with universal-ctags installed).`;
  }
  return out;
}
