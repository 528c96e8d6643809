import type { Readable, Writable } from 'node:stream';
import { serveStdio as serveOnStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { serverFactory, type ServerHost, type ToolHost } from './factory.js';

/** What the stdio server uses of the runtime: a Runtime, or src/main.ts's stand-in that loads one for the first call. */
export type StdioHost = ToolHost & Pick<ServerHost, 'log'>;

/**
 * Serves MCP over stdin/stdout, or over the streams a StdioPrelude hands over (stdio-prelude.ts),
 * until the client closes stdin. The client's opening message picks the era: `initialize` for the
 * 2025 revisions, `server/discover` or a request with the 2026-07-28 `_meta` envelope for the
 * current one.
 */
export function serveStdio(runtime: StdioHost, streams?: { input: Readable; output: Writable }): void {
  const transport = streams ? { transport: new StdioServerTransport(streams.input, streams.output) } : {};
  serveOnStdio(serverFactory(runtime), { ...transport, onerror: (err) => runtime.log.debug('stdio', { error: err.message }) });
}
