/** What the HTTP layer serves: a route per path, and what each route asks of a request. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

export interface Route {
  methods: readonly string[];
  /** MCP endpoints need the token and an allowed Host; probes need neither. */
  mcp: boolean;
  /** Not an MCP endpoint, but needs the token (and an allowed Host) when one is set: /metrics. */
  token?: boolean;
  handler: Handler;
}

/** The paths whose refusals are JSON-RPC errors: MCP clients show little else of one. */
export const MCP_PATHS = new Set(['/mcp', '/sse', '/messages']);
