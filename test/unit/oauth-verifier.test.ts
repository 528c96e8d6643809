/**
 * The resource server's token check (src/server/http/oauth.ts) against a key set of its own: a
 * tiny loopback server publishes metadata and a JSON Web Key Set of key pairs generated here, and
 * the tokens are signed here. This tests the verifier, not a real issuer (http-oauth.test.ts runs
 * oidc-provider): it reaches what a real issuer cannot be made to do on cue, such as the clock
 * moving past the key set's lifetime, or an introspection endpoint answering what a test needs
 * (a refresh token, an issuer down).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ResourceServer } from '../../src/server/http/oauth.js';
import { KEYS_MAX_AGE_MS } from '../../src/server/http/oauth-keys.js';

const RESOURCE = 'http://127.0.0.1:1';
const SCOPE = 'zoekt:read';

interface Pair {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

let server: Server;
let issuer: string;
/** The keys the issuer publishes now. */
let published: JWK[] = [];
let jwksFetches = 0;
/** What the introspection endpoint answers each token (RFC 7662), and how often it was asked. */
let introspected: (token: string) => Record<string, unknown> = () => ({ active: false });
let introspections = 0;

async function pair(kid: string): Promise<Pair> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

function sign(key: Pair, claims: Record<string, unknown> = {}, typ = 'at+jwt'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: SCOPE, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ })
    .setIssuer(issuer)
    .setAudience(RESOURCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(key.privateKey);
}

const request = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as IncomingMessage;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/jwks') {
      jwksFetches++;
      res.end(JSON.stringify({ keys: published }));
    } else if (req.url === '/introspect' && req.method === 'POST') {
      introspections++;
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => res.end(JSON.stringify(introspected(new URLSearchParams(body).get('token') ?? ''))));
    } else if (req.url === '/.well-known/oauth-authorization-server') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, introspection_endpoint: `${issuer}/introspect` }));
    else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the verified-token cache', () => {
  it('does not outlive the key set: a token whose key the issuer dropped is refused once the key set is older than its lifetime', async () => {
    const dropped = await pair('dropped');
    const kept = await pair('kept');
    published = [dropped.jwk, kept.jwk];
    const rs = new ResourceServer({ issuers: [issuer], scope: SCOPE }, RESOURCE);
    const token = await sign(dropped);
    expect(await rs.check(request(token))).toMatchObject({ ok: true });
    published = [kept.jwk];
    const fetchesBefore = jwksFetches;
    // Only Date moves: the token is still within its exp, its key set past its lifetime.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + KEYS_MAX_AGE_MS + 60_000);
    expect(await rs.check(request(token))).toMatchObject({ ok: false, reason: 'unknown_key' });
    expect(jwksFetches).toBeGreaterThan(fetchesBefore);
    // A token of the key still published is taken.
    expect(await rs.check(request(await sign(kept)))).toMatchObject({ ok: true });
  });
});

describe('the token type (RFC 9068 section 4)', () => {
  it('takes at+jwt and application/at+jwt, and refuses JWT or no typ', async () => {
    const key = await pair('typ');
    published = [key.jwk];
    const rs = new ResourceServer({ issuers: [issuer], scope: SCOPE }, RESOURCE);
    expect(await rs.check(request(await sign(key, {}, 'at+jwt')))).toMatchObject({ ok: true });
    expect(await rs.check(request(await sign(key, {}, 'application/at+jwt')))).toMatchObject({ ok: true });
    expect(await rs.check(request(await sign(key, {}, 'JWT')))).toMatchObject({ ok: false, reason: 'malformed' });
    const untyped = await new SignJWT({ scope: SCOPE }).setProtectedHeader({ alg: 'ES256', kid: key.kid }).setIssuer(issuer).setAudience(RESOURCE).setExpirationTime('1h').sign(key.privateKey);
    expect(await rs.check(request(untyped))).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('takes typ JWT when the deployment says its issuer writes it, but never an ID token (a nonce)', async () => {
    const key = await pair('jwt-typ');
    published = [key.jwk];
    const rs = new ResourceServer({ issuers: [issuer], scope: SCOPE, acceptJwtTyp: true }, RESOURCE);
    expect(await rs.check(request(await sign(key, {}, 'JWT')))).toMatchObject({ ok: true });
    expect(await rs.check(request(await sign(key, {}, 'at+jwt')))).toMatchObject({ ok: true });
    expect(await rs.check(request(await sign(key, { nonce: 'n-0123' }, 'JWT')))).toMatchObject({ ok: false, reason: 'malformed' });
    expect(await rs.check(request(await sign(key, {}, 'dpop+jwt')))).toMatchObject({ ok: false, reason: 'malformed' });
  });
});

describe('introspection of opaque tokens (RFC 7662)', () => {
  const client = { id: 'zoekt-mcp', secret: 'client-secret-0123456789' };
  const active = (extra: Record<string, unknown> = {}) => ({ active: true, iss: issuer, aud: RESOURCE, scope: SCOPE, exp: Math.floor(Date.now() / 1000) + 600, ...extra });

  it('asks the issuer once for a token it called inactive, however often the token comes again', async () => {
    introspected = () => ({ active: false });
    const rs = new ResourceServer({ issuers: [issuer], scope: SCOPE, client }, RESOURCE);
    const before = introspections;
    for (let i = 0; i < 10; i++) expect(await rs.check(request('made-up-opaque-token-0123456789'))).toMatchObject({ ok: false, reason: 'inactive' });
    expect(introspections - before).toBe(1);
  });

  it('asks the next issuer when one cannot be read, and takes the token it calls active', async () => {
    introspected = () => active();
    const rs = new ResourceServer({ issuers: ['http://127.0.0.1:1', issuer], scope: SCOPE, client }, RESOURCE);
    expect(await rs.check(request('opaque-token-of-the-second-issuer'))).toMatchObject({ ok: true });
    // Known to no issuer that answered, while one could not be asked: it may know it.
    introspected = () => ({ active: false });
    expect(await rs.check(request('opaque-token-nobody-knows'))).toMatchObject({ ok: false, reason: 'issuer_unreachable' });
  });

  it('refuses an active token that is not an access token', async () => {
    const rs = new ResourceServer({ issuers: [issuer], scope: SCOPE, client }, RESOURCE);
    introspected = () => active({ token_type: 'refresh_token' });
    expect(await rs.check(request('opaque-refresh-token'))).toMatchObject({ ok: false, reason: 'malformed' });
    introspected = () => active({ token_type: 'Bearer' });
    expect(await rs.check(request('opaque-bearer-token'))).toMatchObject({ ok: true });
    introspected = () => active({ token_type: 'access_token' });
    expect(await rs.check(request('opaque-access-token'))).toMatchObject({ ok: true });
  });
});
