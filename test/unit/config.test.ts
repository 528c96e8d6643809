import { describe, expect, it } from 'vitest';
import { DEFAULTS, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('uses defaults, then environment, then flags', () => {
    expect(loadConfig([], {})).toEqual({ kind: 'run', config: DEFAULTS });
    const fromEnv = loadConfig([], { ZOEKT_URL: 'http://zoekt:6070/', ZOEKT_MCP_TIMEOUT_MS: '5000', ZOEKT_MCP_LOG_LEVEL: 'DEBUG' });
    expect(fromEnv).toEqual({ kind: 'run', config: { zoektUrl: 'http://zoekt:6070', timeoutMs: 5000, logLevel: 'debug' } });
    const flagsWin = loadConfig(['--zoekt-url', 'http://other:1', '--timeout-ms=200'], { ZOEKT_URL: 'http://zoekt:6070', ZOEKT_MCP_TIMEOUT_MS: '5000' });
    expect(flagsWin.kind === 'run' && flagsWin.config.zoektUrl).toBe('http://other:1');
    expect(flagsWin.kind === 'run' && flagsWin.config.timeoutMs).toBe(200);
  });

  it.each([
    [['--zoekt-url', 'not a url'], {}, /--zoekt-url is not a URL/],
    [[], { ZOEKT_URL: 'ftp://x' }, /ZOEKT_URL must be an http/],
    [['--timeout-ms', '5s'], {}, /--timeout-ms must be a whole number/],
    [[], { ZOEKT_MCP_TIMEOUT_MS: '99999999' }, /between 100 and 120000/],
    [['--log-level', 'loud'], {}, /--log-level must be one of/],
    [['--no-such-flag'], {}, /Unknown option '--no-such-flag'.*--help/],
    [['stray'], {}, /Unexpected argument 'stray'|positional/i],
  ])('refuses %j %j with a one-line reason', (argv, env, reason) => {
    const out = loadConfig(argv as string[], env as NodeJS.ProcessEnv);
    expect(out.kind).toBe('error');
    if (out.kind === 'error') {
      expect(out.reason).toMatch(reason);
      expect(out.reason).not.toContain('\n');
    }
  });

  it('answers --help and --version', () => {
    expect(loadConfig(['--help'], {}).kind).toBe('help');
    expect(loadConfig(['-v'], {}).kind).toBe('version');
  });
});
