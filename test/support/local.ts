/**
 * The local serve command as MCP clients run it: `bash scripts/serve.sh` spawned over stdio, each
 * spawn holding a lease on the data folder's shared supervisor. Every test gets a data folder of
 * its own (so a supervisor of its own) and stops what it started.
 */
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { socketFor } from '../../src/local/lease.js';
import { PROTOCOL, type SupervisorStatus } from '../../src/local/status.js';
import { call, CLIENT_OPTIONS, ok } from './mcp.js';
import { ROOT, TOOLS_DIR } from './zoekt.js';

export const SERVE = join(ROOT, 'scripts/serve.sh');

export interface LocalEnv {
  data: string;
  /** ZOEKT_MCP_REPOS: a list file or a folder. */
  repos?: string;
  lingerMs?: number;
  pollMs?: number;
  extra?: Record<string, string>;
}

export function serveEnv(e: LocalEnv): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ZOEKT_MCP_TOOLS_DIR: TOOLS_DIR,
    ZOEKT_MCP_DATA: e.data,
    ZOEKT_PORT: '0',
    ZOEKT_MCP_LINGER_MS: String(e.lingerMs ?? 0),
    ZOEKT_MCP_POLL_MS: String(e.pollMs ?? 300),
    ZOEKT_MCP_LOG_LEVEL: 'warn',
    // The definitions index has tests of its own (definitions-local, describe-meaning): these
    // test the index of the text, and need not build it besides.
    ZOEKT_MCP_SERVE_DEFINITIONS: '0',
    ...(e.repos ? { ZOEKT_MCP_REPOS: e.repos } : {}),
    ...e.extra,
  };
}

export interface LocalClient {
  client: Client;
  stderr(): string;
  /** Milliseconds from spawn to `initialize` and `tools/list` answered. */
  startMs: number;
  close(): Promise<void>;
}

/** Spawns the client's configured command and connects, timing initialize + tools/list. */
export async function spawnServe(e: LocalEnv, args: string[] = []): Promise<LocalClient> {
  const started = performance.now();
  const transport = new StdioClientTransport({ command: 'bash', args: [SERVE, ...args], env: serveEnv(e), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new Client({ name: 'local-serve-test', version: '1.0.0' }, CLIENT_OPTIONS);
  await client.connect(transport);
  await client.listTools();
  const startMs = performance.now() - started;
  return { client, stderr: () => stderr, startMs, close: () => client.close() };
}

/** The supervisor's status, read through a lease of our own (dropped at once); undefined when none runs. */
export async function supervisorStatus(data: string): Promise<SupervisorStatus | undefined> {
  return new Promise((resolve) => {
    const s = connect(socketFor(data));
    // An observer's hello: told of every repository the index keeps.
    s.on('connect', () => s.write(`${JSON.stringify({ protocol: PROTOCOL })}\n`));
    let buf = '';
    const t = setTimeout(() => {
      s.destroy();
      resolve(undefined);
    }, 5000);
    s.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(t);
        s.destroy();
        resolve(JSON.parse(buf.slice(0, nl)) as SupervisorStatus);
      }
    });
    s.on('error', () => {
      clearTimeout(t);
      resolve(undefined);
    });
    // A supervisor that is stopping takes the connection and ends it at once, with no status.
    s.on('close', () => {
      clearTimeout(t);
      resolve(undefined);
    });
  });
}

/** Whether anything listens on the data folder's supervisor socket: a supervisor, running or stopping. */
function bound(data: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(socketFor(data));
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits for the data folder's supervisor to leave (clients gone, linger over): its socket given up
 * and its process gone, the last of its stop, after which a successor may take the folder (it stops
 * answering status sooner). Kills it after `ms`.
 */
export async function supervisorGone(data: string, ms = 15_000): Promise<boolean> {
  const st = await supervisorStatus(data);
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await bound(data)) && !(st && alive(st.pid))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (st && alive(st.pid)) process.kill(st.pid, 'SIGTERM');
  return false;
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

export interface HealthWithIndexing {
  status: string;
  hint?: string;
  indexing?: {
    list_errors: string[];
    repos: { name: string; state: string; has_index: boolean; indexed_at?: string; changed_at?: string; expected_at?: string; progress?: { percent: number; files: number; elapsed_ms: number } }[];
  };
}

export async function health(client: Client): Promise<HealthWithIndexing> {
  return ok<HealthWithIndexing>(await call(client, 'get_health', {}));
}

/** Waits until every listed repository is indexed and current (not behind a change). */
export async function allIndexed(client: Client, ms = 90_000): Promise<HealthWithIndexing> {
  return waitFor(
    'every repository indexed',
    async () => {
      const h = await health(client);
      return h.indexing && h.indexing.repos.length > 0 && h.indexing.repos.every((r) => r.state === 'ready' && !r.changed_at) ? h : undefined;
    },
    ms,
  );
}

export function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
  };
}

export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: gitEnv() });
}
