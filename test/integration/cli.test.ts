import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/mcp.js';

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, input: '', timeout: 10_000 });
}

describe('zoekt-mcp command line', () => {
  it('--help lists every option and its environment variable', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    for (const text of ['--zoekt-url', 'ZOEKT_URL', '--timeout-ms', 'ZOEKT_MCP_TIMEOUT_MS', '--log-level', '--version']) expect(r.stdout).toContain(text);
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
  ])('exits 2 with a one-line reason on bad configuration %j %j', (args, env, reason) => {
    const r = run(args as string[], env as Record<string, string>);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(reason);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
