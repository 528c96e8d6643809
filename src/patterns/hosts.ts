/**
 * The syntax of host and origin patterns, as `--allowed-hosts` and `--allowed-origins` give them,
 * and which addresses count as loopback. config.ts parses with it; server/ matches requests
 * against what it parsed (server/hosts.ts, server/origins.ts).
 */
import { isIP } from 'node:net';

/** An allowed Host: a name or address, with one port or any ('*'); hostname '*' allows every Host. */
export interface HostPattern {
  /** As the URL parser writes it: lower case, IPv6 in brackets, no trailing dot. */
  hostname: string;
  port: string;
  text: string;
}

/** The names a loopback-bound server is reached by, with any port. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * `name`, `name:port`, `[v6]`, `[v6]:port`, a bare IPv6 address (any port; what a pod's
 * status.podIP gives on an IPv6 cluster), or `*` for any Host; throws with the reason otherwise.
 */
export function parseHostPattern(text: string): HostPattern {
  const t = text.trim();
  if (t === '*') return { hostname: '*', port: '*', text: t };
  const parsed = splitHost(isIP(t) === 6 ? `[${t}]` : t);
  if (!parsed || parsed.hostname === '') {
    throw new Error(`${JSON.stringify(text)} is not a host name (expected name[:port], e.g. mcp.example.com, 10.0.0.5:3000, [::1], or * for any)`);
  }
  return { hostname: parsed.hostname, port: parsed.port === '' ? '*' : parsed.port, text: t };
}

/** The hostname and port of a Host header value; undefined for anything that is not one. */
export function splitHost(value: string): { hostname: string; port: string } | undefined {
  // Nothing but a host and a port may be in it: no user, path, query or spaces.
  if (!/^[^\s/?#@\\]+$/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return undefined;
  }
  // The URL parser drops a default port (80); a Host header naming it means the same thing.
  const port = url.port !== '' ? url.port : /:80$/.test(value) ? '80' : '';
  return { hostname: url.hostname.replace(/\.$/, ''), port };
}

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
