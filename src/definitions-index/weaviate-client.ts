/**
 * The HTTP client of a Weaviate server: its REST and GraphQL API, the deadline of every call,
 * retries of connection failures (a server restarting, a pod rescheduled), and every failure made
 * a ToolError where its cause is seen. Only this module knows how Weaviate answers on the wire.
 */
import { errorCode, untilDeadline } from '../request-errors.js';
import type { Agent, Dispatcher } from 'undici';
import pRetry, { AbortError } from 'p-retry';
import { ToolError } from '../errors.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';

export interface WeaviateClientOptions {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Deadline of one call, retries included. */
  timeoutMs: number;
  /** Retries of refused or reset connections and 502/503/504 within the deadline. */
  retries?: number;
  logger?: Logger;
}

/** An answer of Weaviate's GraphQL endpoint: `data`, or `errors` with a message each. */
interface GraphQLReply {
  data?: unknown;
  errors?: { message?: string }[];
}

/** A GraphQL error that says the class asked for is not in the schema (nothing pushed yet). */
export class MissingClass extends Error {}

const TRANSIENT_STATUS = new Set([502, 503, 504]);
const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'EAI_AGAIN', 'UND_ERR_CLOSED']);
/** A batch of a few thousand objects with vectors is a few MiB; answers are smaller. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

let undici: Promise<typeof import('undici')> | undefined;

/** undici is CommonJS: its exports are the module's own under Node's loader, its `default` in a bundle's chunk. */
async function loadUndici(): Promise<typeof import('undici')> {
  const m = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  return typeof m.Agent === 'function' ? m : m.default!;
}

export class WeaviateClient {
  readonly url: string;
  private readonly base: URL;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly log: Logger;
  private agent: Promise<Agent> | undefined;

  constructor(opts: WeaviateClientOptions) {
    this.base = new URL(opts.url.endsWith('/') ? opts.url : `${opts.url}/`);
    this.url = this.base.toString().replace(/\/$/, '');
    this.timeoutMs = opts.timeoutMs;
    this.retries = opts.retries ?? 2;
    this.log = opts.logger ?? silentLogger;
  }

  /** The connection pool, made with the first request; undici is loaded only where Weaviate is used. */
  private dispatcher(): Promise<Agent> {
    return (this.agent ??= (undici ??= loadUndici()).then(
      (u) => new u.Agent({ keepAliveTimeout: 30_000, connections: 16, connect: { timeout: Math.min(5_000, this.timeoutMs) }, maxResponseSize: MAX_BODY_BYTES }),
    ));
  }

  /** A GraphQL query; its `data`. A class that does not exist raises MissingClass. */
  async graphql(query: string, signal?: AbortSignal): Promise<unknown> {
    const reply = (await this.call('POST', 'v1/graphql', { query }, signal)) as GraphQLReply;
    if (reply.errors?.length) {
      const message = reply.errors.map((e) => e.message ?? '?').join('; ');
      if (/Cannot query field "[A-Z]\w*" on type "(GetObjectsObj|AggregateObjectsObj)"/.test(message)) throw new MissingClass(message);
      throw this.misconfigured('v1/graphql', `a GraphQL error: ${message.slice(0, 500)}`);
    }
    return reply.data;
  }

  /** GET, POST, PUT or DELETE of a REST path; the decoded JSON (undefined for an empty body); 404 → undefined. */
  async rest(method: Dispatcher.HttpMethod, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.call(method, path, body, signal, true);
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }

  private async call(method: Dispatcher.HttpMethod, path: string, payload: unknown, signal: AbortSignal | undefined, notFoundIsEmpty = false): Promise<unknown> {
    const started = Date.now();
    const deadline = started + this.timeoutMs;
    const attempt = async (): Promise<unknown> => {
      if (signal?.aborted) throw new AbortError(cancelled(this.url));
      if (Date.now() >= deadline) throw new AbortError(this.timeout(path));
      const { status, text } = await this.send(method, path, payload, deadline, signal);
      if (status === 404 && notFoundIsEmpty) return undefined;
      if (status >= 200 && status < 300) {
        if (!text.trim()) return undefined;
        try {
          return JSON.parse(text);
        } catch {
          throw new AbortError(this.misconfigured(path, 'a body that is not JSON'));
        }
      }
      const err = new ToolError('UNAVAILABLE', `weaviate at ${this.url} answered ${method} /${path} with HTTP ${status}: ${errorText(text)}`, `Weaviate is up but refused or failed the request. Check its logs and ${this.url}/v1/.well-known/ready.`, {
        retryable: status >= 500,
      });
      if (TRANSIENT_STATUS.has(status)) throw err;
      throw new AbortError(status === 422 || status === 400 ? this.misconfigured(path, `HTTP ${status}: ${errorText(text)}`) : err);
    };
    try {
      return await pRetry(attempt, {
        retries: this.retries,
        minTimeout: 50,
        maxTimeout: 400,
        factor: 3,
        randomize: true,
        // Only failures thrown without AbortError reach here: refused/reset connections and 502/503/504.
        shouldRetry: () => Date.now() + 50 < deadline,
      });
    } catch (err) {
      this.log.debug('weaviate call failed', { path, ms: Date.now() - started, error: String(err) });
      throw err instanceof ToolError ? err : this.transportError(err, path);
    }
  }

  private async send(method: Dispatcher.HttpMethod, path: string, payload: unknown, deadline: number, signal: AbortSignal | undefined): Promise<{ status: number; text: string }> {
    const url = new URL(path, this.base);
    try {
      const dispatcher = await this.dispatcher();
      const u = await undici!;
      const res = await u.request(url, {
        dispatcher,
        method,
        headers: payload === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json', accept: 'application/json' },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
        signal: untilDeadline(signal, deadline),
      });
      return { status: res.statusCode, text: await res.body.text() };
    } catch (err) {
      if (signal?.aborted) throw new AbortError(cancelled(this.url));
      const te = this.transportError(err, path);
      // A refused or reset connection is worth another try (Weaviate restarting); anything else is not.
      if (te.code === 'UNAVAILABLE' && TRANSIENT_CODES.has(errorCode(err) ?? '')) throw te;
      throw new AbortError(te);
    }
  }

  private transportError(err: unknown, path: string): ToolError {
    if (err instanceof ToolError) return err;
    const code = errorCode(err);
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return this.timeout(path, err);
    if (name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return cancelled(this.url, err);
    const why = code ?? (err instanceof Error ? err.message : String(err));
    return new ToolError('UNAVAILABLE', `the definitions index is unreachable: weaviate at ${this.url} (${why})`, `Start Weaviate on that address, or point --definitions-url / ZOEKT_MCP_DEFINITIONS_URL at it; check with: curl ${this.url}/v1/.well-known/ready`, { cause: err });
  }

  private timeout(path: string, cause?: unknown): ToolError {
    return new ToolError('TIMEOUT', `weaviate at ${this.url} did not answer /${path} within ${this.timeoutMs} ms`, 'Narrow the search (repos, languages, kinds filters) or raise ZOEKT_MCP_TIMEOUT_MS; check the load of the Weaviate server.', { cause });
  }

  private misconfigured(path: string, what: string): ToolError {
    return new ToolError('BACKEND_MISCONFIGURED', `weaviate at ${this.url} answered /${path} with ${what}`, `Check that --definitions-url / ZOEKT_MCP_DEFINITIONS_URL points at a Weaviate server (1.35 or later) that holds an index pushed by zoekt-mcp definitions push.`);
  }
}

function cancelled(url: string, cause?: unknown): ToolError {
  return new ToolError('TIMEOUT', `the request was cancelled before weaviate at ${url} answered`, 'Call again if the result is still needed.', { cause });
}

/** Weaviate's error bodies: `{"error":[{"message":…}]}`, or plain text. */
function errorText(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: string }[] | string; message?: string };
    if (Array.isArray(json.error)) return json.error.map((e) => e.message).join('; ').slice(0, 500);
    if (typeof json.error === 'string') return json.error.slice(0, 500);
    if (typeof json.message === 'string') return json.message.slice(0, 500);
  } catch {
    // Not JSON: the text itself.
  }
  return text.trim().slice(0, 500) || 'no message';
}
