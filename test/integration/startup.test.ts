/**
 * What a spawned server loads before it answers (src/main.ts): `--version`, `--help` and a bad
 * configuration load nothing of the server, and the stdio server answers `initialize` and
 * `tools/list` from the list the build wrote before it loads the runtime (the tools, the search
 * engine, the Zoekt client), which then loads in the background or for the first call.
 *
 * "Loads nothing" is shown on a copy of the build whose chunks that must not be needed are
 * replaced by modules that throw when they are loaded. How fast it starts is bench/startup.mjs's
 * business, not a test's.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { CLI } from '../support/mcp.js';
import { ROOT } from '../support/zoekt.js';

const DIST = join(ROOT, 'dist');
const built = JSON.parse(readFileSync(join(DIST, 'tools-list.json'), 'utf8')) as { tools: unknown[] };
const copies: string[] = [];
afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The chunks a bundle imports statically, itself included (the modules Node loads before it runs). */
function staticGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"(\.[^"]+)"|^import\s*"(\.[^"]+)"/gms)) staticGraph(resolve(dirname(file), m[1] ?? m[2]!), seen);
  return seen;
}

/**
 * A copy of the build (the CLI, its chunks, the tool list and package.json for the version) in
 * which every chunk `poison` picks throws when it is loaded.
 */
function poisonedCopy(poison: (chunk: string) => boolean): { cli: string; poisoned: string[] } {
  const root = mkdtempSync(join(tmpdir(), 'zoekt-mcp-startup-'));
  copies.push(root);
  copyFileSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  cpSync(join(DIST, 'chunks'), join(root, 'dist/chunks'), { recursive: true });
  for (const f of ['cli.js', 'tools-list.json']) copyFileSync(join(DIST, f), join(root, 'dist', f));
  const poisoned = readdirSync(join(root, 'dist/chunks')).filter(poison);
  for (const name of poisoned) writeFileSync(join(root, 'dist/chunks', name), `throw new Error('loaded ${name}');\n`);
  return { cli: join(root, 'dist/cli.js'), poisoned };
}

function run(cli: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, input: '', timeout: 10_000 });
}

interface Answer {
  id?: number;
  result?: Record<string, unknown> & { tools?: unknown[]; structuredContent?: Record<string, unknown> };
  error?: unknown;
}

/** A stdio server spoken to in raw JSON-RPC lines: each request resolves to its answer. */
function stdioServer(cli: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [cli], { env: { PATH: process.env.PATH ?? '', ZOEKT_MCP_LOG_LEVEL: 'warn', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map<number, (a: Answer) => void>();
  let out = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    let nl;
    while ((nl = out.indexOf('\n')) >= 0) {
      const answer = JSON.parse(out.slice(0, nl)) as Answer;
      out = out.slice(nl + 1);
      if (answer.id !== undefined) waiting.get(answer.id)?.(answer);
    }
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let nextId = 0;
  const send = (msg: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  return {
    request(method: string, params: Record<string, unknown> = {}): Promise<Answer> {
      const id = ++nextId;
      const answered = new Promise<Answer>((done) => waiting.set(id, done));
      send({ id, method, params });
      return answered;
    },
    notify: (method: string) => send({ method }),
    exited,
    stderr: () => stderr,
    close() {
      child.stdin.end();
      return exited;
    },
  };
}

const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'zoekt-mcp-tests', version: '1' } };

describe('start-up', () => {
  it('--version, --help and a bad configuration load nothing but the entry and the configuration', () => {
    const entry = staticGraph(CLI);
    const { cli, poisoned } = poisonedCopy((name) => !entry.has(join(DIST, 'chunks', name)));
    // The MCP SDK, the runtime, the HTTP stack and undici are among the poisoned chunks.
    expect(poisoned.some((n) => n.startsWith('runtime-')), poisoned.join(' ')).toBe(true);
    expect(poisoned.some((n) => n.startsWith('stdio-')), poisoned.join(' ')).toBe(true);

    const version = run(cli, ['--version']);
    expect(version.stderr).toBe('');
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^zoekt-mcp \d+\.\d+\.\d+\n$/);

    const help = run(cli, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--zoekt-url');

    const bad = run(cli, ['--timeout-ms', 'soon']);
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^zoekt-mcp: --timeout-ms must be a whole number/)]);
  });

  it('answers initialize and tools/list without the runtime, loads it right after, and a runtime that fails to load ends the server', async () => {
    // The runtime's chunk as this build names it (dist/chunks/ keeps earlier builds' chunks a day).
    const named = [...staticGraph(CLI)].flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/import\("\.\/(runtime-[^"]+\.js)"\)/g)].map((m) => m[1]!));
    expect(new Set(named).size).toBe(1);
    const { cli, poisoned } = poisonedCopy((name) => name === named[0]);
    expect(poisoned).toEqual([named[0]]);
    const server = stdioServer(cli, { ZOEKT_URL: inject('zoektUrl') });
    const init = await server.request('initialize', INITIALIZE);
    expect(init.result?.serverInfo).toMatchObject({ name: 'zoekt-mcp' });
    server.notify('notifications/initialized');
    const list = await server.request('tools/list');
    expect(list.result?.tools).toEqual(built.tools);
    // Loading the runtime begins once tools/list is answered; here it throws, which is fatal.
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toMatch(new RegExp(`^zoekt-mcp: fatal: loaded ${poisoned[0]}$`, 'm'));
  });

  it('serves a first tool call that comes before tools/list, and lists the tools the build wrote after it', async () => {
    const server = stdioServer(CLI, { ZOEKT_URL: inject('zoektUrl') });
    try {
      await server.request('initialize', INITIALIZE);
      server.notify('notifications/initialized');
      const health = await server.request('tools/call', { name: 'get_health', arguments: {} });
      expect(health.result?.isError).toBeUndefined();
      expect(health.result?.structuredContent).toMatchObject({ status: 'ok', zoekt: { reachable: true } });
      const list = await server.request('tools/list');
      expect(list.result?.tools).toEqual(built.tools);
    } finally {
      expect(await server.close()).toBe(0);
    }
  });
});
