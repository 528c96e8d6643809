import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { connectServer, type ServerDeps } from './build.js';

/** Serves one MCP session over stdin/stdout until the client closes stdin. */
export async function serveStdio(deps: ServerDeps): Promise<{ closed: Promise<void> }> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await connectServer(deps, transport);
  deps.log.info('serving MCP over stdio', { zoekt: deps.zoekt.url });
  return { closed };
}
