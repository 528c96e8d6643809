/**
 * What a serve process tells its tools of the index (LocalIndex, through its supervisor's status),
 * and when it must answer nothing: local mode answers only from its own index, so every tool
 * answers an error, naming the cause and what to do, while
 * - it has no lease on its supervisor;
 * - its data folder's Zoekt cannot serve (the port the user chose is another program's; it did
 *   not start), or now serves at another URL than the one this process asks;
 * - its list names no folder there is (a --repo that does not exist, or is a file).
 */
import { listFix, type LocalUnavailable } from '../search/vocab/local-index.js';
import type { SupervisorStatus } from './status.js';

export interface ClientFacts {
  /** The Zoekt URL this process's tools ask, once it is settled. */
  asked?: string | undefined;
  /** Why there is no lease, if there is none. */
  leaseError?: string | undefined;
  /** The data folder, where the supervisor's log is. */
  data: string;
}

/** Why nothing can be answered from this status, if so. */
export function unavailableBecause(s: SupervisorStatus, f: ClientFacts): LocalUnavailable | undefined {
  if (f.leaseError) {
    return {
      code: 'UNAVAILABLE',
      message: `no lease on the local supervisor of ${f.data}: ${f.leaseError}`,
      hint: `See ${f.data}/supervisor.log, then start the server again (restart it in the MCP client).`,
      retryable: false,
      zoekt: true,
    };
  }
  const z = s.zoekt_error;
  if (z) return { code: z.misconfigured ? 'BACKEND_MISCONFIGURED' : 'UNAVAILABLE', message: z.message, hint: z.hint, retryable: !z.misconfigured, zoekt: true };
  if (f.asked && s.zoekt_url && s.zoekt_url !== f.asked && !s.starting) {
    return {
      code: 'UNAVAILABLE',
      message: `the local Zoekt of ${f.data} now serves at ${s.zoekt_url}, not at ${f.asked}, where this server asks: what answers there is not its index`,
      hint: 'Start the server again (restart it in the MCP client) to follow it.',
      retryable: false,
      zoekt: true,
    };
  }
  if (!s.starting && s.repos.length === 0) {
    const what = s.list_errors.length ? s.list_errors.join('; ') : `${s.list} names no folder`;
    return {
      code: 'BACKEND_MISCONFIGURED',
      message: `nothing to search: ${what}`,
      hint: `Fix it: ${listFix(s.list)}.`,
      retryable: false,
      zoekt: false,
    };
  }
  return undefined;
}

/** The status as this process's tools read it: with `unavailable` when nothing can be answered. */
export function clientView(s: SupervisorStatus, f: ClientFacts): SupervisorStatus {
  const unavailable = unavailableBecause(s, f);
  return unavailable ? { ...s, unavailable } : s;
}
