/**
 * One tool call, from arguments to result, the same for every transport: find the tool, check
 * the arguments, wait for a turn (admission), run it under one deadline, and turn the outcome
 * into the contract's result. Built once per process, so admission is shared by every session.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withDeadline } from '../deadline.js';
import { invalidArgument, ToolError } from '../errors.js';
import type { Logger } from '../log.js';
import { localAnswer, localError } from '../local/answers.js';
import { localStatus } from '../local/status.js';
import { Searcher } from '../search/searcher.js';
import { closest } from '../search/text-distance.js';
import { errorResult, successResult, validationError, type ToolContext } from '../tools/define.js';
import type { ZoektFleet } from '../zoekt/fleet.js';
import { Admission } from './admission.js';
import type { ToolCatalog } from './catalog.js';
import { recordToolCall, trackInFlight } from '../metrics.js';

/** Tools that stay callable when the server is at its limit: the one to call when others fail. */
const UNQUEUED = new Set(['get_health']);

/** Arrays and object members in one call's arguments; real calls have a few dozen. */
export const MAX_ARGUMENT_ELEMENTS = 1_000;

export interface DispatcherOptions {
  catalog: ToolCatalog;
  zoekt: ZoektFleet;
  searcher: Searcher;
  log: Logger;
  admission: Admission;
  /** The deadline of one call, from its arrival to its reply. */
  timeoutMs: number;
  /** The text an answer may have unless the call asks for another bound. */
  maxOutputChars: number;
}

let nextCallId = 0;

/**
 * Why work still running when its call has ended is stopped. Made once: abort() without a reason
 * builds a DOMException, stack and all, on every call, which showed in a CPU profile of HTTP calls.
 */
const CALL_ENDED = new DOMException('the call has ended', 'AbortError');

export class Dispatcher {
  constructor(private readonly o: DispatcherOptions) {}

  /** The tools it calls, as tools/list shows them. */
  get catalog(): ToolCatalog {
    return this.o.catalog;
  }

  /** `arrived`: when the request carrying the call came in (its body read since counts against the deadline). */
  async call(name: unknown, args: unknown, clientSignal: AbortSignal, arrived = Date.now()): Promise<CallToolResult> {
    const callId = ++nextCallId;
    const leave = trackInFlight();
    const tool = typeof name === 'string' ? this.o.catalog.byName.get(name) : undefined;
    const toolName = (typeof name === 'string' ? name : String(name)).slice(0, 100);
    const timer = new AbortController();
    const deadline = arrived + this.o.timeoutMs;
    const timeout = setTimeout(() => timer.abort(), Math.max(0, deadline - Date.now()));
    const signal = AbortSignal.any([clientSignal, timer.signal]);
    let release: (() => void) | undefined;
    try {
      if (!tool) throw this.unknownTool(name);
      const input = this.parse(tool.name, tool.input, args);
      if (!UNQUEUED.has(tool.name)) release = await this.o.admission.enter(signal);
      const ctx: ToolContext = { zoekt: this.o.zoekt, searcher: this.o.searcher, log: this.o.log, signal };
      const maxChars = (input as { max_output_chars?: number }).max_output_chars ?? this.o.maxOutputChars;
      // Measured as it goes out: with what the local serve command adds after the tool.
      const completed = (out: unknown) => {
        const copy = structuredClone(out) as Record<string, unknown>;
        const note = localAnswer(tool.name, input, copy).note;
        return { copy, text: `${tool.render(copy, input)}${note ? `\n${note}` : ''}` };
      };
      const budget = localStatus()
        ? { maxChars, render: (out: unknown) => completed(out).text, structured: (out: unknown) => completed(out).copy }
        : { maxChars, render: (out: unknown) => tool.render(out, input) };
      const work = withDeadline(deadline, () => tool.handler(input, ctx, budget));
      // The slot is given back when the work really ends, not when the caller stops waiting.
      const held = release;
      release = undefined;
      if (held) work.then(held, held);
      const out = await untilAborted(work, signal, () => this.timedOut(tool.name, arrived, clientSignal));
      const local = localAnswer(tool.name, input, out);
      if (local.error) throw local.error;
      const text = tool.render(out, input);
      const ms = Date.now() - arrived;
      this.o.log.info('tool call', { tool: tool.name, callId, ms });
      recordToolCall(tool.name, ms, 'ok');
      return successResult(out, local.note ? `${text}\n${local.note}` : text);
    } catch (err) {
      const result = errorResult((tool && localError(tool.name, args, err)) ?? err);
      const error = (result.structuredContent as { error: { code: string; message: string } }).error;
      const ms = Date.now() - arrived;
      this.o.log.warn('tool error', { tool: toolName, callId, ms, code: error.code, message: error.message });
      // A name that is no tool is counted under one label: callers choose names, and labels are kept forever.
      recordToolCall(tool?.name ?? '(unknown)', ms, error.code);
      return result;
    } finally {
      leave();
      release?.();
      clearTimeout(timeout);
      timer.abort(CALL_ENDED);
    }
  }

  private parse(toolName: string, schema: Parameters<typeof validationError>[1], args: unknown): unknown {
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
      throw invalidArgument(
        `arguments of ${toolName} must be a JSON object, got ${Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args}`,
        `Send arguments as an object, e.g. {"${Object.keys(schema.shape)[0] ?? 'name'}": …}; ${toolName} takes: ${Object.keys(schema.shape).join(', ')}.`,
      );
    }
    if (countElements(args, MAX_ARGUMENT_ELEMENTS) > MAX_ARGUMENT_ELEMENTS) {
      throw invalidArgument(`arguments of ${toolName} hold more than ${MAX_ARGUMENT_ELEMENTS} values`, 'Send fewer filter values; split the call if you need many.');
    }
    const parsed = schema.safeParse(args ?? {});
    if (!parsed.success) throw validationError(toolName, schema, parsed.error);
    return parsed.data;
  }

  private unknownTool(name: unknown): ToolError {
    const names = this.o.catalog.names;
    if (typeof name !== 'string' || name === '') {
      return new ToolError('INVALID_ARGUMENT', 'tools/call needs the name of a tool', `The tools are: ${names.join(', ')}.`);
    }
    const near = closest(name, [...names], 1);
    return new ToolError(
      'NOT_FOUND',
      `no tool named '${name.slice(0, 100)}'`,
      `${near.length ? `Did you mean '${near[0]}'? ` : ''}The tools are: ${names.join(', ')} (tools/list describes them).`,
    );
  }

  private timedOut(tool: string, arrived: number, clientSignal: AbortSignal): ToolError {
    if (clientSignal.aborted) return new ToolError('TIMEOUT', `${tool} was cancelled by the client`, 'Call again if the answer is still needed.', { retryable: true });
    return new ToolError(
      'TIMEOUT',
      `${tool} did not finish within its deadline of ${this.o.timeoutMs} ms (--timeout-ms; ${Date.now() - arrived} ms since it arrived)`,
      'Narrow the call (repos, paths or languages filters, a more selective term, a smaller limit) and retry; an operator can raise --timeout-ms (ZOEKT_MCP_TIMEOUT_MS).',
    );
  }
}

/** The work's outcome, or `onAbort()`'s error as soon as `signal` aborts, whichever comes first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => ToolError): Promise<T> {
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', abort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort);
        // An error caused by the deadline (an aborted request) reads as the deadline.
        reject(signal.aborted ? onAbort() : e);
      },
    );
  });
}

/** Counts array elements and object members, stopping once past `max`. */
function countElements(value: unknown, max: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length && count <= max) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      count++;
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return count;
}
