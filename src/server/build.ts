/**
 * The server factory: an McpServer with every tool registered, for any transport. Tests build
 * one in-process; the CLI builds one per stdio session or HTTP request.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { z } from 'zod';
import type { Logger } from '../log.js';
import { VERSION } from '../version.js';
import type { ZoektClient } from '../zoekt/client.js';
import { asFleet, type ZoektFleet } from '../zoekt/fleet.js';
import { localAnswer, localError } from '../local/answers.js';
import { advertisedOutput, errorResult, InvalidArguments, READ_ONLY_ANNOTATIONS, successResult, validationError, type AnyTool } from '../tools/define.js';
import { TOOLS } from '../tools/index.js';
import { Searcher, type WalkLimits } from '../search/searcher.js';
import type { WindowCache } from '../search/window-cache.js';
import type { RepoScope } from '../search/scope.js';
import { recordToolCall, trackInFlight } from '../metrics.js';


export interface ServerDeps {
  /** One zoekt-webserver, or several each serving a share of the repositories. */
  zoekt: ZoektClient | ZoektFleet;
  log: Logger;
  /** Ranked windows shared by every server of this process (HTTP builds one server per request). */
  cache?: WindowCache;
  /** The repositories every tool is confined to (--allow-repos). */
  scope?: RepoScope;
  /** How far a walk over pages goes (tests set small bounds to reach them). */
  walkLimits?: WalkLimits;
  tools?: readonly AnyTool[];
}

const INSTRUCTIONS = [
  'zoekt-mcp searches source code indexed by Zoekt.',
  'Use search_code for text and regex search (Zoekt query syntax), search_symbols for where things are defined,',
  'search_files to find files by name or path, find_references for the definitions and usages of one identifier,',
  'get_file to read a file, list_repos for what is indexed, get_health when calls fail.',
  'Every list result is paginated: pass next_cursor back as cursor with the same arguments.',
  'Errors carry a code and a hint that says what to do next.',
].join(' ');

/** Per process, not per server: over HTTP every request builds its own server. */
let nextRequestId = 0;

export function buildServer(deps: ServerDeps): McpServer {
  const tools = deps.tools ?? TOOLS;
  const server = new McpServer({ name: 'zoekt-mcp', version: VERSION }, { instructions: INSTRUCTIONS, capabilities: { logging: {} } });
  const schemas = new Map<string, z.ZodObject>();
  const zoekt = asFleet(deps.zoekt);
  const searcher = new Searcher(zoekt, deps.cache, deps.scope, deps.walkLimits);

  for (const tool of tools) {
    schemas.set(tool.name, tool.input);
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: advertisedOutput(tool.output),
        annotations: { title: tool.title, ...READ_ONLY_ANNOTATIONS },
      },
      async (args: unknown, extra: { signal: AbortSignal }) => {
        const requestId = ++nextRequestId;
        const started = Date.now();
        const leave = trackInFlight();
        try {
          if (args instanceof InvalidArguments) throw args.error;
          const out = await tool.handler(args, { zoekt, searcher, log: deps.log, signal: extra.signal });
          // Under the local serve command: "not indexed yet" is not "no match", and the text says how old the index is.
          const local = localAnswer(tool.name, args, out);
          if (local.error) throw local.error;
          deps.log.info('tool call', { tool: tool.name, requestId, ms: Date.now() - started });
          recordToolCall(tool.name, Date.now() - started, 'ok');
          const text = tool.render(out, args);
          return successResult(out, local.note ? `${text}\n${local.note}` : text);
        } catch (err) {
          const result = errorResult(localError(tool.name, args, err) ?? err);
          const error = (result.structuredContent as { error: { code: string; message: string } }).error;
          deps.log.warn('tool error', { tool: tool.name, requestId, ms: Date.now() - started, code: error.code, message: error.message });
          recordToolCall(tool.name, Date.now() - started, error.code);
          return result;
        } finally {
          leave();
        }
      },
    );
  }
  routeValidationToTools(server, schemas);
  return server;
}

/**
 * The SDK answers invalid arguments with a plain text error; the contract wants INVALID_ARGUMENT
 * with a hint and a structured error. The SDK's input validation step is replaced by the same
 * strict zod parse, whose failure is handed to the tool handler as a value to report.
 */
function routeValidationToTools(server: McpServer, schemas: Map<string, z.ZodObject>): void {
  const target = server as unknown as { validateToolInput?: unknown };
  if (typeof target.validateToolInput !== 'function') {
    throw new Error('@modelcontextprotocol/sdk changed: McpServer.validateToolInput is gone; update routeValidationToTools');
  }
  target.validateToolInput = async (_tool: unknown, args: unknown, toolName: string) => {
    const schema = schemas.get(toolName);
    if (!schema) return args;
    const parsed = await schema.safeParseAsync(args ?? {});
    return parsed.success ? parsed.data : new InvalidArguments(validationError(toolName, schema, parsed.error));
  };
}
