/**
 * The tree-sitter side of the extractor, in a worker thread of its own: a grammar that crashes
 * (a WebAssembly trap) or never returns takes this thread down, not the process that answers
 * the indexer, which starts a new worker and carries on.
 */
import { parentPort } from 'node:worker_threads';
import { extractSource, ParseTimeout } from './extract.js';
import type { SourceId } from './languages.js';

export interface ParseRequest {
  id: number;
  /** A grammar, or a single-file component whose code is parsed (components.ts). */
  grammar: SourceId;
  source: string;
  timeoutMs: number;
}

/** `fatal`: the failure may have left the grammar's memory in a bad state (a WebAssembly trap). */
export type ParseReply = { id: number; ok: true; tags: import('./tags.js').Tag[]; errorLines: [number, number][] } | { id: number; ok: false; error: string; fatal: boolean };

parentPort?.on('message', (request: ParseRequest) => {
  extractSource(request.grammar, request.source, request.timeoutMs).then(
    (result) => parentPort!.postMessage({ id: request.id, ok: true, ...result } satisfies ParseReply),
    (e: unknown) => parentPort!.postMessage({ id: request.id, ok: false, error: e instanceof Error ? e.message : String(e), fatal: !(e instanceof ParseTimeout) } satisfies ParseReply),
  );
});
