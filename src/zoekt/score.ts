/**
 * What Zoekt's scores of a file answer say about its score in a narrower query: the one place
 * that knows how Zoekt composes them (index/score.go, the default scoring, not BM25).
 *
 * A file's score is ScoreOffset × trunc(atoms + best line), plus tie-breakers below ScoreOffset
 * (the repository's rank, the file's place in its shard). `atoms` is what the query's matched
 * atoms add (at most 400); `best line` is the highest score of a matched line, which is a whole
 * number of points (a word match, a symbol match, a kind's factor in hundreds). A chunk's score
 * is its best line's plus an ordering term in (0, 1] (1 for the file's first chunk).
 */
import type { Chunk, FileHit } from './wire.js';

/** index/score.go: a file's query-dependent score is scaled by this, above its tie-breakers. */
const SCORE_OFFSET = 10_000_000;
/** index/contentprovider.go, scoreFactorAtomMatch: what matched atoms add to a file's score at most. */
const ATOM_BOUND = 400;

/** The score of a chunk's best line: a whole number, under an ordering term in (0, 1]. */
function bestLine(chunk: Chunk): number {
  const s = chunk.score;
  const whole = Math.round(s);
  return Math.abs(s - whole) < 1e-6 ? whole - 1 : Math.floor(s);
}

/**
 * The score `file` has in a query whose atoms are the same but that matches only the chunks
 * `keep` says true of (filename chunks are kept): its own score less the lines that query would
 * not match. `keep` says undefined of a chunk that holds lines of both kinds: the score cannot
 * be told then, nor when the file's score does not read as Zoekt composes it.
 */
export function scoreWithout(file: FileHit, keep: (chunk: Chunk) => boolean | undefined): number | undefined {
  let all = Number.NEGATIVE_INFINITY;
  let kept = Number.NEGATIVE_INFINITY;
  for (const chunk of file.chunks) {
    const best = bestLine(chunk);
    const k = chunk.fileName ? true : keep(chunk);
    if (k === undefined) return undefined;
    all = Math.max(all, best);
    if (k) kept = Math.max(kept, best);
  }
  if (!Number.isFinite(kept)) return undefined;
  const atoms = Math.floor(file.score / SCORE_OFFSET) - all;
  if (atoms < 0 || atoms > ATOM_BOUND) return undefined;
  return file.score - SCORE_OFFSET * (all - kept);
}
