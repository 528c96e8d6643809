import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IndexerProgress, refreshEstimate } from '../../src/local/indexer-progress.js';

const dir = mkdtempSync(join(tmpdir(), 'zoekt-mcp-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Lines as zoekt-git-index wrote them indexing Go's source tree in 32 MB shards.
const START = '2026/11/27 00:09:14 attempting to index 11478 total files\n';
const shard = (n: number, files: number) =>
  `2026/11/27 00:09:40 finished shard idx/go%2Fsrc_v16.0000${n}.zoekt: 93325576 index bytes (overhead 2.8), ${files} files processed \n`;

describe('the indexer log read as it grows', () => {
  it('counts the files of finished shards, across reads and a line split between them', () => {
    const log = join(dir, 'indexer.log');
    const p = new IndexerProgress(log);
    expect(p.read()).toEqual({ done: 0 });
    writeFileSync(log, START);
    expect(p.read()).toEqual({ total: 11478, done: 0 });
    const line = shard(0, 2900);
    appendFileSync(log, line.slice(0, 40));
    expect(p.read().done).toBe(0);
    appendFileSync(log, line.slice(40) + 'ctags: some warning about a file\n' + shard(1, 2850));
    expect(p.read()).toEqual({ total: 11478, done: 5750 });
    expect(p.read()).toEqual({ total: 11478, done: 5750 });
  });
});

describe('the estimate refreshed by the share done', () => {
  it('stands until a tenth is done', () => {
    expect(refreshEstimate(40_000, 3_000, { done: 0 })).toBe(40_000);
    expect(refreshEstimate(40_000, 3_000, { total: 11478, done: 6 })).toBe(40_000);
    expect(refreshEstimate(40_000, 3_000, { done: 500 })).toBe(40_000);
  });

  it('moves towards the speed so far as the share grows: faster than estimated, it comes down', () => {
    // Half done in 10 s: the speed says 20 s in all; halfway between that and 40 s.
    expect(refreshEstimate(40_000, 10_000, { total: 1000, done: 500 })).toBe(30_000);
    // Nine tenths done in 18 s: the speed says 20 s; the estimate is nearly that.
    expect(refreshEstimate(40_000, 18_000, { total: 1000, done: 900 })).toBe(22_000);
  });

  it('slower than estimated, it stands (shards still being built count for nothing yet)', () => {
    expect(refreshEstimate(10_000, 10_000, { total: 1000, done: 250 })).toBe(10_000);
    // Go's tree in 32 MB shards, 33.6 s estimated: 59% of the files in finished shards at 22.9 s.
    expect(refreshEstimate(33_600, 22_900, { total: 11478, done: 6762 })).toBe(33_600);
  });
});
