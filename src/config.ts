/**
 * One typed, validated configuration: built-in defaults < environment < command-line flags.
 */
import { parseArgs } from 'node:util';
import type { LogLevel } from './log.js';
import { repoGlobToRegex } from './patterns/globs.js';
import { isLoopbackHost, LOOPBACK_HOSTS, LOOPBACK_ORIGINS, parseHostPattern, parseOriginPattern, type HostPattern, type OriginPattern } from './patterns/hosts.js';

export interface HttpConfig {
  host: string;
  /** 0 lets the system pick a free port; the bound address is logged. */
  port: number;
  /** When set, /mcp, /sse and /messages need `Authorization: Bearer <token>`. */
  authToken?: string;
  /** When set, the server is an OAuth 2.1 resource server: it takes access tokens of these issuers (never with authToken). */
  oauth?: OAuthConfig;
  /** Options given that mean nothing as combined: logged as warnings when the server starts. */
  warnings?: string[];
  /** The URL clients reach the server by (scheme, host, port, any path prefix); absent: the bound address. */
  publicUrl?: string;
  /** The browser origins that may call; a request whose Origin is not among them gets 403. */
  allowedOrigins: OriginPattern[];
  /** The Host headers the MCP endpoints answer; others get 403 (the probes answer any). */
  allowedHosts: HostPattern[];
  /** How long in-flight calls may take to finish after SIGTERM or SIGINT. */
  shutdownTimeoutMs: number;
  /** A connection that has not sent its whole request head by then is answered 408 and closed. */
  headersTimeoutMs: number;
  /** The same for the whole request, body included; the time the answer takes is not counted. */
  requestTimeoutMs: number;
  /** How long a kept-alive connection may sit idle between requests. */
  keepAliveTimeoutMs: number;
  /** Open sockets; past it idle, then unfinished connections are closed, and only when all are active a newcomer gets 503. */
  maxConnections: number;
  /** Connections still sending their request; past it the oldest is closed to make room. */
  maxUnfinished: number;
  /** The same, for one peer address. */
  maxUnfinishedPerPeer: number;
  /** Open legacy SSE sessions (each a stream and a server); past it GET /sse gets 503 with Retry-After. */
  maxSseSessions: number;
  /** Messages in one JSON-RPC batch; a larger batch is refused whole with -32600. */
  maxBatch: number;
  /** What a connection may hold written but not taken by its client, in MiB; past it, a client that takes nothing is cut off. */
  writeBudgetMb: number;
}

/** Resource-server mode: which access tokens the HTTP endpoints take, and what each may read. */
export interface OAuthConfig {
  /** The authorization servers whose tokens are taken, by issuer identifier (their `iss`). */
  issuers: string[];
  /** One more audience a token may carry (RFC 8707), besides the server's own URLs; never the metadata's resource. */
  audience?: string;
  /** The scope a token needs for the tools and /metrics. */
  scope: string;
  /** The token claim whose values name what a caller may read (groups, repos, …); absent: every caller reads what the server may. */
  reposClaim?: string;
  /** Each value of that claim and the repository globs it grants; values not listed grant nothing. */
  reposMap?: { value: string; globs: string[] }[];
  /** This server's client at the issuers, for token introspection (RFC 7662) of opaque tokens; absent: opaque tokens are refused. */
  client?: { id: string; secret: string };
  /** Take JWT access tokens typed `JWT` too (issuers such as Keycloak and Entra ID), not only `at+jwt`; ID tokens (a nonce) are refused still. */
  acceptJwtTyp?: boolean;
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
  /** Tool calls run at once by this process; more wait in a queue. */
  maxInFlight: number;
  /** Tool calls that may wait for a turn; past it a call is refused with OVERLOADED. */
  maxQueue: number;
  /** The text an answer may have, in characters, unless a call asks for another bound (max_output_chars). */
  maxOutputChars: number;
  /** The key pagination cursors are signed with; absent: the user's kept key over stdio (main.ts), a random one per process over HTTP. */
  cursorSecret?: string;
  /** A folder holding a definitions index (`zoekt-mcp definitions build --out`): description search ranks by meaning from it. */
  definitions?: string;
  /** A Weaviate server holding the definitions index (`zoekt-mcp definitions push`), for replicas that share one. */
  definitionsUrl?: string;
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
  maxInFlight: 16,
  // Enough for a few hundred agents calling at once: a waiting call holds its parsed request only.
  maxQueue: 512,
  // About 6,000 tokens: a page an agent can read whole without crowding out its own context.
  maxOutputChars: 24_000,
};

export const HTTP_DEFAULTS = {
  host: '127.0.0.1',
  port: 3000,
  shutdownTimeoutMs: 10_000,
  // Far above what a client on any network needs to send a JSON-RPC message of at most 1 MiB,
  // far below what lets a few hundred slow connections hold the server (node's own: 60 s, 300 s).
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  // Sockets are cheap; what they carry is bounded by the budgets below and by admission control.
  maxConnections: 2048,
  maxUnfinished: 256,
  maxUnfinishedPerPeer: 64,
  maxSseSessions: 256,
  // A batch is for a client sending a few calls at once, not a way past admission control.
  maxBatch: 20,
  // A few pages of the largest answer a call may ask for (1,000,000 characters): a client that
  // reads, however slowly, takes some of it; one that does not holds no more than this.
  writeBudgetMb: 8,
} as const;

/** What max_output_chars, of the server or of a call, may be. */
export const OUTPUT_CHARS_BOUNDS = { min: 2_000, max: 1_000_000 } as const;

/** Tokens shorter than this are refused: a bearer token is all that stands between the network and the index. */
const MIN_TOKEN_LENGTH = 16;

/** Cursor secrets shorter than this are refused: a cursor signed with a guessable key can be forged. */
const MIN_SECRET_LENGTH = 32;

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/**
 * One command-line option as data: what --help prints, what the option tables of docs/ are
 * generated from (scripts/gen-docs.mjs), and what loadConfig parses with.
 */
export interface OptionSpec {
  /** The flag without its dashes. */
  name: string;
  /** The value's placeholder in --help (URL, N, …); absent for an on/off switch. */
  value?: string;
  /** The environment variable read when the flag is absent. */
  env: string;
  /** The built-in default: a value, or words when there is none to show. */
  default: string | number | { text: string };
  description: string;
  /** Whole-number bounds, checked at start. */
  min?: number;
  max?: number;
  /** The only values taken. */
  choices?: readonly string[];
  /** 'http' options mean something only with --http. */
  group: 'general' | 'http';
  /**
   * The field loadConfig sets from it (of Config, or of HttpConfig for an 'http' option), with the
   * parser of its value (a whole number within min and max when there is none). Absent for the
   * options loadConfig reads by hand: switches, and those whose default depends on another.
   */
  field?: keyof Config | keyof HttpConfig;
  parse?: (value: string, source: string) => Config[keyof Config] | HttpConfig[keyof HttpConfig];
}

export const OPTIONS: readonly OptionSpec[] = [
  {
    name: 'zoekt-url',
    value: 'URL',
    env: 'ZOEKT_URL',
    default: DEFAULTS.zoektUrl,
    description: 'zoekt-webserver base URL, or several separated by commas, each serving its own share of the repositories; each must run with -rpc',
    group: 'general',
    field: 'zoektUrl',
    parse: parseUrls,
  },
  {
    name: 'timeout-ms',
    value: 'N',
    env: 'ZOEKT_MCP_TIMEOUT_MS',
    default: DEFAULTS.timeoutMs,
    min: 100,
    max: 120_000,
    description: 'deadline of one tool call from its arrival (over Streamable HTTP, from the request, its body included): its wait for a turn, every Zoekt request (retries included) and the reply; Zoekt is told to stop searching a little before it',
    group: 'general',
    field: 'timeoutMs',
  },
  {
    name: 'log-level',
    value: 'LEVEL',
    env: 'ZOEKT_MCP_LOG_LEVEL',
    default: DEFAULTS.logLevel,
    choices: LOG_LEVELS,
    description: 'how much to log, as JSON lines on stderr',
    group: 'general',
    field: 'logLevel',
    parse: parseLogLevel,
  },
  {
    name: 'allow-repos',
    value: 'GLOBS',
    env: 'ZOEKT_MCP_ALLOW_REPOS',
    default: { text: 'all repositories' },
    description: 'comma-separated repo-name globs (github.com/acme/*,webapp); every tool is confined to them',
    group: 'general',
    field: 'allowRepos',
    parse: parseRepoGlobs,
  },
  {
    name: 'cursor-secret',
    value: 'SECRET',
    env: 'ZOEKT_MCP_CURSOR_SECRET',
    default: { text: "over stdio the user's, kept in ~/.local/state/zoekt-mcp/cursor-secret ($XDG_STATE_HOME); over HTTP random per process" },
    description: `key that signs pagination cursors (HMAC-SHA256), ${MIN_SECRET_LENGTH}+ printable characters; give every replica the same one so any of them resumes another's cursors, and keep it across restarts. Prefer the variable: flags show in ps`,
    group: 'general',
    field: 'cursorSecret',
    parse: parseSecret,
  },
  {
    name: 'definitions',
    value: 'DIR',
    env: 'ZOEKT_MCP_DEFINITIONS',
    default: { text: 'none: description search matches the words of names (under the local serve command, its own index)' },
    description: 'folder of a definitions index built beside Zoekt\'s (zoekt-mcp definitions build --out DIR): search_symbols by description then ranks definitions by what their documentation says and by meaning',
    group: 'general',
    field: 'definitions',
    parse: parseDefinitionsDir,
  },
  {
    name: 'definitions-url',
    value: 'URL',
    env: 'ZOEKT_MCP_DEFINITIONS_URL',
    default: { text: 'none' },
    description: 'a Weaviate server holding the definitions index (zoekt-mcp definitions push), shared by every replica; instead of --definitions',
    group: 'general',
    field: 'definitionsUrl',
    parse: parseDefinitionsUrl,
  },
  {
    name: 'cache-mb',
    value: 'N',
    env: 'ZOEKT_MCP_CACHE_MB',
    default: DEFAULTS.cacheMb,
    min: 0,
    max: 4096,
    description: 'memory in MiB for the ranked windows that serve later pages; 0 turns the cache off',
    group: 'general',
    field: 'cacheMb',
  },
  {
    name: 'cache-ttl-ms',
    value: 'N',
    env: 'ZOEKT_MCP_CACHE_TTL_MS',
    default: DEFAULTS.cacheTtlMs,
    min: 1000,
    max: 3_600_000,
    description: 'how long a cached window serves later pages',
    group: 'general',
    field: 'cacheTtlMs',
  },
  {
    name: 'max-output-chars',
    value: 'N',
    env: 'ZOEKT_MCP_MAX_OUTPUT_CHARS',
    default: DEFAULTS.maxOutputChars,
    min: OUTPUT_CHARS_BOUNDS.min,
    max: OUTPUT_CHARS_BOUNDS.max,
    description: "the text of one answer, in characters (about 4 to a token), unless a call asks for another bound with max_output_chars; a page that would pass it is cut (context lines, then matched lines per file, then results, then line length), says what it cut, and its next cursor goes on from where it stopped. structuredContent carries the same cut page and stays under twice the bound",
    group: 'general',
    field: 'maxOutputChars',
  },
  {
    name: 'max-in-flight',
    value: 'N',
    env: 'ZOEKT_MCP_MAX_IN_FLIGHT',
    default: DEFAULTS.maxInFlight,
    min: 1,
    max: 4096,
    description: 'tool calls this process runs at once, over every transport and session; more wait for a turn (get_health never waits)',
    group: 'general',
    field: 'maxInFlight',
  },
  {
    name: 'max-queue',
    value: 'N',
    env: 'ZOEKT_MCP_MAX_QUEUE',
    default: DEFAULTS.maxQueue,
    min: 0,
    max: 100_000,
    description: 'tool calls that may wait for a turn; past it a call is refused at once with OVERLOADED and retry_after_ms',
    group: 'general',
    field: 'maxQueue',
  },
  {
    name: 'http',
    env: 'ZOEKT_MCP_HTTP',
    default: { text: 'off' },
    description: 'serve MCP over HTTP instead of stdio',
    group: 'http',
  },
  {
    name: 'host',
    value: 'HOST',
    env: 'ZOEKT_MCP_HOST',
    default: HTTP_DEFAULTS.host,
    description: 'address to bind',
    group: 'http',
  },
  {
    name: 'port',
    value: 'N',
    env: 'ZOEKT_MCP_PORT',
    default: HTTP_DEFAULTS.port,
    min: 0,
    max: 65_535,
    description: 'port to bind; 0 picks a free one and logs it',
    group: 'http',
    field: 'port',
  },
  {
    name: 'auth-token',
    value: 'TOKEN',
    env: 'ZOEKT_MCP_AUTH_TOKEN',
    default: { text: 'none' },
    description: `require "Authorization: Bearer TOKEN" on /mcp, /sse and /messages; ${MIN_TOKEN_LENGTH}+ printable characters. Prefer the variable: flags show in ps`,
    group: 'http',
  },
  {
    name: 'oauth-issuer',
    value: 'URLS',
    env: 'ZOEKT_MCP_OAUTH_ISSUER',
    default: { text: 'none' },
    description:
      'serve as an OAuth 2.1 resource server taking access tokens of these authorization servers (comma-separated issuer URLs, https but on loopback; keys found through their RFC 8414 or OpenID Connect metadata); not with --auth-token',
    group: 'http',
  },
  {
    name: 'oauth-audience',
    value: 'URL',
    env: 'ZOEKT_MCP_OAUTH_AUDIENCE',
    default: { text: 'none' },
    description: "one more audience (RFC 8707 resource) an access token may be issued for, besides the server's own (--public-url, and it with /mcp or /sse, which the metadata names)",
    group: 'http',
  },
  {
    name: 'public-url',
    value: 'URL',
    env: 'ZOEKT_MCP_PUBLIC_URL',
    default: { text: 'the bound address, http://HOST:PORT' },
    description:
      'the URL clients reach this server by, e.g. https://mcp.example.com: what the OAuth metadata and WWW-Authenticate point to; needed with --oauth-issuer on a non-loopback --host, and https but on loopback',
    group: 'http',
    field: 'publicUrl',
    parse: parsePublicUrl,
  },
  {
    name: 'oauth-scope',
    value: 'NAME',
    env: 'ZOEKT_MCP_OAUTH_SCOPE',
    default: { text: 'zoekt:read' },
    description: 'the scope an access token needs for the tools and /metrics; a token without it gets 403 insufficient_scope',
    group: 'http',
  },
  {
    name: 'oauth-repos-claim',
    value: 'CLAIM',
    env: 'ZOEKT_MCP_OAUTH_REPOS_CLAIM',
    default: { text: 'none: every token reads what the server may' },
    description:
      'the access-token claim (a string or a list of strings, e.g. groups) whose values --oauth-repos-map turns into the repositories its caller may read; a top-level claim (nested ones, a.b, are not looked up)',
    group: 'http',
  },
  {
    name: 'oauth-repos-map',
    value: 'TABLE',
    env: 'ZOEKT_MCP_OAUTH_REPOS_MAP',
    default: { text: 'none' },
    description:
      "claim values and the repo globs each grants, VALUE=GLOB|GLOB separated by ';' (a value cannot hold = ; or |), e.g. team-a=github.com/acme/a-*|github.com/acme/shared;team-b=github.com/acme/b-*; a caller reads the union of its values' globs (within --allow-repos), and a value not listed grants nothing",
    group: 'http',
  },
  {
    name: 'oauth-client-id',
    value: 'ID',
    env: 'ZOEKT_MCP_OAUTH_CLIENT_ID',
    default: { text: 'none: opaque tokens are refused' },
    description: "this server's client at the issuers, with --oauth-client-secret: opaque (not JWT) access tokens are then checked at the issuer's introspection endpoint (RFC 7662)",
    group: 'http',
  },
  {
    name: 'oauth-client-secret',
    value: 'SECRET',
    env: 'ZOEKT_MCP_OAUTH_CLIENT_SECRET',
    default: { text: 'none' },
    description: 'the secret of --oauth-client-id (HTTP Basic at the introspection endpoint). Prefer the variable: flags show in ps',
    group: 'http',
  },
  {
    name: 'oauth-accept-jwt-typ',
    env: 'ZOEKT_MCP_OAUTH_ACCEPT_JWT_TYP',
    default: { text: 'off: only typ at+jwt (RFC 9068)' },
    description: 'take JWT access tokens whose header says typ JWT too, for issuers that write it (Keycloak, Entra ID); tokens with a nonce (ID tokens) are refused still',
    group: 'http',
  },
  {
    name: 'insecure-no-auth',
    env: 'ZOEKT_MCP_INSECURE_NO_AUTH',
    default: { text: 'off' },
    description: 'allow a non-loopback --host without a token, when something in front of the server authenticates',
    group: 'http',
  },
  {
    name: 'allowed-origins',
    value: 'LIST',
    env: 'ZOEKT_MCP_ALLOWED_ORIGINS',
    default: { text: 'loopback origins on a loopback --host, none otherwise' },
    description: 'comma-separated browser origins allowed to call, scheme://host[:port] with :* for any port, e.g. https://app.example.com,http://localhost:*',
    group: 'http',
  },
  {
    name: 'allowed-hosts',
    value: 'LIST',
    env: 'ZOEKT_MCP_ALLOWED_HOSTS',
    default: { text: 'localhost, 127.0.0.1 and [::1] on a loopback --host; required otherwise' },
    description:
      'comma-separated Host headers the MCP endpoints answer, name[:port] (any port without one), e.g. mcp.example.com,10.0.0.5:3000; * answers any Host, for when a proxy in front checks it. /healthz and /readyz answer any Host',
    group: 'http',
  },
  {
    name: 'shutdown-timeout-ms',
    value: 'N',
    env: 'ZOEKT_MCP_SHUTDOWN_TIMEOUT_MS',
    default: HTTP_DEFAULTS.shutdownTimeoutMs,
    min: 0,
    max: 600_000,
    description: 'after SIGTERM or SIGINT, how long in-flight calls may finish',
    group: 'http',
    field: 'shutdownTimeoutMs',
  },
  {
    name: 'headers-timeout-ms',
    value: 'N',
    env: 'ZOEKT_MCP_HEADERS_TIMEOUT_MS',
    default: HTTP_DEFAULTS.headersTimeoutMs,
    min: 100,
    max: 600_000,
    description: 'a connection that has not sent its request headers by then gets 408 and is closed; capped at --request-timeout-ms',
    group: 'http',
    field: 'headersTimeoutMs',
  },
  {
    name: 'request-timeout-ms',
    value: 'N',
    env: 'ZOEKT_MCP_REQUEST_TIMEOUT_MS',
    default: HTTP_DEFAULTS.requestTimeoutMs,
    min: 100,
    max: 600_000,
    description: 'the same for the whole request, body included (the time the answer takes does not count)',
    group: 'http',
    field: 'requestTimeoutMs',
  },
  {
    name: 'keep-alive-timeout-ms',
    value: 'N',
    env: 'ZOEKT_MCP_KEEP_ALIVE_TIMEOUT_MS',
    default: HTTP_DEFAULTS.keepAliveTimeoutMs,
    min: 100,
    max: 600_000,
    description: 'how long an idle kept-alive connection stays open between requests',
    group: 'http',
    field: 'keepAliveTimeoutMs',
  },
  {
    name: 'max-connections',
    value: 'N',
    env: 'ZOEKT_MCP_MAX_CONNECTIONS',
    default: HTTP_DEFAULTS.maxConnections,
    min: 1,
    max: 65_535,
    description: 'open connections (sockets) at once; past it the oldest idle kept-alive connection is closed, then the oldest one still sending its request, and only when every connection is serving a request or a stream does the newcomer get 503 with Retry-After',
    group: 'http',
    field: 'maxConnections',
  },
  {
    name: 'max-unfinished',
    value: 'N',
    env: 'ZOEKT_MCP_MAX_UNFINISHED',
    default: HTTP_DEFAULTS.maxUnfinished,
    min: 1,
    max: 65_535,
    description: 'connections that have not yet sent a whole request (no token is needed for that); past it the oldest of them that has had 1 s is closed with 503 UNFINISHED_REQUEST, never the newcomer refused',
    group: 'http',
    field: 'maxUnfinished',
  },
  {
    name: 'max-unfinished-per-peer',
    value: 'N',
    env: 'ZOEKT_MCP_MAX_UNFINISHED_PER_PEER',
    default: HTTP_DEFAULTS.maxUnfinishedPerPeer,
    min: 1,
    max: 65_535,
    description: 'the same for one client address, plus 4 for each MCP request of that address answered in the last second, up to 4 times N (a burst of clients from one address is not cut while their requests are answered; a probe or a request now and then lifts it little); behind a proxy every client has the proxy\'s address: raise it to --max-unfinished there',
    group: 'http',
    field: 'maxUnfinishedPerPeer',
  },
  {
    name: 'max-sse-sessions',
    value: 'N',
    env: 'ZOEKT_MCP_MAX_SSE_SESSIONS',
    default: HTTP_DEFAULTS.maxSseSessions,
    min: 1,
    max: 65_535,
    description: 'open legacy SSE sessions (GET /sse); past it a new one gets 503 with Retry-After (Streamable HTTP at /mcp keeps no session)',
    group: 'http',
    field: 'maxSseSessions',
  },
  {
    name: 'max-batch',
    value: 'N',
    env: 'ZOEKT_MCP_MAX_BATCH',
    default: HTTP_DEFAULTS.maxBatch,
    min: 1,
    max: 100,
    description: 'messages in one JSON-RPC batch on /mcp or /messages; a larger batch, or an empty one, gets a JSON-RPC -32600 error',
    group: 'http',
    field: 'maxBatch',
  },
  {
    name: 'write-budget-mb',
    value: 'N',
    env: 'ZOEKT_MCP_WRITE_BUDGET_MB',
    default: HTTP_DEFAULTS.writeBudgetMb,
    min: 1,
    max: 1024,
    description: 'what one connection may hold in MiB, answered but not yet taken by its client (a client that does not read); a connection past it whose client takes nothing for 2 s is closed (reason write_budget in /metrics), so its answers are freed',
    group: 'http',
    field: 'writeBudgetMb',
  },
];

const OPTION = Object.fromEntries(OPTIONS.map((o) => [o.name, o])) as Record<string, OptionSpec>;

/** How the environment variable sets an option: a switch is turned on with =1. */
export function envForm(o: OptionSpec): string {
  return o.value ? o.env : `${o.env}=1`;
}

/** What an option takes and defaults to, in words: "default 10000; 100–120000". */
export function optionTerms(o: OptionSpec): string[] {
  const terms: string[] = [];
  terms.push(`default ${typeof o.default === 'object' ? o.default.text : o.default}`);
  if (o.choices) terms.push(o.choices.join(' | '));
  if (o.min !== undefined && o.max !== undefined) terms.push(`${o.min}–${o.max}`);
  return terms;
}

function helpLines(group: OptionSpec['group']): string[] {
  const lines: string[] = [];
  for (const o of OPTIONS.filter((x) => x.group === group)) {
    const flag = `--${o.name}${o.value ? ` ${o.value}` : ''}`;
    lines.push(`  ${flag.padEnd(26)} ${envForm(o)}`, ...wrap(`${o.description} (${optionTerms(o).join('; ')})`, 6, 100));
  }
  return lines;
}

function wrap(text: string, indent: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(' '.repeat(indent) + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(' '.repeat(indent) + line);
  return lines;
}

export const HELP = [
  'zoekt-mcp: an MCP server for code search with Zoekt',
  '',
  'Usage: zoekt-mcp [options]',
  '       zoekt-mcp definitions build|push …   the definitions index description search ranks by (see: zoekt-mcp definitions --help)',
  '',
  'Serves the Model Context Protocol over stdio (stdin/stdout), or over HTTP with --http.',
  'Logs go to stderr.',
  '',
  'Options (each also read from the environment variable shown; flags win):',
  ...helpLines('general'),
  `  ${'-h, --help'.padEnd(26)} show this help`,
  `  ${'-v, --version'.padEnd(26)} print the version`,
  '',
  'HTTP: Streamable HTTP at /mcp (MCP 2026-07-28 and the 2025 revisions), legacy SSE at GET /sse + POST /messages (deprecated), probes GET /healthz, GET /readyz.',
  ...helpLines('http'),
  '',
  'Exit codes: 0 normal end (also after SIGTERM/SIGINT), 1 fatal error (e.g. port in use), 2 bad configuration.',
  '',
].join('\n');

/** One URL, or several separated by commas (one Zoekt backend each); normalized to 'a,b'. */
function parseUrls(value: string, source: string): string {
  const urls = value.split(',').map((u) => u.trim());
  if (urls.some((u) => u === '')) throw new Error(`${source} has an empty entry in its comma-separated list: ${JSON.stringify(value)}`);
  const parsed = urls.map((u) => parseUrl(u, source));
  const twice = parsed.find((u, i) => parsed.indexOf(u) !== i);
  if (twice) throw new Error(`${source} names ${twice} twice`);
  return parsed.join(',');
}

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

function parseSecret(value: string, source: string): string {
  if (/[^\x21-\x7e]/.test(value)) throw new Error(`${source} must be printable ASCII without spaces`);
  if (value.length < MIN_SECRET_LENGTH) {
    throw new Error(`${source} is shorter than ${MIN_SECRET_LENGTH} characters; use a random one, e.g. from: openssl rand -hex 32`);
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

function parseHosts(value: string, source: string): HostPattern[] {
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new Error(`${source} names no host, got ${JSON.stringify(value)}`);
  return items.map((item) => {
    try {
      return parseHostPattern(item);
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
        ...Object.fromEntries(OPTIONS.map((o) => [o.name, { type: o.value ? ('string' as const) : ('boolean' as const) }])),
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
    const pick = (flag: string): [string, string] | undefined => {
      const f = values[flag];
      if (typeof f === 'string') return [f, `--${flag}`];
      const envName = OPTION[flag]!.env;
      const e = env[envName];
      if (e !== undefined && e !== '') return [e, envName];
      return undefined;
    };
    const config = { ...DEFAULTS, ...fieldsOf('general', pick) } as Config;
    if (config.definitions && config.definitionsUrl) {
      throw new Error(`${pick('definitions')![1]} and ${pick('definitions-url')![1]} name two definitions indexes; give one: a folder (--definitions) or a Weaviate server (--definitions-url)`);
    }
    const http = loadHttp(values, env, pick);
    if (http) config.http = http;
    return { kind: 'run', config };
  } catch (err) {
    return { kind: 'error', reason: (err as Error).message };
  }
}

/** The fields the options of `group` set, each parsed from its flag or, without one, its variable. */
function fieldsOf(group: OptionSpec['group'], pick: (flag: string) => [string, string] | undefined): Partial<Config & HttpConfig> {
  const fields: Record<string, unknown> = {};
  for (const o of OPTIONS) {
    if (o.group !== group || !o.field) continue;
    const given = pick(o.name);
    if (given) fields[o.field] = o.parse ? o.parse(...given) : parseInteger(given[0], given[1], o.min!, o.max!);
  }
  return fields;
}

const HTTP_ONLY_FLAGS = OPTIONS.filter((o) => o.group === 'http' && o.name !== 'http').map((o) => o.name);

function loadHttp(
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv,
  pick: (flag: string) => [string, string] | undefined,
): HttpConfig | undefined {
  const flagOrEnv = (flag: string): boolean => {
    if (values[flag] === true) return true;
    const envName = OPTION[flag]!.env;
    const e = env[envName];
    return e !== undefined && parseBoolean(e, envName);
  };
  if (!flagOrEnv('http')) {
    // A flag that only means something over HTTP is a mistake without it; the variables may be set
    // for a whole deployment and are left alone.
    const stray = HTTP_ONLY_FLAGS.find((f) => values[f] !== undefined);
    if (stray) throw new Error(`--${stray} only applies with --http (or ZOEKT_MCP_HTTP=1)`);
    return undefined;
  }
  const host = pick('host');
  const token = pick('auth-token');
  const origins = pick('allowed-origins');
  const hosts = pick('allowed-hosts');
  const http = {
    ...HTTP_DEFAULTS,
    host: host ? parseHost(...host) : HTTP_DEFAULTS.host,
    allowedOrigins: [],
    allowedHosts: [],
    ...fieldsOf('http', pick),
  } as HttpConfig;
  // The head is part of the request: a longer wait for it than for the whole would never apply.
  http.headersTimeoutMs = Math.min(http.headersTimeoutMs, http.requestTimeoutMs);
  if (token) http.authToken = parseToken(...token);
  const oauth = loadOAuth(pick, token);
  if (oauth) http.oauth = oauth;
  if (flagOrEnv('oauth-accept-jwt-typ')) {
    if (!oauth) throw new Error('--oauth-accept-jwt-typ (ZOEKT_MCP_OAUTH_ACCEPT_JWT_TYP) needs --oauth-issuer (ZOEKT_MCP_OAUTH_ISSUER): the authorization server whose tokens this server takes');
    oauth.acceptJwtTyp = true;
  }
  // Not refused (a deployment may set it everywhere), but said: with an issuer every request needs a token still.
  if (oauth && flagOrEnv('insecure-no-auth')) http.warnings = ['--insecure-no-auth is ignored: every request needs an access token of --oauth-issuer'];
  const loopback = isLoopbackHost(http.host);
  checkPublicUrl(http, loopback, pick('public-url'));
  if (!loopback && !http.authToken && !http.oauth && !flagOrEnv('insecure-no-auth')) {
    throw new Error(
      `refusing to serve ${http.host} (not a loopback address) without --auth-token or ZOEKT_MCP_AUTH_TOKEN; ` +
        'set a token, bind 127.0.0.1, or pass --insecure-no-auth if something in front of it authenticates',
    );
  }
  http.allowedOrigins = origins ? parseOrigins(...origins) : loopback ? LOOPBACK_ORIGINS.map(parseOriginPattern) : [];
  if (hosts) http.allowedHosts = parseHosts(...hosts);
  else if (loopback) {
    // The bound address itself too (127.0.0.2, say), which is how its clients name it.
    const bound = parseHostPattern(http.host.includes(':') ? `[${http.host}]` : http.host);
    http.allowedHosts = [...LOOPBACK_HOSTS.map(parseHostPattern), ...(LOOPBACK_HOSTS.includes(bound.hostname) ? [] : [bound])];
  } else {
    throw new Error(
      `serving ${http.host} (not a loopback address) needs --allowed-hosts or ZOEKT_MCP_ALLOWED_HOSTS: the names clients reach this server by ` +
        '(e.g. mcp.example.com,10.0.0.5), or * when a proxy in front checks the Host header',
    );
  }
  return http;
}

/**
 * The URL an OAuth server is reached by, where the bound address cannot be it: tokens are issued
 * for that URL, so one made up from 0.0.0.0 would refuse every token. And bearer tokens go in
 * the clear over plain http, so that is only for this machine.
 */
function checkPublicUrl(http: HttpConfig, loopback: boolean, given: [string, string] | undefined): void {
  if (http.oauth && !loopback && !given) {
    throw new Error(
      `--oauth-issuer on ${http.host} (not a loopback address) needs --public-url or ZOEKT_MCP_PUBLIC_URL: the URL clients reach this server by (e.g. https://mcp.example.com), which tokens are issued for`,
    );
  }
  if (!given) return;
  const url = new URL(given[0]);
  if (url.protocol === 'http:' && !(loopback && isLoopbackHost(url.hostname.replace(/^\[|\]$/g, '')))) {
    throw new Error(`${given[1]} is plain http on a non-loopback address (${given[0]}): bearer tokens would cross the network in the clear; use https (a proxy in front terminating TLS)`);
  }
}

/** Resource-server mode from its options, or undefined when no issuer is given. */
function loadOAuth(pick: (flag: string) => [string, string] | undefined, token: [string, string] | undefined): OAuthConfig | undefined {
  const issuer = pick('oauth-issuer');
  const others = ['oauth-audience', 'oauth-scope', 'oauth-repos-claim', 'oauth-repos-map', 'oauth-client-id', 'oauth-client-secret'].map(pick).filter((g) => g !== undefined);
  if (!issuer) {
    if (others.length) throw new Error(`${others[0]![1]} needs --oauth-issuer (ZOEKT_MCP_OAUTH_ISSUER): the authorization server whose tokens this server takes`);
    return undefined;
  }
  if (token) {
    throw new Error(
      `${token[1]} and ${issuer[1]} are both set: this server takes either one static token (one person) or access tokens of an authorization server (a team), not both; unset one`,
    );
  }
  const oauth: OAuthConfig = { issuers: parseIssuers(...issuer), scope: 'zoekt:read' };
  const audience = pick('oauth-audience');
  if (audience) oauth.audience = parseAbsoluteUrl(...audience);
  const scope = pick('oauth-scope');
  if (scope) {
    if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope[0])) throw new Error(`${scope[1]} must be one scope token (printable, no space, quote or backslash), got ${JSON.stringify(scope[0])}`);
    oauth.scope = scope[0];
  }
  const clientId = pick('oauth-client-id');
  const clientSecret = pick('oauth-client-secret');
  if (clientId && !clientSecret) throw new Error(`${clientId[1]} needs --oauth-client-secret (ZOEKT_MCP_OAUTH_CLIENT_SECRET): what this server authenticates with at the introspection endpoint`);
  if (clientSecret && !clientId) throw new Error(`${clientSecret[1]} needs --oauth-client-id (ZOEKT_MCP_OAUTH_CLIENT_ID): the client the secret belongs to`);
  if (clientId && clientSecret) {
    if (!/^[\x20-\x7e]+$/.test(clientId[0])) throw new Error(`${clientId[1]} must be printable ASCII, got ${JSON.stringify(clientId[0])}`);
    if (!/^[\x21-\x7e]+$/.test(clientSecret[0])) throw new Error(`${clientSecret[1]} must be printable ASCII without spaces`);
    oauth.client = { id: clientId[0], secret: clientSecret[0] };
  }
  const claim = pick('oauth-repos-claim');
  const map = pick('oauth-repos-map');
  if (claim && !map) throw new Error(`${claim[1]} needs --oauth-repos-map (ZOEKT_MCP_OAUTH_REPOS_MAP): which repositories each value of the claim grants`);
  if (map && !claim) throw new Error(`${map[1]} needs --oauth-repos-claim (ZOEKT_MCP_OAUTH_REPOS_CLAIM): the token claim whose values it maps`);
  if (claim && map) {
    if (!/^[A-Za-z0-9_.:/-]+$/.test(claim[0])) throw new Error(`${claim[1]} must be a claim name (letters, digits, _ . : / -), got ${JSON.stringify(claim[0])}`);
    // A dot reads like a path into nested claims (realm_access.roles), which is not followed: the
    // claim would never be found and every token would read nothing. A URI names one top-level claim.
    if (claim[0].includes('.') && !claim[0].includes('://')) {
      throw new Error(`${claim[1]}: ${JSON.stringify(claim[0])} has a '.', but nested claims are not looked up; name a top-level claim (a string or list of strings), e.g. groups`);
    }
    oauth.reposClaim = claim[0];
    oauth.reposMap = parseReposMap(...map);
  }
  return oauth;
}

function parseIssuers(value: string, source: string): string[] {
  const issuers = value.split(',').map((v) => v.trim()).filter(Boolean);
  if (issuers.length === 0) throw new Error(`${source} names no issuer, got ${JSON.stringify(value)}`);
  for (const issuer of issuers) {
    const url = parseAbsoluteUrl(issuer, source);
    // RFC 8414: an issuer is https, without query or fragment; plain http only on this machine.
    if (new URL(url).protocol !== 'https:' && !isLoopbackHost(new URL(url).hostname.replace(/^\[|\]$/g, ''))) {
      throw new Error(`${source}: issuer ${issuer} must be an https URL (http only on a loopback address)`);
    }
    if (/[?#]/.test(issuer)) throw new Error(`${source}: issuer ${issuer} has a query or fragment; an issuer identifier has neither`);
  }
  return issuers;
}

function parseAbsoluteUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${source} must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${source} must be an http(s) URL, got ${JSON.stringify(value)}`);
  return value;
}

function parsePublicUrl(value: string, source: string): string {
  parseAbsoluteUrl(value, source);
  if (/[?#]/.test(value)) throw new Error(`${source} must have no query or fragment, got ${JSON.stringify(value)}`);
  return value.replace(/\/+$/, '');
}

function parseReposMap(value: string, source: string): { value: string; globs: string[] }[] {
  const rows = value.split(';').map((r) => r.trim()).filter(Boolean);
  if (rows.length === 0) throw new Error(`${source} maps no claim value, got ${JSON.stringify(value)}`);
  const seen = new Set<string>();
  return rows.map((row) => {
    const eq = row.indexOf('=');
    const key = eq < 0 ? '' : row.slice(0, eq).trim();
    if (!key) throw new Error(`${source}: ${JSON.stringify(row)} is not VALUE=GLOB|GLOB (e.g. team-a=github.com/acme/a-*|github.com/acme/shared)`);
    // The table's separators cannot be in a value: cn=admins,ou=groups=x/* would map "cn".
    if (row.slice(eq + 1).includes('=') || key.includes('|')) {
      throw new Error(`${source}: ${JSON.stringify(row)} has a claim value with '=', ';' or '|', which the table uses as separators; such a value cannot be mapped (each row is VALUE=GLOB|GLOB)`);
    }
    if (seen.has(key)) throw new Error(`${source}: the value ${JSON.stringify(key)} is mapped twice`);
    seen.add(key);
    return { value: key, globs: parseRepoGlobs(row.slice(eq + 1).split('|').join(','), `${source} (${key})`) };
  });
}

function parseDefinitionsDir(value: string, source: string): string {
  if (value.trim() === '') throw new Error(`${source} must name a folder`);
  return value;
}

function parseDefinitionsUrl(value: string, source: string): string {
  return parseAbsoluteUrl(value, source).replace(/\/+$/, '');
}
