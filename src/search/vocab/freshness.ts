/**
 * How old an index is, in answers. Zoekt knows when each repository was indexed (list_repos'
 * index_time, and its age); the local serve command also knows whether that index is still the
 * code's current state or is being rebuilt, and fills `index_age` of search answers and
 * `index_state` of list_repos from it. Elsewhere these fields are absent.
 */
import { z } from 'zod';

export const IndexState = z
  .enum(['current', 'behind', 'indexing', 'queued', 'failed'])
  .describe(
    'current: the index holds the files as they were at the last check (checked_s ago) and no change has been seen since; behind: files changed on disk behind_s ago and the index does not hold that yet (it is re-indexed soon); indexing: being built or rebuilt now (an older index, if any, answers meanwhile); queued: not checked yet; failed: the last index attempt failed (get_health says why)',
  );
export type IndexState = z.infer<typeof IndexState>;

/** One repository of an answer: how old its index is and whether it is current. */
export const RepoIndexAge = z.object({
  repo: z.string(),
  /** When the index was last brought up to date with the code; absent when it has none yet. */
  index_time: z.string().optional(),
  index_age_s: z.number().int().optional().describe('seconds since index_time'),
  state: IndexState,
  behind_s: z.number().int().optional().describe('seconds since the first change on disk the index does not hold yet'),
  checked_s: z.number().int().optional().describe('current: seconds since the files were last compared with the index'),
  retry_after_s: z.number().int().optional().describe('behind, indexing or queued: call again after this long for the new index'),
});
export type RepoIndexAge = z.infer<typeof RepoIndexAge>;

/** The field search answers carry under the local serve command: one entry per repository the answer shows or waits for. */
export const indexAgeField = {
  index_age: z
    .array(RepoIndexAge)
    .optional()
    .describe('Only under the local serve command: how old the index of each repository in the answer is, and whether it is current'),
};

/** Whole seconds from an ISO time to now; undefined when the time does not parse. */
export function ageSeconds(iso: string | undefined, now = Date.now()): number | undefined {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? Math.max(0, Math.round((now - t) / 1000)) : undefined;
}

/** "12 s", "5 min", "3 h", "2 d": an age for a person or a model to read. */
export function ageText(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}
