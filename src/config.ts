/**
 * One typed, validated configuration: built-in defaults < environment < command-line flags.
 */
import { parseArgs } from 'node:util';
import type { LogLevel } from './log.js';

export interface Config {
  zoektUrl: string;
  timeoutMs: number;
  logLevel: LogLevel;
}

export type ConfigOutcome =
  | { kind: 'run'; config: Config }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; reason: string };

export const DEFAULTS: Config = {
  zoektUrl: 'http://127.0.0.1:6070',
  timeoutMs: 10_000,
  logLevel: 'info',
};

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export const HELP = `zoekt-mcp: an MCP server for code search with Zoekt

Usage: zoekt-mcp [options]

Serves the Model Context Protocol over stdio (stdin/stdout). Logs go to stderr.

Options (each also read from the environment variable shown; flags win):
  --zoekt-url URL      zoekt-webserver base URL, started with -rpc   ZOEKT_URL             (default ${DEFAULTS.zoektUrl})
  --timeout-ms N       deadline of one Zoekt call, retries included  ZOEKT_MCP_TIMEOUT_MS  (default ${DEFAULTS.timeoutMs}; 100–120000)
  --log-level LEVEL    debug | info | warn | error | silent          ZOEKT_MCP_LOG_LEVEL   (default ${DEFAULTS.logLevel})
  -h, --help           show this help
  -v, --version        print the version

Exit codes: 0 normal end, 2 bad configuration.
`;

function parseUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${source} is not a URL: ${JSON.stringify(value)} (expected e.g. http://127.0.0.1:6070)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${source} must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
  }
  return value.replace(/\/+$/, '');
}

function parseInteger(value: string, source: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim())) throw new Error(`${source} must be a whole number, got ${JSON.stringify(value)}`);
  const n = Number(value.trim());
  if (n < min || n > max) throw new Error(`${source} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function parseLogLevel(value: string, source: string): LogLevel {
  const v = value.trim().toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(v)) throw new Error(`${source} must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(value)}`);
  return v;
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): ConfigOutcome {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'zoekt-url': { type: 'string' },
        'timeout-ms': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }));
  } catch (err) {
    return { kind: 'error', reason: `${(err as Error).message.split('\n')[0]} (see --help)` };
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  try {
    const pick = (flag: string, envName: string): [string, string] | undefined => {
      const f = values[flag];
      if (typeof f === 'string') return [f, `--${flag}`];
      const e = env[envName];
      if (e !== undefined && e !== '') return [e, envName];
      return undefined;
    };
    const config: Config = { ...DEFAULTS };
    const url = pick('zoekt-url', 'ZOEKT_URL');
    if (url) config.zoektUrl = parseUrl(...url);
    const timeout = pick('timeout-ms', 'ZOEKT_MCP_TIMEOUT_MS');
    if (timeout) config.timeoutMs = parseInteger(timeout[0], timeout[1], 100, 120_000);
    const level = pick('log-level', 'ZOEKT_MCP_LOG_LEVEL');
    if (level) config.logLevel = parseLogLevel(...level);
    return { kind: 'run', config };
  } catch (err) {
    return { kind: 'error', reason: (err as Error).message };
  }
}
