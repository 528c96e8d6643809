/**
 * Which browser origins may call the HTTP server. The MCP spec asks servers to check `Origin` so
 * that a web page cannot reach a local server through DNS rebinding: the page's own origin
 * (`http://evil.example`) is sent, whatever address it resolved to. The patterns are parsed below
 * config (patterns/hosts.ts).
 */
import type { OriginPattern } from '../../patterns/hosts.js';

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
