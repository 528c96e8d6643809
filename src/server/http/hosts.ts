/**
 * Which `Host` headers the MCP endpoints answer. A web page can make its own name resolve to
 * 127.0.0.1 (DNS rebinding) and then call a local server from the browser; it cannot choose the
 * Host header the browser sends, which stays its own name. A server that answers only the names it
 * is really reached by is out of that page's reach, token or not, Origin header or not.
 *
 * The SDK's own check (hostHeaderValidation, the transports' allowedHosts) is Express middleware
 * or compares whole `host:port` strings and answers in plain text on SSE; this one takes a name
 * with any port, answers JSON like the rest of the HTTP layer, and covers both transports. The
 * patterns themselves are parsed below config (patterns/hosts.ts).
 */
import { splitHost, type HostPattern } from '../../patterns/hosts.js';

/** Whether a request's Host header is allowed. A missing or malformed one never is. */
export function hostAllowed(host: string | undefined, patterns: readonly HostPattern[]): boolean {
  if (patterns.some((p) => p.hostname === '*')) return true;
  if (host === undefined) return false;
  const h = splitHost(host);
  if (!h) return false;
  return patterns.some((p) => p.hostname === h.hostname && (p.port === '*' || p.port === (h.port || '80')));
}
