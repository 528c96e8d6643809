/**
 * What the local serve command knows of the index it keeps, as the tools read it: the state of
 * each repository of its list (indexed when, how far behind the code on disk, being indexed how
 * far along, failed why). Tools use it to tell "not indexed yet" from "no match" and to say how
 * old an answer's index is; get_health shows it. src/local/ feeds it from its supervisor's status
 * (whose message extends this one); elsewhere there is none.
 */

export interface RepoProgress {
  files: number;
  bytes: number;
  elapsed_ms: number;
  /** The expected duration, from this repository's last delta or the measured indexing speed (files and bytes per second). */
  estimated_ms: number;
  /** elapsed / estimated, capped at 99 until done. */
  percent: number;
}

export interface RepoIndex {
  name: string;
  dir: string;
  kind: 'git' | 'dir';
  /** queued: waiting for its first check; indexing: being (re)built; ready: current; error: see error. */
  state: 'queued' | 'checking' | 'indexing' | 'ready' | 'error';
  /** Zoekt serves some index of it (maybe an older one while it is re-indexed). */
  has_index: boolean;
  /** When its index was last brought up to date with the code. */
  indexed_at?: string;
  /** When the code on disk was last compared with the index. */
  checked_at?: string;
  /** The first change on disk the index does not hold yet: the index is behind since then. */
  changed_at?: string;
  last_duration_ms?: number;
  /**
   * When it is probably indexed (ISO), for one that waits for the indexer or is being indexed: the
   * running job's rest and the queue's jobs before it, from the measured indexing speed.
   */
  expected_at?: string;
  progress?: RepoProgress;
  error?: string;
}

export interface LocalIndex {
  /** The list being served: a file, or the --repo folders. */
  list: string;
  /** One message per entry of the list that is not searched (no such folder, a file, a name taken), naming it. */
  list_errors: string[];
  /** The repositories of that list. */
  repos: RepoIndex[];
  /** The index service has not reported yet: answers may be incomplete. */
  starting?: boolean;
  /**
   * Nothing can be answered from this index now, and why: its own Zoekt cannot serve (another
   * program holds the port the user chose), or the list names no folder there is. Every tool that
   * reads the index answers this error instead; get_health reports it.
   */
  unavailable?: LocalUnavailable;
}

export interface LocalUnavailable {
  code: 'UNAVAILABLE' | 'BACKEND_MISCONFIGURED';
  message: string;
  hint: string;
  retryable: boolean;
  /** The Zoekt the answers would come from is not this index's own: get_health does not ask it. */
  zoekt: boolean;
}

/** Read once per call: the state now, or undefined outside the local serve command. */
export type LocalIndexSource = () => LocalIndex | undefined;

/** How a bad entry of the list is fixed, by where the list comes from (LocalIndex.list). */
export function listFix(list: string): string {
  if (list === '--repo') return "each --repo of the server's command (in the MCP client's configuration) must name a folder; it is read when the server starts";
  if (list === 'ZOEKT_MCP_REPOS') return "ZOEKT_MCP_REPOS (in the MCP client's configuration) must name a folder or a list file; it is read when the server starts";
  return `each line of ${list} must name a folder; the file is read again while serving`;
}

/** "about 12 s" from milliseconds. */
export function roughly(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  return s < 90 ? `${s} s` : `${Math.round(s / 60)} min`;
}

/** How to say one repository's indexing state to a person or an agent. */
export function describeRepo(r: RepoIndex): string {
  if (r.state === 'indexing' && r.progress) {
    const p = r.progress;
    const left = r.expected_at ? Math.max(0, Date.parse(r.expected_at) - Date.now()) : Math.max(0, p.estimated_ms - p.elapsed_ms);
    return `${r.name}: indexing ${p.files} files (${(p.bytes / 1e6).toFixed(1)} MB), ~${p.percent}% after ${roughly(p.elapsed_ms)}, about ${roughly(left)} left`;
  }
  if (r.state === 'error') return `${r.name}: indexing failed: ${r.error ?? 'unknown error'}`;
  if (r.state === 'ready') return `${r.name}: indexed ${r.indexed_at ?? ''}`.trim();
  if (r.state === 'checking') return `${r.name}: checking for changes`;
  return `${r.name}: queued for indexing${r.expected_at ? `, indexed in about ${roughly(Date.parse(r.expected_at) - Date.now())}` : ''}`;
}

/**
 * Milliseconds until a repository that is not indexed yet (or behind its files) probably is: what
 * to tell a caller. From the supervisor's expectation (the measured indexing speed, the jobs
 * queued before it); a second more, so that a retry finds it done rather than almost.
 */
export function retryAfterMs(r: RepoIndex, now = Date.now()): number {
  const clamp = (ms: number) => Math.min(600_000, Math.max(1000, Math.round(ms)));
  if (r.expected_at) return clamp(Date.parse(r.expected_at) - now + 1000);
  if (r.state === 'indexing' && r.progress) return clamp(r.progress.estimated_ms - r.progress.elapsed_ms + 1000);
  // Behind: the change is indexed as a delta, about as long as the last one took.
  if (r.state === 'ready' && r.changed_at) return clamp((r.last_duration_ms ?? 1000) + 1000);
  // Not compared with its files yet: that takes a moment.
  return 2000;
}
