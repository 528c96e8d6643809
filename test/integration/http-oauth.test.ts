/**
 * Resource-server mode (--oauth-issuer) against a real authorization server: oidc-provider on
 * 127.0.0.1 (test/support/oauth-issuer.ts) issues the JWT access tokens, by client_credentials and
 * by the authorization code flow an MCP SDK client runs itself. The tokens a real issuer cannot
 * give by definition (alg none, HMAC signed with the issuer's public key, another issuer, a key
 * the issuer does not publish, a future nbf) are forged from a real issued token by altering and
 * re-signing it: that tests the verifier against forgeries; every valid token comes from the issuer.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { spawnSync } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectSse, MCP_HEADERS, raw, startAdapter, type Adapter } from '../support/http.js';
import { call, CLI, CLIENT_OPTIONS, failed, ok, textOf } from '../support/mcp.js';
import { authorizeAs, CLIENT_SECRET, PUBLIC_CLIENT, READ_SCOPE, REDIRECT_URI, startIssuer, type Issuer } from '../support/oauth-issuer.js';
import { allPages, attempts } from '../support/scope-attempts.js';
import { REPO_PREFIX } from '../support/zoekt.js';
import { RepoScope } from '../../src/search/engine/scope.js';

const WEBAPP = `${REPO_PREFIX}webapp`;
const GOSVC = `${REPO_PREFIX}gosvc`;
const MAP = `team-a=${WEBAPP};team-b=${GOSVC}`;

let issuer: Issuer;
let adapter: Adapter;

beforeAll(async () => {
  issuer = await startIssuer();
  adapter = await startAdapter({
    zoektUrl: inject('zoektUrl'),
    env: { ZOEKT_MCP_OAUTH_ISSUER: issuer.url, ZOEKT_MCP_OAUTH_REPOS_CLAIM: 'groups', ZOEKT_MCP_OAUTH_REPOS_MAP: MAP },
  });
}, 60_000);

afterAll(async () => {
  await adapter?.stop();
  await issuer?.stop();
});

const post = (token: string | undefined, body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })) =>
  raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });

async function connectWith(token: string): Promise<Client> {
  const client = new Client({ name: 'oauth-tests', version: '1.0.0' }, CLIENT_OPTIONS);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${adapter.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A real token's claims, altered, re-signed by `sign`. */
async function forge(token: string, change: Record<string, unknown>, header: Record<string, unknown>, key: Parameters<SignJWT['sign']>[0]): Promise<string> {
  const claims = { ...decodeJwt(token), ...change };
  return new SignJWT(claims).setProtectedHeader({ ...decodeProtectedHeader(token), ...header } as never).sign(key);
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

async function refusals(): Promise<Record<string, number>> {
  const token = await issuer.token('agent-a', adapter.url);
  const text = (await raw(`${adapter.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text;
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^zoekt_mcp_http_auth_refusals_total\{reason="(\w+)"\} (\d+)/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

describe('resource-server mode', () => {
  it('answers without a token 401 with the challenge that leads to its metadata, and the metadata to the issuer', async () => {
    const res = await post(undefined);
    expect(res.status).toBe(401);
    const challenge = String(res.headers['www-authenticate']);
    expect(challenge).toBe(`Bearer resource_metadata="${adapter.url}/.well-known/oauth-protected-resource/mcp", scope="${READ_SCOPE}"`);
    expect(res.json()).toMatchObject({ error: { code: -32001, data: { code: 'UNAUTHORIZED' } } });
    // RFC 9728 section 3.3: each document names the resource its URL was derived from.
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource/mcp', `${adapter.url}/mcp`],
      ['/.well-known/oauth-protected-resource/sse', `${adapter.url}/sse`],
      ['/.well-known/oauth-protected-resource', adapter.url],
    ]) {
      const meta = await raw(`${adapter.url}${path}`);
      expect(meta.status).toBe(200);
      // The metadata may be cached; what it says changes only with the configuration.
      expect(meta.headers['cache-control'], path).toBe('max-age=3600');
      expect(meta.json(), path).toEqual({
        resource,
        authorization_servers: [issuer.url],
        scopes_supported: [READ_SCOPE],
        bearer_methods_supported: ['header'],
        resource_name: 'zoekt-mcp',
      });
    }
  });

  it("points a legacy SSE client to the metadata of /sse, whose resource is the URL it connects to", async () => {
    const res = await raw(`${adapter.url}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(401);
    expect(String(res.headers['www-authenticate'])).toBe(`Bearer resource_metadata="${adapter.url}/.well-known/oauth-protected-resource/sse", scope="${READ_SCOPE}"`);
  });

  it('takes tokens issued for the MCP endpoint, for /sse and for the server as a whole, and no other', async () => {
    for (const resource of [`${adapter.url}/mcp`, `${adapter.url}/sse`, adapter.url, `${adapter.url}/`]) {
      expect((await post(await issuer.token('agent-a', resource))).status, resource).toBe(200);
    }
    expect((await post(await issuer.token('agent-a', `${adapter.url}/other`))).status).toBe(401);
  });

  it('answers another authentication scheme with the bare challenge, no error code (RFC 6750 section 3.1)', async () => {
    for (const authorization of [`Basic ${Buffer.from('user:password').toString('base64')}`, 'Digest username="u"', 'DPoP abc.def.ghi']) {
      const res = await raw(`${adapter.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', authorization }, body: '{}' });
      expect(res.status, authorization).toBe(401);
      expect(String(res.headers['www-authenticate']), authorization).toBe(`Bearer resource_metadata="${adapter.url}/.well-known/oauth-protected-resource/mcp", scope="${READ_SCOPE}"`);
    }
  });

  it('takes a token the issuer gave for this server and answers tool calls with it', async () => {
    const client = await connectWith(await issuer.token('agent-a', adapter.url));
    try {
      const repos = ok<{ repos: { name: string }[] }>(await call(client, 'list_repos', {}));
      expect(repos.repos.map((r) => r.name)).toEqual([WEBAPP]);
    } finally {
      await client.close();
    }
  });

  it('refuses each bad token with its status, challenge and reason, and never logs or echoes a token', async () => {
    const good = await issuer.token('agent-a', adapter.url);
    const { privateKey: strangerKey } = await generateKeyPair('RS256');
    const publicJwk = issuer.key().publicJwk;
    const [h, p] = good.split('.');
    const cases: { name: string; token: string; status: number; error: string; reason: string }[] = [
      { name: 'wrong audience (a real token for another resource)', token: await issuer.token('agent-a', 'https://other.example/mcp'), status: 401, error: 'invalid_token', reason: 'wrong_audience' },
      { name: 'missing scope (a real token without zoekt:read)', token: await issuer.token('agent-noscope', adapter.url, 'other'), status: 403, error: 'insufficient_scope', reason: 'insufficient_scope' },
      // Forged from the real token: re-signed with the issuer's own key, with a future nbf.
      { name: 'not yet valid', token: await forge(good, { nbf: Math.floor(Date.now() / 1000) + 600 }, {}, issuer.key().privateKey), status: 401, error: 'invalid_token', reason: 'not_yet_valid' },
      // Forged: another issuer's name, signed with the real key.
      { name: 'wrong issuer', token: await forge(good, { iss: 'http://127.0.0.1:1' }, {}, issuer.key().privateKey), status: 401, error: 'invalid_token', reason: 'wrong_issuer' },
      // Forged: signed with a key the issuer does not publish, under a key id it does not have.
      { name: 'unknown key', token: await forge(good, {}, { kid: 'not-published' }, strangerKey), status: 401, error: 'invalid_token', reason: 'unknown_key' },
      // Forged: the real key id, signed with a stranger's key.
      { name: 'bad signature', token: await forge(good, {}, {}, strangerKey), status: 401, error: 'invalid_token', reason: 'bad_signature' },
      { name: 'alg none', token: `${b64({ alg: 'none', typ: 'at+jwt' })}.${p}.`, status: 401, error: 'invalid_token', reason: 'bad_signature' },
      {
        name: 'HMAC signed with the public key',
        token: (() => {
          const head = b64({ alg: 'HS256', typ: 'at+jwt', kid: publicJwk.kid });
          const mac = createHmac('sha256', JSON.stringify(publicJwk)).update(`${head}.${p}`).digest('base64url');
          return `${head}.${p}.${mac}`;
        })(),
        status: 401,
        error: 'invalid_token',
        reason: 'bad_signature',
      },
      { name: 'not a JWT', token: 'opaque-token-0123456789', status: 401, error: 'invalid_token', reason: 'malformed' },
      // Forged: re-signed with the issuer's own key under the type of an ID token (RFC 9068 section 4: typ must be at+jwt).
      { name: 'typ JWT', token: await forge(good, {}, { typ: 'JWT' }, issuer.key().privateKey), status: 401, error: 'invalid_token', reason: 'malformed' },
      { name: 'altered claims', token: `${h}.${b64({ ...decodeJwt(good), groups: ['team-b'] })}.${good.split('.')[2]}`, status: 401, error: 'invalid_token', reason: 'bad_signature' },
    ];
    const before = await refusals();
    const counted: Record<string, number> = {};
    for (const c of cases) {
      const res = await post(c.token);
      expect(res.status, c.name).toBe(c.status);
      const challenge = String(res.headers['www-authenticate']);
      expect(challenge, c.name).toContain(`error="${c.error}"`);
      expect(challenge, c.name).toContain(`resource_metadata="${adapter.url}/.well-known/oauth-protected-resource/mcp"`);
      if (c.status === 403) expect(challenge).toContain(`scope="${READ_SCOPE}"`);
      expect(res.text, c.name).not.toContain(c.token.split('.')[1] || c.token);
      counted[c.reason] = (counted[c.reason] ?? 0) + 1;
    }
    // Left alone, the issuer signs, and the server takes, tokens again.
    expect((await post(good)).status).toBe(200);
    const after = await refusals();
    for (const [reason, n] of Object.entries(counted)) expect(after[reason] ?? 0, reason).toBe((before[reason] ?? 0) + n);
    const logs = adapter.stderr();
    for (const c of cases) expect(logs).not.toContain(c.token.split('.')[1] || c.token);
    expect(logs).not.toContain(good.split('.')[2]);
  });

  it('refuses an expired token the issuer gave', async () => {
    const token = await issuer.token('agent-short', adapter.url);
    expect((await post(token)).status).toBe(200);
    // Its lifetime (1 s) and the allowed clock skew (5 s) pass.
    await new Promise((r) => setTimeout(r, 6_500));
    const res = await post(token);
    expect(res.status).toBe(401);
    expect(String(res.headers['www-authenticate'])).toContain('error="invalid_token", error_description="the access token has expired"');
  }, 20_000);

  it('fetches the key set again at most once per cooldown, whatever the unknown key ids', async () => {
    const good = await issuer.token('agent-a', adapter.url);
    const { privateKey } = await generateKeyPair('RS256');
    const fetchesBefore = issuer.jwksFetches();
    const answers = await Promise.all(Array.from({ length: 60 }, async (_, i) => (await post(await forge(good, {}, { kid: `flood-${i}` }, privateKey))).status));
    expect(new Set(answers)).toEqual(new Set([401]));
    expect(issuer.jwksFetches() - fetchesBefore).toBeLessThanOrEqual(1);
  });

  it('takes tokens signed with the key the issuer rotated to, and no longer those of the key it dropped', async () => {
    const old = await issuer.token('agent-a', adapter.url);
    expect((await post(old)).status).toBe(200);
    await issuer.rotate();
    const token = await issuer.token('agent-a', adapter.url);
    expect(decodeProtectedHeader(token).kid).toBe(issuer.key().kid);
    // Taken once the cooldown since the last key set fetch (5 s) has passed, never refused for good.
    const until = Date.now() + 12_000;
    let status = 0;
    while (Date.now() < until && (status = (await post(token)).status) !== 200) await new Promise((r) => setTimeout(r, 500));
    expect(status).toBe(200);
    const res = await post(old);
    expect(res.status).toBe(401);
    expect(String(res.headers['www-authenticate'])).toContain('error="invalid_token"');
  }, 20_000);
});

describe('repositories per user', () => {
  it('shows each user only the repositories of its groups, through every tool, page, cursor, count and error', async () => {
    const a = await connectWith(await issuer.token('agent-a', adapter.url));
    const b = await connectWith(await issuer.token('agent-b', adapter.url));
    const none = await connectWith(await issuer.token('agent-nogroup', adapter.url));
    try {
      const names = async (client: Client, tool: string, args: Record<string, unknown>) => JSON.stringify(ok(await call(client, tool, args)));
      for (const [client, mine, theirs] of [
        [a, WEBAPP, GOSVC],
        [b, GOSVC, WEBAPP],
      ] as const) {
        expect(ok<{ repos: { name: string }[] }>(await call(client, 'list_repos', {})).repos.map((r) => r.name)).toEqual([mine]);
        for (const [tool, args] of [
          ['search_code', { query: 'func' }],
          ['search_code', { query: `repo:${theirs.split('/').pop()} func` }],
          ['search_files', { pattern: '**' }],
          ['search_symbols', { name: '*', limit: 100 }],
          ['find_references', { symbol: 'Server' }],
          ['get_health', {}],
        ] as const) {
          const text = await names(client, tool, args);
          expect(text, `${tool} ${JSON.stringify(args)}`).not.toContain(theirs);
        }
        const other = failed(await call(client, 'get_file', { repo: theirs, path: 'README.md' }));
        expect(other.code).toBe('FORBIDDEN');
        // It names the caller's own repositories only: the one asked for is the caller's text.
        expect(other.hint).toContain(mine);
      }
      // A cursor of one user does not page for the other.
      const page = ok<{ next_cursor?: string }>(await call(a, 'search_files', { pattern: '**', limit: 1 }));
      expect(page.next_cursor).toBeDefined();
      const stolen = failed(await call(b, 'search_files', { pattern: '**', limit: 1, cursor: page.next_cursor }));
      expect(stolen.code).toBe('INVALID_CURSOR');
      expect(JSON.stringify(stolen)).not.toContain(WEBAPP);
      // A token whose groups map to nothing reads nothing.
      const nothing = ok<{ repos: unknown[]; hint?: string }>(await call(none, 'list_repos', {}));
      expect(nothing.repos).toEqual([]);
      expect(nothing.hint).toContain("the repositories your access token's groups grant");
      expect(nothing.hint).not.toContain('--allow-repos');
      expect(textOf(await call(none, 'search_code', { query: 'func' }))).not.toMatch(/acme\/(webapp|gosvc)/);
    } finally {
      await Promise.all([a.close(), b.close(), none.close()]);
    }
  });

  it("holds against every crafted attempt of --allow-repos's tests, over every page, in the queries Zoekt is sent too", async () => {
    const a = await connectWith(await issuer.token('agent-a', adapter.url));
    try {
      const list = attempts(new RepoScope([WEBAPP]).confine(''));
      expect(list.length).toBeGreaterThanOrEqual(30);
      for (const attempt of list) {
        const label = `${attempt.tool} ${JSON.stringify(attempt.args)}`;
        const got = await allPages(a, attempt.tool, attempt.args);
        if (got.error) {
          expect(attempt.mayFail ?? [], `${label}: ${JSON.stringify(failed(got.error))}`).toContain(failed(got.error).code);
          continue;
        }
        expect([...new Set(got.repos)].filter((r) => r !== WEBAPP), label).toEqual([]);
        // The query alone keeps Zoekt inside the caller's scope; the check of each answer is a second lock.
        for (const query of got.queries) {
          const res = await fetch(`${inject('zoektUrl')}/api/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Q: query, Opts: { MaxDocDisplayCount: 5000 } }) });
          const files = ((await res.json()) as { Result: { Files: { Repository: string }[] | null } }).Result.Files ?? [];
          expect([...new Set(files.map((f) => f.Repository))].filter((r) => r !== WEBAPP), `${label}: ${query}`).toEqual([]);
        }
      }
    } finally {
      await a.close();
    }
  }, 120_000);

  it('holds for a 2026-07-28 request too', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'oauth-tests', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const token = await issuer.token('agent-b', adapter.url);
    const res = await raw(`${adapter.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_repos', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_repos', arguments: {}, _meta: envelope } }),
    });
    expect(res.status, res.text).toBe(200);
    // JSON, or an SSE stream whose data line is the answer.
    const json = res.text.trimStart().startsWith('{') ? res.text : res.text.split('\n').find((l) => l.startsWith('data:'))!.slice(5);
    const answer = JSON.parse(json) as { result: { structuredContent: { repos: { name: string }[] } } };
    const names = answer.result.structuredContent.repos.map((r) => r.name);
    expect(names).toEqual([GOSVC]);
  });

  it('holds over the legacy SSE transport too', async () => {
    const b = await connectSse(adapter.url, { authorization: `Bearer ${await issuer.token('agent-b', adapter.url)}` });
    try {
      expect(ok<{ repos: { name: string }[] }>(await call(b.client, 'list_repos', {})).repos.map((r) => r.name)).toEqual([GOSVC]);
      expect(JSON.stringify(ok(await call(b.client, 'search_code', { query: 'func' })))).not.toContain(WEBAPP);
    } finally {
      await b.close();
    }
  });
});

/** A raw legacy SSE stream: the endpoint it announces, and everything it has carried so far. */
async function openStream(token: string): Promise<{ endpoint: string; text: () => string; close: () => void }> {
  const req = httpRequest(`${adapter.url}/sse`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` }, agent: false });
  let text = '';
  const endpoint = await new Promise<string>((resolve, reject) => {
    req.on('response', (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET /sse answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
        const m = /event: endpoint\ndata: (\S+)/.exec(text);
        if (m) resolve(m[1]!);
      });
    });
    req.on('error', reject);
    req.end();
  });
  return { endpoint, text: () => text, close: () => req.destroy() };
}

describe('legacy SSE sessions', () => {
  it("answers 403 to a POST of another user's token to a session, and nothing reaches the session's stream", async () => {
    const tokenA = await issuer.token('agent-a', adapter.url);
    const tokenB = await issuer.token('agent-b', adapter.url);
    const stream = await openStream(tokenA);
    try {
      const send = (token: string, id: number) =>
        raw(new URL(stream.endpoint, adapter.url).href, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_repos', arguments: {} } }),
        });
      const theirs = await send(tokenB, 41);
      expect(theirs.status, theirs.text).toBe(403);
      expect(theirs.json()).toMatchObject({ error: { code: -32001, data: { code: 'SESSION_FORBIDDEN' } } });
      // The owner's own POST is taken, and its answer (and only its) comes on the stream.
      expect((await send(tokenA, 42)).status).toBe(202);
      const until = Date.now() + 5_000;
      while (Date.now() < until && !stream.text().includes('"id":42')) await new Promise((r) => setTimeout(r, 50));
      expect(stream.text()).toContain('"id":42');
      expect(stream.text()).not.toContain('"id":41');
      expect(stream.text()).not.toContain(GOSVC);
    } finally {
      stream.close();
    }
  });
});

describe("an MCP SDK client's own OAuth support", () => {
  it('gets a 401, finds the metadata and the issuer, signs its user in with PKCE, and calls tools', async () => {
    let tokens: OAuthTokens | undefined;
    let verifier = '';
    let code: Promise<string> | undefined;
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return REDIRECT_URI;
      },
      get clientMetadata(): OAuthClientMetadata {
        return { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], client_name: 'oauth-tests' };
      },
      clientInformation: (): OAuthClientInformationMixed => ({ client_id: PUBLIC_CLIENT }),
      tokens: () => tokens,
      saveTokens: (t) => {
        tokens = t;
      },
      redirectToAuthorization: (url) => {
        code = authorizeAs('bob', url);
      },
      saveCodeVerifier: (v) => {
        verifier = v;
      },
      codeVerifier: () => verifier,
    };
    const url = new URL(`${adapter.url}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const client = new Client({ name: 'oauth-tests', version: '1.0.0' }, CLIENT_OPTIONS);
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(code).toBeDefined();
    await first.finishAuth(await code!);
    expect(tokens?.access_token).toBeDefined();
    // The resource the SDK asked for is the one the metadata of /mcp names: the MCP endpoint.
    expect(decodeJwt(tokens!.access_token)).toMatchObject({ aud: `${adapter.url}/mcp`, sub: 'bob', scope: expect.stringContaining(READ_SCOPE) });
    const signedIn = new Client({ name: 'oauth-tests', version: '1.0.0' }, CLIENT_OPTIONS);
    await signedIn.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    try {
      expect(ok<{ repos: { name: string }[] }>(await call(signedIn, 'list_repos', {})).repos.map((r) => r.name)).toEqual([GOSVC]);
    } finally {
      await signedIn.close();
    }
  }, 30_000);
});

describe('opaque access tokens, by introspection (RFC 7662)', () => {
  it('checks them at the issuer with the server\'s own client, the same scope and audience rules, the same repositories per user', async () => {
    const server = await startAdapter({
      zoektUrl: inject('zoektUrl'),
      env: {
        ZOEKT_MCP_OAUTH_ISSUER: issuer.url,
        ZOEKT_MCP_OAUTH_REPOS_CLAIM: 'groups',
        ZOEKT_MCP_OAUTH_REPOS_MAP: MAP,
        ZOEKT_MCP_OAUTH_CLIENT_ID: 'zoekt-mcp',
        ZOEKT_MCP_OAUTH_CLIENT_SECRET: CLIENT_SECRET,
      },
    });
    const refusal = async (token: string) => {
      const res = await raw(`${server.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: '{}' });
      return { status: res.status, challenge: String(res.headers['www-authenticate']), text: res.text };
    };
    try {
      const opaque = await issuer.token('agent-opaque', server.url);
      expect(opaque.split('.')).toHaveLength(1);
      const client = new Client({ name: 'oauth-tests', version: '1.0.0' }, CLIENT_OPTIONS);
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${opaque}` } } }));
      try {
        expect(ok<{ repos: { name: string }[] }>(await call(client, 'list_repos', {})).repos.map((r) => r.name)).toEqual([GOSVC]);
      } finally {
        await client.close();
      }
      const made = await refusal('made-up-opaque-token-0123456789abcdef');
      expect(made.status).toBe(401);
      expect(made.challenge).toContain('error="invalid_token", error_description="the access token is not active');
      const elsewhere = await refusal(await issuer.token('agent-opaque', 'https://other.example/mcp'));
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.challenge).toContain('not issued for this server');
      // JWTs are still verified locally.
      expect((await refusal(await issuer.token('agent-noscope', server.url, 'other'))).status).toBe(403);
      expect(server.stderr()).not.toContain(opaque);
    } finally {
      await server.stop();
    }
  }, 30_000);
});

describe('an issuer that cannot be read', () => {
  it('answers 503 with Retry-After, counted, and says why without the token', async () => {
    const down = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_OAUTH_ISSUER: 'http://127.0.0.1:1' } });
    try {
      const token = await issuer.token('agent-a', down.url);
      const forged = await forge(token, { iss: 'http://127.0.0.1:1' }, {}, issuer.key().privateKey);
      const res = await raw(`${down.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${forged}` }, body: '{}' });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({ error: { data: { code: 'AUTH_UNAVAILABLE' }, message: expect.stringContaining("its issuer's metadata or keys could not be read") } });
      expect(res.text + down.stderr()).not.toContain(forged.split('.')[2]);
      // The operator is told why, naming the issuer.
      expect(await down.waitForLog('oauth issuer unreachable: access tokens of it are refused with 503')).toMatchObject({ issuer: 'http://127.0.0.1:1', reason: expect.stringContaining('no metadata of http://127.0.0.1:1') });
    } finally {
      await down.stop();
    }
  });
});

describe('an issuer whose key set cannot be read', () => {
  it('answers 503 issuer_unreachable, fetching the failing key set at most once per cooldown', async () => {
    // A server of its own, so that no key set fetch of the other tests succeeded before.
    const keyless = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_OAUTH_ISSUER: issuer.url } });
    issuer.failJwks(true);
    try {
      const good = await issuer.token('agent-a', keyless.url);
      const { privateKey } = await generateKeyPair('RS256');
      const fetchesBefore = issuer.jwksFetches();
      const answers: { status: number; challenge: string; code: unknown }[] = [];
      // One after another: each request finds the failure of the one before it.
      for (let i = 0; i < 20; i++) {
        const forged = await forge(good, {}, { kid: `down-${i}-${Math.random().toString(36).slice(2)}` }, privateKey);
        const res = await raw(`${keyless.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${forged}` }, body: '{}' });
        answers.push({ status: res.status, challenge: String(res.headers['www-authenticate']), code: (res.json() as { error?: { data?: { code?: unknown } } }).error?.data?.code });
      }
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([503]));
      expect(new Set(answers.map((a) => a.code))).toEqual(new Set(['AUTH_UNAVAILABLE']));
      expect(issuer.jwksFetches() - fetchesBefore).toBeLessThanOrEqual(1);
      expect(await keyless.waitForLog('oauth issuer unreachable: access tokens of it are refused with 503')).toMatchObject({ issuer: issuer.url, reason: expect.stringContaining(`the key set of ${issuer.url}`) });
    } finally {
      issuer.failJwks(false);
      await keyless.stop();
    }
  });
});

describe('an issuer whose metadata or introspection answer cannot be used', () => {
  it('refuses a key set or introspection endpoint over plain http off loopback, and never logs a non-JSON answer', async () => {
    const secret = 'ANSWER-TEXT-0123456789';
    const fake = createServer((req, res) => {
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ issuer: fakeUrl, jwks_uri: 'http://keys.invalid/jwks', introspection_endpoint: `${fakeUrl}/introspect` }));
        return;
      }
      if (req.url === '/introspect') {
        res.setHeader('content-type', 'text/html');
        res.end(`<html>not json: ${secret}</html>`);
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    const server = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_OAUTH_ISSUER: fakeUrl, ZOEKT_MCP_OAUTH_CLIENT_ID: 'zoekt-mcp', ZOEKT_MCP_OAUTH_CLIENT_SECRET: CLIENT_SECRET } });
    const send = (token: string) => raw(`${server.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: '{}' });
    try {
      const opaque = await send('opaque-token-0123456789abcdef');
      expect(opaque.status).toBe(503);
      const logged = await server.waitForLog('oauth issuer unreachable: access tokens of it are refused with 503');
      expect(logged).toMatchObject({ issuer: fakeUrl, reason: expect.stringContaining('not JSON') });
      expect(server.stderr()).not.toContain(secret);
      // The warning is logged once per 5 s at most.
      await new Promise((r) => setTimeout(r, 5_200));
      const forged = await forge(await issuer.token('agent-a', server.url), { iss: fakeUrl }, {}, issuer.key().privateKey);
      expect((await send(forged)).status).toBe(503);
      const until = Date.now() + 5_000;
      let reasons: unknown[] = [];
      while (Date.now() < until && !reasons.some((r) => String(r).includes('http://keys.invalid/jwks'))) {
        reasons = server.logs().filter((l) => l.msg === 'oauth issuer unreachable: access tokens of it are refused with 503').map((l) => l.reason);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(reasons.find((r) => String(r).includes('http://keys.invalid/jwks'))).toContain('https');
    } finally {
      await server.stop();
      fake.closeAllConnections();
      await new Promise((r) => fake.close(r));
    }
  }, 30_000);
});

describe('--oauth-audience', () => {
  it('takes tokens for that audience as well, while the metadata still names the URL it is served from', async () => {
    const audience = 'https://api.example.com/zoekt';
    const server = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_OAUTH_ISSUER: issuer.url, ZOEKT_MCP_OAUTH_AUDIENCE: audience } });
    const send = async (token: string) => (await raw(`${server.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) })).status;
    try {
      // The TS SDK's selectResourceURL refuses a resource of another origin than the server's.
      expect((await raw(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()).toMatchObject({ resource: `${server.url}/mcp` });
      expect(await send(await issuer.token('agent-a', audience))).toBe(200);
      expect(await send(await issuer.token('agent-a', `${server.url}/mcp`))).toBe(200);
      expect(await send(await issuer.token('agent-a', 'https://other.example/mcp'))).toBe(401);
    } finally {
      await server.stop();
    }
  });
});

describe('--oauth-accept-jwt-typ', () => {
  it('takes access tokens typed JWT, as Keycloak and Entra ID write them, but never one with a nonce (an ID token)', async () => {
    const lenient = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_OAUTH_ISSUER: issuer.url, ZOEKT_MCP_OAUTH_ACCEPT_JWT_TYP: '1' } });
    const send = async (token: string) => (await raw(`${lenient.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) })).status;
    try {
      const good = await issuer.token('agent-a', lenient.url);
      expect(await send(good)).toBe(200);
      // Forged: re-signed with the issuer's own key, as an issuer writing typ JWT would sign it.
      expect(await send(await forge(good, {}, { typ: 'JWT' }, issuer.key().privateKey))).toBe(200);
      expect(await send(await forge(good, { nonce: 'n-0123456789' }, { typ: 'JWT' }, issuer.key().privateKey))).toBe(401);
    } finally {
      await lenient.stop();
    }
  });
});

describe('start-up', () => {
  it('refuses the static token and an issuer together, saying why', () => {
    const run = spawnSync(process.execPath, [CLI, '--http', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', ZOEKT_MCP_AUTH_TOKEN: 'test-token-0123456789abcdef', ZOEKT_MCP_OAUTH_ISSUER: 'https://issuer.example' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('ZOEKT_MCP_AUTH_TOKEN and ZOEKT_MCP_OAUTH_ISSUER are both set');
    expect(run.stderr).not.toContain('test-token-0123456789abcdef');
  });

  it('warns that --insecure-no-auth means nothing with an issuer', async () => {
    const server = await startAdapter({ zoektUrl: inject('zoektUrl'), env: { ZOEKT_MCP_OAUTH_ISSUER: issuer.url, ZOEKT_MCP_INSECURE_NO_AUTH: '1' } });
    try {
      const warned = await Promise.race([server.waitForLog('--insecure-no-auth is ignored: every request needs an access token of --oauth-issuer'), new Promise((r) => setTimeout(() => r(undefined), 5_000))]);
      expect(warned).toMatchObject({ level: 'warn' });
      // Still no request goes in without a token.
      expect((await raw(`${server.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: '{}' })).status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it('refuses --oauth-accept-jwt-typ without an issuer, saying why', () => {
    const run = spawnSync(process.execPath, [CLI, '--http', '--port', '0', '--oauth-accept-jwt-typ'], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--oauth-accept-jwt-typ (ZOEKT_MCP_OAUTH_ACCEPT_JWT_TYP) needs --oauth-issuer');
  });
});
