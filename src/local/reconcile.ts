/**
 * What the index should hold, from what every live client asked for: a pure function, lists in,
 * index actions out (the supervisor carries them out between indexes).
 *
 * - Each directory is indexed once, under one name, however many clients list it: the name it is
 *   indexed under already, else the one the first client to list it gives it.
 * - Two directories may not share a name (Zoekt keys shards by name): the client that lists the
 *   second one gets an error naming the first, and its other entries are served.
 * - A repository no live client lists stays in the index for `keepMs` (a client respawned a moment
 *   later finds it current), then leaves it. Nothing a live client lists ever leaves the index.
 */
import type { RepoEntry } from './repos.js';

export interface ClientList {
  id: string;
  entries: readonly RepoEntry[];
  errors: readonly string[];
}

/** A repository the index holds (the supervisor's state file). */
export interface Indexed {
  dir: string;
  name: string;
  /** Since when (ms) no live client has listed it. */
  unlistedSince?: number;
}

export interface Plan {
  /** What to keep indexed and up to date: each directory once. */
  wanted: RepoEntry[];
  /** What each client sees: its own entries under the names the index uses, and its errors. */
  clients: Map<string, { entries: RepoEntry[]; errors: string[] }>;
  /** Repositories whose shards and snapshots go now. */
  remove: Indexed[];
  /** New values of `unlistedSince` (undefined: listed again). */
  unlisted: Map<string, number | undefined>;
}

export function reconcile(clients: readonly ClientList[], indexed: readonly Indexed[], now: number, keepMs: number): Plan {
  const byDir = new Map<string, RepoEntry>();
  const byName = new Map<string, { dir: string; client: string }>();
  const plan: Plan = { wanted: [], clients: new Map(), remove: [], unlisted: new Map() };
  const indexedByDir = new Map(indexed.map((r) => [r.dir, r]));
  // A directory keeps the name it is indexed under while some client lists it under that name.
  for (const c of clients) {
    for (const e of c.entries) {
      const known = indexedByDir.get(e.dir);
      if (known && known.name === e.name && !byDir.has(e.dir) && !byName.has(e.name)) claim(e, c.id);
    }
  }
  function claim(e: RepoEntry, client: string): void {
    byDir.set(e.dir, e);
    byName.set(e.name, { dir: e.dir, client });
    plan.wanted.push(e);
  }
  for (const c of clients) {
    const mine: RepoEntry[] = [];
    const errors = [...c.errors];
    for (const e of c.entries) {
      const same = byDir.get(e.dir);
      if (same) {
        mine.push(same);
        continue;
      }
      const taken = byName.get(e.name);
      if (taken) {
        const who = taken.client === c.id ? 'this list' : "another client's list";
        errors.push(`${e.source}: ${e.text}: its name "${e.name}" is already used by ${taken.dir} (in ${who}); set git config zoekt.name in one of them`);
        continue;
      }
      claim(e, c.id);
      mine.push(e);
    }
    plan.clients.set(c.id, { entries: mine, errors });
  }
  for (const r of indexed) {
    const listed = byDir.get(r.dir);
    if (listed) {
      // Listed again (under another name: the old name's shards go).
      if (listed.name !== r.name) plan.remove.push(r);
      else if (r.unlistedSince !== undefined) plan.unlisted.set(r.dir, undefined);
      continue;
    }
    // Its name now belongs to another directory; or no client lists it, for keepMs.
    const nameTaken = byName.has(r.name);
    const since = r.unlistedSince ?? now;
    if (nameTaken || now - since >= keepMs) plan.remove.push(r);
    else if (r.unlistedSince === undefined) plan.unlisted.set(r.dir, now);
  }
  return plan;
}
