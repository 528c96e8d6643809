/**
 * The tools as agents see them, worked out once: the tools/list answer with every JSON Schema
 * already converted, and each tool's strict argument parser. No session and no HTTP request
 * converts a schema again. The bundler writes the list of this server's own tools next to the
 * bundles (dist/tools-list.json) and compiles the list's id into them, so a bundled server that
 * starts reads it instead of converting the schemas (a tenth of its start-up time), and the stdio
 * server answers tools/list from it before the tools themselves are loaded (src/main.ts).
 */
import { readFileSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { advertisedOutput, READ_ONLY_ANNOTATIONS, type AnyTool } from '../tools/define.js';
import { VERSION } from '../version.js';

/**
 * Defined by scripts/bundle.mjs in the bundles it builds: the id it wrote into tools-list.json
 * beside them. Undefined in tsc's output and under the tests, which describe the tools instead.
 */
declare const ZOEKT_MCP_TOOLS_LIST_ID: string | undefined;

/** What the bundler writes to dist/tools-list.json. */
export interface BuiltToolList {
  version: string;
  /** A hash of `tools`, compiled into the bundles of the same build (ZOEKT_MCP_TOOLS_LIST_ID). */
  id: string;
  tools: Tool[];
}

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
      list: { tools: builtListOf(tools) ?? describeTools(tools) },
      byName: new Map(tools.map((t) => [t.name, t])),
      names: tools.map((t) => t.name),
    };
    catalogs.set(tools, catalog);
  }
  return catalog;
}

let built: { list: { tools: Tool[] } | undefined } | undefined;

/**
 * The tools/list answer the build wrote beside this bundle, read once; undefined when this code
 * is not a bundle (tsc's output, the tests) or the file is missing or of another build.
 */
export function builtToolList(): { tools: Tool[] } | undefined {
  built ??= { list: readBuiltList() };
  return built.list;
}

function readBuiltList(): { tools: Tool[] } | undefined {
  const id = typeof ZOEKT_MCP_TOOLS_LIST_ID === 'string' ? ZOEKT_MCP_TOOLS_LIST_ID : undefined;
  if (id === undefined) return undefined;
  try {
    // A bundle's chunks sit in dist/chunks/: the list is next to that folder.
    const file = JSON.parse(readFileSync(new URL('../tools-list.json', import.meta.url), 'utf8')) as BuiltToolList;
    return file.version === VERSION && file.id === id && Array.isArray(file.tools) ? { tools: file.tools } : undefined;
  } catch {
    return undefined;
  }
}

/** What the build wrote, if it names these tools in this order. */
function builtListOf(tools: readonly AnyTool[]): Tool[] | undefined {
  const list = builtToolList()?.tools;
  const same = list && list.length === tools.length && list.every((t, i) => t.name === tools[i]!.name && t.description === tools[i]!.description);
  return same ? list : undefined;
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
