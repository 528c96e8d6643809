/**
 * Files the indexer skipped. Zoekt keeps such a file as a document whose whole text is
 * "NOT-INDEXED: <reason>": found by its name, never by its content. Nothing else in Zoekt's API
 * says they exist, so they are found by that text (one cheap search) and reported: per
 * repository by list_repos, in all by get_health, and by a search whose scope holds some.
 */
import { z } from 'zod';
import * as q from '../zoekt/query.js';
import type { FileHit, RepoInfo } from '../zoekt/wire.js';
import type { Searcher } from './searcher.js';
import { compareStrings } from './paging.js';

/** Zoekt's explanations (index/document.go) and the names this server gives them. */
const REASONS = {
  'exceeds the maximum size limit': 'too_large',
  'contains too many trigrams': 'too_many_trigrams',
  'contains binary content': 'binary',
  'contains too few trigrams': 'too_small',
  'object missing from repository': 'missing',
} as const;
export type SkipReason = (typeof REASONS)[keyof typeof REASONS];

/**
 * The reasons whose files may hold text a search is after: a binary file or one of two bytes
 * would not have matched anyway, and naming them on every search would drown the others.
 */
const TEXT_REASONS: ReadonlySet<SkipReason> = new Set(['too_large', 'too_many_trigrams', 'missing']);

/** Whole-text match of a placeholder: `(?-m)` makes ^ and $ the ends of the file. */
const PLACEHOLDER = q.content(`(?-m)^NOT-INDEXED: (?:${Object.keys(REASONS).map(q.escapeRegex).join('|')})$`);

/** Placeholders listed at most (their count is exact beyond it). */
const LISTED_MAX = 20_000;
/** Files a search names as examples. */
const EXAMPLES = 3;

export const NotIndexedCounts = z.object({
  /** Files the indexer skipped: their names are indexed, their text is not. */
  files: z.number().int(),
  /** By reason: too_large, too_many_trigrams, binary, too_small, missing. */
  reasons: z.record(z.string(), z.number().int()),
});
export type NotIndexedCounts = z.infer<typeof NotIndexedCounts>;

export const NotIndexedInScope = z.object({
  /** Files in the search's scope whose text was not indexed (too large, too many trigrams). */
  files: z.number().int(),
  examples: z.array(z.object({ repo: z.string(), path: z.string(), reason: z.string() })),
});
export type NotIndexedInScope = z.infer<typeof NotIndexedInScope>;

export interface SkippedFile {
  repo: string;
  path: string;
  reason: SkipReason;
}

function reasonOf(file: FileHit): SkipReason | undefined {
  for (const chunk of file.chunks) {
    if (chunk.fileName) continue;
    const m = /^NOT-INDEXED: (.*)$/.exec(chunk.lines[0] ?? '');
    if (m) return REASONS[m[1] as keyof typeof REASONS];
  }
  return undefined;
}

async function placeholders(searcher: Searcher, parts: q.QueryPart[], size: number, signal?: AbortSignal): Promise<{ files: SkippedFile[]; total: number; listedAll: boolean }> {
  const query = q.render(q.and(q.caseMode('yes'), PLACEHOLDER, ...parts));
  const window = await searcher.window({ query, size, signal });
  const files = window.files
    .map((f) => ({ repo: f.repo, path: f.path, reason: reasonOf(f) }))
    .filter((f): f is SkippedFile => f.reason !== undefined)
    .sort((a, b) => compareStrings(a.repo, b.repo) || compareStrings(a.path, b.path));
  return { files, total: Math.max(window.stats.fileCount, files.length), listedAll: window.exhausted };
}

export function countByReason(files: SkippedFile[]): NotIndexedCounts {
  const reasons: Record<string, number> = {};
  for (const f of files) reasons[f.reason] = (reasons[f.reason] ?? 0) + 1;
  return { files: files.length, reasons };
}

export interface IndexSkipped {
  total: NotIndexedCounts;
  byRepo: Map<string, NotIndexedCounts>;
  /** False when there were more placeholders than were listed: per-repository counts are then lower bounds. */
  complete: boolean;
}

type Kept = { state: string; reading: Promise<IndexSkipped> };

/** Every skipped file of the index in scope, counted per repository; read once per state of the index. */
export function indexSkipped(searcher: Searcher, repos: RepoInfo[], signal?: AbortSignal): Promise<IndexSkipped> {
  const state = repos.map((r) => `${r.backend ?? ''}\u0000${r.name}\u0000${r.indexTime ?? ''}\u0000${r.stats.documents}`).join('\u0001');
  const known = searcher.kept.get('skipped') as Kept | undefined;
  if (known?.state === state) return known.reading;
  const reading = placeholders(searcher, [], LISTED_MAX, signal).then(({ files, total, listedAll }) => {
    const byRepo = new Map<string, SkippedFile[]>();
    for (const f of files) byRepo.set(f.repo, [...(byRepo.get(f.repo) ?? []), f]);
    const counts = countByReason(files);
    return { total: { ...counts, files: total }, byRepo: new Map([...byRepo].map(([r, fs]) => [r, countByReason(fs)])), complete: listedAll };
  });
  searcher.kept.set('skipped', { state, reading } satisfies Kept);
  // A failed read is not kept: the next call tries again.
  reading.catch(() => {
    if ((searcher.kept.get('skipped') as Kept | undefined)?.reading === reading) searcher.kept.delete('skipped');
  });
  return reading;
}

/** Files within a search's filters whose text the indexer skipped and a text search could have wanted; undefined when none. */
export async function skippedInScope(searcher: Searcher, filters: q.QueryPart[], signal?: AbortSignal): Promise<NotIndexedInScope | undefined> {
  const { files } = await placeholders(searcher, filters, 1000, signal);
  const text = files.filter((f) => TEXT_REASONS.has(f.reason));
  if (!text.length) return undefined;
  return { files: text.length, examples: text.slice(0, EXAMPLES).map((f) => ({ ...f })) };
}

const REASON_TEXT: Record<SkipReason, string> = {
  too_large: 'too large',
  too_many_trigrams: 'too many trigrams',
  binary: 'binary',
  too_small: 'too small',
  missing: 'missing from the repository',
};

/** `3 too many trigrams, 1 too large`. */
export function describeReasons(counts: NotIndexedCounts): string {
  return Object.entries(counts.reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${n} ${REASON_TEXT[r as SkipReason] ?? r}`)
    .join(', ');
}

/** The line a search shows when its scope holds files the indexer skipped. */
export function notIndexedLine(n: NotIndexedInScope): string {
  const names = n.examples.map((e) => `${e.repo}/${e.path} (${REASON_TEXT[e.reason as SkipReason] ?? e.reason})`).join(', ');
  return (
    `not indexed: ${n.files} file(s) in scope are kept by name only (their text and symbols are not searched): ${names}${n.files > n.examples.length ? ', …' : ''}. ` +
    'Read them from the repository itself, or index with higher limits (-file_limit, -max_trigram_count).'
  );
}
