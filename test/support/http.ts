/**
 * The adapter served over HTTP for the tests: `node dist/cli.js --http` as a child process on a
 * port it picks itself (it logs the bound address as a JSON line on stderr), and SDK clients over
 * Streamable HTTP and over the legacy SSE transport.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI, CLIENT_OPTIONS, type Connected } from './mcp.js';

export const TOKEN = 'test-token-0123456789abcdef';

/** Well inside vitest's hook timeout, so a failed start is stopped before the hook gives up. */
const START_TIMEOUT_MS = 45_000;

export interface Adapter {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  process: ChildProcess;
  stderr(): string;
  stdout(): string;
  /** The JSON log lines written so far. */
  logs(): Record<string, unknown>[];
  /** Resolves with the first log line whose msg is `msg` (already written or still to come). */
  waitForLog(msg: string): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, and SIGKILL if it has not gone after a while. */
  stop(): Promise<void>;
}

export interface AdapterOptions {
  zoektUrl: string;
  /** The server's entry point; this checkout's dist/cli.js unless given (e.g. an installed package's). */
  cli?: string;
  /** The Node binary that runs it; the one running the tests unless given. */
  node?: string;
  args?: string[];
  /** Instead of `--http --port <port> ...args`: these arguments only (an image's entry point runs the CLI bare). */
  argv?: string[];
  env?: Record<string, string>;
  port?: number;
}

export async function startAdapter(opts: AdapterOptions): Promise<Adapter> {
  const argv = opts.argv ?? ['--http', '--port', String(opts.port ?? 0), ...(opts.args ?? [])];
  const child = spawn(opts.node ?? process.execPath, [opts.cli ?? CLI, ...argv], {
    env: { PATH: process.env.PATH ?? '', ZOEKT_URL: opts.zoektUrl, ZOEKT_MCP_LOG_LEVEL: 'info', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  const logs: Record<string, unknown>[] = [];
  const waiters: { msg: string; resolve: (l: Record<string, unknown>) => void }[] = [];
  let partial = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    partial += d.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      logs.push(parsed);
      for (const w of waiters.filter((w) => w.msg === parsed.msg)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(parsed);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const waitForLog = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const seen = logs.find((l) => l.msg === msg);
      if (seen) resolve(seen);
      else waiters.push({ msg, resolve });
    });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  // A server that never says it listens (a log level that hides the line, a hang) is stopped
  // here: the caller never gets a handle to stop it.
  let giveUp: NodeJS.Timeout | undefined;
  const listening = await Promise.race([
    waitForLog('serving MCP over HTTP'),
    exited.then(({ code, signal }) => {
      throw new Error(`the adapter exited (${code ?? signal}) before listening: ${stderr}`);
    }),
    new Promise<never>((_, reject) => {
      giveUp = setTimeout(() => {
        void stop();
        reject(new Error(`the adapter did not log that it listens within ${START_TIMEOUT_MS} ms (needs log level info or lower): ${stderr}`));
      }, START_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(giveUp));
  return { url: String(listening.url), process: child, stderr: () => stderr, stdout: () => stdout, logs: () => logs, waitForLog, exited, stop };
}

/** Where a server listens, from its stderr so far: the JSON log line it writes once it does. */
export function listening(stderr: string): { url: string; port: number } | undefined {
  const line = stderr.split('\n').find((l) => l.includes('"msg":"serving MCP over HTTP"'));
  return line === undefined ? undefined : (JSON.parse(line) as { url: string; port: number });
}

const clientInfo = { name: 'zoekt-mcp-http-tests', version: '1.0.0' };

export async function connectStreamable(url: string, headers: Record<string, string> = {}): Promise<Connected> {
  const client = new Client(clientInfo, CLIENT_OPTIONS);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return { client, close: () => client.close() };
}

export async function connectSse(url: string, headers: Record<string, string> = {}): Promise<Connected> {
  const client = new Client(clientInfo, CLIENT_OPTIONS);
  await client.connect(new SSEClientTransport(new URL(`${url}/sse`), { requestInit: { headers } }));
  return { client, close: () => client.close() };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => Record<string, unknown>;
}

/**
 * One request on a fresh connection (no keep-alive pool), so a test can tell a refused
 * connection from an answer, and send headers fetch would not let through unchanged.
 */
export function raw(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The JSON-RPC initialize request a client sends first, as a raw POST body. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
});

/**
 * The body of a refusal by the HTTP layer on an MCP path (/mcp, /sse, /messages): a JSON-RPC error
 * (code -32001) whose message starts with the server's code, which `data` carries too.
 */
export function mcpRefusal(code: string, says = '', retryAfterMs?: number): Record<string, unknown> {
  const data = retryAfterMs === undefined ? { code } : { code, retry_after_ms: retryAfterMs };
  return { jsonrpc: '2.0', id: null, error: { code: -32001, message: expect.stringMatching(new RegExp(`^${code}: .*${says.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)), data } };
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
