/**
 * Which `Host` headers the MCP endpoints answer. A web page can make its own name resolve to
 * 127.0.0.1 (DNS rebinding) and then call a local server from the browser; it cannot choose the
 * Host header the browser sends, which stays its own name. A server that answers only the names it
 * is really reached by is out of that page's reach, token or not, Origin header or not.
 *
 * The SDK's own check (hostHeaderValidation, the transports' allowedHosts) is Express middleware
 * or compares whole `host:port` strings and answers in plain text on SSE; this one takes a name
 * with any port, answers JSON like the rest of the HTTP layer, and covers both transports.
 */

/** An allowed Host: a name or address, with one port or any ('*'); hostname '*' allows every Host. */
export interface HostPattern {
  /** As the URL parser writes it: lower case, IPv6 in brackets, no trailing dot. */
  hostname: string;
  port: string;
  text: string;
}

/** The names a loopback-bound server is reached by, with any port. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** `name`, `name:port`, `[v6]`, `[v6]:port`, or `*` for any Host; throws with the reason otherwise. */
export function parseHostPattern(text: string): HostPattern {
  const t = text.trim();
  if (t === '*') return { hostname: '*', port: '*', text: t };
  const parsed = splitHost(t);
  if (!parsed || parsed.hostname === '') {
    throw new Error(`${JSON.stringify(text)} is not a host name (expected name[:port], e.g. mcp.example.com, 10.0.0.5:3000, [::1], or * for any)`);
  }
  return { hostname: parsed.hostname, port: parsed.port === '' ? '*' : parsed.port, text: t };
}

/** The hostname and port of a Host header value; undefined for anything that is not one. */
function splitHost(value: string): { hostname: string; port: string } | undefined {
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

/** Whether a request's Host header is allowed. A missing or malformed one never is. */
export function hostAllowed(host: string | undefined, patterns: readonly HostPattern[]): boolean {
  if (patterns.some((p) => p.hostname === '*')) return true;
  if (host === undefined) return false;
  const h = splitHost(host);
  if (!h) return false;
  return patterns.some((p) => p.hostname === h.hostname && (p.port === '*' || p.port === (h.port || '80')));
}
