/**
 * The lease protocol between the local supervisor and the MCP servers that hold a lease on it,
 * one JSON object per line over its socket. A client's first line is a Hello (the protocol it
 * speaks and the list it wants indexed); the supervisor answers with a status whenever it
 * changes: where Zoekt answers, and the state of each repository of that client's list (indexed
 * when, how far behind the code on disk, indexing how far along, failed why). get_health shows
 * it, and searches use it to tell "not indexed yet" from "no match".
 *
 * A supervisor outlives upgrades of the clients that spawned it: every status names its protocol,
 * and a client that finds another one stops that supervisor and starts its own.
 */

import type { LocalIndex, RepoIndex, RepoProgress } from '../search/vocab/local-index.js';

/**
 * Bumped whenever a message changes meaning. 1 (no `protocol` field): one list per supervisor. 2:
 * a Zoekt found answering on the port may be another index's (`foreign_zoekt`). 3: `zoekt_url` is
 * always this data folder's own Zoekt, and `zoekt_error` says why there is none.
 */
export const PROTOCOL = 3;

/** What a client wants indexed: a list file (re-read when it changes), or folders. */
export interface ListSpec {
  file?: string;
  dirs?: string[];
  /** What relative entries and plain folders' names are relative to. */
  base: string;
  /** How messages name the list: the file as given, `--repo`, `ZOEKT_MCP_REPOS`. */
  label: string;
}

export interface Hello {
  protocol: number;
  /** Absent: an observer, which wants nothing indexed and is told of every repository indexed. */
  list?: ListSpec;
}

/** A repository's state as the supervisor reports it: what tools read of it (search/vocab/local-index.ts). */
export type RepoStatus = RepoIndex;
export type { RepoProgress };

/** The supervisor's message to a client: the tools' view of the index (LocalIndex) and more. */
export interface SupervisorStatus extends LocalIndex {
  protocol: number;
  pid: number;
  zoekt_url: string;
  started_at: string;
  leases: number;
  /** Completed checks of the whole list: a client that asked for a check waits for the next one. */
  pass: number;
  /** The repositories of this client's list (other clients' are indexed too, but not shown to it). */
  repos: RepoStatus[];
  /**
   * This data folder's Zoekt cannot answer (the port the user chose is another program's; it did
   * not start; it is restarting): every answer says so, and none comes from whatever else answers
   * at zoekt_url.
   */
  zoekt_error?: ZoektError;
}

export interface ZoektError {
  message: string;
  /** What to do about it. */
  hint: string;
  /** The configuration is the cause (ZOEKT_PORT): waiting does not help, and --setup fails at once. */
  misconfigured: boolean;
}
