/**
 * What every tool is made of, and the one place where a handler's outcome becomes an MCP
 * result: structuredContent plus a compact text block on success; isError, `CODE: message`,
 * a hint line and a structured error on failure.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { asToolError, ERROR_CODES, ToolError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ZoektFleet } from '../zoekt/fleet.js';
import type { Searcher } from '../search/engine/searcher.js';
import { closest } from '../search/vocab/text-distance.js';
import type { Budget } from '../search/engine/budget.js';
import type { Metrics } from '../metrics.js';
import type { LocalIndexSource } from '../search/vocab/local-index.js';
import type { RepoReads } from './freshness.js';

export interface ToolContext {
  zoekt: ZoektFleet;
  /** Zoekt searches through the window cache. */
  searcher: Searcher;
  log: Logger;
  signal: AbortSignal;
  /** This server's figures (get_health reads them). */
  metrics: Metrics;
  /** The local serve command's view of the index, when it runs one. */
  local?: LocalIndexSource | undefined;
}

export interface ToolDefinition<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** `budget`: the text the answer may have (max_output_chars, or the server's --max-output-chars) and the rendering it is measured by. */
  handler: (args: z.output<I>, ctx: ToolContext, budget: Budget<z.output<O>>) => Promise<z.output<O>>;
  /** The compact text a model reads: grep-like, grouped by file. */
  render: (out: z.output<O>, args: z.output<I>) => string;
  /** Which repositories of the index it reads (freshness.ts): absent for a tool that reads none. */
  reads?: RepoReads<z.output<I>, z.output<O>>;
  /**
   * false: callable when the server is at its limit, not queued by admission control (the tool to
   * call when others fail).
   */
  queued?: false;
}

// A list of heterogeneous tools: the generic parameters are erased at the list.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, any>;

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return def;
}

/** Every tool only reads an index: it changes nothing and can be called again safely. */
export const READ_ONLY_ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

/** The structured error of the contract, shared by every tool's output schema. */
export const ErrorShape = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    hint: z.string(),
    retryable: z.boolean(),
    retry_after_ms: z.number().int().optional(),
  }),
});

/**
 * The output schema in few words: each field with its type, and the fields every item of a
 * page's lists has (its required arrays) with theirs; no prose, no bounds, nothing deeper (the
 * results show it). Still true of every output, so clients that validate structuredContent
 * against it keep passing.
 */
function leanOutput(field: Record<string, unknown>, listed: boolean): Record<string, unknown> {
  const lean: Record<string, unknown> = { type: field.type, ...(field.enum ? { enum: field.enum } : {}) };
  const items = field.items as { type?: unknown; properties?: Record<string, { type?: unknown }>; required?: string[] } | undefined;
  if (listed && field.type === 'array' && items?.type === 'object' && items.properties) {
    // The fields every item has, with their types; the optional ones show in the results.
    const always = Object.entries(items.properties).filter(([k, v]) => items.required?.includes(k) && v.type !== undefined);
    lean.items = { type: 'object', properties: Object.fromEntries(always.map(([k, v]) => [k, { type: v.type }])) };
  }
  return lean;
}

/**
 * The output schema agents see: the tool's success fields, or the contract's `{ error }` (error
 * results carry structuredContent too, and clients validate it against this schema). Exactly
 * one of the two forms is required, which JSON Schema says with anyOf. The zod schema validates
 * what handlers return; the JSON Schema advertised is its lean form (no prose, no default bounds).
 */
/** Optional fields of every list tool's page, described in the server's instructions. */
const SHARED_PAGE_FIELDS = new Set(['partial', 'next_cursor', 'hint', 'truncated', 'index_age', 'not_indexed']);

export function advertisedOutput(output: z.ZodObject): z.ZodObject {
  const required = Object.entries(output.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([key]) => key);
  const schema = z.object({ ...output.partial().shape, error: ErrorShape.shape.error.optional() });
  const full = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as { properties: Record<string, Record<string, unknown>> };
  // `error` is left to anyOf: every tool's errors have the one shape the server's instructions
  // describe, as do the page fields every list tool shares (said once there, not seven times here).
  const properties = Object.fromEntries(
    Object.entries(full.properties)
      .filter(([k]) => k !== 'error' && !SHARED_PAGE_FIELDS.has(k))
      .map(([k, v]) => [k, leanOutput(v, required.includes(k))]),
  );
  return schema.meta({ properties, $schema: undefined, additionalProperties: undefined, anyOf: [{ required }, { required: ['error'] }] });
}

export function errorResult(err: unknown): CallToolResult {
  const te = asToolError(err);
  return {
    isError: true,
    content: [{ type: 'text', text: `${te.code}: ${te.message}\nhint: ${te.hint}` }],
    structuredContent: { error: te.toJSON() },
  };
}

export function successResult(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** Turns zod's issues into one INVALID_ARGUMENT naming each bad argument and what it takes. */
export function validationError(toolName: string, schema: z.ZodObject, error: z.ZodError): ToolError {
  const known = Object.keys(schema.shape);
  const problems: string[] = [];
  const hints: string[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.') || '(arguments)';
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push(`unknown argument '${key}'`);
        const near = closest(key, known, 1);
        hints.push(near.length ? `'${key}' is not an argument of ${toolName}; did you mean '${near[0]}'?` : `'${key}' is not an argument of ${toolName}.`);
      }
      continue;
    }
    problems.push(`${path}: ${issue.message}`);
  }
  hints.push(`${toolName} takes: ${known.join(', ')}.`);
  return new ToolError('INVALID_ARGUMENT', `invalid arguments for ${toolName}: ${problems.join('; ')}`, hints.join(' '));
}
