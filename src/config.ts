/**
 * One typed, validated configuration: built-in defaults < environment < command-line flags.
 */
import { parseArgs } from 'node:util';
import type { LogLevel } from './log.js';
import { repoGlobToRegex } from './search/globs.js';
import { isLoopbackHost, LOOPBACK_ORIGINS, parseOriginPattern, type OriginPattern } from './server/origins.js';

export interface HttpConfig {
  host: string;
  /** 0 lets the system pick a free port; the bound address is logged. */
  port: number;
  /** When set, /mcp, /sse and /messages need `Authorization: Bearer <token>`. */
  authToken?: string;
  /** The browser origins that may call; a request whose Origin is not among them gets 403. */
  allowedOrigins: OriginPattern[];
  /** How long in-flight calls may take to finish after SIGTERM or SIGINT. */
  shutdownTimeoutMs: number;
}

export interface Config {
  zoektUrl: string;
  timeoutMs: number;
  logLevel: LogLevel;
  /** Memory for ranked result windows that serve later pages, in MiB; 0 turns the cache off. */
  cacheMb: number;
  /** How long a cached window is served. */
  cacheTtlMs: number;
  /** Repo-name globs every tool is confined to; empty means every indexed repo. */
  allowRepos: string[];
  /** Present when serving over HTTP; stdio otherwise. */
  http?: HttpConfig;
}

export type ConfigOutcome =
  | { kind: 'run'; config: Config }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; reason: string };

export const DEFAULTS: Config = {
  zoektUrl: 'http://127.0.0.1:6070',
  timeoutMs: 10_000,
  logLevel: 'info',
  cacheMb: 64,
  cacheTtlMs: 120_000,
  allowRepos: [],
};

export const HTTP_DEFAULTS = { host: '127.0.0.1', port: 3000, shutdownTimeoutMs: 10_000 } as const;

/** Tokens shorter than this are refused: a bearer token is all that stands between the network and the index. */
const MIN_TOKEN_LENGTH = 16;

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export const HELP = `zoekt-mcp: an MCP server for code search with Zoekt

Usage: zoekt-mcp [options]

Serves the Model Context Protocol over stdio (stdin/stdout), or over HTTP with --http.
Logs go to stderr.

Options (each also read from the environment variable shown; flags win):
  --zoekt-url URL      zoekt-webserver base URL, started with -rpc   ZOEKT_URL             (default ${DEFAULTS.zoektUrl})
  --timeout-ms N       deadline of one Zoekt call, retries included  ZOEKT_MCP_TIMEOUT_MS  (default ${DEFAULTS.timeoutMs}; 100–120000)
  --log-level LEVEL    debug | info | warn | error | silent          ZOEKT_MCP_LOG_LEVEL   (default ${DEFAULTS.logLevel})
  --allow-repos GLOBS  confine every tool to these repos, comma-     ZOEKT_MCP_ALLOW_REPOS (default: all repos)
                       separated globs: github.com/acme/*,webapp
  --cache-mb N         memory for result windows of later pages, MiB ZOEKT_MCP_CACHE_MB    (default ${DEFAULTS.cacheMb}; 0 turns it off; 0–4096)
  --cache-ttl-ms N     how long a cached window is served            ZOEKT_MCP_CACHE_TTL_MS (default ${DEFAULTS.cacheTtlMs}; 1000–3600000)
  -h, --help           show this help
  -v, --version        print the version

HTTP: Streamable HTTP at /mcp, legacy SSE at GET /sse + POST /messages, probes GET /healthz, GET /readyz.
  --http                   ZOEKT_MCP_HTTP=1               serve HTTP instead of stdio
  --host HOST              ZOEKT_MCP_HOST                 address to bind (default ${HTTP_DEFAULTS.host})
  --port N                 ZOEKT_MCP_PORT                 port to bind (default ${HTTP_DEFAULTS.port}; 0 picks a free one, logged)
  --auth-token TOKEN       ZOEKT_MCP_AUTH_TOKEN           require "Authorization: Bearer TOKEN" on /mcp, /sse, /messages
                                                          (${MIN_TOKEN_LENGTH}+ characters; prefer the variable, flags show in ps)
  --insecure-no-auth       ZOEKT_MCP_INSECURE_NO_AUTH=1   allow a non-loopback --host without a token
  --allowed-origins LIST   ZOEKT_MCP_ALLOWED_ORIGINS      browser origins allowed to call, comma-separated, e.g.
                                                          https://app.example.com,http://localhost:* (default: loopback
                                                          origins on a loopback --host, none otherwise)
  --shutdown-timeout-ms N  ZOEKT_MCP_SHUTDOWN_TIMEOUT_MS  after SIGTERM/SIGINT, how long in-flight calls may finish
                                                          (default ${HTTP_DEFAULTS.shutdownTimeoutMs}; 0–600000)

Exit codes: 0 normal end (also after SIGTERM/SIGINT), 1 fatal error (e.g. port in use), 2 bad configuration.
`;

function parseUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${source} is not a URL: ${JSON.stringify(value)} (expected e.g. http://127.0.0.1:6070)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${source} must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
  }
  return value.replace(/\/+$/, '');
}

function parseInteger(value: string, source: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim())) throw new Error(`${source} must be a whole number, got ${JSON.stringify(value)}`);
  const n = Number(value.trim());
  if (n < min || n > max) throw new Error(`${source} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function parseBoolean(value: string, source: string): boolean {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new Error(`${source} must be true or false (1/0, yes/no, on/off), got ${JSON.stringify(value)}`);
}

function parseHost(value: string, source: string): string {
  const v = value.trim().replace(/^\[(.*)\]$/, '$1');
  if (v === '' || /[\s/?#@]/.test(v)) throw new Error(`${source} must be an IP address or host name, got ${JSON.stringify(value)}`);
  return v;
}

function parseToken(value: string, source: string): string {
  if (/[^\x21-\x7e]/.test(value)) throw new Error(`${source} must be printable ASCII without spaces`);
  if (value.length < MIN_TOKEN_LENGTH) {
    throw new Error(`${source} is shorter than ${MIN_TOKEN_LENGTH} characters; use a random one, e.g. from: openssl rand -hex 32`);
  }
  return value;
}

function parseOrigins(value: string, source: string): OriginPattern[] {
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return items.map((item) => {
    try {
      return parseOriginPattern(item);
    } catch (err) {
      throw new Error(`${source}: ${(err as Error).message}`);
    }
  });
}

function parseLogLevel(value: string, source: string): LogLevel {
  const v = value.trim().toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(v)) throw new Error(`${source} must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(value)}`);
  return v;
}

function parseRepoGlobs(value: string, source: string): string[] {
  const globs = value.split(',').map((g) => g.trim()).filter(Boolean);
  if (globs.length === 0) throw new Error(`${source} names no repository glob, got ${JSON.stringify(value)}`);
  for (const g of globs) {
    try {
      repoGlobToRegex(g);
    } catch (err) {
      throw new Error(`${source}: ${(err as Error).message}`);
    }
  }
  return globs;
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): ConfigOutcome {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'zoekt-url': { type: 'string' },
        'timeout-ms': { type: 'string' },
        'log-level': { type: 'string' },
        'allow-repos': { type: 'string' },
        'cache-mb': { type: 'string' },
        'cache-ttl-ms': { type: 'string' },
        http: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        'auth-token': { type: 'string' },
        'insecure-no-auth': { type: 'boolean' },
        'allowed-origins': { type: 'string' },
        'shutdown-timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }));
  } catch (err) {
    return { kind: 'error', reason: `${(err as Error).message.split('\n')[0]} (see --help)` };
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  try {
    const pick = (flag: string, envName: string): [string, string] | undefined => {
      const f = values[flag];
      if (typeof f === 'string') return [f, `--${flag}`];
      const e = env[envName];
      if (e !== undefined && e !== '') return [e, envName];
      return undefined;
    };
    const config: Config = { ...DEFAULTS };
    const url = pick('zoekt-url', 'ZOEKT_URL');
    if (url) config.zoektUrl = parseUrl(...url);
    const timeout = pick('timeout-ms', 'ZOEKT_MCP_TIMEOUT_MS');
    if (timeout) config.timeoutMs = parseInteger(timeout[0], timeout[1], 100, 120_000);
    const level = pick('log-level', 'ZOEKT_MCP_LOG_LEVEL');
    if (level) config.logLevel = parseLogLevel(...level);
    const cacheMb = pick('cache-mb', 'ZOEKT_MCP_CACHE_MB');
    if (cacheMb) config.cacheMb = parseInteger(cacheMb[0], cacheMb[1], 0, 4096);
    const cacheTtl = pick('cache-ttl-ms', 'ZOEKT_MCP_CACHE_TTL_MS');
    if (cacheTtl) config.cacheTtlMs = parseInteger(cacheTtl[0], cacheTtl[1], 1000, 3_600_000);
    const allow = pick('allow-repos', 'ZOEKT_MCP_ALLOW_REPOS');
    if (allow) config.allowRepos = parseRepoGlobs(...allow);
    const http = loadHttp(values, env, pick);
    if (http) config.http = http;
    return { kind: 'run', config };
  } catch (err) {
    return { kind: 'error', reason: (err as Error).message };
  }
}

const HTTP_ONLY_FLAGS = ['host', 'port', 'auth-token', 'insecure-no-auth', 'allowed-origins', 'shutdown-timeout-ms'];

function loadHttp(
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv,
  pick: (flag: string, envName: string) => [string, string] | undefined,
): HttpConfig | undefined {
  const flagOrEnv = (flag: string, envName: string): boolean => {
    if (values[flag] === true) return true;
    const e = env[envName];
    return e !== undefined && parseBoolean(e, envName);
  };
  if (!flagOrEnv('http', 'ZOEKT_MCP_HTTP')) {
    // A flag that only means something over HTTP is a mistake without it; the variables may be set
    // for a whole deployment and are left alone.
    const stray = HTTP_ONLY_FLAGS.find((f) => values[f] !== undefined);
    if (stray) throw new Error(`--${stray} only applies with --http (or ZOEKT_MCP_HTTP=1)`);
    return undefined;
  }
  const host = pick('host', 'ZOEKT_MCP_HOST');
  const port = pick('port', 'ZOEKT_MCP_PORT');
  const timeout = pick('shutdown-timeout-ms', 'ZOEKT_MCP_SHUTDOWN_TIMEOUT_MS');
  const token = pick('auth-token', 'ZOEKT_MCP_AUTH_TOKEN');
  const origins = pick('allowed-origins', 'ZOEKT_MCP_ALLOWED_ORIGINS');
  const http: HttpConfig = {
    host: host ? parseHost(...host) : HTTP_DEFAULTS.host,
    port: port ? parseInteger(port[0], port[1], 0, 65_535) : HTTP_DEFAULTS.port,
    allowedOrigins: [],
    shutdownTimeoutMs: timeout ? parseInteger(timeout[0], timeout[1], 0, 600_000) : HTTP_DEFAULTS.shutdownTimeoutMs,
  };
  if (token) http.authToken = parseToken(...token);
  const loopback = isLoopbackHost(http.host);
  if (!loopback && !http.authToken && !flagOrEnv('insecure-no-auth', 'ZOEKT_MCP_INSECURE_NO_AUTH')) {
    throw new Error(
      `refusing to serve ${http.host} (not a loopback address) without --auth-token or ZOEKT_MCP_AUTH_TOKEN; ` +
        'set a token, bind 127.0.0.1, or pass --insecure-no-auth if something in front of it authenticates',
    );
  }
  http.allowedOrigins = origins ? parseOrigins(...origins) : loopback ? LOOPBACK_ORIGINS.map(parseOriginPattern) : [];
  return http;
}
