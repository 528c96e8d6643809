/**
 * A client of Universal Ctags' interactive protocol, as Zoekt's indexer drives a ctags program
 * (github.com/sourcegraph/go-ctags): one request line and the file's bytes, then tag lines until
 * `completed`. For testing the extractor as the indexer sees it.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

export interface TagReply {
  name: string;
  line: number;
  kind: string;
  scope?: string;
  scopeKind?: string;
  path: string;
}

export class CtagsClient {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly lines: string[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  stderr = '';
  /** The first line, naming the program. */
  program: Promise<Record<string, unknown>>;

  /** Starts `bin` with the options go-ctags passes. */
  constructor(bin: string, env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(bin, ['--_interactive=default', '--fields=*', '--pattern-length-limit=255'], { stdio: ['pipe', 'pipe', 'pipe'], env });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    createInterface({ input: this.child.stdout })
      .on('line', (l) => {
        this.lines.push(l);
        this.wake?.();
      })
      .on('close', () => {
        this.ended = true;
        this.wake?.();
      });
    this.program = this.next().then((l) => JSON.parse(l!) as Record<string, unknown>);
  }

  private async next(): Promise<string | undefined> {
    while (!this.lines.length && !this.ended) await new Promise<void>((r) => (this.wake = r));
    return this.lines.shift();
  }

  /** The tags for one file; rejects when the program stops answering. */
  async tags(filename: string, content: Buffer | string): Promise<TagReply[]> {
    await this.program;
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    this.child.stdin.write(`${JSON.stringify({ command: 'generate-tags', filename, size: bytes.length })}\n`);
    this.child.stdin.write(bytes);
    const tags: TagReply[] = [];
    for (;;) {
      const line = await this.next();
      if (line === undefined) throw new Error(`${filename}: the program stopped answering; stderr: ${this.stderr}`);
      const reply = JSON.parse(line) as { _type: string } & TagReply;
      if (reply._type === 'completed') return tags;
      if (reply._type !== 'tag') throw new Error(`unexpected reply ${line}`);
      tags.push(reply);
    }
  }

  /** Closes stdin and waits for the program to exit; its exit code. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    if (this.child.exitCode !== null) return this.child.exitCode;
    return new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
