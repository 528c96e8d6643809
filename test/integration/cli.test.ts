import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { SERVE_ENV } from '../../src/local/serve-env.js';
import { CLI } from '../support/mcp.js';
import { ROOT } from '../support/zoekt.js';

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, input: '', timeout: 10_000 });
}

describe('zoekt-mcp command line', () => {
  it('--help lists every option and its environment variable', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    for (const text of [
      '--zoekt-url',
      'ZOEKT_URL',
      '--timeout-ms',
      'ZOEKT_MCP_TIMEOUT_MS',
      '--log-level',
      'ZOEKT_MCP_LOG_LEVEL',
      '--http',
      'ZOEKT_MCP_HTTP',
      '--host',
      'ZOEKT_MCP_HOST',
      '--port',
      'ZOEKT_MCP_PORT',
      '--auth-token',
      'ZOEKT_MCP_AUTH_TOKEN',
      '--insecure-no-auth',
      'ZOEKT_MCP_INSECURE_NO_AUTH',
      '--allowed-origins',
      'ZOEKT_MCP_ALLOWED_ORIGINS',
      '--shutdown-timeout-ms',
      'ZOEKT_MCP_SHUTDOWN_TIMEOUT_MS',
      '/healthz',
      '/readyz',
      '--version',
    ]) {
      expect(r.stdout).toContain(text);
    }
  });

  it('--version prints the package version', () => {
    const r = run(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^zoekt-mcp \d+\.\d+\.\d+\n$/);
  });

  it.each([
    [['--zoekt-url', 'nope'], {}, /--zoekt-url is not a URL/],
    [[], { ZOEKT_MCP_TIMEOUT_MS: 'soon' }, /ZOEKT_MCP_TIMEOUT_MS must be a whole number/],
    [['--frobnicate'], {}, /Unknown option '--frobnicate'/],
    [['--http', '--host', '0.0.0.0'], {}, /refusing to serve 0\.0\.0\.0 \(not a loopback address\) without --auth-token/],
    [['--http', '--auth-token', 'short'], {}, /--auth-token is shorter than 16 characters/],
    [['--http'], { ZOEKT_MCP_ALLOWED_ORIGINS: 'example.com' }, /ZOEKT_MCP_ALLOWED_ORIGINS: "example.com" is not an origin/],
    [['--port', '3000'], {}, /--port only applies with --http/],
    [[], { ZOEKT_MCP_CURSOR_SECRET: 'too-short' }, /ZOEKT_MCP_CURSOR_SECRET is shorter than 32 characters/],
  ])('exits 2 with a one-line reason on bad configuration %j %j', (args, env, reason) => {
    const r = run(args as string[], env as Record<string, string>);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(reason);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('serve.sh command line', () => {
  it('--help documents its own arguments, every variable it reads, and then every server option', () => {
    const r = spawnSync('bash', [join(ROOT, 'scripts/serve.sh'), '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, input: '', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    for (const text of ['--repo PATH', 'repeat it for several', '--setup', 'FOLDER', ...Object.values(SERVE_ENV).map((e) => e.env), '--timeout-ms', '--http', 'ZOEKT_URL']) {
      expect(r.stdout).toContain(text);
    }
  });
});
