/**
 * How far a running zoekt-git-index has come, read from its log as it writes it: "attempting to
 * index N total files" once, then "finished shard …: …, M files processed" per shard. A first or
 * whole index is cut into shards built in parallel (indexer.ts), so a large repository reports
 * several times before it ends; a small one (one shard) only at its end.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export interface IndexerCount {
  /** Files zoekt-git-index said it would index; undefined until it says so. */
  total?: number;
  /** Files in the shards finished so far. */
  done: number;
}

export class IndexerProgress {
  private pos = 0;
  private rest = '';
  private readonly count: IndexerCount = { done: 0 };

  constructor(private readonly logFile: string) {}

  /** Reads what the log gained since the last call. */
  read(): IndexerCount {
    let fd: number;
    try {
      fd = openSync(this.logFile, 'r');
    } catch {
      return { ...this.count };
    }
    try {
      const buf = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.pos);
        if (n <= 0) break;
        this.pos += n;
        const lines = (this.rest + buf.toString('utf8', 0, n)).split('\n');
        this.rest = lines.pop() ?? '';
        for (const line of lines) this.take(line);
      }
    } finally {
      closeSync(fd);
    }
    return { ...this.count };
  }

  private take(line: string): void {
    const total = /attempting to index (\d+) total files/.exec(line);
    if (total) this.count.total = Number(total[1]);
    const shard = /finished shard .*?(\d+) files processed/.exec(line);
    if (shard) this.count.done += Number(shard[1]);
  }
}

/**
 * The expected length of a running index: the estimate made before it started, brought down
 * towards what the speed so far says (elapsed ÷ share done) as the share done grows, when that
 * says sooner. Never up: finished shards lag behind the work (the shards being built meanwhile
 * count for nothing until they end: on Go's tree, 60% of the files were in finished shards 5 s
 * before the end of a 32 s index), so a slower speed so far is no sign of a late end; an index
 * past its estimate is handled by its caller. Before a tenth is done the speed so far says
 * little (a shard of a few files can finish first), so the estimate stands.
 */
export function refreshEstimate(estimatedMs: number, elapsedMs: number, count: IndexerCount): number {
  if (!count.total || count.done <= 0) return estimatedMs;
  const f = Math.min(1, count.done / count.total);
  if (f < 0.1 || f >= 1) return estimatedMs;
  const bySpeed = elapsedMs / f;
  return Math.min(estimatedMs, Math.round(estimatedMs * (1 - f) + bySpeed * f));
}
