/**
 * One tool call, from arguments to result, the same for every transport: find the tool, check
 * the arguments, wait for a turn (admission), run it under one deadline, and turn the outcome
 * into the contract's result. Built once per runtime, so admission is shared by every session.
 */
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';
import { withDeadline } from '../deadline.js';
import { invalidArgument, ToolError } from '../errors.js';
import type { Logger } from '../log.js';
import { describeRepo, type LocalIndexSource } from '../search/vocab/local-index.js';
import type { Metrics } from '../metrics.js';
import { Searcher } from '../search/engine/searcher.js';
import { closest } from '../search/vocab/text-distance.js';
import { errorResult, successResult, validationError, type ToolContext } from '../tools/define.js';
import { freshAnswer, freshError, localRefusal } from '../tools/freshness.js';
import type { ZoektFleet } from '../zoekt/fleet.js';
import { Admission } from './admission.js';
import { currentCaller } from './caller.js';
import type { ToolCatalog } from './catalog.js';

/** A tool's output as it goes out: completed for local mode, its text, and an error to give instead. */
interface Finished {
  out: Record<string, unknown>;
  local: { error?: ToolError; note?: string };
  text: string;
}

/** Arrays and object members in one call's arguments; real calls have a few dozen. */
export const MAX_ARGUMENT_ELEMENTS = 1_000;

/** A call still running this long tells a client that asked for progress that it is. */
const PROGRESS_EVERY_MS = 1000;

export interface DispatcherOptions {
  catalog: ToolCatalog;
  zoekt: ZoektFleet;
  searcher: Searcher;
  log: Logger;
  metrics: Metrics;
  /** The local serve command's view of the index, when it runs one. */
  local?: LocalIndexSource | undefined;
  admission: Admission;
  /** The deadline of one call, from its arrival to its reply. */
  timeoutMs: number;
  /** The text an answer may have unless the call asks for another bound. */
  maxOutputChars: number;
}

/** What the protocol layer knows of one call beyond its name and arguments. */
export interface CallOptions {
  /** The client went away or cancelled. */
  signal: AbortSignal;
  /** When the request carrying the call came in (its body read since counts against the deadline). */
  arrived?: number;
  /** Set when the client asked for progress (a progressToken): told every second while the call runs. */
  progress?: (progress: number, message: string) => void;
  /** Set when the client asked for log messages: told how the call ended (sent before the result). */
  notify?: (level: 'info' | 'warning', data: Record<string, unknown>) => Promise<void>;
  /** The W3C trace context the client sent (`_meta.traceparent`), for the server's log line. */
  traceparent?: string;
}

/**
 * Why work still running when its call has ended is stopped. Made once: abort() without a reason
 * builds a DOMException, stack and all, on every call, which showed in a CPU profile of HTTP calls.
 */
const CALL_ENDED = new DOMException('the call has ended', 'AbortError');

export class Dispatcher {
  private nextCallId = 0;

  constructor(private readonly o: DispatcherOptions) {}

  /** The tools it calls, as tools/list shows them. */
  get catalog(): ToolCatalog {
    return this.o.catalog;
  }

  /**
   * A call of a tool there is, answered with its result or a tool error. A name that is no tool
   * is a protocol error, -32602 (the spec's "Error Handling": unknown tools are invalid params),
   * thrown as ProtocolError with the hint and the tools in `data`.
   */
  async call(name: unknown, args: unknown, options: CallOptions): Promise<CallToolResult> {
    if (typeof name !== 'string' || !this.o.catalog.byName.has(name)) {
      // Counted under one label, so that callers cannot grow the series.
      this.o.metrics.recordToolCall('(unknown)', 0, 'UNKNOWN_TOOL');
      throw this.unknownTool(name);
    }
    const arrived = options.arrived ?? Date.now();
    const callId = ++this.nextCallId;
    const leave = this.o.metrics.trackInFlight();
    const tool = typeof name === 'string' ? this.o.catalog.byName.get(name) : undefined;
    const toolName = (typeof name === 'string' ? name : String(name)).slice(0, 100);
    const timer = new AbortController();
    const deadline = arrived + this.o.timeoutMs;
    const timeout = setTimeout(() => timer.abort(), Math.max(0, deadline - Date.now()));
    const signal = AbortSignal.any([options.signal, timer.signal]);
    const status = this.o.local?.();
    const stopProgress = options.progress ? this.reportProgress(toolName, arrived, options.progress) : undefined;
    const trace = options.traceparent ? { traceparent: options.traceparent } : {};
    let release: (() => void) | undefined;
    try {
      if (!tool) throw new ToolError('INTERNAL', `the tool '${toolName}' went missing`, 'Call again.');
      const input = this.parse(tool.name, tool.input, args);
      // Under the local serve command, an index that cannot answer (no Zoekt of its own, no
      // folder listed) is an error on every call, never an empty answer.
      const refused = localRefusal(tool.reads, status);
      if (refused) throw refused;
      if (tool.queued !== false) release = await this.o.admission.enter(signal);
      // A signed-in caller's repositories narrow the server's, for this call only.
      const scope = currentCaller()?.scope;
      const searcher = scope ? this.o.searcher.within(scope) : this.o.searcher;
      const ctx: ToolContext = { zoekt: this.o.zoekt, searcher, log: this.o.log, signal, metrics: this.o.metrics, local: this.o.local };
      const maxChars = (input as { max_output_chars?: number }).max_output_chars ?? this.o.maxOutputChars;
      // An output as it goes out (with what the local serve command adds after the tool: index
      // ages, partial while a repository waits for its first index), worked out once per output:
      // the budget measures its text and data, and the answer is the last one measured.
      const finished = new WeakMap<object, Finished>();
      const finish = (out: unknown): Finished => {
        let done = finished.get(out as object);
        if (!done) {
          const copy = (status ? structuredClone(out) : out) as Record<string, unknown>;
          const local = freshAnswer(tool.reads, status, input, copy);
          const text = tool.render(copy, input);
          done = { out: copy, local, text: local.note ? `${text}\n${local.note}` : text };
          finished.set(out as object, done);
        }
        return done;
      };
      const budget = { maxChars, render: (out: unknown) => finish(out).text, ...(status ? { structured: (out: unknown) => finish(out).out } : {}) };
      const work = withDeadline(deadline, () => tool.handler(input, ctx, budget));
      // The slot is given back when the work really ends, not when the caller stops waiting.
      const held = release;
      release = undefined;
      if (held) work.then(held, held);
      const out = await untilAborted(work, signal, () => this.timedOut(tool.name, arrived, options.signal));
      const done = finish(out);
      if (done.local.error) throw done.local.error;
      const ms = Date.now() - arrived;
      this.o.log.info('tool call', { tool: tool.name, callId, ms, ...trace });
      this.o.metrics.recordToolCall(tool.name, ms, 'ok');
      const partial = (done.out as { partial?: { reason: string } }).partial;
      await options.notify?.(partial ? 'warning' : 'info', { tool: tool.name, ms, ...(partial ? { partial: partial.reason } : {}) });
      return successResult(done.out, done.text);
    } catch (err) {
      const result = errorResult((tool && freshError(tool.reads, status, args, err)) ?? err);
      const error = (result.structuredContent as { error: { code: string; message: string } }).error;
      const ms = Date.now() - arrived;
      this.o.log.warn('tool error', { tool: toolName, callId, ms, code: error.code, message: error.message, ...trace });
      // A name that is no tool is counted under one label: callers choose names, and labels are kept forever.
      this.o.metrics.recordToolCall(tool?.name ?? '(unknown)', ms, error.code);
      await options.notify?.('warning', { tool: toolName, ms, error: error.code });
      return result;
    } finally {
      stopProgress?.();
      leave();
      release?.();
      clearTimeout(timeout);
      timer.abort(CALL_ENDED);
    }
  }

  /**
   * Tells the client, every second, that a long call is still running, and what the local index
   * is doing when a repository is being indexed (a search then waits for it). Returns the stop.
   */
  private reportProgress(tool: string, arrived: number, progress: NonNullable<CallOptions['progress']>): () => void {
    let beats = 0;
    const timer = setInterval(() => {
      const indexing = this.o.local?.()?.repos.filter((r) => r.state === 'indexing') ?? [];
      const s = Math.round((Date.now() - arrived) / 1000);
      progress(++beats, `${tool}: still working after ${s} s${indexing.length ? `; ${indexing.map(describeRepo).join('; ')}` : ''}`);
    }, PROGRESS_EVERY_MS);
    timer.unref();
    return () => clearInterval(timer);
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

  private unknownTool(name: unknown): ProtocolError {
    const tools = [...this.o.catalog.names];
    if (typeof name !== 'string' || name === '') {
      return new ProtocolError(ProtocolErrorCode.InvalidParams, 'tools/call needs the name of a tool', { hint: `The tools are: ${tools.join(', ')}.`, tools });
    }
    const near = closest(name, tools, 1);
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: '${name.slice(0, 100)}'`, {
      hint: `${near.length ? `Did you mean '${near[0]}'? ` : ''}The tools are: ${tools.join(', ')} (tools/list describes them).`,
      tools,
      ...(near.length ? { nearest: near[0] } : {}),
    });
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
