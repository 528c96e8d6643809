import { serveStdio as serveOnStdio } from '@modelcontextprotocol/server/stdio';
import { serverFactory, type ServerHost, type ToolHost } from './factory.js';

/** What the stdio server uses of the runtime: a Runtime, or src/main.ts's stand-in that loads one for the first call. */
export type StdioHost = ToolHost & Pick<ServerHost, 'log'> & { readonly fleet: Pick<ServerHost['fleet'], 'url'> };

/**
 * Serves MCP over stdin/stdout until the client closes stdin. The client's opening message picks
 * the era: `initialize` for the 2025 revisions, `server/discover` or a request with the
 * 2026-07-28 `_meta` envelope for the current one.
 */
export function serveStdio(runtime: StdioHost): { closed: Promise<void> } {
  const closed = new Promise<void>((resolve) => process.stdin.once('end', () => resolve()));
  serveOnStdio(serverFactory(runtime), { onerror: (err) => runtime.log.debug('stdio', { error: err.message }) });
  runtime.log.info('serving MCP over stdio', { zoekt: runtime.fleet.url });
  return { closed };
}
