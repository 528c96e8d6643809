/**
 * Several zoekt-webservers, each serving its own share of the repositories, used as one Zoekt —
 * the way large deployments split an index across machines. A search goes to every backend at
 * once, with the one deadline each client already keeps, or only to the backends known to hold
 * the repositories it names. The answers are merged: files side by side (the search layer orders
 * them), counts added, early stops kept. A backend that fails does not fail the call while
 * another answers: the result says which backend is missing and which repositories it holds.
 *
 * With one backend the fleet is that backend: its failures are the call's failures.
 */
import { ToolError } from '../errors.js';
import { ZoektClient, type Readiness, type SearchRequest, type ZoektClientOptions } from './client.js';
import type { MissingBackend, RepoListResult, SearchResult, StopCause } from './wire.js';

/** How long a backend's list of repositories is trusted for routing before it is asked again. */
const REPO_MAP_TTL_MS = 30_000;
/** How soon the map is read again when the scope names a repository it does not hold. */
const MISSING_RECHECK_MS = 1000;

/** Failures that say the request is wrong: every backend would answer the same. */
const REQUEST_ERRORS = new Set(['QUERY_ERROR', 'INVALID_ARGUMENT']);

export interface BackendReadiness {
  url: string;
  readiness: Readiness;
}

export class ZoektFleet {
  readonly members: readonly ZoektClient[];
  /** Every backend's URL, comma-separated, as configured. */
  readonly url: string;
  /** Per backend: its repositories, name to Zoekt ID, and when they were listed. */
  private readonly known = new Map<ZoektClient, { repos: Map<string, number>; at: number }>();
  private refreshing: Promise<unknown> | undefined;

  constructor(members: readonly ZoektClient[]) {
    if (members.length === 0) throw new Error('a fleet needs at least one zoekt-webserver');
    this.members = members;
    this.url = members.map((m) => m.url).join(',');
  }

  static fromUrls(urls: readonly string[], opts: Omit<ZoektClientOptions, 'url'>): ZoektFleet {
    return new ZoektFleet(urls.map((url) => new ZoektClient({ ...opts, url })));
  }

  get several(): boolean {
    return this.members.length > 1;
  }

  /** `repos`: the exact repository names the search is about, when it is about few (get_file, a page's files). */
  async search(req: SearchRequest & { repos?: readonly string[] }): Promise<SearchResult> {
    if (!this.several) return this.members[0]!.search(req);
    // Keep knowing which repositories each backend serves, so a backend that stops answering
    // can be named with its repositories.
    this.refreshIfStale();
    const targets = await this.holders(req.repos, req.signal);
    const settled = await Promise.allSettled(targets.map((m) => m.search(req)));
    const answered: SearchResult[] = [];
    const missing: { member: ZoektClient; error: ToolError }[] = [];
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') answered.push(s.value);
      else missing.push({ member: targets[i]!, error: asToolError(s.reason) });
    });
    const wrongRequest = missing.find((m) => REQUEST_ERRORS.has(m.error.code));
    if (wrongRequest) throw wrongRequest.error;
    if (answered.length === 0) throw this.allFailed(missing);
    const stopped: StopCause | undefined = missing.length
      ? { cause: 'backends_failed', backends: missing.map((m) => this.describe(m.member, m.error)) }
      : answered.find((a) => a.stats.stopped)?.stats.stopped;
    // Each backend ranked its own files and cut its list: below the highest of those cuts, files
    // of a backend that was cut may be missing, so the merged list stops above it.
    const cuts = answered.filter((a) => a.truncated).map((a) => Math.min(...a.files.map((f) => f.score)));
    const floor = cuts.length ? Math.max(...cuts) : Number.NEGATIVE_INFINITY;
    // A backend whose match cap ran out sent nothing below its cut: neither may the merged list.
    // The file it cut in stays, with the matches it sent, as one Zoekt keeps the file its cap ran
    // out in (the window then holds only the files above it whole): when that cut is the floor.
    const cut = answered.some((a) => a.cutAt !== undefined);
    const keep = (a: SearchResult, f: SearchResult['files'][number]) => f.score > floor || (f.matchesCut === true && a.cutAt === floor && f.score === floor);
    return {
      files: answered.flatMap((a) => a.files.filter((f) => keep(a, f))),
      truncated: cuts.length > 0,
      ...(cut ? { cutAt: floor } : {}),
      stats: {
        fileCount: answered.reduce((n, a) => n + a.stats.fileCount, 0),
        matchCount: answered.reduce((n, a) => n + a.stats.matchCount, 0),
        durationMs: Math.max(...answered.map((a) => a.stats.durationMs)),
        ...(stopped ? { stopped } : {}),
      },
    };
  }

  /** Every backend's repositories, each marked with the backend that serves it. */
  async list(query: string, signal?: AbortSignal): Promise<RepoListResult> {
    const settled = await Promise.allSettled(this.members.map((m) => m.list(query, signal)));
    const answered: RepoListResult[] = [];
    const missing: { member: ZoektClient; error: ToolError }[] = [];
    settled.forEach((s, i) => {
      const member = this.members[i]!;
      if (s.status === 'fulfilled') {
        answered.push(this.several ? { ...s.value, repos: s.value.repos.map((r) => ({ ...r, backend: member.url })) } : s.value);
        if (query === '') this.known.set(member, { repos: new Map(s.value.repos.map((r) => [r.name, r.id])), at: Date.now() });
      } else {
        missing.push({ member, error: asToolError(s.reason) });
      }
    });
    if (!this.several && missing.length) throw missing[0]!.error;
    if (answered.length === 0) throw this.allFailed(missing);
    const sum = (pick: (l: RepoListResult) => number) => answered.reduce((n, l) => n + pick(l), 0);
    const result: RepoListResult = {
      repos: answered.flatMap((l) => l.repos),
      stats: {
        repos: sum((l) => l.stats.repos),
        shards: sum((l) => l.stats.shards),
        documents: sum((l) => l.stats.documents),
        indexBytes: sum((l) => l.stats.indexBytes),
        contentBytes: sum((l) => l.stats.contentBytes),
      },
      crashes: sum((l) => l.crashes),
    };
    if (missing.length) result.missing = missing.map((m) => this.describe(m.member, m.error));
    return result;
  }

  /** Ready when every backend is; the reason names the ones that are not. */
  async readiness(signal?: AbortSignal): Promise<Readiness> {
    return combineReadiness(await this.readinessEach(signal));
  }

  async readinessEach(signal?: AbortSignal): Promise<BackendReadiness[]> {
    return Promise.all(this.members.map(async (m) => ({ url: m.url, readiness: await m.readiness(signal) })));
  }

  /** The repositories a backend was last seen to serve (empty when it has not answered a list yet). */
  reposOf(url: string): string[] {
    const member = this.members.find((m) => m.url === url);
    return member ? [...(this.known.get(member)?.repos.keys() ?? [])].sort() : [];
  }

  /**
   * The Zoekt IDs of the repositories `allows` accepts, for Zoekt to enforce with RepoIDs; undefined
   * when IDs do not tell those repositories from the others (indexed without zoekt.repoid, so all
   * 0, or shared). From the repository map, refreshed (and waited for) once it is older than
   * REPO_MAP_TTL_MS: a repository indexed since the last refresh is missing from answers until the
   * next one, never let in.
   */
  async repoIdsOf(allows: (repo: string) => boolean, signal?: AbortSignal, expected: readonly string[] = []): Promise<number[] | undefined> {
    this.refreshIfStale();
    // A stale map is not used for the scope: a repository indexed since would be left out.
    if (this.refreshing) await this.refreshing;
    if (signal?.aborted || this.members.some((m) => !this.known.has(m))) return undefined;
    const allowed = new Set<number>();
    const others = new Set<number>();
    const seen = new Set<string>();
    for (const { repos } of this.known.values()) {
      for (const [name, id] of repos) {
        (allows(name) ? allowed : others).add(id);
        seen.add(name);
      }
    }
    // A repository the scope names that the map does not hold may have been indexed since: the
    // map is read again for a later call (at most once a second: one that never gets indexed
    // must not cost a listing per call), and this one goes without IDs (the query confines it).
    if (allowed.size === 0 || expected.some((n) => !seen.has(n))) {
      for (const k of this.known.values()) if (k.at < Date.now() - MISSING_RECHECK_MS) k.at = 0;
      return undefined;
    }
    for (const id of allowed) if (others.has(id)) return undefined;
    return [...allowed].sort((a, b) => a - b);
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.close()));
  }

  private refreshIfStale(): void {
    if (this.refreshing || !this.members.some((m) => (this.known.get(m)?.at ?? 0) < Date.now() - REPO_MAP_TTL_MS)) return;
    this.refreshing = this.list('')
      .catch(() => undefined)
      .finally(() => (this.refreshing = undefined));
  }

  /** The backends that hold any of `repos`, when every one of them is known to be held; else all. */
  private async holders(repos: readonly string[] | undefined, signal?: AbortSignal): Promise<readonly ZoektClient[]> {
    if (!repos?.length) return this.members;
    this.refreshIfStale();
    if (this.refreshing && this.members.some((m) => !this.known.has(m))) await this.refreshing;
    if (signal?.aborted) return this.members;
    const holding = this.members.filter((m) => repos.some((r) => this.known.get(m)?.repos.has(r)));
    const placed = new Set(holding.flatMap((m) => repos.filter((r) => this.known.get(m)?.repos.has(r))));
    return holding.length && placed.size === new Set(repos).size ? holding : this.members;
  }

  private describe(member: ZoektClient, error: ToolError): MissingBackend {
    return { url: member.url, repos: [...(this.known.get(member)?.repos.keys() ?? [])].sort(), reason: error.message };
  }

  private allFailed(missing: { member: ZoektClient; error: ToolError }[]): ToolError {
    const first = missing[0]!.error;
    if (missing.length === 1) return first;
    return new ToolError(
      first.code,
      `no zoekt backend answered: ${missing.map((m) => m.error.message).join('; ')}`,
      `Check each backend: ${missing.map((m) => `curl ${m.member.url}/healthz`).join(', ')}; call get_health for the state of all of them.`,
      { retryable: missing.every((m) => m.error.retryable) },
    );
  }
}

/** The readiness of a fleet from its backends': ready when every one is; the reason names the others. */
export function combineReadiness(each: readonly BackendReadiness[]): Readiness {
  if (each.length === 1) return each[0]!.readiness;
  const latencyMs = Math.max(...each.map((e) => e.readiness.latencyMs));
  const via = each[0]!.readiness.via;
  const down = each.filter((e) => !e.readiness.ready);
  if (down.length === 0) return { ready: true, latencyMs, via };
  return {
    ready: false,
    latencyMs,
    via,
    reason: down.map((e) => `${e.url}: ${e.readiness.ready ? 'ready' : e.readiness.reason}`).join('; '),
    // Something answered: the fleet runs, even if not all of it is ready.
    answered: down.length < each.length || down.some((e) => !e.readiness.ready && e.readiness.answered),
  };
}

const fleets = new WeakMap<ZoektClient, ZoektFleet>();

/** One client as a fleet of one (the same fleet each time, so its state is shared). */
export function asFleet(zoekt: ZoektClient | ZoektFleet): ZoektFleet {
  if (zoekt instanceof ZoektFleet) return zoekt;
  let fleet = fleets.get(zoekt);
  if (!fleet) fleets.set(zoekt, (fleet = new ZoektFleet([zoekt])));
  return fleet;
}

function asToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  return new ToolError('UNAVAILABLE', err instanceof Error ? err.message : String(err), 'Retry in a few seconds; get_health shows every backend.', { cause: err });
}
