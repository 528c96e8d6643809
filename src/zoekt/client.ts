/**
 * The HTTP client of zoekt-webserver's JSON API. It owns the connection pool, the deadline of
 * every call, retries of transient failures, and the classification of every failure into a
 * ToolError at the place where its cause is known.
 */
import { errorCode, untilDeadline } from '../request-errors.js';
import type { Agent } from 'undici';
import pRetry, { AbortError } from 'p-retry';
import { deadlineWithin } from '../deadline.js';
import { ToolError } from '../errors.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { checkSentQuery } from './query-bounds.js';
import { isUnrunnableQuery, queryErrorHint } from './query-errors.js';
import { loadUndici, type Undici } from './undici.js';
import {
  decodeListReply,
  decodeSearch,
  ErrorReply,
  WireShapeError,
  type MatchLimits,
  type RepoListResult,
  type SearchOptionsWire,
  type SearchResult,
} from './wire.js';
import type { Metrics } from '../metrics.js';

/** Set once the first request has loaded it (a failure before that cannot be one of its errors). */
let undici: Undici | undefined;

/** How long a readiness check waits for one backend; /readyz waits this long for each, at once. */
export const READINESS_TIMEOUT_MS = 5_000;
export interface ZoektClientOptions {
  /** Base URL of zoekt-webserver, e.g. http://127.0.0.1:6070 */
  url: string;
  /** Deadline of one call, retries included. */
  timeoutMs: number;
  /** Retries of transient failures (refused, reset, 502/503/504) within the deadline. */
  retries?: number;
  logger?: Logger;
  /** Told when each HTTP request to Zoekt starts and ends (metrics, tests). */
  onRequest?: (event: { path: string; phase: 'start' | 'end'; query?: string }) => void;
  /** The match budget of every search (default MATCH_LIMITS). */
  matchLimits?: MatchLimits;
  /** Counts each request's latency (/metrics). */
  metrics?: Pick<Metrics, 'zoektRequest'>;
}

export interface SearchRequest {
  query: string;
  /** How many files Zoekt returns at most, after ranking. The search itself is not cut short by it. */
  maxDocs: number;
  /**
   * How many matches Zoekt returns at most (all files together), after ranking; the counts stay
   * whole. Zoekt fills files in rank order, so the file where the cap runs out is cut
   * (`cutAt`) and no file after it is sent.
   */
  maxMatches?: number;
  /**
   * Zoekt stops looking in a repository's files (per shard) after this many matches: a few files
   * of every repository rather than the best files overall. The counts are then not whole.
   */
  perRepoMatches?: number;
  /**
   * A smaller match budget per shard than the server's (MATCH_LIMITS): Zoekt stops evaluating a
   * shard's files, in their index order, once it has found this many matches. The files it found
   * are ranked as always, and the same request finds the same files, whatever `maxDocs` is; the
   * counts are lower bounds when it stopped (`match_limit`). What a page of the best files needs,
   * at a fraction of the cost of evaluating every match of a common term.
   */
  shardMatches?: number;
  contextLines?: number;
  /** Return the whole content of each file (get_file). */
  whole?: boolean;
  /**
   * Only these repositories (Zoekt's IDs), ANDed by Zoekt with the query (RepoIDs of /api/search):
   * a restriction that holds whatever the query text says.
   */
  repoIds?: readonly number[];
  signal?: AbortSignal;
}

export type Readiness =
  | { ready: true; latencyMs: number; via: 'readyz' | 'healthz' }
  /** `answered`: Zoekt sent an HTTP answer (it runs but is not ready), as opposed to no answer at all. */
  | { ready: false; latencyMs: number; via: 'readyz' | 'healthz'; reason: string; answered: boolean };

/** Zoekt stops searching this long before our own deadline, so it can still answer with what it found. */
const WALL_TIME_MARGIN_MS = 250;
const MIN_WALL_TIME_MS = 100;
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * What one search may bring back, instead of the 64 MiB transport cap: a decoded answer holds
 * several times its JSON in memory, so 64 MiB answers made one broad call cost hundreds of
 * MiB. 16 MiB holds the largest window a page walk asks for with every match of its files (on
 * Go's source tree, with room to spare: bench/README.md, "Answer sizes"); past it the search
 * is asked again with a smaller match budget (an honest partial answer) before it is refused.
 * get_file's whole files keep the transport cap (Zoekt indexes files of at most 2 MiB).
 */
const SEARCH_ANSWER_BYTES = 16 * 1024 * 1024;

export function answerCap(req: Pick<SearchRequest, 'whole'>): number {
  return req.whole ? MAX_BODY_BYTES : SEARCH_ANSWER_BYTES;
}

/**
 * The match budget of every search. Zoekt evaluates every candidate file until a shard has found
 * this many matches (then FilesSkipped says what it left out), so answers are complete and
 * counts exact below it: it is enough for `err` over Go's source tree, where Zoekt's own default
 * (100k) is not. It is also what bounds Zoekt's memory for a broad query, as a shard holds every
 * match it collects until it stops (bench/README.md, "Zoekt's memory", has what each budget
 * costs zoekt-webserver).
 */
export const MATCH_LIMITS: MatchLimits = { shard: 300_000, total: 1_200_000 };
/**
 * How an answer over the size cap is asked again, one step after another until it fits: without
 * context lines, then with the match budget cut twice (Zoekt stops searching sooner), then with
 * fewer files, halved down to one (Zoekt indexes no file over 4 MiB, so one file always fits).
 * Each step is an honest partial answer (`too_large`), never a refusal: the query was valid.
 */
const OVERSIZE_BUDGET_DIVISOR = 20;
const OVERSIZE_BUDGET_CUTS = 2;

interface Shrink {
  contextLines: number | undefined;
  limits: MatchLimits;
  maxDocs: number;
  budgetCuts: number;
  /** What was given up, in words, for the partial note. */
  steps: string[];
}

function shrink(req: SearchRequest, now: Shrink): Shrink | undefined {
  if (now.contextLines) return { ...now, contextLines: 0, steps: [...now.steps, 'without context lines'] };
  if (now.budgetCuts < OVERSIZE_BUDGET_CUTS) {
    const limits = { shard: Math.ceil(now.limits.shard / OVERSIZE_BUDGET_DIVISOR), total: Math.ceil(now.limits.total / OVERSIZE_BUDGET_DIVISOR) };
    return { ...now, limits, budgetCuts: now.budgetCuts + 1, steps: [...now.steps.filter((s) => !s.startsWith('a match budget')), `a match budget of ${limits.shard} matches`] };
  }
  if (now.maxDocs > 1) {
    const maxDocs = Math.max(1, Math.floor(now.maxDocs / 2));
    return { ...now, maxDocs, steps: [...now.steps.filter((s) => !s.startsWith('the best')), `the best ${maxDocs} of the ${req.maxDocs} files asked for`] };
  }
  return undefined;
}
/** Whether the match cap ran out: then the last file holds only some of its matches, and files may follow it. */
export function markCut(result: SearchResult, maxMatches: number): void {
  let sent = 0;
  for (const f of result.files) for (const c of f.chunks) sent += c.matchLines.length;
  const last = result.files[result.files.length - 1];
  if (sent < maxMatches || !last) return;
  last.matchesCut = true;
  result.cutAt = last.score;
  result.truncated = true;
}

const TRANSIENT_STATUS = new Set([502, 503, 504]);
const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'EAI_AGAIN']);

export class ZoektClient {
  readonly url: string;
  private readonly base: URL;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly log: Logger;
  private agent: Promise<Agent> | undefined;
  private readonly connectTimeoutMs: number;
  private readonly onRequest: ZoektClientOptions['onRequest'];
  private readonly matchLimits: MatchLimits;
  private readonly metrics: ZoektClientOptions['metrics'];

  constructor(opts: ZoektClientOptions) {
    this.metrics = opts.metrics;
    this.onRequest = opts.onRequest;
    this.matchLimits = opts.matchLimits ?? MATCH_LIMITS;
    this.base = new URL(opts.url.endsWith('/') ? opts.url : `${opts.url}/`);
    this.url = this.base.toString().replace(/\/$/, '');
    this.timeoutMs = opts.timeoutMs;
    this.retries = opts.retries ?? 2;
    this.log = opts.logger ?? silentLogger;
    this.connectTimeoutMs = Math.min(5_000, opts.timeoutMs);
  }

  /** The connection pool, made with the first request. */
  private dispatcher(): Promise<Agent> {
    return (this.agent ??= loadUndici().then(
      (u) =>
        new (undici = u).Agent({
          keepAliveTimeout: 30_000,
          connections: 32,
          connect: { timeout: this.connectTimeoutMs },
          // Go streams large JSON answers chunked, so the cap has to count bytes as they arrive.
          maxResponseSize: MAX_BODY_BYTES,
        }),
    ));
  }

  async search(req: SearchRequest): Promise<SearchResult> {
    const deadline = deadlineWithin(Date.now() + this.timeoutMs);
    checkSentQuery(req.query);
    const limits = req.shardMatches ? { ...this.matchLimits, shard: Math.min(req.shardMatches, this.matchLimits.shard) } : this.matchLimits;
    let now: Shrink = { contextLines: req.contextLines, limits, maxDocs: req.maxDocs, budgetCuts: 0, steps: [] };
    for (;;) {
      try {
        const result = await this.searchWithin(req, now, deadline);
        if (now.steps.length) {
          const fewer = now.maxDocs < req.maxDocs;
          result.stats.stopped = { cause: 'too_large', capBytes: answerCap(req), steps: now.steps, ...(fewer ? { maxDocs: now.maxDocs } : {}) };
          // Fewer files than asked for: there may be more.
          if (fewer) result.truncated = true;
        }
        return result;
      } catch (err) {
        // A regex that matches nearly every character fills the answer with matched lines: ask
        // again for less (see shrink), so the answer is partial rather than an error.
        const next = err instanceof AnswerTooLarge && !req.whole ? shrink(req, now) : undefined;
        if (!next) throw err;
        now = next;
        this.log.debug('zoekt answer too large; asking again for less', { steps: now.steps });
      }
    }
  }

  private async searchWithin(req: SearchRequest, now: Shrink, deadline: number): Promise<SearchResult> {
    const limits = now.limits;
    const opts: SearchOptionsWire = {
      ChunkMatches: true,
      MaxDocDisplayCount: now.maxDocs,
      // What is left of the call's deadline: Zoekt stops in time to answer (partial, time_limit), and a
      // search asked again (a smaller budget) gets the rest, not a fresh allowance.
      MaxWallTime: Math.max(MIN_WALL_TIME_MS, deadline - Date.now() - WALL_TIME_MARGIN_MS) * 1e6,
      ShardMaxMatchCount: limits.shard,
      TotalMaxMatchCount: limits.total,
    };
    if (now.contextLines) opts.NumContextLines = now.contextLines;
    if (req.maxMatches) opts.MaxMatchDisplayCount = req.maxMatches;
    if (req.perRepoMatches) opts.ShardRepoMaxMatchCount = req.perRepoMatches;
    if (req.whole) opts.Whole = true;
    const body = { Q: req.query, Opts: opts, ...(req.repoIds ? { RepoIDs: req.repoIds } : {}) };
    const result = await this.postJson('api/search', body, (json) => decodeSearch(json, limits), deadline, req.signal, answerCap(req));
    result.truncated = result.files.length >= now.maxDocs;
    if (req.maxMatches) markCut(result, req.maxMatches);
    return result;
  }

  async list(query: string, signal?: AbortSignal): Promise<RepoListResult> {
    const deadline = deadlineWithin(Date.now() + this.timeoutMs);
    return this.postJson('api/list', { Q: query }, decodeListReply, deadline, signal);
  }

  /**
   * Whether Zoekt answers and has loaded its shards, within READINESS_TIMEOUT_MS. Uses /readyz; a Zoekt too old to have it
   * (it answers the HTML search page there) falls back to /healthz, which runs a tiny search.
   * Never throws for an unreachable backend: that is an answer here, not an error.
   */
  async readiness(signal?: AbortSignal): Promise<Readiness> {
    const started = Date.now();
    const deadline = deadlineWithin(started + Math.min(this.timeoutMs, READINESS_TIMEOUT_MS));
    const elapsed = () => Date.now() - started;
    try {
      const ready = await this.get('readyz', deadline, signal);
      const isHtml = /text\/html/i.test(ready.contentType) || ready.body.trimStart().startsWith('<');
      if (!isHtml && ready.status !== 404) {
        if (ready.status === 200) return { ready: true, latencyMs: elapsed(), via: 'readyz' };
        return {
          ready: false,
          latencyMs: elapsed(),
          via: 'readyz',
          reason: `zoekt /readyz answered ${ready.status}: ${ready.body.trim().slice(0, 200) || 'not ready'}`,
          answered: true,
        };
      }
      const health = await this.get('healthz', deadline, signal);
      if (health.status === 200) return { ready: true, latencyMs: elapsed(), via: 'healthz' };
      return {
        ready: false,
        latencyMs: elapsed(),
        via: 'healthz',
        reason: `zoekt /healthz answered ${health.status}: ${health.body.trim().slice(0, 200)}`,
        answered: true,
      };
    } catch (err) {
      const te = err instanceof ToolError ? err : this.transportError(err, 'readyz', deadline - started);
      return { ready: false, latencyMs: elapsed(), via: 'readyz', reason: te.message, answered: false };
    }
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }

  private async get(path: string, deadline: number, signal?: AbortSignal) {
    const url = new URL(path, this.base);
    const started = performance.now();
    const budget = deadline - Date.now();
    try {
      const dispatcher = await this.dispatcher();
      const res = await undici!.request(dispatcher, url, {
        method: 'GET',
        signal: untilDeadline(signal, deadline),
      });
      const body = await res.body.text();
      return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body };
    } catch (err) {
      throw this.transportError(err, path, budget);
    } finally {
      this.metrics?.zoektRequest(this.url, path, performance.now() - started);
    }
  }

  private async postJson<T>(
    path: string,
    payload: unknown,
    decode: (json: unknown) => T,
    deadline: number,
    signal?: AbortSignal,
    maxBytes = MAX_BODY_BYTES,
  ): Promise<T> {
    const started = Date.now();
    const budget = deadline - started;
    const attempt = async (): Promise<T> => {
      if (signal?.aborted) throw new AbortError(cancelled());
      if (Date.now() >= deadline) throw new AbortError(this.timeout(path, budget));
      const text = await this.send(path, payload, deadline, signal, maxBytes, budget);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new AbortError(this.misconfigured(path, 'a body that is not JSON'));
      }
      try {
        return decode(json);
      } catch (err) {
        if (err instanceof WireShapeError) throw new AbortError(this.misconfigured(path, `JSON of an unexpected shape (${err.message})`));
        throw err;
      }
    };
    try {
      const out = await pRetry(attempt, {
        retries: this.retries,
        minTimeout: 50,
        maxTimeout: 400,
        factor: 3,
        randomize: true,
        // Only failures thrown without AbortError reach here: refused/reset connections and 502/503/504.
        shouldRetry: () => Date.now() + 50 < deadline,
      });
      this.log.debug('zoekt call', { path, ms: Date.now() - started });
      return out;
    } catch (err) {
      this.log.debug('zoekt call failed', { path, ms: Date.now() - started, error: String(err) });
      throw err instanceof ToolError ? err : this.transportError(err, path, budget);
    }
  }

  /** One HTTP exchange; returns the body of a 200 or throws a classified ToolError. */
  /** `budget`: the time the request was given, for the message when it runs out. */
  private async send(path: string, payload: unknown, deadline: number, signal: AbortSignal | undefined, maxBytes: number, budget: number): Promise<string> {
    const url = new URL(path, this.base);
    let status: number;
    let contentType: string;
    let body: string;
    const query = (payload as { Q?: unknown } | undefined)?.Q;
    this.onRequest?.({ path, phase: 'start', ...(typeof query === 'string' ? { query } : {}) });
    const started = performance.now();
    try {
      const dispatcher = await this.dispatcher();
      const res = await undici!.request(dispatcher, url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(payload),
        signal: untilDeadline(signal, deadline),
      });
      status = res.statusCode;
      contentType = String(res.headers['content-type'] ?? '');
      body = await readCapped(res.body, maxBytes, path);
    } catch (err) {
      if (err instanceof AnswerTooLarge) throw new AbortError(err);
      if (err instanceof ToolError) throw err;
      if (signal?.aborted) throw new AbortError(cancelled());
      const te = this.transportError(err, path, budget);
      // A refused or reset connection is worth another try (Zoekt restarting); anything else is not.
      if (te.code === 'UNAVAILABLE' && TRANSIENT_CODES.has(errorCode(err) ?? '')) throw te;
      throw new AbortError(te);
    } finally {
      this.metrics?.zoektRequest(this.url, path, performance.now() - started);
      this.onRequest?.({ path, phase: 'end', ...(typeof query === 'string' ? { query } : {}) });
    }
    if (status === 200) {
      if (/text\/html/i.test(contentType) || body.trimStart().startsWith('<')) {
        throw new AbortError(this.misconfigured(path, 'an HTML page'));
      }
      return body;
    }
    const zoektError = parseErrorBody(body);
    // Zoekt reports a few query shapes it cannot run as HTTP 500; they are the query's fault, not Zoekt's.
    if ((status === 400 || (status === 500 && isUnrunnableQuery(zoektError))) && zoektError !== undefined) {
      throw new AbortError(queryError(zoektError));
    }
    if (status === 404 || status === 405 || /text\/html/i.test(contentType)) {
      throw new AbortError(this.misconfigured(path, `HTTP ${status}`));
    }
    if (zoektError !== undefined && /deadline exceeded|context canceled/i.test(zoektError)) {
      throw new AbortError(this.timeout(path, budget));
    }
    const err = new ToolError(
      'UNAVAILABLE',
      `zoekt at ${this.url} answered HTTP ${status}${zoektError ? `: ${zoektError}` : ''}`,
      `Zoekt is up but failing. Check its logs and ${this.url}/healthz; retry in a few seconds.`,
      { retryable: true },
    );
    if (TRANSIENT_STATUS.has(status)) throw err;
    throw new AbortError(err);
  }

  /** Classifies a failure below HTTP (socket, DNS, deadline) by undici's and Node's error codes. */
  /** `budget`: the time the request was given (the call's deadline, or less), for a timeout's message. */
  private transportError(err: unknown, path: string, budget: number): ToolError {
    if (err instanceof ToolError) return err;
    const code = errorCode(err);
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || (undici !== undefined && err instanceof undici.errors.ConnectTimeoutError)) {
      return this.timeout(path, budget, err);
    }
    if (name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return cancelled(err);
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return new AnswerTooLarge(`zoekt's answer to /${path} is larger than the ${MAX_BODY_BYTES / (1024 * 1024)} MiB this adapter reads`, err);
    const why = code ? `${code}` : err instanceof Error ? err.message : String(err);
    return new ToolError(
      'UNAVAILABLE',
      `zoekt is unreachable at ${this.url} (${why})`,
      `Start zoekt-webserver with -rpc on that address, or point ZOEKT_URL / --zoekt-url at it; check with: curl ${this.url}/healthz`,
      { cause: err },
    );
  }

  private timeout(path: string, budget: number, cause?: unknown): ToolError {
    return new ToolError(
      'TIMEOUT',
      budget < 1
        ? `the call's deadline of ${this.timeoutMs} ms (--timeout-ms) had run out before zoekt was asked /${path}`
        : `zoekt did not answer /${path} within the ${Math.round(budget)} ms it was given (what was left of the call's deadline of ${this.timeoutMs} ms, --timeout-ms)`,
      'Narrow the query (add repos, paths or languages filters, or a more selective term), or raise ZOEKT_MCP_TIMEOUT_MS.',
      { cause },
    );
  }

  private misconfigured(path: string, what: string): ToolError {
    return new ToolError(
      'BACKEND_MISCONFIGURED',
      `zoekt at ${this.url} answered /${path} with ${what}, not the JSON API`,
      `Start zoekt-webserver with the -rpc flag (it serves /api/search and /api/list only then), and check that ZOEKT_URL points at zoekt-webserver, not at another service.`,
    );
  }
}

/**
 * The call asked for more than one answer may hold. Only the tool knows which of its arguments
 * narrow it, so the hint here is generic and the tool replaces it (see `narrowed`).
 */
export class AnswerTooLarge extends ToolError {
  constructor(message: string, cause?: unknown) {
    // The arguments were valid: a narrower call answers.
    super('UNAVAILABLE', message, 'Ask for less: a narrower query or a lower limit.', { cause, retryable: true });
  }

  /** The same failure with the tool's own advice. */
  narrowed(hint: string): ToolError {
    return new ToolError(this.code, this.message, hint, { cause: this.cause, retryable: true });
  }
}

/** The body as text, refused as soon as it passes `cap` bytes (the rest is never read or kept). */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, cap: number, path: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) {
      body.destroy();
      throw new AnswerTooLarge(`zoekt's answer to /${path} is larger than the ${(cap / (1024 * 1024)).toFixed(0)} MiB this call may hold`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function cancelled(cause?: unknown): ToolError {
  return new ToolError('TIMEOUT', 'the request was cancelled before zoekt answered', 'Call again if the result is still needed.', { cause });
}

function queryError(zoektMessage: string): ToolError {
  return new ToolError('QUERY_ERROR', `zoekt rejected the query: ${zoektMessage}`, queryErrorHint(zoektMessage), {
    retryable: false,
  });
}

function parseErrorBody(body: string): string | undefined {
  try {
    const parsed = ErrorReply.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.Error : undefined;
  } catch {
    return undefined;
  }
}
