/**
 * The extractor's handle on its tree-sitter worker thread: one file at a time, each with a
 * deadline. A worker that crashes, or misses the deadline by far (a grammar stuck where its
 * own parse timeout cannot stop it), is terminated and replaced on the next file.
 */
import { Worker } from 'node:worker_threads';
import type { SourceId } from './languages.js';
import type { Extraction } from './extract.js';
import type { ParseReply, ParseRequest } from './worker.js';

export class ParseWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  /** Workers started so far (the first one included). */
  started = 0;

  constructor(private readonly script: URL) {}

  /** Tags for one file; rejects when the parse fails, times out or the worker dies. */
  parse(grammar: SourceId, source: string, timeoutMs: number): Promise<Extraction> {
    const worker = this.ensure();
    const id = this.nextId++;
    return new Promise<Extraction>((resolve, reject) => {
      const done = (err: Error | undefined, result?: Extraction) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (err) reject(err);
        else resolve(result!);
      };
      const onMessage = (reply: ParseReply) => {
        if (reply.id !== id) return;
        if (reply.ok) return done(undefined, { tags: reply.tags, errorLines: reply.errorLines });
        if (reply.fatal) {
          // After a WebAssembly trap or an unknown failure, the grammar's memory is not trusted again.
          this.discard(worker);
          void worker.terminate();
        }
        done(new Error(reply.error));
      };
      const onError = (e: Error) => {
        this.discard(worker);
        void worker.terminate();
        done(new Error(`tree-sitter worker crashed: ${e.message}`));
      };
      const onExit = (code: number) => {
        this.discard(worker);
        done(new Error(`tree-sitter worker exited with ${code}`));
      };
      // The parse stops itself at timeoutMs; twice that and a second is a worker that hangs.
      const timer = setTimeout(() => {
        this.discard(worker);
        void worker.terminate();
        done(new Error(`tree-sitter did not answer within ${2 * timeoutMs + 1000} ms`));
      }, 2 * timeoutMs + 1000);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, grammar, source, timeoutMs } satisfies ParseRequest);
    });
  }

  private ensure(): Worker {
    if (!this.worker) {
      this.worker = new Worker(this.script);
      this.started++;
    }
    return this.worker;
  }

  private discard(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
