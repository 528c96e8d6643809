/**
 * Universal Ctags behind the extractor, in its interactive mode, for what tree-sitter does not
 * parse here: other languages, the lines a grammar gave up on, and files whose parse failed.
 * Started on first use with the options the indexer gave the extractor; restarted if it dies.
 * A file Universal Ctags cannot tag gets no tags, never an error: one bad file must not cost
 * the rest of the shard its symbols.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { createInterface, type Interface } from 'node:readline';
import { requestLine, type TagLine } from './protocol.js';

/** Restarts allowed in a row before Universal Ctags is given up for this run. */
const MAX_RESTARTS = 3;
/** A file Universal Ctags has not answered in this long is given up on (Zoekt allows a minute). */
const FILE_TIMEOUT_MS = 20_000;

export class UniversalCtags {
  private child: ChildProcessByStdio<Writable, Readable, null> | undefined;
  private lines: Interface | undefined;
  private waiting: ((line: string | undefined) => void) | undefined;
  private queued: string[] = [];
  private restarts = 0;
  /** Why Universal Ctags is not used any more, once it is not. */
  broken: string | undefined;

  constructor(
    private readonly bin: string,
    private readonly args: string[],
    private readonly log: (msg: string) => void,
  ) {}

  /** The tags Universal Ctags gives `content`; none when it is unavailable or fails on it. */
  async tags(filename: string, content: Buffer): Promise<TagLine[]> {
    if (this.broken) return [];
    try {
      await this.start();
      this.child!.stdin.write(requestLine(filename, content.length));
      this.child!.stdin.write(content);
      const tags: TagLine[] = [];
      for (;;) {
        const line = await this.next(FILE_TIMEOUT_MS);
        if (line === undefined) throw new Error('stopped answering');
        const reply = JSON.parse(line) as { _type?: string };
        if (reply._type === 'completed') break;
        if (reply._type === 'tag') tags.push(reply as TagLine);
      }
      this.restarts = 0;
      return tags;
    } catch (e) {
      this.stop();
      this.restarts++;
      const reason = e instanceof Error ? e.message : String(e);
      this.log(`universal-ctags failed on ${filename}: ${reason}`);
      if (this.restarts >= MAX_RESTARTS) this.broken = `failed ${MAX_RESTARTS} times in a row (last: ${reason})`;
      return [];
    }
  }

  private async start(): Promise<void> {
    if (this.child) return;
    const child = spawn(this.bin, this.args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child = child;
    child.on('error', () => this.stop());
    child.on('exit', () => {
      if (this.child === child) this.stop();
    });
    child.stdin.on('error', () => this.stop());
    this.lines = createInterface({ input: child.stdout });
    this.lines.on('line', (line) => {
      if (!line.trim() || line === '(null)') return;
      const waiting = this.waiting;
      if (waiting) {
        this.waiting = undefined;
        waiting(line);
      } else this.queued.push(line);
    });
    // The first reply names the program; errors before it are warnings unless fatal.
    for (;;) {
      const line = await this.next(FILE_TIMEOUT_MS);
      if (line === undefined) throw new Error(`${this.bin} did not start`);
      const reply = JSON.parse(line) as { _type?: string; fatal?: boolean; message?: string };
      if (reply._type === 'error' && reply.fatal) throw new Error(`${this.bin}: ${reply.message}`);
      if (reply._type !== 'error') return;
    }
  }

  private next(timeoutMs: number): Promise<string | undefined> {
    const queued = this.queued.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (!this.child) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        resolve(undefined);
      }, timeoutMs);
      this.waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  }

  stop(): void {
    const child = this.child;
    this.child = undefined;
    this.lines?.close();
    this.lines = undefined;
    this.queued = [];
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(undefined);
    if (child && child.exitCode === null) child.kill('SIGKILL');
  }
}
