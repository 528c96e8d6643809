/**
 * The npm package as a user gets it: `npm pack`, then `npm install ./zoekt-mcp-*.tgz` into an empty
 * folder, then the installed commands: zoekt-mcp (--help, MCP over stdio against the test Zoekt),
 * zoekt-mcp-serve (the set-up command: index a repository, start Zoekt, serve), and every client
 * configuration of clients/ run the way its client would run it.
 *
 * dist/ is already built by the global set-up, so the pack skips `prepare` (which would build it
 * again); the package test of a fresh clone's `prepare` is the serve test, whose clone runs npm ci.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLIENTS } from '../../scripts/gen-docs.mjs';
import type { CodeSearchOutput } from '../../src/search/code.js';
import type { ListReposOutput } from '../../src/search/repos.js';
import { GRAMMARS } from '../../src/extractor/languages.js';
import { TOOLS } from '../../src/tools/index.js';
import { startAdapter, TOKEN, type Adapter } from '../support/http.js';
import { allIndexed, supervisorGone, supervisorStatus } from '../support/local.js';
import { call, ok } from '../support/mcp.js';
import { FIXTURES, git, PROTOCOL_TOOLS, REPO_PREFIX, ROOT, TOOLS_DIR } from '../support/zoekt.js';

/** The embedding model as the build copies it from scripts/setup.sh model's folder. */
const MODEL_FILES = ['.installed', 'ATTRIBUTION.txt', 'LICENSE', 'NOTICE', 'README.md', 'config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
/** The port the client configurations assume Zoekt on; the test's Zoekt runs elsewhere. */
const DEFAULT_ZOEKT_URL = 'http://127.0.0.1:6070';

let work: string;
let installed: string;
let bin: string;
let packed: string[];
/** PATH as a user's shell has it after the install: the package's commands, node, the system. */
let path: string;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-pack-'));
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [info] = JSON.parse(out) as [{ filename: string; files: { path: string }[] }];
  packed = info.files.map((f) => f.path).sort();
  const app = join(work, 'app');
  mkdirSync(app);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, info.filename)], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  installed = join(app, 'node_modules', pkg.name);
  bin = join(app, 'node_modules', '.bin');
  path = [bin, dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
}, 240_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

async function connect(command: string, args: string[], env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command, args, env: { PATH: path, ZOEKT_MCP_LOG_LEVEL: 'warn', ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new Client({ name: 'package-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('npm pack', () => {
  it('packs the built server, its two commands with what they run, the extractor with its grammars and answers, the embedding model with its license, the license, the README and the docs it links to, and nothing else', () => {
    // Declaration files (types only) compile to nothing.
    const sources = walk(join(ROOT, 'src')).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
    for (const src of sources) expect(packed, src).toContain(`dist/${relative(join(ROOT, 'src'), src).replace(/\.ts$/, '.js')}`);
    const grammars = GRAMMARS.map((g) => `dist/grammars/${g.wasm}`).sort();
    const rest = packed.filter((f) => !/^dist\/.*\.js$/.test(f));
    const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`).sort();
    expect(rest).toEqual([
      'LICENSE',
      'README.md',
      'dist/extractor/help',
      'dist/extractor/language-map',
      ...grammars,
      ...MODEL_FILES.map((f) => `dist/model/potion-base-8M/${f}`),
      'dist/tools-list.json',
      ...docs,
      'package.json',
      'scripts/install-zoekt.sh',
      'scripts/serve.sh',
      'zoekt-config/index',
      'zoekt-config/scip-ctags',
      'zoekt-config/universal-ctags',
      'zoekt-config/zoekt.env',
    ]);
  });
});

describe('installed with npm install ./zoekt-mcp-*.tgz', () => {
  it('puts zoekt-mcp and zoekt-mcp-serve on the PATH, executable', () => {
    for (const cmd of ['zoekt-mcp', 'zoekt-mcp-serve']) {
      expect(existsSync(join(bin, cmd)), cmd).toBe(true);
      expect(statSync(join(bin, cmd)).mode & 0o111, cmd).not.toBe(0);
    }
    expect(existsSync(join(installed, 'src')), 'no sources in the package').toBe(false);
  });

  it('zoekt-mcp --help and --version', () => {
    const help = spawnSync('zoekt-mcp', ['--help'], { env: { PATH: path }, encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: zoekt-mcp [options]');
    expect(help.stdout).toContain('--zoekt-url URL');
    const version = spawnSync('zoekt-mcp', ['--version'], { env: { PATH: path }, encoding: 'utf8' });
    expect(version.stdout).toBe(`zoekt-mcp ${pkg.version}\n`);
  });

  it.each([
    ['20', process.execPath],
    ['22', PROTOCOL_TOOLS.node[22]],
    ['24', PROTOCOL_TOOLS.node[24]],
  ])('zoekt-mcp serves MCP over stdio against Zoekt, run by Node %s', async (major, node) => {
    // The installed command runs on the first node on the PATH, as in a user's shell.
    const version = spawnSync('zoekt-mcp', ['--version'], { env: { PATH: [bin, dirname(node), process.env.PATH ?? ''].join(delimiter) }, encoding: 'utf8' });
    expect(version.stdout).toBe(`zoekt-mcp ${pkg.version}\n`);
    const which = spawnSync('node', ['--version'], { env: { PATH: [dirname(node), process.env.PATH ?? ''].join(delimiter) }, encoding: 'utf8' });
    expect(which.stdout).toMatch(new RegExp(`^v${major}\\.`));
    const { client } = await connect('zoekt-mcp', [], { ZOEKT_URL: inject('zoektUrl'), PATH: [bin, dirname(node), process.env.PATH ?? ''].join(delimiter) });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
      const out = ok<CodeSearchOutput>(await call(client, 'search_code', { query: 'NewServer', repos: [`${REPO_PREFIX}gosvc`], context_lines: 0 }));
      expect(out.results.map((r) => r.path)).toContain('internal/server/server.go');
      expect(ok<{ status: string }>(await call(client, 'get_health', {})).status).toBe('ok');
    } finally {
      await client.close();
    }
  });

  it('zoekt-mcp-serve, the set-up command, refuses to guess what to index', () => {
    const r = spawnSync('zoekt-mcp-serve', [], { env: { PATH: path, HOME: join(work, 'home') }, input: '', encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/set ZOEKT_MCP_REPOS to the repository to index/);
    expect(r.stdout).toBe('');
  });

  it('zoekt-mcp-serve --help prints its help and exits 0, with nothing to index and nothing installed', () => {
    const r = spawnSync('zoekt-mcp-serve', ['--help'], { env: { PATH: path, HOME: join(work, 'home-help'), ZOEKT_MCP_TOOLS_DIR: join(work, 'no-tools') }, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^zoekt-mcp-serve \(scripts\/serve\.sh in a checkout\)/);
    expect(r.stdout).toContain('--setup');
    expect(r.stdout).toContain('Usage: zoekt-mcp [options]');
    expect(existsSync(join(work, 'no-tools')), 'nothing installed').toBe(false);
  });

  it('zoekt-mcp-serve --setup --repo names the command as typed, and exits as soon as it has said its last line', async () => {
    const repo = join(work, 'setup-repo');
    cpSync(join(FIXTURES, 'gosvc'), repo, { recursive: true });
    const home = join(work, 'home-setup');
    const data = join(home, '.local/share/zoekt-mcp');
    // The supervisor lingers a minute after its last client, as it does for a user.
    const child = spawn('zoekt-mcp-serve', ['--setup', '--repo', repo], { env: { PATH: path, HOME: home, ZOEKT_MCP_TOOLS_DIR: TOOLS_DIR, ZOEKT_PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let lastLine = 0;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      lastLine = Date.now();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    const exitedAfter = Date.now() - lastLine;
    try {
      expect(code, stderr).toBe(0);
      expect(stderr).toContain(`clients that spawn zoekt-mcp-serve without --repo serve it`);
      expect(stderr).not.toContain('scripts/serve.sh');
      expect(stderr).toMatch(/1 of 1 repository indexed and served by Zoekt at http:\/\/127\.0\.0\.1:\d+ /);
      process.stderr.write(`zoekt-mcp-serve --setup exited ${exitedAfter} ms after its last line\n`);
      expect(exitedAfter).toBeLessThan(1500);
    } finally {
      const st = await supervisorStatus(data);
      if (st) process.kill(st.pid, 'SIGTERM');
      expect(await supervisorGone(data)).toBe(true);
    }
  }, 120_000);

  it('zoekt-mcp-serve indexes ZOEKT_MCP_REPOS into the user data folder, starts Zoekt, serves stdio and stops Zoekt after', async () => {
    const repo = join(work, 'myrepo');
    cpSync(join(FIXTURES, 'rustlib'), repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
    const home = join(work, 'home');
    const { client } = await connect('zoekt-mcp-serve', [], {
      HOME: home,
      // Zoekt is built once per machine; share the test run's build instead of building another.
      ZOEKT_MCP_TOOLS_DIR: TOOLS_DIR,
      ZOEKT_MCP_REPOS: repo,
      // The supervisor picks the port: one picked here could be taken by another test's server
      // first, and the supervisor would then take that server for a Zoekt of someone else's.
      ZOEKT_PORT: '0',
      ZOEKT_MCP_LINGER_MS: '0',
    });
    let zoektPort = 0;
    try {
      await allIndexed(client);
      zoektPort = Number(readFileSync(join(home, '.local/share/zoekt-mcp/zoekt.port'), 'utf8'));
      expect(zoektPort).toBeGreaterThan(0);
      const repos = ok<ListReposOutput>(await call(client, 'list_repos', {}));
      // A folder named on its own is named by its path (relative to home when under it).
      const name = repo.replace(/^\//, '');
      expect(repos.repos.map((r) => r.name)).toEqual([name]);
      const out = ok<CodeSearchOutput>(await call(client, 'search_code', { query: 'fn start', context_lines: 0 }));
      expect(out.results.map((r) => `${r.repo}/${r.path}`)).toContain(`${name}/src/server.rs`);
      const index = join(home, '.local/share/zoekt-mcp/index');
      expect(readdirSync(index).some((f) => f.endsWith('.zoekt')), index).toBe(true);
    } finally {
      await client.close();
    }
    // The shared Zoekt stops when its last client is gone (here at once: no linger).
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      gone = await fetch(`http://127.0.0.1:${zoektPort}/healthz`).then(
        () => false,
        () => true,
      );
      if (!gone) await new Promise((r) => setTimeout(r, 100));
    }
    expect(gone).toBe(true);
  }, 180_000);
});

interface ServerEntry {
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}

interface ClientConfig {
  mcpServers?: Record<string, ServerEntry>;
  servers?: Record<string, ServerEntry>;
  inputs?: { type: string; id: string; password?: boolean }[];
}

/**
 * What a client hands the server once it has expanded its variables: `${VAR:-default}` with VAR
 * unset, `${VAR}` and VS Code's `${input:id}` from what the user supplied. The configurations name
 * Zoekt's default URL; the test's Zoekt listens elsewhere.
 */
function expand(value: string, supplied: Record<string, string>, config: ClientConfig): string {
  const out = value.replace(/\$\{([^}]+?)(?::-([^}]*))?\}/g, (_m, name: string, dflt?: string) => {
    if (name.startsWith('input:')) {
      const input = config.inputs?.find((i) => i.id === name.slice('input:'.length));
      expect(input, `${name} is declared in inputs`).toBeDefined();
      expect(input!.password, `${name} is asked for as a password`).toBe(true);
      return supplied[name]!;
    }
    return supplied[name] ?? dflt ?? '';
  });
  return out === DEFAULT_ZOEKT_URL ? inject('zoektUrl') : out;
}

describe('client configurations (clients/)', () => {
  let adapter: Adapter;
  beforeAll(async () => {
    adapter = await startAdapter({ zoektUrl: inject('zoektUrl'), cli: join(installed, 'dist/cli.js'), env: { ZOEKT_MCP_AUTH_TOKEN: TOKEN } });
  }, 60_000);
  afterAll(() => adapter?.stop());

  const supplied = () => ({ ZOEKT_MCP_AUTH_TOKEN: TOKEN, 'input:zoekt-mcp-token': TOKEN });

  async function useStdio(entry: ServerEntry, config: ClientConfig, label: string) {
    expect(entry.command, label).toBeDefined();
    expect(existsSync(join(bin, entry.command!)), `${label}: ${entry.command} is a command the package installs`).toBe(true);
    const env = Object.fromEntries(Object.entries(entry.env ?? {}).map(([k, v]) => [k, expand(v, supplied(), config)]));
    expect(env.ZOEKT_URL, label).toBe(inject('zoektUrl'));
    const { client } = await connect(entry.command!, entry.args ?? [], env);
    try {
      const out = ok<CodeSearchOutput>(await call(client, 'search_code', { query: 'NewServer', repos: [`${REPO_PREFIX}gosvc`], limit: 1 }));
      expect(out.results, label).toHaveLength(1);
    } finally {
      await client.close();
    }
  }

  async function useHttp(entry: ServerEntry, config: ClientConfig, label: string) {
    expect(entry.type, label).toBe('http');
    const url = new URL(entry.url!);
    expect(url.hostname, `${label}: reaches the server on the loopback address`).toBe('127.0.0.1');
    expect(url.pathname, label).toBe('/mcp');
    const headers = Object.fromEntries(Object.entries(entry.headers ?? {}).map(([k, v]) => [k, expand(v, supplied(), config)]));
    expect(headers.Authorization, label).toBe(`Bearer ${TOKEN}`);
    const target = new URL(url.pathname, adapter.url);
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(target, { requestInit: { headers } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name), label).toContain('search_code');
    } finally {
      await client.close();
    }
    // The header is what lets it in.
    const bare = new Client({ name: 'package-test', version: '1.0.0' });
    await expect(bare.connect(new StreamableHTTPClientTransport(target))).rejects.toThrow(/401|Unauthorized/i);
  }

  it.each(CLIENTS.filter((c) => c.file.endsWith('.json')).map((c) => [c.file]))('%s parses and its servers work as configured', async (file) => {
    const config = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as ClientConfig;
    // VS Code names the map "servers"; the others "mcpServers".
    const servers = file === 'clients/vscode.json' ? config.servers : config.mcpServers;
    expect(servers, file).toBeDefined();
    expect(Object.keys(servers!).length).toBeGreaterThan(0);
    for (const [name, entry] of Object.entries(servers!)) {
      const label = `${file} ${name}`;
      if (entry.url) await useHttp(entry, config, label);
      else await useStdio(entry, config, label);
    }
  }, 120_000);

  it('clients/claude-code.sh adds a stdio server running an installed command', async () => {
    const words = readFileSync(join(ROOT, 'clients/claude-code.sh'), 'utf8').trim().split(/\s+/);
    expect(words.join(' ')).not.toMatch(/["'\\$]/);
    expect(words.slice(0, 3)).toEqual(['claude', 'mcp', 'add']);
    const sep = words.indexOf('--');
    const options = words.slice(3, sep - 1);
    const env: Record<string, string> = {};
    for (let i = 0; i < options.length; i += 2) {
      if (options[i] === '--env') {
        const [k, v] = options[i + 1]!.split('=');
        env[k!] = v!;
      } else expect([options[i], options[i + 1]]).toEqual(['--transport', 'stdio']);
    }
    expect(words[sep - 1]).toBe('zoekt');
    await useStdio({ command: words[sep + 1]!, args: words.slice(sep + 2), env }, {}, 'clients/claude-code.sh');
  }, 60_000);
});
