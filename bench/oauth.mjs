// What checking an OAuth access token costs an HTTP call: the same plain JSON-RPC POSTs on one
// keep-alive connection to a server with the static token (--auth-token) and to one in
// resource-server mode (--oauth-issuer, with the claim mapped to a repository scope), alternated
// round by round so both see the same machine. The access token comes from oidc-provider (a real
// authorization server) started in this process on 127.0.0.1. Per mode: p50 of tools/list (no
// Zoekt in it: the token check stands out) and of tools/call list_repos, and the server's CPU per
// call. bench/oauth.sh sets up the corpus and Zoekt. Prints figures; asserts nothing.
//   ZOEKT_URL=… [ZOEKT_MCP_CLI=dist/cli.js] node bench/oauth.mjs
import { join } from 'node:path';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { Agent, request } from 'undici';
import { cpuMs, startHttpServer } from './lib.mjs';

const ROOT = join(import.meta.dirname, '..');
const CLI = process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js');
const ZOEKT_URL = process.env.ZOEKT_URL;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
if (!ZOEKT_URL) {
  console.error('bench: set ZOEKT_URL, or run bash bench/oauth.sh');
  process.exit(2);
}
const STATIC_TOKEN = 'bench-token-0123456789abcdef0123456789';

/** oidc-provider on a free loopback port, issuing RS256 JWT access tokens by client_credentials. */
async function startIssuer() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(url, {
    clients: [{ client_id: 'bench', client_secret: 'bench-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'zoekt:read' }],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'bench', alg: 'RS256', use: 'sig' }] },
    scopes: ['zoekt:read'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({ scope: 'zoekt:read', audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: 3600, jwt: { sign: { alg: 'RS256' } } }),
      },
    },
    extraTokenClaims: () => ({ groups: ['everything'] }),
  });
  server.on('request', provider.callback());
  const token = async (resource) => {
    const res = await fetch(`${url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('bench:bench-secret').toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'zoekt:read' }).toString(),
    });
    const body = await res.json();
    if (!body.access_token) throw new Error(`the issuer gave no token: ${JSON.stringify(body)}`);
    return body.access_token;
  };
  return { url, token, stop: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

function poster(url, token) {
  const agent = new Agent({ connections: 1 });
  let id = 0;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${token}` };
  const post = async (method, params) => {
    const res = await request(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }), dispatcher: agent });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes('"result"') || text.includes('"isError":true')) throw new Error(`${method}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
  };
  return { post, close: () => agent.close() };
}

const CALLS_OF = {
  'tools/list': ['tools/list', {}],
  'tools/call list_repos': ['tools/call', { name: 'list_repos', arguments: {} }],
};
const figures = {};
const add = (mode, key, value) => (((figures[mode] ??= {})[key] ??= []).push(value));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const issuer = await startIssuer();
const env = { PATH: process.env.PATH ?? '', ZOEKT_URL, ZOEKT_MCP_LOG_LEVEL: 'info' };
const MODES = {
  'static token': { ...env, ZOEKT_MCP_AUTH_TOKEN: STATIC_TOKEN },
  'OAuth access token': { ...env, ZOEKT_MCP_OAUTH_ISSUER: issuer.url, ZOEKT_MCP_OAUTH_REPOS_CLAIM: 'groups', ZOEKT_MCP_OAUTH_REPOS_MAP: 'everything=**' },
};
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 ? Object.keys(MODES).reverse() : Object.keys(MODES)) {
      const server = await startHttpServer(CLI, ['--http', '--port', '0'], MODES[mode]);
      // Stopped whatever happens: a failed call must not leave the server running.
      try {
        const token = mode === 'static token' ? STATIC_TOKEN : await issuer.token(server.url);
        const { post, close } = poster(server.url, token);
        try {
          for (const [method, params] of Object.values(CALLS_OF)) for (let i = 0; i < 200; i++) await post(method, params);
          for (const [name, [method, params]] of Object.entries(CALLS_OF)) {
            const times = [];
            const cpu0 = cpuMs(server.pid);
            for (let i = 0; i < CALLS; i++) {
              const t = performance.now();
              await post(method, params);
              times.push(performance.now() - t);
            }
            add(mode, `${name}: p50 (ms)`, median(times));
            add(mode, `${name}: server CPU per call (ms)`, (cpuMs(server.pid) - cpu0) / CALLS);
          }
        } finally {
          await close();
        }
      } finally {
        await server.stop();
      }
      console.error(`bench: round ${round + 1}, ${mode} measured`);
    }
  }
} finally {
  await issuer.stop();
}

const modes = Object.keys(figures);
console.log(`\n## An HTTP call with the static token and with an OAuth access token: ${CALLS} calls per figure, medians of ${ROUNDS} rounds\n`);
console.log(`| figure | ${modes.join(' | ')} | difference |`);
console.log(`| --- |${modes.map(() => ' --- |').join('')} --- |`);
for (const key of Object.keys(figures[modes[0]])) {
  const [a, b] = modes.map((m) => median(figures[m][key]));
  console.log(`| ${key} | ${a.toFixed(3)} | ${b.toFixed(3)} | ${(b - a >= 0 ? '+' : '') + (b - a).toFixed(3)} |`);
}
