/**
 * The keys of the authorization servers a resource server trusts: each issuer's metadata (RFC
 * 8414, or OpenID Connect discovery where that is all it publishes) read once, and its JSON Web
 * Key Set fetched from the metadata's jwks_uri and cached by jose's remote key set: fetched again
 * when a token names a key id it does not hold (the issuer rotated its keys), at most once per
 * cooldown, so a flood of tokens with made-up key ids cannot make it fetch without end.
 */
import { createRemoteJWKSet, errors, jwksCache, type JWKSCacheInput, type JWTVerifyGetKey } from 'jose';
import { isLoopbackHost } from '../../patterns/hosts.js';

/** What a resource server uses of an issuer's metadata. */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
}

/** How long a key set is kept before it is fetched again even if every key id is known. */
export const KEYS_MAX_AGE_MS = 10 * 60_000;
/** The least time between two fetches of a key set: the bound on fetches for unknown key ids. */
export const KEYS_COOLDOWN_MS = 5_000;
/** A metadata or key set fetch that takes longer fails (the token is refused as unverifiable, 503). */
const FETCH_TIMEOUT_MS = 5_000;
/** After a failed metadata read, the next token waits this long before it is read again. */
const METADATA_RETRY_MS = 5_000;

/** https, or plain http to this machine only: where an issuer may send this server for keys or introspection. */
export function secureUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** The failure of reading an issuer's metadata or keys: the server could not check a token. */
export class IssuerUnreachable extends Error {}

/**
 * Where an issuer publishes its metadata, in the order they are tried: RFC 8414's well-known URL
 * (the suffix inserted before the issuer's path), then OpenID Connect's (appended to it).
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}/.well-known/openid-configuration${path}`, `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`].filter(
    (u, i, all) => all.indexOf(u) === i,
  );
}

export class IssuerKeys {
  private metadata?: { at: number; reading: Promise<IssuerMetadata> };
  private keySet?: { uri: string; get: JWTVerifyGetKey; fetched: JWKSCacheInput };
  /**
   * The last failed key set fetch. jose starts its cooldown only after a fetch that succeeded, so
   * without this an issuer whose key set fails would be fetched once for every token sent.
   */
  private keysFailed?: { at: number; why: string };

  constructor(readonly issuer: string) {}

  /** The issuer's metadata, read once (again after a failure, no sooner than METADATA_RETRY_MS). */
  meta(): Promise<IssuerMetadata> {
    const kept = this.metadata;
    if (kept && (kept.at === 0 || Date.now() - kept.at < METADATA_RETRY_MS)) return kept.reading;
    const entry = { at: 0, reading: this.discover() };
    entry.reading.catch(() => (entry.at = Date.now()));
    this.metadata = entry;
    return entry.reading;
  }

  /** The key set of the issuer, for jose's jwtVerify. */
  async keys(): Promise<JWTVerifyGetKey> {
    const meta = await this.meta();
    if (!meta.jwks_uri) throw new IssuerUnreachable(`the metadata of ${this.issuer} names no jwks_uri`);
    // Keys read over plain http across a network could be anyone's: the token would prove nothing.
    if (!secureUrl(meta.jwks_uri)) throw new IssuerUnreachable(`the metadata of ${this.issuer} names a jwks_uri that is not https (plain http is for loopback only): ${meta.jwks_uri}`);
    if (this.keySet?.uri !== meta.jwks_uri) {
      // jose writes the time of each successful fetch here: what generation() reads.
      const fetched: JWKSCacheInput = {};
      const get = createRemoteJWKSet(new URL(meta.jwks_uri), { cooldownDuration: KEYS_COOLDOWN_MS, cacheMaxAge: KEYS_MAX_AGE_MS, timeoutDuration: FETCH_TIMEOUT_MS, [jwksCache]: fetched });
      this.keySet = { uri: meta.jwks_uri, get, fetched };
    }
    const { uri, get } = this.keySet;
    return async (header, token) => {
      const failed = this.keysFailed;
      if (failed && Date.now() - failed.at < KEYS_COOLDOWN_MS) throw new IssuerUnreachable(failed.why);
      try {
        return await get(header, token);
      } catch (err) {
        // What the keys say of the token itself; anything else is the key set not read (an HTTP
        // error, a body that is not a key set, a timeout): the token could not be checked.
        if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys || err instanceof errors.JOSENotSupported) throw err;
        const why = `the key set of ${this.issuer} (${uri}) could not be read: ${err instanceof Error ? err.message : String(err)}`;
        this.keysFailed = { at: Date.now(), why };
        throw new IssuerUnreachable(why);
      }
    };
  }

  /**
   * Which fetch of the key set the keys in use came from: another value once it is fetched again
   * (a rotation), so a token verified with the keys before is verified again.
   */
  generation(): number | undefined {
    return (this.keySet?.fetched as { uat?: number } | undefined)?.uat;
  }

  private async discover(): Promise<IssuerMetadata> {
    const failures: string[] = [];
    for (const url of metadataUrls(this.issuer)) {
      let res: Response;
      try {
        res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
      } catch (err) {
        failures.push(`${url}: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        failures.push(`${url}: HTTP ${res.status}`);
        continue;
      }
      const body = (await res.json().catch(() => undefined)) as Partial<IssuerMetadata> | undefined;
      // RFC 8414 section 3.3: the metadata must name the issuer it was asked for, or it is not used.
      if (!body || body.issuer !== this.issuer) {
        failures.push(`${url}: names issuer ${JSON.stringify(body?.issuer)}, not ${this.issuer}`);
        continue;
      }
      return { issuer: body.issuer, ...(typeof body.jwks_uri === 'string' ? { jwks_uri: body.jwks_uri } : {}), ...(typeof body.introspection_endpoint === 'string' ? { introspection_endpoint: body.introspection_endpoint } : {}) };
    }
    throw new IssuerUnreachable(`no metadata of ${this.issuer}: ${failures.join('; ')}`);
  }
}
