/**
 * Symbol coverage, read from the index itself: per language, how many files Zoekt holds, how many
 * of them have at least one symbol, and which parser produced those symbols. An agent learns from
 * it whether an empty search_symbols answer means "not defined" or "not indexed".
 *
 * Two counts per language (`lang:X` and `lang:X sym:.`, Zoekt's exact file counts, nothing
 * listed), and the kinds of the symbols of a sample of files, a few from each repository: the
 * tree-sitter extractor writes SCIP's kind names (PascalCase), Universal Ctags never does, so the
 * kinds tell the parser apart.
 * Computed once per state of the index (keyed by the repositories' index times) and kept.
 */
import { z } from 'zod';
import { deadlineWithin, withDeadline } from '../../deadline.js';
import * as q from '../../zoekt/query.js';
import type { RepoInfo } from '../../zoekt/wire.js';
import { keptPerSearcher, type Searcher } from '../engine/searcher.js';

export const PARSERS = ['tree-sitter', 'universal-ctags', 'tree-sitter+universal-ctags', 'none'] as const;
export type Parser = (typeof PARSERS)[number];

export const LanguageCoverage = z.object({
  language: z.string(),
  files: z.number().int(),
  files_with_symbols: z.number().int(),
  /** From the symbols of a few of its files: tree-sitter, Universal Ctags, both (tree-sitter with Universal Ctags filling in), or none. */
  parser: z.enum(PARSERS),
});
export type LanguageCoverage = z.infer<typeof LanguageCoverage>;

export interface Coverage {
  /** By number of files, most first. */
  languages: LanguageCoverage[];
  /** False when a count was cut short (Zoekt stopped early, or a backend did not answer): counts are then lower bounds. */
  complete: boolean;
}

/** Files whose symbols are read to tell the parser (at most; across repositories, one or so of each). */
const SAMPLE_FILES = 50;
const SAMPLE_MATCHES = 500;
/**
 * Searches in flight at once for one coverage. Each is a `sym:.` search over a language's files,
 * a few hundred MB of Zoekt's memory at its peak: several at once add up.
 */
const CONCURRENCY = 2;
/**
 * A coverage is read on its own deadline, not the call's: a call that cannot wait for it answers
 * without it, and the next call finds it read.
 */
const READ_DEADLINE_MS = 60_000;

function parserOf(kinds: string[][]): Parser {
  let treeSitter = false;
  let ctags = false;
  for (const file of kinds) {
    // A file the extractor tagged may also carry Universal Ctags' tags where its grammar gave up.
    if (file.some((k) => /^[A-Z]/.test(k))) treeSitter = true;
    else if (file.length) ctags = true;
  }
  if (treeSitter && ctags) return 'tree-sitter+universal-ctags';
  return treeSitter ? 'tree-sitter' : ctags ? 'universal-ctags' : 'none';
}

async function languageCoverage(searcher: Searcher, language: string, restriction: q.QueryPart | undefined): Promise<{ coverage: LanguageCoverage; complete: boolean }> {
  const scoped = (...parts: q.QueryPart[]) => searcher.confine(q.render(q.and(q.lang(language), restriction, ...parts)));
  const [all, withSymbols, sample] = await Promise.all([
    // `lang:X` alone matches every file of the language; one is listed, all are counted.
    searcher.zoekt.search({ query: scoped(), maxDocs: 1, maxMatches: 1 }),
    searcher.zoekt.search({ query: scoped(q.sym('.')), maxDocs: 1, maxMatches: 1 }),
    // The files to read kinds from: a few of every repository, not the best of one.
    searcher.zoekt.search({ query: scoped(q.sym('.')), maxDocs: SAMPLE_FILES, maxMatches: SAMPLE_MATCHES, perRepoMatches: 1 }),
  ]);
  const kinds = sample.files.map((f) => f.chunks.flatMap((c) => (c.fileName ? [] : c.ranges.flatMap((r) => (r.symbol ? [r.symbol.kind] : [])))));
  const filesWithSymbols = withSymbols.stats.fileCount;
  return {
    coverage: { language, files: Math.max(all.stats.fileCount, filesWithSymbols), files_with_symbols: filesWithSymbols, parser: filesWithSymbols ? parserOf(kinds) : 'none' },
    complete: !all.stats.stopped && !withSymbols.stats.stopped,
  };
}

/** Runs `work` over `items`, `limit` at a time. */
async function inTurn<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    }),
  );
  return out;
}

async function compute(searcher: Searcher, languages: string[], restriction: q.QueryPart | undefined): Promise<Coverage> {
  const each = await inTurn(languages, CONCURRENCY, (l) => languageCoverage(searcher, l, restriction));
  return {
    languages: each.map((e) => e.coverage).sort((a, b) => b.files - a.files || a.language.localeCompare(b.language)),
    complete: each.every((e) => e.complete),
  };
}

/** What a coverage is of, and the state of the index it was read from. */
const stateOf = (repos: RepoInfo[]) => repos.map((r) => `${r.backend ?? ''}\u0000${r.name}\u0000${r.indexTime ?? ''}\u0000${r.stats.documents}`).join('\u0001');

/** Coverages already read, by what they cover and the state of the index; the oldest are dropped. */
const KEPT = 500;
const coverages = keptPerSearcher(() => new Map<string, Promise<Coverage>>());
function memo(searcher: Searcher, key: string, make: () => Promise<Coverage>): Promise<Coverage> {
  const cache = coverages(searcher);
  let found = cache.get(key);
  if (!found) {
    found = withDeadline(Date.now() + READ_DEADLINE_MS, make);
    cache.set(key, found);
    // A failed read (Zoekt down, a deadline) is not kept: the next call tries again.
    found.catch(() => cache.delete(key));
    if (cache.size > KEPT) cache.delete(cache.keys().next().value!);
  }
  return found;
}

/**
 * The languages seen in each repository so far. Zoekt's list gives a repository the metadata of
 * one of its shards, and after a delta build that is often the delta's, which names the changed
 * files' languages only: a language seen before is counted again (by query) until it has no file.
 */
const seenLanguages = keptPerSearcher(() => new Map<string, Set<string>>());

function languagesOf(searcher: Searcher, repos: RepoInfo[]): string[] {
  const seen = seenLanguages(searcher);
  const all = new Set<string>();
  for (const r of repos) {
    const key = `${r.backend ?? ''}\u0000${r.name}`;
    let languages = seen.get(key);
    if (!languages) seen.set(key, (languages = new Set()));
    for (const l of r.languages) languages.add(l);
    for (const l of languages) all.add(l);
  }
  return [...all].sort();
}

/** A coverage without the languages no file has (any more): they are forgotten. */
function withFiles(searcher: Searcher, repos: RepoInfo[], coverage: Coverage): Coverage {
  const gone = new Set(coverage.languages.filter((l) => l.files === 0).map((l) => l.language));
  if (gone.size === 0) return coverage;
  for (const r of repos) for (const l of gone) seenLanguages(searcher).get(`${r.backend ?? ''}\u0000${r.name}`)?.delete(l);
  return { ...coverage, languages: coverage.languages.filter((l) => !gone.has(l.language)) };
}

/** Coverage of every repository given (the whole index in scope). */
export function indexCoverage(searcher: Searcher, repos: RepoInfo[]): Promise<Coverage> {
  const languages = languagesOf(searcher, repos);
  return memo(searcher, `index\u0002${stateOf(repos)}\u0002${languages.join(',')}`, async () => withFiles(searcher, repos, await compute(searcher, languages, undefined)));
}

/** Coverage of one repository. */
export function repoCoverage(searcher: Searcher, repo: RepoInfo): Promise<Coverage> {
  const languages = languagesOf(searcher, [repo]);
  return memo(searcher, `repo\u0002${stateOf([repo])}\u0002${languages.join(',')}`, async () =>
    withFiles(searcher, [repo], await compute(searcher, languages, q.repo(`^${q.escapeRegex(repo.name)}$`))),
  );
}

/**
 * What `reading` gives before the current call's deadline (less `marginMs`), or undefined when it
 * is not read by then, or cannot be (the reading goes on for the next call).
 */
export async function inTime<T>(reading: Promise<T>, marginMs: number): Promise<T | undefined> {
  const left = deadlineWithin(Date.now() + READ_DEADLINE_MS) - Date.now() - marginMs;
  if (left <= 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([reading.catch(() => undefined), new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), left)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The coverage of some languages over the whole index in scope, read now (a search that found
 * nothing asks it to explain itself).
 */
export async function languagesCoverage(searcher: Searcher, languages: string[]): Promise<LanguageCoverage[]> {
  return Promise.all(languages.map(async (l) => (await languageCoverage(searcher, l, undefined)).coverage));
}

/** Languages with files but no symbols, by number of files. */
export function withoutSymbols(coverage: Coverage): LanguageCoverage[] {
  return coverage.languages.filter((l) => l.files > 0 && l.files_with_symbols === 0);
}

/** `Go 7,711 of 7,711 files (tree-sitter)`. */
export function describeLanguage(l: LanguageCoverage): string {
  if (!l.files_with_symbols) return `${l.language} ${l.files} files, no symbols`;
  return `${l.language} ${l.files_with_symbols} of ${l.files} files (${l.parser})`;
}
