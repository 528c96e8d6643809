/**
 * Whether an answer is whole, and what to tell an agent when it is not. Zoekt says when it
 * stopped early (see StopCause in the wire layer); a walk over pages may also have a bound of
 * its own. Both become `partial: { reason, hint }` on the page and `complete: false` in stats.
 */
import type { SearchStatsOut, StopCause } from '../zoekt/wire.js';

export interface Partial {
  reason: string;
  /** The narrowing call to make. */
  hint: string;
}

/** Said when a narrower call would get the whole answer. */
export const NARROW_HINT =
  'Narrow the search to get every result: add paths (e.g. ["src/"]), languages, or repos, or use a more specific term.';

export function stopReason(stopped: StopCause): string {
  switch (stopped.cause) {
    case 'shards_failed':
      return `${stopped.shards} index shard(s) failed or were still loading, so their results are missing`;
    case 'match_limit':
      return `Zoekt stopped after ${stopped.limit.toLocaleString('en-US')} matches (its match budget), so some files were never searched`;
    case 'time_limit':
      return 'Zoekt hit its time limit before searching every file';
  }
}

function stopHint(stopped: StopCause): string {
  if (stopped.cause === 'shards_failed') return "Call again in a few seconds; if it persists, check get_health and Zoekt's log.";
  if (stopped.cause === 'time_limit') return `${NARROW_HINT} A longer --timeout-ms also helps.`;
  return NARROW_HINT;
}

/** The partial note for Zoekt's own early stop, if it stopped early. */
export function zoektPartial(stats: SearchStatsOut | undefined): Partial | undefined {
  if (!stats?.stopped) return undefined;
  return { reason: stopReason(stats.stopped), hint: stopHint(stats.stopped) };
}

/** "at least 5,000" for a lower bound, "5,000" for an exact count. */
export function count(n: number, complete: boolean): string {
  return `${complete ? '' : 'at least '}${n.toLocaleString('en-US')}`;
}
