/**
 * Universal Ctags' interactive protocol (`--_interactive`), as Zoekt's indexer speaks it through
 * github.com/sourcegraph/go-ctags: one JSON object per line. The indexer sends a request line,
 * `{"command":"generate-tags","filename":"x.ts","size":N}`, followed by exactly N bytes of file
 * content; the parser answers one `{"_type":"tag",…}` line per tag, then
 * `{"_type":"completed","command":"generate-tags"}`. At start the parser writes one
 * `{"_type":"program",…}` line. go-ctags skips any line longer than its 4 KiB read buffer.
 */
import type { Readable } from 'node:stream';

export interface TagRequest {
  /** The file's base name, as the indexer sent it (it never sends the folder). */
  filename: string;
  content: Buffer;
}

/** A tag line as ctags writes it; `name`, `line` and `kind` are what Zoekt keeps, with the scope. */
export interface TagLine {
  _type: 'tag';
  name: string;
  path: string;
  line: number;
  kind: string;
  language?: string;
  scope?: string;
  scopeKind?: string;
}

/** The longest line go-ctags reads; longer ones are dropped on its side. */
export const MAX_LINE_BYTES = 4095;

/** Requests from the indexer, in order; ends when its input ends. */
export async function* readRequests(input: Readable): AsyncGenerator<TagRequest> {
  // Chunks arrive in 64 KiB pieces; they are joined once a whole request is there, not per piece.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let wanted: { filename: string; size: number } | undefined;
  const take = () => {
    const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [joined];
    return joined;
  };
  const keep = (rest: Buffer) => {
    pending = rest.length ? [rest] : [];
    pendingBytes = rest.length;
  };
  for await (const chunk of input) {
    pending.push(chunk as Buffer);
    pendingBytes += (chunk as Buffer).length;
    for (;;) {
      if (!wanted) {
        const buffered = take();
        const nl = buffered.indexOf(0x0a);
        if (nl === -1) break;
        const line = buffered.subarray(0, nl).toString('utf8').trim();
        keep(buffered.subarray(nl + 1));
        if (!line) continue;
        const request = JSON.parse(line) as { command?: string; filename?: unknown; size?: unknown };
        if (request.command !== 'generate-tags' || typeof request.filename !== 'string' || typeof request.size !== 'number') {
          throw new Error(`unexpected request: ${line.slice(0, 200)}`);
        }
        wanted = { filename: request.filename, size: request.size };
      }
      if (pendingBytes < wanted.size) break;
      const buffered = take();
      const content = Buffer.from(buffered.subarray(0, wanted.size));
      keep(buffered.subarray(wanted.size));
      const filename = wanted.filename;
      wanted = undefined;
      yield { filename, content };
    }
  }
}

/** One line of the protocol: JSON, newline-terminated; undefined when too long for go-ctags. */
export function protocolLine(value: object): string | undefined {
  const line = `${JSON.stringify(value)}\n`;
  return Buffer.byteLength(line) > MAX_LINE_BYTES ? undefined : line;
}

export const COMPLETED = `${JSON.stringify({ _type: 'completed', command: 'generate-tags' })}\n`;

/** The request line for one file (what the extractor sends Universal Ctags). */
export function requestLine(filename: string, size: number): string {
  return `${JSON.stringify({ command: 'generate-tags', filename, size })}\n`;
}
