import { describe, expect, it } from 'vitest';
import { isLoopbackHost, LOOPBACK_ORIGINS, parseOriginPattern } from '../../src/patterns/hosts.js';
import { originAllowed } from '../../src/server/http/origins.js';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:127.9.9.9'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', '192.168.1.1', 'example.com', 'localhost.example.com', '::2', '::ffff:10.0.0.1', '::ffff:a00:1', 'fe80::1'])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('origin patterns', () => {
  it('parses exact origins and any-port origins', () => {
    expect(parseOriginPattern('https://app.example.com')).toMatchObject({ protocol: 'https:', hostname: 'app.example.com', port: '' });
    expect(parseOriginPattern('http://localhost:5173/')).toMatchObject({ protocol: 'http:', hostname: 'localhost', port: '5173' });
    expect(parseOriginPattern('http://[::1]:*')).toMatchObject({ hostname: '[::1]', port: '*' });
  });

  it.each([
    ['app.example.com', /not an origin/],
    ['ftp://example.com', /http:\/\/ or https:\/\//],
    ['https://example.com/path', /no path/],
    ['https://user@example.com', /no path, query or user/],
    ['https://example.com?x=1', /no path/],
    ['http://localhost:80:*', /not an origin|port and ':\*'/],
  ])('refuses %s', (text, reason) => {
    expect(() => parseOriginPattern(text)).toThrow(reason);
  });

  it('matches scheme, host and port; the default port is the empty port', () => {
    const patterns = ['https://app.example.com', 'http://localhost:*', 'http://127.0.0.1:8080'].map(parseOriginPattern);
    expect(originAllowed('https://app.example.com', patterns)).toBe(true);
    expect(originAllowed('https://app.example.com:443', patterns)).toBe(true);
    expect(originAllowed('https://APP.example.com', patterns)).toBe(true);
    expect(originAllowed('http://localhost:6274', patterns)).toBe(true);
    expect(originAllowed('http://localhost', patterns)).toBe(true);
    expect(originAllowed('http://127.0.0.1:8080', patterns)).toBe(true);
    expect(originAllowed('http://app.example.com', patterns)).toBe(false);
    expect(originAllowed('https://app.example.com:8443', patterns)).toBe(false);
    expect(originAllowed('https://localhost:6274', patterns)).toBe(false);
    expect(originAllowed('http://127.0.0.1:8081', patterns)).toBe(false);
    expect(originAllowed('https://evil.example.com', patterns)).toBe(false);
    expect(originAllowed('null', patterns)).toBe(false);
    expect(originAllowed('', patterns)).toBe(false);
  });

  it('the loopback defaults allow local pages and nothing else', () => {
    const patterns = LOOPBACK_ORIGINS.map(parseOriginPattern);
    for (const o of ['http://localhost:6274', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'https://localhost']) expect(originAllowed(o, patterns)).toBe(true);
    for (const o of ['http://evil.example', 'http://localhost.evil.example', 'http://127.0.0.1.nip.io', 'http://10.0.0.1:3000']) expect(originAllowed(o, patterns)).toBe(false);
  });
});
