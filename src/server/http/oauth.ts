/**
 * The OAuth 2.1 resource server of the MCP authorization specification: which access tokens the
 * HTTP endpoints take and what each caller may read. Tokens are JWT access tokens (RFC 9068) of
 * the configured issuers, checked with jose against the issuer's keys (oauth-keys.ts): the
 * signature under an allowlist of asymmetric algorithms, `iss`, `aud` (this server, RFC 8707),
 * `exp` and `nbf` with a small skew, then the read scope; opaque tokens by introspection (RFC
 * 7662) at the issuer, with this server's own client. A token's repository claim, mapped by
 * the configured table, narrows what its caller reads. Protected Resource Metadata (RFC 9728)
 * tells clients where to get a token. No message, log line or metric carries a token.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { decodeJwt, errors, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import type { OAuthConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import { RepoScope } from '../../search/engine/scope.js';
import type { Caller } from '../caller.js';
import { sendJson } from './io.js';
import { IssuerKeys, IssuerUnreachable, KEYS_MAX_AGE_MS, secureUrl } from './oauth-keys.js';
import type { Route } from './routes.js';

/** Why a request was refused, as /metrics counts it. */
export type Refusal =
  | 'no_token'
  | 'malformed'
  | 'bad_signature'
  | 'unknown_key'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'expired'
  | 'not_yet_valid'
  | 'insufficient_scope'
  | 'inactive'
  | 'issuer_unreachable';

export type OAuthOutcome = { ok: true; caller: Caller } | { ok: false; reason: Refusal; message: string };

/** Asymmetric algorithms only: an HMAC or `none` token is refused whatever its key id says. */
export const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Clock difference allowed between the issuer and this server, for exp and nbf (seconds). */
export const CLOCK_SKEW_S = 5;
/** Scopes of callers kept at once (each compiled once, and each a searcher view of its own). */
const MAX_SCOPES = 256;
/** Tokens kept verified: an agent sends one token with each of its calls until it expires. */
const MAX_VERIFIED = 4096;

/** How long an introspected token is taken without asking its issuer again: a revoked token is refused within this. */
const INTROSPECTED_FOR_S = 30;

/** A token that verified, and what it stands for: valid until `until` (seconds), from `nbf`, while its issuer's keys are the same. */
interface Verified {
  /** Set for a JWT: the issuer whose keys verified it, and which fetch of them. */
  keys?: IssuerKeys;
  generation?: number | undefined;
  until: number;
  nbf: number | undefined;
  outcome: OAuthOutcome;
}

export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The resources this server is, by path: the server as a whole, and each MCP endpoint a client
 * may connect to. RFC 9728 section 3.3: the metadata at a path-suffixed well-known URL names the
 * resource it was derived from, and a client uses its endpoint's URL as the resource it asks a
 * token for (MCP authorization, RFC 8707), so a token for any of them is for this server.
 */
const RESOURCE_PATHS = ['', '/mcp', '/sse'] as const;

/** What the token check says to a refused request, without the token. */
const MESSAGES: Record<Refusal, string> = {
  no_token: 'this server needs an OAuth access token: Authorization: Bearer <access token>',
  malformed: 'the bearer token is not a JWT access token (RFC 9068) this server can read',
  bad_signature: "the access token's signature does not verify with its issuer's keys (or uses an algorithm this server does not take)",
  unknown_key: "the access token is signed with a key its issuer does not publish",
  wrong_issuer: 'the access token was issued by an authorization server this server does not trust',
  wrong_audience: 'the access token was not issued for this server (its audience is another resource)',
  expired: 'the access token has expired',
  not_yet_valid: 'the access token is not valid yet (nbf)',
  insufficient_scope: 'the access token lacks the scope this server needs',
  inactive: 'the access token is not active at its issuer (expired, revoked or unknown to it)',
  issuer_unreachable: "the access token could not be checked: its issuer's metadata or keys could not be read",
};

export class ResourceServer {
  readonly issuers: readonly string[];
  readonly scope: string;
  /** The resource of the MCP endpoint (`<public url>/mcp`): what a client of /mcp asks a token for. */
  readonly resource: string;
  /** Where the metadata of the MCP endpoint is: what a 401 on /mcp points a client to. */
  readonly metadataUrl: string;
  /** The public URL, without a trailing slash. */
  private readonly base: string;
  /** Every audience taken: each resource of RESOURCE_PATHS, and --oauth-audience, with or without a trailing slash. */
  private readonly audiences: string[];
  private readonly keys = new Map<string, IssuerKeys>();
  private readonly scopes = new Map<string, RepoScope>();
  private readonly reposMap: Map<string, string[]> | undefined;
  /**
   * Tokens verified, by their text: a token seen again is not verified again (the signature check
   * is most of what a checked call costs) while it is within exp and nbf and its issuer's key set
   * has not been fetched again since. Only tokens that verified are kept, so unknown or forged
   * ones cannot evict each other's way past the bound.
   */
  private readonly verified = new LRUCache<string, Verified>({ max: MAX_VERIFIED });
  /** Opaque tokens every issuer called inactive, by SHA-256 digest, for INTROSPECTED_FOR_S. */
  private readonly inactive = new LRUCache<string, true>({ max: MAX_VERIFIED, ttl: INTROSPECTED_FOR_S * 1000 });

  /** When the last warning that an issuer could not be read was logged: one per 5 s at most. */
  private warnedAt = 0;

  constructor(
    private readonly o: OAuthConfig,
    publicUrl: string,
    private readonly log?: Logger,
  ) {
    this.issuers = o.issuers;
    this.scope = o.scope;
    this.base = publicUrl.replace(/\/+$/, '');
    this.resource = `${this.base}/mcp`;
    // `https://mcp.example.com` and `https://mcp.example.com/` name one resource: clients send either.
    // --oauth-audience is one more audience (an issuer that names the server otherwise), never
    // the metadata's resource: a client refuses a resource that is not its endpoint's own.
    const bare = [...RESOURCE_PATHS.map((p) => `${this.base}${p}`), ...(o.audience ? [o.audience.replace(/\/+$/, '')] : [])];
    this.audiences = [...new Set(bare.flatMap((a) => [a, `${a}/`]))];
    this.metadataUrl = this.metadataUrlOf('/mcp');
    for (const issuer of o.issuers) this.keys.set(issuer, new IssuerKeys(issuer));
    this.reposMap = o.reposMap && new Map(o.reposMap.map((r) => [r.value, r.globs]));
  }

  /** The resource a request path belongs to: its MCP endpoint (/messages is /sse's), else the server. */
  private resourcePathOf(path: string): (typeof RESOURCE_PATHS)[number] {
    if (path === '/mcp') return '/mcp';
    if (path === '/sse' || path === '/messages') return '/sse';
    return '';
  }

  /** The metadata URL of a request path's resource (RFC 9728 section 3.1). */
  metadataUrlOf(path: string): string {
    return `${this.base}${METADATA_PATH}${this.resourcePathOf(path)}`;
  }

  /** Protected Resource Metadata (RFC 9728) of the resource at `path` ('' for the server). */
  metadata(path: (typeof RESOURCE_PATHS)[number]): Record<string, unknown> {
    return {
      resource: `${this.base}${path}`,
      authorization_servers: this.issuers,
      scopes_supported: [this.scope],
      bearer_methods_supported: ['header'],
      resource_name: 'zoekt-mcp',
    };
  }

  /** The WWW-Authenticate challenge for a refusal (RFC 6750 section 3, RFC 9728 section 5.1). */
  challenge(reason: Refusal, path = '/mcp'): string {
    const meta = `resource_metadata="${this.metadataUrlOf(path)}"`;
    if (reason === 'no_token') return `Bearer ${meta}, scope="${this.scope}"`;
    if (reason === 'insufficient_scope') return `Bearer error="insufficient_scope", scope="${this.scope}", error_description="${MESSAGES[reason]}", ${meta}`;
    return `Bearer error="invalid_token", error_description="${MESSAGES[reason].replace(/"/g, "'")}", ${meta}`;
  }

  /** The caller a request's access token stands for, or why it is refused. */
  async check(req: IncomingMessage): Promise<OAuthOutcome> {
    const header = req.headers.authorization;
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    // RFC 6750 section 3.1: a request with another scheme (Basic, DPoP, …) carries no bearer token,
    // and gets the bare challenge, with no error code.
    if (header === undefined || !/^Bearer(?:[ \t]|$)/i.test(header)) return this.refuse('no_token', path);
    const m = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i.exec(header);
    if (!m) return this.refuse('malformed');
    const token = m[1]!;
    const kept = this.verified.get(token);
    if (kept) {
      const now = Date.now() / 1000;
      if ((!kept.keys || kept.generation === kept.keys.generation()) && now < kept.until && (kept.nbf === undefined || now >= kept.nbf - CLOCK_SKEW_S)) return kept.outcome;
      this.verified.delete(token);
    }
    let claims: JWTPayload;
    try {
      claims = decodeJwt(token);
    } catch {
      // Not a JWT: an opaque token, which only its issuer can say anything of.
      return this.o.client ? this.introspect(token, path) : this.refuse('malformed');
    }
    const keys = typeof claims.iss === 'string' ? this.keys.get(claims.iss) : undefined;
    if (!keys) return this.refuse('wrong_issuer');
    let payload: JWTPayload;
    let protectedHeader: JWTHeaderParameters;
    // Read before verifying: a key set fetched again meanwhile may no longer hold the key that verified.
    const generation = keys.generation();
    try {
      ({ payload, protectedHeader } = await jwtVerify(token, await keys.keys(), {
        issuer: keys.issuer,
        audience: this.audiences,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ['exp'],
        // RFC 9068 section 4: an access token says so (jose takes application/at+jwt too), so that
        // an ID token of the same issuer, signed with the same keys, is not taken for one.
        ...(this.o.acceptJwtTyp ? {} : { typ: 'at+jwt' }),
      }));
    } catch (err) {
      const reason = refusalOf(err);
      if (reason === 'issuer_unreachable') this.unreachable(keys.issuer, err);
      return this.refuse(reason, path);
    }
    // Issuers that write typ JWT (Keycloak, Entra ID) write it on their ID tokens too: those carry a nonce.
    if (this.o.acceptJwtTyp && (!['at+jwt', 'jwt'].includes(typeOf(protectedHeader)) || payload.nonce !== undefined)) return this.refuse('malformed');
    const outcome = this.grant(keys.issuer, payload, token);
    // Kept no longer than a key set is: a token seen again after that is verified against the key
    // set as fetched again, so one whose key the issuer dropped is refused.
    const until = Math.min(payload.exp! + CLOCK_SKEW_S, (Date.now() + KEYS_MAX_AGE_MS) / 1000);
    if (generation === keys.generation()) this.verified.set(token, { keys, generation, until, nbf: payload.nbf, outcome });
    return outcome;
  }

  /** What a token whose claims were checked grants: the caller, or 403 without the scope. */
  private grant(issuer: string, claims: JWTPayload, token: string): OAuthOutcome {
    if (!scopesOf(claims).includes(this.scope)) return this.refuse('insufficient_scope');
    const scope = this.callerScope(claims);
    return { ok: true, caller: { ...(scope ? { scope } : {}), id: identityOf(issuer, claims, token) } };
  }

  /**
   * An opaque token, by token introspection (RFC 7662) at the issuers that offer it, with this
   * server's own client. An active answer is checked like a JWT's claims (iss, aud, exp, nbf,
   * scope, the repository claim) and kept for INTROSPECTED_FOR_S at most.
   */
  private async introspect(token: string, path: string): Promise<OAuthOutcome> {
    const client = this.o.client!;
    // Kept by a digest: the cache holds no token, and made-up tokens cost one question per INTROSPECTED_FOR_S.
    const digest = createHash('sha256').update(token).digest('base64url');
    if (this.inactive.get(digest)) return this.refuse('inactive');
    const basic = Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64');
    let offered = false;
    let unreachable = false;
    for (const keys of this.keys.values()) {
      let endpoint: string | undefined;
      let answer: JWTPayload & { active?: unknown; token_type?: unknown };
      try {
        endpoint = (await keys.meta()).introspection_endpoint;
        if (!endpoint) continue;
        offered = true;
        // The token and this server's client secret go there: never in the clear across a network.
        if (!secureUrl(endpoint)) throw new IssuerUnreachable(`its introspection_endpoint ${endpoint} is not https (plain http is for loopback only)`);
        const res = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
          body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
          signal: AbortSignal.timeout(5_000),
          redirect: 'error',
        });
        if (!res.ok) {
          await res.body?.cancel();
          throw new Error(`its introspection endpoint answered HTTP ${res.status}`);
        }
        // The parser's error quotes the body, which may echo the token: a fixed message instead.
        answer = (await res.json().catch(() => {
          throw new IssuerUnreachable('its introspection endpoint answered HTTP 200 with a body that is not JSON');
        })) as typeof answer;
        if (typeof answer !== 'object' || answer === null) throw new IssuerUnreachable('its introspection endpoint answered JSON that is not an object');
      } catch (err) {
        // Another issuer may know the token: one that cannot be asked does not stop the others.
        this.unreachable(keys.issuer, err);
        unreachable = true;
        continue;
      }
      // Not active here: another issuer may know it.
      if (answer.active !== true) continue;
      const now = Date.now() / 1000;
      if (answer.iss !== undefined && answer.iss !== keys.issuer) return this.refuse('wrong_issuer');
      // A refresh token (or another kind) is active too, but is not for calling a resource server.
      if (answer.token_type !== undefined && !(typeof answer.token_type === 'string' && ['access_token', 'bearer'].includes(answer.token_type.toLowerCase()))) return this.refuse('malformed');
      const aud = typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : [];
      if (!aud.some((a) => this.audiences.includes(a))) return this.refuse('wrong_audience', path);
      if (typeof answer.exp === 'number' && now >= answer.exp + CLOCK_SKEW_S) return this.refuse('expired');
      if (typeof answer.nbf === 'number' && now < answer.nbf - CLOCK_SKEW_S) return this.refuse('not_yet_valid');
      const outcome = this.grant(keys.issuer, answer, token);
      const until = Math.min(now + INTROSPECTED_FOR_S, typeof answer.exp === 'number' ? answer.exp + CLOCK_SKEW_S : Infinity);
      this.verified.set(token, { until, nbf: typeof answer.nbf === 'number' ? answer.nbf : undefined, outcome });
      return outcome;
    }
    // An issuer that could not be asked may know the token: not called inactive, nor kept so.
    if (unreachable) return this.refuse('issuer_unreachable');
    if (!offered) return this.refuse('malformed');
    this.inactive.set(digest, true);
    return this.refuse('inactive');
  }

  /** Tells the operator why tokens of an issuer cannot be checked (its metadata or keys), now and then. */
  private unreachable(issuer: string, err: unknown): void {
    if (Date.now() - this.warnedAt < 5_000) return;
    this.warnedAt = Date.now();
    this.log?.warn('oauth issuer unreachable: access tokens of it are refused with 503', { issuer, reason: err instanceof Error ? err.message : String(err) });
  }

  private refuse(reason: Refusal, path = '/mcp'): OAuthOutcome {
    let message = MESSAGES[reason];
    if (reason === 'no_token') message += `; this server's metadata (${this.metadataUrlOf(path)}) names the authorization server to get one from, with the scope ${this.scope}`;
    else if (reason === 'insufficient_scope') message += `: ${this.scope}; ask the authorization server for a token with it`;
    else if (reason === 'wrong_audience') message += `; ask for a token with resource=${this.base}${this.resourcePathOf(path)}`;
    else if (reason === 'wrong_issuer') message += `; it takes tokens of ${this.issuers.join(', ')}`;
    else if (reason !== 'issuer_unreachable') message += '; get a new token from the authorization server';
    return { ok: false, reason, message };
  }

  /** The repositories a token's claim grants, when a claim is configured: the union of its values' globs. */
  private callerScope(payload: JWTPayload): RepoScope | undefined {
    if (!this.o.reposClaim || !this.reposMap) return undefined;
    const value = payload[this.o.reposClaim];
    const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    const globs = [...new Set(values.flatMap((v) => this.reposMap!.get(v) ?? []))].sort();
    const key = JSON.stringify(globs);
    let scope = this.scopes.get(key);
    if (!scope) {
      // No value maps to anything: a scope that allows no repository, never every one.
      scope = globs.length ? new RepoScope(globs) : new RepoScope([], []);
      scope.origin = `the repositories your access token's ${this.o.reposClaim} grant`;
      if (this.scopes.size >= MAX_SCOPES) this.scopes.delete(this.scopes.keys().next().value!);
      this.scopes.set(key, scope);
    }
    return scope;
  }
}

/**
 * Who a token stands for, to bind a legacy SSE session to: its issuer and subject (RFC 9068 makes
 * `sub` required; a client's own token has its client id there), else its client id, else the
 * token itself (by digest), so that two tokens of unknown holders are never taken for one.
 */
function identityOf(iss: string, claims: JWTPayload & { client_id?: unknown }, token: string): string {
  if (typeof claims.sub === 'string') return `${iss} sub ${claims.sub}`;
  if (typeof claims.client_id === 'string') return `${iss} client ${claims.client_id}`;
  return `token ${createHash('sha256').update(token).digest('base64url')}`;
}

/** The scopes a token grants: `scope` (RFC 9068, space-separated) or `scp` (a list, as some issuers write it). */
function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ');
  const scp = (payload as { scp?: unknown }).scp;
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string');
  if (typeof scp === 'string') return scp.split(' ');
  return [];
}

/** A token's media type as RFC 8725 section 3.11 compares it: without `application/`, in lower case. */
function typeOf(header: JWTHeaderParameters): string {
  return (header.typ ?? '').toLowerCase().replace(/^application\//, '');
}

function refusalOf(err: unknown): Refusal {
  if (err instanceof IssuerUnreachable) return 'issuer_unreachable';
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return 'not_yet_valid';
    if (err.claim === 'aud') return 'wrong_audience';
    if (err.claim === 'iss') return 'wrong_issuer';
    return 'malformed';
  }
  if (err instanceof errors.JWKSNoMatchingKey) return 'unknown_key';
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JOSEAlgNotAllowed) return 'bad_signature';
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return 'issuer_unreachable';
  if (err instanceof errors.JOSEError) return 'malformed';
  // A fetch of the key set that failed (connection refused, a non-200 answer).
  return 'issuer_unreachable';
}

/**
 * The metadata routes: RFC 9728's well-known path, and its form suffixed with the MCP endpoint's
 * path, which clients ask first. Open to every caller and Host, like the probes: a client reads
 * them before it has a token.
 */
export function metadataRoutes(rs: ResourceServer): [string, Route][] {
  return RESOURCE_PATHS.map((path) => [
    `${METADATA_PATH}${path}`,
    {
      methods: ['GET', 'HEAD'],
      mcp: false,
      // It changes only with the configuration: clients and proxies may keep it for an hour.
      handler: async (_req, res) => sendJson(res, 200, rs.metadata(path), { 'cache-control': 'max-age=3600' }),
    },
  ]);
}
