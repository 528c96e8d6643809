/**
 * A real authorization server for the tests: oidc-provider (a certified OpenID Connect and OAuth
 * 2.0 implementation) in this process on 127.0.0.1, issuing JWT access tokens (RFC 9068) for a
 * resource indicator (RFC 8707) by client_credentials and by authorization_code with PKCE. Its
 * users sign in without a form: the interaction step takes the account from a request header
 * (`x-test-account`) and grants the scopes asked, which is how a test drives the flow headlessly.
 * Clients and accounts carry a `groups` claim, which the server under test maps to repositories.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import Provider from 'oidc-provider';

export const READ_SCOPE = 'zoekt:read';
export const CLIENT_SECRET = 'client-secret-0123456789abcdef';
/** The redirect URI of the public client a test's MCP client signs in with. */
export const REDIRECT_URI = 'http://127.0.0.1:1/callback';

/** Confidential clients (client_credentials), by id: their groups, their scopes, and the lifetime of their tokens. */
export const CLIENTS: Record<string, { groups: string[]; scope: string; ttl?: number; opaque?: true }> = {
  'agent-a': { groups: ['team-a'], scope: `${READ_SCOPE} other` },
  'agent-b': { groups: ['team-b'], scope: `${READ_SCOPE} other` },
  'agent-nogroup': { groups: [], scope: READ_SCOPE },
  'agent-noscope': { groups: ['team-a'], scope: 'other' },
  'agent-short': { groups: ['team-a'], scope: READ_SCOPE, ttl: 1 },
  // Opaque (not JWT) access tokens, which a resource server checks by introspection (RFC 7662).
  'agent-opaque': { groups: ['team-b'], scope: READ_SCOPE, opaque: true },
  // The resource server's own client, for the introspection endpoint.
  'zoekt-mcp': { groups: [], scope: READ_SCOPE },
};
/** Accounts that sign in through the authorization code flow, and their groups. */
export const ACCOUNTS: Record<string, string[]> = { alice: ['team-a'], bob: ['team-b'] };
/** The public client that signs in users (PKCE, no secret). */
export const PUBLIC_CLIENT = 'mcp-client';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface Issuer {
  /** The issuer identifier, http://127.0.0.1:PORT */
  url: string;
  /** An access token for `resource` by client_credentials. */
  token(clientId: string, resource: string, scope?: string): Promise<string>;
  /** The key tokens are signed with now (to re-sign forgeries with it). */
  key(): SigningKey;
  /** A new signing key: the issuer publishes and signs with it alone from now on. */
  rotate(): Promise<void>;
  /** Requests for its key set so far. */
  jwksFetches(): number;
  /** While true, its key set endpoint answers HTTP 500 (an issuer whose keys cannot be read). */
  failJwks(failing: boolean): void;
  stop(): Promise<void>;
}

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `k-${Math.random().toString(36).slice(2, 10)}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicJwk };
}

function groupsOf(token: { clientId?: string; accountId?: string }): string[] {
  if (token.accountId) return ACCOUNTS[token.accountId] ?? [];
  return CLIENTS[token.clientId ?? '']?.groups ?? [];
}

function providerFor(issuer: string, key: SigningKey, privateJwk: JWK): Provider {
  const provider = new Provider(issuer, {
    clients: [
      ...Object.entries(CLIENTS).map(([id, c]) => ({
        client_id: id,
        client_secret: CLIENT_SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: c.scope,
      })),
      { client_id: PUBLIC_CLIENT, token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], redirect_uris: [REDIRECT_URI], response_types: ['code'], scope: READ_SCOPE },
    ],
    jwks: { keys: [{ ...privateJwk, kid: key.kid, alg: 'RS256', use: 'sig' }] },
    scopes: [READ_SCOPE, 'other'],
    pkce: { required: () => true },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => ({
          scope: `${READ_SCOPE} other`,
          audience: resource,
          accessTokenFormat: CLIENTS[client.clientId]?.opaque ? 'opaque' : 'jwt',
          accessTokenTTL: CLIENTS[client.clientId]?.ttl ?? 300,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: (_ctx, token) => ({ groups: groupsOf(token as { clientId?: string; accountId?: string }) }),
  });
  return provider;
}

/** The interaction step: signs in the account the request names and grants what the client asked. */
async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const account = String(req.headers['x-test-account'] ?? '');
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
  // The scopes as the issuer's own (it lists them) and as the resource's.
  grant.addOIDCScope(details.params.scope as string);
  const resource = details.params.resource;
  for (const r of Array.isArray(resource) ? resource : resource ? [resource as string] : []) grant.addResourceScope(r, details.params.scope as string);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

export async function startIssuer(): Promise<Issuer> {
  let current: Provider | undefined;
  let key = await newKey();
  let fetches = 0;
  let jwksFailing = false;
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/jwks')) {
      fetches++;
      if (jwksFailing) {
        res.statusCode = 500;
        res.end('{"error":"server_error"}');
        return;
      }
    }
    if (req.url?.startsWith('/interaction/')) {
      interact(current!, req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    void current!.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const build = async () => {
    current = providerFor(url, key, await exportJWK(key.privateKey));
  };
  await build();
  return {
    url,
    async token(clientId, resource, scope = READ_SCOPE) {
      const res = await fetch(`${url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${CLIENT_SECRET}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }).toString(),
      });
      const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`the issuer gave no token to ${clientId}: ${body.error}: ${body.error_description}`);
      return body.access_token;
    },
    key: () => key,
    async rotate() {
      key = await newKey();
      await build();
    },
    jwksFetches: () => fetches,
    failJwks: (failing) => {
      jwksFailing = failing;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The authorization code flow as a browser would go through it, headlessly: from the URL a client
 * sends its user to, through the issuer's redirects (its cookies kept) and the interaction step
 * signing in `account`, to the client's redirect URI. Returns the code it carries.
 */
export async function authorizeAs(account: string, authorizationUrl: URL): Promise<string> {
  const cookies = new Map<string, string>();
  let next = authorizationUrl.href;
  for (let hop = 0; hop < 20; hop++) {
    if (next.startsWith(REDIRECT_URI)) {
      const code = new URL(next).searchParams.get('code');
      if (!code) throw new Error(`the issuer redirected back without a code: ${next}`);
      return code;
    }
    const res = await fetch(next, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'x-test-account': account },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`the authorization flow stopped at ${next}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
    next = new URL(location, next).href;
  }
  throw new Error('the authorization flow redirected more than 20 times');
}
