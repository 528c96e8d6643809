/** Real MCP clients for the tests: the 2025-era SDK's Client over stdio (spawning the built CLI) or in-process. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { join } from 'node:path';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { serverFactory } from '../../src/server/factory.js';
import type { WindowCache } from '../../src/search/engine/window-cache.js';
import type { WalkLimits } from '../../src/search/engine/searcher.js';
import { ZoektClient, type ZoektClientOptions } from '../../src/zoekt/client.js';
import { ROOT } from './zoekt.js';

export const CLI = join(ROOT, 'dist/cli.js');

/**
 * The output-schema validator of the tests' clients. A client compiles every tool's output schema
 * when it lists the tools (about 25 ms for the eight), and the tests list the same tools hundreds
 * of times a run; this compiles each schema once, with a client's own Ajv settings, and checks
 * every answer as a client's own validator does.
 */
class SharedValidator implements jsonSchemaValidator {
  private readonly ajv = new AjvJsonSchemaValidator();
  private readonly compiled = new Map<string, JsonSchemaValidator<unknown>>();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let validator = this.compiled.get(key);
    if (!validator) this.compiled.set(key, (validator = this.ajv.getValidator(schema)));
    return validator as JsonSchemaValidator<T>;
  }
}

/** Options for a test's 2025-era SDK Client: the shared validator above. */
export const CLIENT_OPTIONS = { jsonSchemaValidator: new SharedValidator() };

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** Spawns `node dist/cli.js` with the given environment and connects over stdio. */
export async function connectStdio(env: Record<string, string>, args: string[] = []): Promise<Connected & { stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...args],
    env: { PATH: process.env.PATH ?? '', ZOEKT_MCP_LOG_LEVEL: 'warn', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new Client({ name: 'zoekt-mcp-tests', version: '1.0.0' }, CLIENT_OPTIONS);
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => stderr };
}

/** Builds the server in this process and connects a Client to it through an in-memory transport. */
export async function connectInProcess(
  zoekt: Partial<ZoektClientOptions> & { url: string },
  cache?: WindowCache,
  walkLimits?: WalkLimits,
  /** Servers given the same secret resume each other's cursors, as replicas do. */
  cursorSecret?: string,
): Promise<Connected & { zoekt: ZoektClient }> {
  const client = new ZoektClient({ timeoutMs: 10_000, ...zoekt });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const runtime = createRuntime({ zoekt: client, log: silentLogger, ...(cache ? { cache } : {}), ...(walkLimits ? { walkLimits } : {}), ...(cursorSecret ? { cursorSecret } : {}) });
  // A 2025-era session, as a hand-wired transport serves (the SDK's serving entries pick the era).
  const server = serverFactory(runtime)({ era: 'legacy' });
  await server.connect(serverTransport);
  const mcp = new Client({ name: 'zoekt-mcp-tests', version: '1.0.0' }, CLIENT_OPTIONS);
  await mcp.connect(clientTransport);
  return {
    client: mcp,
    zoekt: client,
    close: async () => {
      await mcp.close();
      await server.close();
      await client.close();
    },
  };
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** The structured content of a successful call; fails the test with the error text otherwise. */
export function ok<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool call failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

/** Follows next_cursor from the first page to the last: each page's structured content and text. */
export async function walkPages<T extends { next_cursor?: string }>(client: Client, name: string, args: Record<string, unknown>, maxPages = 5000): Promise<{ pages: T[]; texts: string[] }> {
  const pages: T[] = [];
  const texts: string[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < maxPages; guard++) {
    const result = await call(client, name, { ...args, ...(cursor ? { cursor } : {}) });
    texts.push(textOf(result));
    const out = ok<T>(result);
    pages.push(out);
    cursor = out.next_cursor;
    if (!cursor) break;
  }
  return { pages, texts };
}

export interface ToolErrorShape {
  code: string;
  message: string;
  hint: string;
  retryable: boolean;
}

/** The structured error of a failed call; fails the test if the call succeeded. */
export function failed(result: CallToolResult): ToolErrorShape {
  if (!result.isError) throw new Error(`expected an error, got: ${textOf(result).slice(0, 500)}`);
  return (result.structuredContent as { error: ToolErrorShape }).error;
}
