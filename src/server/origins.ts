/**
 * Which addresses count as loopback, and which browser origins may call the HTTP server. The MCP
 * spec asks servers to check `Origin` so that a web page cannot reach a local server through DNS
 * rebinding: the page's own origin (`http://evil.example`) is sent, whatever address it resolved to.
 */
import { isIP } from 'node:net';
import { LOOPBACK_HOSTS } from './hosts.js';

/** 127.0.0.0/8, ::1 (also as IPv4-mapped ::ffff:127.x.x.x) and the name localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.split('.')[0] === '127';
  if (isIP(h) !== 6) return false;
  // The URL parser writes every spelling of an IPv6 address in one form: ::1, or ::ffff:7f00:1 for 127.0.0.1.
  const canonical = new URL(`http://[${h}]/`).hostname.slice(1, -1);
  if (canonical === '::1') return true;
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(canonical);
  return mapped !== null && parseInt(mapped[1]!, 16) >> 8 === 127;
}

/** An allowed origin: exact, or with `:*` for any port of that scheme and host. */
export interface OriginPattern {
  protocol: string;
  hostname: string;
  /** The port as URL#port gives it ('' for the scheme's default), or '*' for any. */
  port: string;
  text: string;
}

/** Loopback origins: on a loopback bind, local browser clients (an MCP inspector, say) may call. */
export const LOOPBACK_ORIGINS = ['http', 'https'].flatMap((scheme) => LOOPBACK_HOSTS.map((host) => `${scheme}://${host}:*`));

/** Parses `scheme://host[:port|:*]`; throws with the reason for anything else. */
export function parseOriginPattern(text: string): OriginPattern {
  const t = text.trim();
  const anyPort = t.endsWith(':*');
  const bare = anyPort ? t.slice(0, -2) : t;
  let url: URL;
  try {
    url = new URL(bare);
  } catch {
    throw new Error(`${JSON.stringify(text)} is not an origin (expected scheme://host[:port], e.g. https://app.example.com or http://localhost:*)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${JSON.stringify(text)} must start with http:// or https://`);
  if (!/^[a-z]+:\/\/[^/?#@]+\/?$/i.test(bare)) {
    throw new Error(`${JSON.stringify(text)} is not an origin: it must have no path, query or user (expected scheme://host[:port])`);
  }
  if (anyPort && /:\d*\/?$/.test(bare.replace(/^[a-z]+:\/\//i, ''))) throw new Error(`${JSON.stringify(text)} gives a port and ':*' at once`);
  return { protocol: url.protocol, hostname: url.hostname, port: anyPort ? '*' : url.port, text: t };
}

/** Whether the `Origin` header value is allowed by one of the patterns. `null` and junk never are. */
export function originAllowed(origin: string, patterns: readonly OriginPattern[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return patterns.some((p) => p.protocol === url.protocol && p.hostname === url.hostname && (p.port === '*' || p.port === url.port));
}
