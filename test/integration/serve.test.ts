/**
 * The README's serve command in a fresh clone, as a newcomer runs it: the README's first shell
 * block (the set-up: installs what is missing, builds, indexes the repositories of
 * zoekt-config/repos, this repository, through the shared supervisor), then the README's first
 * client configuration, spawned as a client spawns it, which serves MCP over stdio and answers a
 * search; with --http the serve command serves MCP over HTTP until SIGTERM.
 * Both are read from the clone's README, so the README cannot drift from what is tested. The clone
 * shares this checkout's Zoekt build (ZOEKT_MCP_TOOLS_DIR) so the test does not compile Zoekt
 * twice; npm packages are installed in the clone as a user's first run would.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { connectStreamable, listening } from '../support/http.js';
import { call, ok } from '../support/mcp.js';
import { allIndexed, supervisorGone, waitFor } from '../support/local.js';
import { ROOT, TOOLS_DIR } from '../support/zoekt.js';

let work: string;
let clone: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-serve-'));
  clone = join(work, 'zoekt-mcp');
  execFileSync('git', ['clone', '-q', ROOT, clone]);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The body of the first fenced block of a language in a Markdown text. */
function firstBlock(markdown: string, lang: string): string {
  const m = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'm').exec(markdown);
  if (!m) throw new Error(`README.md has no \`\`\`${lang} block`);
  return m[1]!;
}

/** The commands of a shell block: one a line, comments and blank lines left out. */
function commandsOf(block: string): string[] {
  return block
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter(Boolean);
}

describe("the README's quick start in a fresh clone", () => {
  let client: Client;
  let setupOutput = '';
  let stderr = '';
  let env: Record<string, string>;

  beforeAll(async () => {
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? work,
      // A port the supervisor picks: one picked here could be taken by another test's server first.
      ZOEKT_PORT: '0',
      ZOEKT_MCP_DATA: join(work, 'data'),
      ZOEKT_MCP_TOOLS_DIR: TOOLS_DIR,
      ZOEKT_MCP_LOG_LEVEL: 'warn',
      ZOEKT_MCP_LINGER_MS: '0',
    };
    const readme = readFileSync(join(clone, 'README.md'), 'utf8');
    // The user's own code, where the README's example puts it (~/src/app, ~/src/lib): two small
    // git repositories in a folder of this test.
    for (const [name, file, text] of [
      ['app', 'main.go', 'package main\n\nfunc ServeApp() {}\n'],
      ['lib', 'lib.py', 'def lib_helper():\n    return 1\n'],
    ] as const) {
      const dir = join(work, 'src', name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, file), text);
      execFileSync('git', ['init', '-q', dir]);
      execFileSync('git', ['-C', dir, 'add', '.']);
      execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init']);
    }
    // The first shell block, run line by line in the clone as a person would paste it.
    const commands = commandsOf(firstBlock(readme, 'sh')).map((c) => c.replace(/~\/src\//g, `${join(work, 'src')}/`));
    expect(commands.length, 'the README\'s first sh block').toBeGreaterThan(0);
    for (const command of commands) {
      expect(command, 'the first sh block runs the serve command').toMatch(/^\.\/scripts\/serve\.sh\b/);
      // The first run in a fresh clone installs npm packages and compiles: minutes on a busy machine.
      const run = spawnSync('bash', ['-c', command], { cwd: clone, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 280_000 });
      setupOutput += run.stdout + run.stderr;
      expect(run.status, `${command}\n${setupOutput}`).toBe(0);
    }
    // The first client configuration, with the README's placeholder for the checkout.
    const config = JSON.parse(firstBlock(readme, 'json')) as { mcpServers: Record<string, { command: string; args?: string[] }> };
    const [server] = Object.values(config.mcpServers);
    expect(server, "the README's first json block names a server").toBeDefined();
    const args = (server!.args ?? []).map((a) => a.replace('/path/to/zoekt-mcp', clone));
    const transport = new StdioClientTransport({ command: server!.command, args, env, stderr: 'pipe' });
    transport.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    client = new Client({ name: 'serve-test', version: '1.0.0' });
    await client.connect(transport, { timeout: 60_000 });
  }, 400_000);

  afterAll(async () => {
    await client?.close();
    await supervisorGone(join(work, 'data'));
  });

  it('the set-up installed and built what was missing, compiling once', () => {
    expect(setupOutput).toContain('setup: installing npm packages');
    // npm ci's prepare script builds the server; the set-up's build step finds it current.
    expect(setupOutput.match(/node scripts\/compile\.mjs/g)).toHaveLength(1);
    expect(setupOutput).not.toContain('setup: compiling the server');
  });

  it('the client configuration answers tools/list at once, installing and compiling nothing', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('search_code');
    expect(stderr).not.toContain('setup:');
  });

  it('searches the repositories given at set-up, and only those, with symbols', async () => {
    const h = await allIndexed(client);
    const names = h.indexing!.repos.map((r) => r.name).sort();
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/src\/app$/);
    expect(names[1]).toMatch(/src\/lib$/);
    const out = ok<CodeSearchOutput>(await call(client, 'search_code', { query: 'sym:^ServeApp$', context_lines: 0 }));
    expect(out.results.map((r) => `${r.repo}/${r.path}`)).toEqual([`${names[0]}/main.go`]);
    expect(out.results[0]!.matches[0]!.symbol).toEqual({ name: 'ServeApp', kind: 'function' });
    const py = ok<CodeSearchOutput>(await call(client, 'search_code', { query: 'sym:^lib_helper$', context_lines: 0 }));
    expect(py.results.map((r) => `${r.repo}/${r.path}`)).toEqual([`${names[1]}/lib.py`]);
  });
});

/**
 * serve.sh --http in its own process group, started in the clone, on a port it picks (0: one
 * picked here could be taken by another test's server first); resolves once it listens.
 */
async function serveHttp(zoektPort: number): Promise<{ child: ChildProcess; url: string; stderr: () => string; kill(): void }> {
  const child = spawn('bash', [join(clone, 'scripts/serve.sh'), '--http', '--port', '0'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? work,
      ZOEKT_PORT: String(zoektPort),
      ZOEKT_MCP_DATA: join(work, 'data-http'),
      ZOEKT_MCP_TOOLS_DIR: TOOLS_DIR,
      ZOEKT_MCP_LOG_LEVEL: 'info',
      // The shared Zoekt stops as soon as its last client (this server) is gone.
      ZOEKT_MCP_LINGER_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const at = listening(stderr);
      if (at) resolve(at.url);
    });
    child.on('exit', (code) => reject(new Error(`serve.sh exited ${code}: ${stderr}`)));
  });
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  return { child, url, stderr: () => stderr, kill };
}

describe('scripts/serve.sh --http', () => {
  // 'script': what a supervisor signalling one process does; 'group': Ctrl-C in a terminal, or
  // `kill -- -PGID`, which reach every process of the group at once.
  it.each([
    ['SIGTERM', 'script'],
    ['SIGTERM', 'group'],
    ['SIGINT', 'group'],
  ] as const)('serves Streamable HTTP until %s to the %s, then stops its Zoekt and exits 0', async (signal, target) => {
    // 0: the supervisor picks Zoekt's port and writes it in the data folder.
    const served = await serveHttp(0);
    try {
      const mcp = await connectStreamable(served.url);
      await allIndexed(mcp.client);
      const zoektPort = Number(readFileSync(join(work, 'data-http', 'zoekt.port'), 'utf8'));
      const out = ok<CodeSearchOutput>(await call(mcp.client, 'search_code', { query: 'sym:^serverFactory$', context_lines: 0 }));
      expect(out.results.map((r) => r.path)).toContain('src/server/factory.ts');
      await mcp.close();
      const exited = once(served.child, 'exit');
      if (target === 'group') process.kill(-served.child.pid!, signal);
      else served.child.kill(signal);
      const [code] = await exited;
      expect(code, served.stderr()).toBe(0);
      expect(served.stderr()).toContain('"msg":"stopped"');
      // The supervisor stops Zoekt once the server's lease is gone; give it a moment to close its port.
      let zoektGone = false;
      for (let i = 0; i < 100 && !zoektGone; i++) {
        zoektGone = await fetch(`http://127.0.0.1:${zoektPort}/healthz`).then(
          () => false,
          () => true,
        );
        if (!zoektGone) await new Promise((r) => setTimeout(r, 100));
      }
      expect(zoektGone).toBe(true);
    } finally {
      served.kill();
      await supervisorGone(join(work, 'data-http'));
    }
  }, 300_000);

  it('Ctrl-C to the group during a call: the call completes, once, then exit 0', async () => {
    // A call held in flight until the signal has been delivered: the serve command answers only
    // from its own Zoekt, which is frozen (SIGSTOP) meanwhile. It runs under the supervisor, in
    // a process group of its own: the Ctrl-C does not reach it.
    const served = await serveHttp(0);
    let zoektPid = 0;
    const thaw = () => {
      try {
        if (zoektPid) process.kill(zoektPid, 'SIGCONT');
      } catch {
        // already gone
      }
    };
    try {
      const mcp = await connectStreamable(served.url);
      await allIndexed(mcp.client);
      zoektPid = Number(readFileSync(join(work, 'data-http', 'zoekt-webserver.pid'), 'utf8'));
      process.kill(zoektPid, 'SIGSTOP');
      const pending = call(mcp.client, 'search_code', { query: 'sym:^serverFactory$', context_lines: 0 });
      pending.catch(() => undefined); // awaited below
      await waitFor('the call in flight', async () => /^zoekt_mcp_tool_calls_in_flight 1$/m.test(await (await fetch(`${served.url}/metrics`)).text()), 20_000);
      const exited = once(served.child, 'exit');
      process.kill(-served.child.pid!, 'SIGINT');
      await new Promise((r) => setTimeout(r, 500));
      thaw();
      const out = ok<CodeSearchOutput>(await pending);
      expect(out.results.map((r) => r.path)).toContain('src/server/factory.ts');
      const [code] = await exited;
      expect(code, served.stderr()).toBe(0);
      expect(served.stderr().match(/"msg":"signal received"/g)).toHaveLength(1);
      await mcp.close().catch(() => undefined);
    } finally {
      thaw();
      served.kill();
      await supervisorGone(join(work, 'data-http'));
    }
  }, 300_000);
});
