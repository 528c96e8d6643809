/**
 * The tools as agents see them, worked out once per process: the tools/list answer with every
 * JSON Schema already converted, and each tool's strict argument parser. No session and no HTTP
 * request converts a schema again.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { advertisedOutput, READ_ONLY_ANNOTATIONS, type AnyTool } from '../tools/define.js';

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
      list: { tools: tools.map(describe) },
      byName: new Map(tools.map((t) => [t.name, t])),
      names: tools.map((t) => t.name),
    };
    catalogs.set(tools, catalog);
  }
  return catalog;
}

function describe(tool: AnyTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input' }) as Tool['inputSchema'],
    outputSchema: z.toJSONSchema(advertisedOutput(tool.output), { target: 'draft-7', io: 'output' }) as Tool['outputSchema'],
    // The title is given once, at the top (MCP 2025-06-18 and later read it there).
    annotations: { ...READ_ONLY_ANNOTATIONS },
  };
}
