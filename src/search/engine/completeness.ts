/**
 * Whether an answer is whole, and what to tell an agent when it is not. Zoekt says when it
 * stopped early (see StopCause in the wire layer); a walk over pages may also have a bound of
 * its own. Both become `partial: { reason, hint }` on the page and `complete: false` in stats.
 */
import type { MissingBackend, SearchStatsOut, StopCause } from '../../zoekt/wire.js';

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
      return `Zoekt stopped after ${grouped(stopped.limit)} matches (its match budget), so some files were never searched`;
    case 'time_limit':
      return 'Zoekt hit its time limit before searching every file';
    case 'too_large':
      // The contract's word for it; the hint says what was given up.
      return 'too_large';
    case 'backends_failed':
      return missingBackends(stopped.backends);
  }
}

/** "zoekt at URL (repos a, b) did not answer (why)", for each missing backend. */
export function missingBackends(backends: MissingBackend[]): string {
  const one = (b: MissingBackend) => {
    const repos = b.repos.length ? `, serving ${b.repos.length > 5 ? `${b.repos.slice(0, 5).join(', ')} and ${b.repos.length - 5} more` : b.repos.join(', ')}` : '';
    return `the zoekt backend ${b.url}${repos} did not answer (${b.reason})`;
  };
  return `${backends.map(one).join('; ')}, so results from its repositories are missing`;
}

function stopHint(stopped: StopCause): string {
  if (stopped.cause === 'shards_failed') return "Call again in a few seconds; if it persists, check get_health and Zoekt's log.";
  if (stopped.cause === 'backends_failed') {
    return `Call again in a few seconds for the whole answer; get_health shows each backend. To search only what answers now, pass repos naming the others.`;
  }
  if (stopped.cause === 'time_limit') return `${NARROW_HINT} A longer --timeout-ms also helps.`;
  if (stopped.cause === 'too_large') {
    return `Zoekt's whole answer would have passed the ${stopped.capBytes / (1024 * 1024)} MiB one search may hold, so it was asked again ${stopped.steps.join(', ')}: files and matched lines may be missing, and counts are lower bounds. ${NARROW_HINT}`;
  }
  return NARROW_HINT;
}

/** The partial note for Zoekt's own early stop, if it stopped early. */
export function zoektPartial(stats: SearchStatsOut | undefined): Partial | undefined {
  if (!stats?.stopped) return undefined;
  return { reason: stopReason(stats.stopped), hint: stopHint(stats.stopped) };
}

/** "at least 5,000" for a lower bound, "5,000" for an exact count. */
export function count(n: number, complete: boolean): string {
  return `${complete ? '' : 'at least '}${grouped(n)}`;
}

/** 5000 → "5,000": what toLocaleString('en-US') gives, without Intl's cost on every rendered count. */
export function grouped(n: number): string {
  const [whole, fraction] = String(n).split('.');
  const digits = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? digits : `${digits}.${fraction}`;
}
