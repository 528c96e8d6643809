import { describe, expect, it } from 'vitest';
import { DEFAULTS, HELP, HTTP_DEFAULTS, loadConfig, OPTIONS, type Config, type OptionSpec } from '../../src/config.js';

describe('loadConfig', () => {
  it('uses defaults, then environment, then flags', () => {
    expect(loadConfig([], {})).toEqual({ kind: 'run', config: DEFAULTS });
    const fromEnv = loadConfig([], { ZOEKT_URL: 'http://zoekt:6070/', ZOEKT_MCP_TIMEOUT_MS: '5000', ZOEKT_MCP_LOG_LEVEL: 'DEBUG' });
    expect(fromEnv).toEqual({ kind: 'run', config: { ...DEFAULTS, zoektUrl: 'http://zoekt:6070', timeoutMs: 5000, logLevel: 'debug' } });
    const flagsWin = loadConfig(['--zoekt-url', 'http://other:1', '--timeout-ms=200'], { ZOEKT_URL: 'http://zoekt:6070', ZOEKT_MCP_TIMEOUT_MS: '5000' });
    expect(flagsWin.kind === 'run' && flagsWin.config.zoektUrl).toBe('http://other:1');
    expect(flagsWin.kind === 'run' && flagsWin.config.timeoutMs).toBe(200);
  });

  it.each([
    [['--zoekt-url', 'not a url'], {}, /--zoekt-url is not a URL/],
    [[], { ZOEKT_URL: 'ftp://x' }, /ZOEKT_URL must be an http/],
    [['--timeout-ms', '5s'], {}, /--timeout-ms must be a whole number/],
    [[], { ZOEKT_MCP_TIMEOUT_MS: '99999999' }, /between 100 and 120000/],
    [['--log-level', 'loud'], {}, /--log-level must be one of/],
    [['--cache-mb=-1'], {}, /--cache-mb must be a whole number/],
    [[], { ZOEKT_MCP_CACHE_MB: '5000' }, /ZOEKT_MCP_CACHE_MB must be between 0 and 4096/],
    [['--cache-ttl-ms', '10'], {}, /--cache-ttl-ms must be between 1000/],
    [['--allow-repos', ' , '], {}, /--allow-repos names no repository glob/],
    [[], { ZOEKT_MCP_ALLOW_REPOS: 'github.com/acme/[web' }, /ZOEKT_MCP_ALLOW_REPOS: repo glob .* never closed/],
    [['--cursor-secret', 'short'], {}, /--cursor-secret is shorter than 32 characters.*openssl rand -hex 32/],
    [[], { ZOEKT_MCP_CURSOR_SECRET: 'x'.repeat(31) }, /ZOEKT_MCP_CURSOR_SECRET is shorter than 32 characters/],
    [[], { ZOEKT_MCP_CURSOR_SECRET: `${'x'.repeat(32)} y` }, /ZOEKT_MCP_CURSOR_SECRET must be printable ASCII without spaces/],
    [['--no-such-flag'], {}, /Unknown option '--no-such-flag'.*--help/],
    [['stray'], {}, /Unexpected argument 'stray'|positional/i],
  ])('refuses %j %j with a one-line reason', (argv, env, reason) => {
    const out = loadConfig(argv as string[], env as NodeJS.ProcessEnv);
    expect(out.kind).toBe('error');
    if (out.kind === 'error') {
      expect(out.reason).toMatch(reason);
      expect(out.reason).not.toContain('\n');
    }
  });

  it('reads the cursor secret, flag over variable, and has none by default', () => {
    const secret = 'f'.repeat(64);
    expect(loadConfig(['--cursor-secret', secret], { ZOEKT_MCP_CURSOR_SECRET: 'e'.repeat(64) })).toEqual({ kind: 'run', config: { ...DEFAULTS, cursorSecret: secret } });
    expect(DEFAULTS.cursorSecret).toBeUndefined();
  });

  it('reads the cache and repo scope options', () => {
    const out = loadConfig(['--cache-mb', '0', '--allow-repos', 'github.com/acme/web*, gosvc'], { ZOEKT_MCP_CACHE_TTL_MS: '5000', ZOEKT_MCP_ALLOW_REPOS: 'x' });
    expect(out).toEqual({ kind: 'run', config: { ...DEFAULTS, cacheMb: 0, cacheTtlMs: 5000, allowRepos: ['github.com/acme/web*', 'gosvc'] } });
    expect(DEFAULTS).toMatchObject({ cacheMb: 64, cacheTtlMs: 120_000, allowRepos: [] });
  });

  it('answers --help and --version', () => {
    expect(loadConfig(['--help'], {}).kind).toBe('help');
    expect(loadConfig(['-v'], {}).kind).toBe('version');
  });
});

describe('loadConfig: HTTP', () => {
  const TOKEN = 'a'.repeat(32);
  const http = (argv: string[], env: NodeJS.ProcessEnv = {}): NonNullable<Config['http']> => {
    const out = loadConfig(argv, env);
    if (out.kind !== 'run' || !out.config.http) throw new Error(`expected an HTTP config, got ${JSON.stringify(out)}`);
    return out.config.http;
  };
  const refused = (argv: string[], env: NodeJS.ProcessEnv = {}): string => {
    const out = loadConfig(argv, env);
    if (out.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(out)}`);
    expect(out.reason).not.toContain('\n');
    return out.reason;
  };

  it('serves stdio unless --http or ZOEKT_MCP_HTTP says otherwise', () => {
    const stdio = (env: NodeJS.ProcessEnv) => {
      const out = loadConfig([], env);
      return out.kind === 'run' ? out.config : undefined;
    };
    expect(stdio({})).toBeDefined();
    expect(stdio({})?.http).toBeUndefined();
    expect(stdio({ ZOEKT_MCP_HTTP: '0' })?.http).toBeUndefined();
    expect(http(['--http'])).toMatchObject({ host: HTTP_DEFAULTS.host, port: HTTP_DEFAULTS.port, shutdownTimeoutMs: HTTP_DEFAULTS.shutdownTimeoutMs });
    expect(http([], { ZOEKT_MCP_HTTP: 'true' }).authToken).toBeUndefined();
  });

  it('reads host, port, token, origins and shutdown timeout from flags over the environment', () => {
    const env = { ZOEKT_MCP_HTTP: 'yes', ZOEKT_MCP_HOST: '::1', ZOEKT_MCP_PORT: '8080', ZOEKT_MCP_AUTH_TOKEN: TOKEN, ZOEKT_MCP_SHUTDOWN_TIMEOUT_MS: '500' };
    expect(http([], env)).toMatchObject({ host: '::1', port: 8080, authToken: TOKEN, shutdownTimeoutMs: 500 });
    expect(http(['--port', '0', '--host', '[::1]', '--auth-token', 'b'.repeat(16)], env)).toMatchObject({ host: '::1', port: 0, authToken: 'b'.repeat(16) });
    const origins = http(['--http', '--allowed-origins', 'https://app.example.com, http://localhost:*']).allowedOrigins;
    expect(origins.map((o) => o.text)).toEqual(['https://app.example.com', 'http://localhost:*']);
  });

  it('allows loopback origins by default on a loopback bind, and none elsewhere', () => {
    expect(http(['--http']).allowedOrigins.map((o) => o.text)).toContain('http://localhost:*');
    expect(http(['--http', '--host', '0.0.0.0', '--auth-token', TOKEN, '--allowed-hosts', '*']).allowedOrigins).toEqual([]);
    expect(http(['--http', '--allowed-origins', 'https://app.example.com']).allowedOrigins.map((o) => o.text)).toEqual(['https://app.example.com']);
  });

  it('refuses a non-loopback bind without a token unless told it is on purpose', () => {
    for (const host of ['0.0.0.0', '::', '10.1.2.3', 'zoekt-mcp.internal']) {
      expect(refused(['--http', '--host', host])).toMatch(new RegExp(`refusing to serve ${host.replace(/\./g, '\\.')} \\(not a loopback address\\) without --auth-token`));
    }
    const hosts = ['--allowed-hosts', 'mcp.example.com'];
    expect(http(['--http', '--host', '0.0.0.0', '--insecure-no-auth', ...hosts]).authToken).toBeUndefined();
    expect(http(['--http', '--host', '0.0.0.0', ...hosts], { ZOEKT_MCP_INSECURE_NO_AUTH: '1' }).host).toBe('0.0.0.0');
    expect(http(['--http', '--host', '0.0.0.0', ...hosts], { ZOEKT_MCP_AUTH_TOKEN: TOKEN }).host).toBe('0.0.0.0');
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1']) expect(http(['--http', '--host', host]).host).toBe(host);
  });

  it('answers the loopback names (and the bound address) on a loopback bind, and needs --allowed-hosts elsewhere', () => {
    const names = (argv: string[], env: NodeJS.ProcessEnv = {}) => http(argv, env).allowedHosts.map((h) => h.text);
    expect(names(['--http'])).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(names(['--http', '--host', '::1'])).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(names(['--http', '--host', '127.0.0.2'])).toEqual(['localhost', '127.0.0.1', '[::1]', '127.0.0.2']);
    for (const host of ['0.0.0.0', '::', '10.1.2.3']) {
      expect(refused(['--http', '--host', host, '--auth-token', TOKEN])).toMatch(/needs --allowed-hosts or ZOEKT_MCP_ALLOWED_HOSTS/);
    }
    // The token is named first: it is the bigger hole.
    expect(refused(['--http', '--host', '0.0.0.0'])).toMatch(/without --auth-token/);
    expect(names(['--http', '--host', '0.0.0.0', '--auth-token', TOKEN, '--allowed-hosts', 'mcp.example.com, 10.0.0.5:3000,[::1]'])).toEqual(['mcp.example.com', '10.0.0.5:3000', '[::1]']);
    expect(names(['--http', '--host', '0.0.0.0', '--auth-token', TOKEN], { ZOEKT_MCP_ALLOWED_HOSTS: '*' })).toEqual(['*']);
    expect(names(['--http', '--allowed-hosts', 'dev.local'])).toEqual(['dev.local']);
  });

  it.each([
    [['--http', '--port', '70000'], {}, /--port must be between 0 and 65535/],
    [['--http'], { ZOEKT_MCP_PORT: 'http' }, /ZOEKT_MCP_PORT must be a whole number/],
    [['--http', '--auth-token', 'short'], {}, /--auth-token is shorter than 16 characters.*openssl rand/],
    [['--http'], { ZOEKT_MCP_AUTH_TOKEN: 'has a space in it, long enough' }, /ZOEKT_MCP_AUTH_TOKEN must be printable ASCII without spaces/],
    [['--http', '--allowed-origins', 'example.com'], {}, /--allowed-origins: "example.com" is not an origin/],
    [['--http', '--shutdown-timeout-ms=-1'], {}, /--shutdown-timeout-ms must be a whole number/],
    [['--http', '--host', 'a b'], {}, /--host must be an IP address or host name/],
    [['--http', '--allowed-hosts', 'http://x.example'], {}, /--allowed-hosts: "http:\/\/x.example" is not a host name/],
    [['--http', '--allowed-hosts', ' , '], {}, /--allowed-hosts names no host/],
    [[], { ZOEKT_MCP_HTTP: 'maybe' }, /ZOEKT_MCP_HTTP must be true or false/],
    [['--port', '3000'], {}, /--port only applies with --http/],
    [['--auth-token', TOKEN], {}, /--auth-token only applies with --http/],
    [['--http', '--oauth-issuer', 'https://issuer.example'], { ZOEKT_MCP_AUTH_TOKEN: TOKEN }, /ZOEKT_MCP_AUTH_TOKEN and --oauth-issuer are both set: .*not both/],
    [['--http', '--oauth-issuer', 'http://issuer.example'], {}, /issuer http:\/\/issuer.example must be an https URL \(http only on a loopback address\)/],
    [['--http', '--oauth-issuer', 'https://issuer.example?x=1'], {}, /has a query or fragment/],
    [['--http', '--oauth-scope', 'zoekt:read'], {}, /--oauth-scope needs --oauth-issuer/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-scope', 'a b'], {}, /--oauth-scope must be one scope token/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-repos-claim', 'groups'], {}, /--oauth-repos-claim needs --oauth-repos-map/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-repos-map', 'a=x/*'], {}, /--oauth-repos-map needs --oauth-repos-claim/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-client-id', 'zoekt-mcp'], {}, /--oauth-client-id needs --oauth-client-secret/],
    [['--http', '--oauth-issuer', 'https://i.example'], { ZOEKT_MCP_OAUTH_CLIENT_SECRET: 'x'.repeat(20) }, /ZOEKT_MCP_OAUTH_CLIENT_SECRET needs --oauth-client-id/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-repos-claim', 'groups', '--oauth-repos-map', 'x/*'], {}, /is not VALUE=GLOB\|GLOB/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-repos-claim', 'groups', '--oauth-repos-map', 'a=x/*;a=y/*'], {}, /the value "a" is mapped twice/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-repos-claim', 'groups', '--oauth-repos-map', 'a=[x'], {}, /--oauth-repos-map \(a\)/],
    [['--http', '--host', '0.0.0.0', '--allowed-hosts', '*', '--oauth-issuer', 'https://i.example'], {}, /--oauth-issuer on 0\.0\.0\.0 \(not a loopback address\) needs --public-url/],
    [['--http', '--host', '10.1.2.3', '--allowed-hosts', '*', '--oauth-issuer', 'https://i.example', '--public-url', 'http://mcp.example.com'], {}, /--public-url is plain http on a non-loopback address.*in the clear/],
    [['--http', '--host', '0.0.0.0', '--allowed-hosts', '*', '--oauth-issuer', 'https://i.example'], { ZOEKT_MCP_PUBLIC_URL: 'http://127.0.0.1:8080' }, /ZOEKT_MCP_PUBLIC_URL is plain http/],
    [['--http', '--oauth-issuer', 'https://i.example', '--public-url', 'http://mcp.example.com'], {}, /--public-url is plain http/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-repos-claim', 'groups', '--oauth-repos-map', 'cn=admins,ou=groups=github.com/acme/*'], {}, /claim value with '=', ';' or '\|'/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-repos-claim', 'groups', '--oauth-repos-map', 'a|b=github.com/acme/*'], {}, /claim value with '=', ';' or '\|'/],
    [['--http', '--oauth-issuer', 'https://i.example', '--oauth-repos-claim', 'realm_access.roles', '--oauth-repos-map', 'a=x/*'], {}, /--oauth-repos-claim: "realm_access.roles" has a '\.', but nested claims are not looked up/],
  ])('refuses %j %j with a one-line reason', (argv, env, reason) => {
    expect(refused(argv as string[], env as NodeJS.ProcessEnv)).toMatch(reason);
  });

  it('takes an issuer as the sign-in a non-loopback server needs, and reads the claim mapping into a table', () => {
    expect(
      http(['--http', '--host', '0.0.0.0', '--allowed-hosts', 'mcp.example.com', '--public-url', 'https://mcp.example.com', '--oauth-issuer', 'https://issuer.example', '--oauth-repos-claim', 'groups', '--oauth-repos-map', 'team-a=github.com/acme/a-*|github.com/acme/shared; team-b=github.com/acme/b-*']),
    ).toMatchObject({
      oauth: {
        issuers: ['https://issuer.example'],
        scope: 'zoekt:read',
        reposClaim: 'groups',
        reposMap: [
          { value: 'team-a', globs: ['github.com/acme/a-*', 'github.com/acme/shared'] },
          { value: 'team-b', globs: ['github.com/acme/b-*'] },
        ],
      },
    });
  });

  it('takes a plain http --public-url on this machine only', () => {
    expect(http(['--http', '--oauth-issuer', 'https://i.example', '--public-url', 'http://localhost:8080']).publicUrl).toBe('http://localhost:8080');
    expect(http(['--http', '--host', '0.0.0.0', '--allowed-hosts', '*', '--oauth-issuer', 'https://i.example', '--public-url', 'https://mcp.example.com']).publicUrl).toBe('https://mcp.example.com');
    // A URI names one top-level claim, dots and all.
    expect(http(['--http', '--oauth-issuer', 'https://i.example', '--oauth-repos-claim', 'https://acme.example/groups', '--oauth-repos-map', 'a=x/*']).oauth?.reposClaim).toBe('https://acme.example/groups');
  });

  it('caps the headers timeout at the request timeout: the head is part of the request', () => {
    expect(http(['--http', '--headers-timeout-ms', '5000', '--request-timeout-ms', '2000'])).toMatchObject({ headersTimeoutMs: 2000, requestTimeoutMs: 2000 });
    expect(http(['--http', '--headers-timeout-ms', '1000'])).toMatchObject({ headersTimeoutMs: 1000, requestTimeoutMs: HTTP_DEFAULTS.requestTimeoutMs });
  });

  it('leaves HTTP variables alone when serving stdio', () => {
    const out = loadConfig([], { ZOEKT_MCP_PORT: 'junk', ZOEKT_MCP_HOST: '0.0.0.0' });
    expect(out.kind).toBe('run');
    expect(out.kind === 'run' && out.config.http).toBeUndefined();
  });
});

describe('OPTIONS: the options as data (--help and the option tables of docs/ are made from them)', () => {
  /** Each option's field in Config: the flag in camelCase. */
  const configKey = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  const withHttp = (o: OptionSpec) => (o.group === 'http' && o.name !== 'http' ? ['--http'] : []);

  it('names each flag and variable once, and --help shows every one', () => {
    expect(new Set(OPTIONS.map((o) => o.name)).size).toBe(OPTIONS.length);
    expect(new Set(OPTIONS.map((o) => o.env)).size).toBe(OPTIONS.length);
    for (const o of OPTIONS) {
      expect(HELP).toContain(`--${o.name}`);
      expect(HELP).toContain(o.env);
    }
  });

  it.each(OPTIONS.map((o) => [o.name, o] as const))('--%s is taken, from the flag and from its variable', (_name, o) => {
    const value = o.value ? String(typeof o.default === 'object' ? validSample[o.name] : o.default) : undefined;
    const argv = [...withHttp(o), `--${o.name}`, ...(value === undefined ? [] : [value])];
    expect(loadConfig(argv, { ...signIn(o.name) }).kind, argv.join(' ')).toBe('run');
    const env = { ...signIn(o.name), [o.env]: value ?? '1', ...(o.group === 'http' ? { ZOEKT_MCP_HTTP: '1' } : {}) };
    expect(loadConfig([], env).kind, JSON.stringify(env)).toBe('run');
  });

  it.each(OPTIONS.filter((o) => o.min !== undefined).map((o) => [o.name, o] as const))('--%s: the bounds shown are the bounds enforced', (_name, o) => {
    const run = (v: number) => loadConfig([...withHttp(o), `--${o.name}`, String(v)], {});
    expect(run(o.min!).kind).toBe('run');
    expect(run(o.max!).kind).toBe('run');
    const over = run(o.max! + 1);
    expect(over.kind === 'error' && over.reason).toMatch(`--${o.name} must be between ${o.min} and ${o.max}`);
    if (o.min! > 0) expect(run(o.min! - 1).kind).toBe('error');
  });

  it('an option that sets a field parses it: with its own parser, or as a whole number within the bounds it shows', () => {
    for (const o of OPTIONS.filter((o) => o.field !== undefined)) {
      expect(o.parse !== undefined || (o.min !== undefined && o.max !== undefined), o.name).toBe(true);
      expect(o.field, o.name).toBe(configKey(o.name));
    }
    // Each value lands in its field: one set away from its default, every other left at its own.
    for (const o of OPTIONS.filter((o) => o.field !== undefined && o.min !== undefined)) {
      const value = o.min === o.default ? o.max! : o.min!;
      const out = loadConfig([...withHttp(o), `--${o.name}`, String(value)], {});
      if (out.kind !== 'run') throw new Error(JSON.stringify(out));
      const flat: Record<string, unknown> = { ...out.config, ...out.config.http };
      expect(flat[o.field!], o.name).toBe(value);
    }
  });

  it('the defaults shown are the defaults used', () => {
    const out = loadConfig(['--http'], {});
    if (out.kind !== 'run') throw new Error(JSON.stringify(out));
    const flat: Record<string, unknown> = { ...out.config, ...out.config.http };
    for (const o of OPTIONS) {
      if (typeof o.default === 'object') continue;
      expect(flat[configKey(o.name)], o.name).toBe(o.default);
    }
    expect(OPTIONS.find((o) => o.name === 'log-level')?.choices).toContain(DEFAULTS.logLevel);
  });
});

/**
 * What an option is tried with: the static token, or for the resource-server options an issuer
 * (never both), and the other half of the claim mapping.
 */
function signIn(name: string): Record<string, string> {
  if (name === 'oauth-issuer') return {};
  if (name === 'oauth-repos-claim') return { ZOEKT_MCP_OAUTH_ISSUER: 'https://issuer.example', ZOEKT_MCP_OAUTH_REPOS_MAP: 'team-a=github.com/acme/*' };
  if (name === 'oauth-repos-map') return { ZOEKT_MCP_OAUTH_ISSUER: 'https://issuer.example', ZOEKT_MCP_OAUTH_REPOS_CLAIM: 'groups' };
  if (name === 'oauth-client-id') return { ZOEKT_MCP_OAUTH_ISSUER: 'https://issuer.example', ZOEKT_MCP_OAUTH_CLIENT_SECRET: 's'.repeat(16) };
  if (name === 'oauth-client-secret') return { ZOEKT_MCP_OAUTH_ISSUER: 'https://issuer.example', ZOEKT_MCP_OAUTH_CLIENT_ID: 'zoekt-mcp' };
  if (name.startsWith('oauth-')) return { ZOEKT_MCP_OAUTH_ISSUER: 'https://issuer.example' };
  return { ZOEKT_MCP_AUTH_TOKEN: 'a'.repeat(16) };
}

/** Values for the options whose default is words, not a value. */
const validSample: Record<string, string> = {
  'oauth-issuer': 'https://issuer.example,http://127.0.0.1:8080/realms/dev',
  'oauth-audience': 'https://mcp.example.com',
  'public-url': 'https://mcp.example.com/',
  definitions: '/srv/zoekt/definitions',
  'definitions-url': 'http://weaviate:8080',
  'oauth-repos-claim': 'groups',
  'oauth-client-id': 'zoekt-mcp',
  'oauth-client-secret': 'introspection-secret-0123',
  'oauth-repos-map': 'team-a=github.com/acme/a-*|github.com/acme/shared;team-b=github.com/acme/b-*',
  'allow-repos': 'github.com/acme/*',
  'auth-token': 'b'.repeat(16),
  'cursor-secret': 'c'.repeat(32),
  'allowed-origins': 'https://app.example.com',
  'allowed-hosts': 'mcp.example.com',
};

describe('the definitions index', () => {
  it('is a folder or a Weaviate server, not both', () => {
    expect(loadConfig(['--definitions', '/srv/defs'], {})).toMatchObject({ kind: 'run', config: { definitions: '/srv/defs' } });
    expect(loadConfig([], { ZOEKT_MCP_DEFINITIONS_URL: 'http://weaviate:8080/' })).toMatchObject({ kind: 'run', config: { definitionsUrl: 'http://weaviate:8080' } });
    const both = loadConfig(['--definitions', '/srv/defs'], { ZOEKT_MCP_DEFINITIONS_URL: 'http://weaviate:8080' });
    expect(both.kind).toBe('error');
    expect(both.kind === 'error' && both.reason).toMatch(/--definitions and ZOEKT_MCP_DEFINITIONS_URL name two definitions indexes/);
    expect(loadConfig(['--definitions-url', 'ftp://x'], {}).kind).toBe('error');
  });
});
