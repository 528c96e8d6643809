import { describe, expect, it } from 'vitest';
import { LOOPBACK_HOSTS, parseHostPattern } from '../../src/patterns/hosts.js';
import { hostAllowed } from '../../src/server/http/hosts.js';

describe('Host header checks', () => {
  const loopback = LOOPBACK_HOSTS.map(parseHostPattern);

  it.each(['127.0.0.1:3000', 'localhost', 'LOCALHOST:8080', 'localhost.:3000', '[::1]:3000', '[0:0:0:0:0:0:0:1]:1', '127.0.0.1'])('a loopback server answers %s', (host) => {
    expect(hostAllowed(host, loopback)).toBe(true);
  });

  it.each([
    'evil.example',
    'evil.example:3000',
    'localhost.evil.example',
    '127.0.0.1.nip.io:3000',
    '127.0.0.2:3000',
    'user@127.0.0.1',
    '127.0.0.1/x',
    '127.0.0.1:3000 evil',
    '',
    '[::2]:3000',
  ])('a loopback server refuses %j', (host) => {
    expect(hostAllowed(host, loopback)).toBe(false);
  });

  it('refuses a request without a Host header unless any is allowed', () => {
    expect(hostAllowed(undefined, loopback)).toBe(false);
    expect(hostAllowed(undefined, [parseHostPattern('*')])).toBe(true);
    expect(hostAllowed('anything.example:1', [parseHostPattern('*')])).toBe(true);
  });

  it('takes a port when one is given, any port otherwise', () => {
    const patterns = ['mcp.example.com', '10.0.0.5:3000', 'web.example:80'].map(parseHostPattern);
    expect(hostAllowed('mcp.example.com:443', patterns)).toBe(true);
    expect(hostAllowed('MCP.example.com', patterns)).toBe(true);
    expect(hostAllowed('10.0.0.5:3000', patterns)).toBe(true);
    expect(hostAllowed('10.0.0.5:3001', patterns)).toBe(false);
    expect(hostAllowed('10.0.0.5', patterns)).toBe(false);
    expect(hostAllowed('web.example', patterns)).toBe(true);
    expect(hostAllowed('web.example:80', patterns)).toBe(true);
    expect(hostAllowed('web.example:8080', patterns)).toBe(false);
  });

  it('takes a bare IPv6 address (a pod IP on an IPv6 cluster) as that address on any port', () => {
    const patterns = [parseHostPattern('fd00:10:244::5')];
    expect(patterns[0]!.hostname).toBe('[fd00:10:244::5]');
    expect(hostAllowed('[fd00:10:244::5]:3000', patterns)).toBe(true);
    expect(hostAllowed('[fd00:10:244:0:0:0:0:5]', patterns)).toBe(true);
    expect(hostAllowed('[fd00:10:244::6]:3000', patterns)).toBe(false);
  });

  it.each(['http://mcp.example.com', 'mcp.example.com/path', 'a b', 'user@host', ':3000'])('refuses the pattern %j', (text) => {
    expect(() => parseHostPattern(text)).toThrow(/is not a host name/);
  });
});
