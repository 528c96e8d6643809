/**
 * The tools as agents see them, worked out once: the tools/list answer with every JSON Schema
 * already converted, and each tool's strict argument parser. No session and no HTTP request
 * converts a schema again. The build writes the list of this server's own tools next to the
 * bundles (dist/tools-list.json), so a server that starts reads it instead of converting the
 * schemas (a tenth of its start-up time).
 */
import { readFileSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { advertisedOutput, READ_ONLY_ANNOTATIONS, type AnyTool } from '../tools/define.js';
import { TOOLS } from '../tools/index.js';
import { VERSION } from '../version.js';

export interface ToolCatalog {
  /** The tools/list answer. */
  readonly list: { tools: Tool[] };
  readonly byName: ReadonlyMap<string, AnyTool>;
  readonly names: readonly string[];
}

const catalogs = new WeakMap<readonly AnyTool[], ToolCatalog>();

export function catalogOf(tools: readonly AnyTool[]): ToolCatalog {
  let catalog = catalogs.get(tools);
  if (!catalog) {
    catalog = {
      list: { tools: (tools === TOOLS && builtList()) || describeTools(tools) },
      byName: new Map(tools.map((t) => [t.name, t])),
      names: tools.map((t) => t.name),
    };
    catalogs.set(tools, catalog);
  }
  return catalog;
}

/** What the build wrote for this version, if it names these tools in this order. */
function builtList(): Tool[] | undefined {
  try {
    const built = JSON.parse(readFileSync(new URL('../tools-list.json', import.meta.url), 'utf8')) as { version: string; tools: Tool[] };
    const same = built.version === VERSION && built.tools.length === TOOLS.length && built.tools.every((t, i) => t.name === TOOLS[i]!.name && t.description === TOOLS[i]!.description);
    return same ? built.tools : undefined;
  } catch {
    return undefined;
  }
}

export function describeTools(tools: readonly AnyTool[]): Tool[] {
  return tools.map(describe);
}

function describe(tool: AnyTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input' }) as Tool['inputSchema'],
    outputSchema: leanOutputSchema(tool),
    // The title is given once, at the top (MCP 2025-06-18 and later read it there).
    annotations: { ...READ_ONLY_ANNOTATIONS },
  };
}

/** The advertised output schema, without the definitions of nested types its lean properties no longer use. */
function leanOutputSchema(tool: AnyTool): Tool['outputSchema'] {
  const { definitions: _unused, ...schema } = z.toJSONSchema(advertisedOutput(tool.output), { target: 'draft-7', io: 'output' }) as Record<string, unknown>;
  return schema as Tool['outputSchema'];
}
