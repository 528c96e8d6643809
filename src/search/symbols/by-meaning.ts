/**
 * search_symbols by description, from a definitions index: the index ranks every definition the
 * filters let through by what its text means and says (its name's words, kind, parent and doc
 * comment), and Zoekt confirms the page. The index only chooses; each result is read back from
 * Zoekt's current index in one request (its line, column, signature and the lines around it for
 * its documentation), so a definition the index still holds but Zoekt no longer does never
 * shows, and every line is the file's as Zoekt serves it.
 */
import type { DefinitionsIndex, DefinitionsQuery, ScoredDefinition } from '../definitions/definitions-index.js';
import { DOC_LINES } from '../definitions/documentation.js';
import { symbolsOf, type SymbolResult } from '../definitions/symbol.js';
import type { Searcher } from '../engine/searcher.js';
import { pathGlobToRegex, repoGlobToRegex } from '../../patterns/globs.js';
import * as q from '../../zoekt/query.js';
import type { FileHit } from '../../zoekt/wire.js';
import { languageParts, resolveLanguage } from '../vocab/languages.js';
import type { Kind } from '../vocab/kinds.js';
import type { SymbolSearchArgs } from './ranking.js';
import { acronymsOf, descriptionWords, relatedWords, RELATED_WEIGHT, shortForms } from '../definitions/words.js';
import { loadVocabulary, MAX_RELATED, relatedTo } from '../definitions/vocabulary.js';

/** The most definitions a walk by meaning reaches: each ranked list's best, fused (memory-engine.ts). */
export const MEANING_DEPTH = 400;

export interface MeaningPage {
  items: SymbolResult[];
  /** The page's files, read with the lines around each result (for its documentation). */
  withLines: readonly FileHit[];
  /** Results of the index that Zoekt's index no longer holds (left out of the page). */
  stale: number;
  /** Definitions that passed the filters and were scored. */
  considered: number;
  /** The fused order's length (what a walk reaches), and its files. */
  ranked: number;
  rankedFiles: number;
  /** The request that confirmed the page. */
  query: string;
  /** Repositories in scope Zoekt serves that the definitions index holds nothing of. */
  unindexed: string[];
  /** Whether the fused order goes on past this page. */
  more: boolean;
  /** The walk ends here while more definitions passed the filters than either list ranked. */
  cut: boolean;
  /** Each item's place in the fused order (where a page cut short resumes). */
  positions: number[];
  /** Zoekt's repositories could not be listed, so those the index lacks are not known. */
  unlisted: boolean;
}

/**
 * What else the description's words stand for in code: their short forms (`inc`, `cmp`), the
 * acronyms its runs of words spell (`gte`, `lru`), and a word WordNet relates to each (all for
 * everything), as the search by names reads them (by-description.ts).
 */
export async function alsoWords(description: string): Promise<{ word: string; weight: number }[]> {
  const words = descriptionWords(description);
  const vocabulary = await loadVocabulary();
  const out: { word: string; weight: number }[] = [];
  for (const w of words) for (const f of shortForms(w)) out.push({ word: f, weight: 1 });
  for (const a of acronymsOf(description, words, (text) => vocabulary.has(text)).keys()) out.push({ word: a, weight: 1 });
  for (const related of relatedWords(words, (w) => relatedTo(vocabulary, w), MAX_RELATED).values()) for (const r of related) out.push({ word: r, weight: RELATED_WEIGHT });
  return out;
}

/** The query the index gets for a call's filters, within the searcher's repositories. */
export function meaningQuery(searcher: Searcher, args: SymbolSearchArgs, kinds: Set<Kind> | undefined, limit: number, also: readonly { word: string; weight: number }[] = []): DefinitionsQuery {
  // The same refusals as a search in Zoekt (a language both wanted and excluded, …); source code
  // only is what a definitions index holds anyway.
  languageParts(args);
  const scope = searcher.scope;
  const repoGlobs = args.repos?.length ? args.repos.map((g) => new RegExp(repoGlobToRegex(g))) : undefined;
  const paths = args.paths?.length ? args.paths.map((g) => new RegExp(pathGlobToRegex(g))) : undefined;
  const excluded = args.exclude_paths?.length ? args.exclude_paths.map((g) => new RegExp(pathGlobToRegex(g))) : undefined;
  const languages = args.languages?.length ? new Set(args.languages.map((l) => resolveLanguage(l, 'languages').name.toLowerCase())) : undefined;
  const excludeLanguages = args.exclude_languages?.length ? new Set(args.exclude_languages.map((l) => resolveLanguage(l, 'exclude_languages').name.toLowerCase())) : undefined;
  return {
    text: args.description!,
    repo: (repo) => scope.allows(repo) && (!repoGlobs || repoGlobs.some((re) => re.test(repo))),
    ...(languages ? { languages } : {}),
    ...(excludeLanguages ? { excludeLanguages } : {}),
    ...(kinds ? { kinds: kinds as ReadonlySet<string> } : {}),
    ...(paths || excluded ? { path: (p: string) => (!paths || paths.some((re) => re.test(p))) && !(excluded ?? []).some((re) => re.test(p)) } : {}),
    includeVendored: args.include_vendored ?? false,
    ...(also.length ? { alsoWords: also } : {}),
    limit,
  };
}

/** One page of the fused order, confirmed by Zoekt. */
export async function meaningPage(
  searcher: Searcher,
  index: DefinitionsIndex,
  args: SymbolSearchArgs,
  kinds: Set<Kind> | undefined,
  offset: number,
  limit: number,
  signal?: AbortSignal,
): Promise<MeaningPage> {
  const depth = Math.min(offset + limit + 1, MEANING_DEPTH);
  const query = meaningQuery(searcher, args, kinds, depth, await alsoWords(args.description!));
  // What Zoekt serves, asked meanwhile: a repository the index has nothing of is named, not missed in silence.
  const served = searcher.list('', signal).catch(() => undefined);
  const answer = await index.search(query, signal);
  const listed = await served;
  const unindexed = (listed?.repos ?? []).map((r) => r.name).filter((name) => query.repo!(name) && !answer.generations.has(name));
  const wanted = answer.hits.slice(offset, offset + limit);
  const more = answer.hits.length > offset + limit && offset + limit < MEANING_DEPTH;
  const cut = !more && answer.considered > Math.min(answer.ranked, MEANING_DEPTH);
  const counts = { considered: answer.considered, ranked: Math.min(answer.ranked, MEANING_DEPTH), rankedFiles: answer.rankedFiles, more, cut, unindexed, unlisted: !listed };
  if (wanted.length === 0) return { items: [], withLines: [], stale: 0, query: '', positions: [], ...counts };
  const confirmed = await confirm(searcher, wanted, signal);
  const files = confirmed.files;
  const items: SymbolResult[] = [];
  const positions: number[] = [];
  const shown = new Set<string>();
  let stale = 0;
  for (const [i, hit] of wanted.entries()) {
    const found = pick(files, hit);
    const key = found && `${found.repo}\0${found.path}\0${found.line}\0${found.name}`;
    if (!found || shown.has(key!)) {
      stale++;
      continue;
    }
    shown.add(key!);
    positions.push(offset + i);
    items.push({
      ...found,
      score: hit.score,
      related: { ...(found.parent ? { parent: found.parent } : {}), siblings: hit.related },
    });
  }
  return { items, withLines: files, stale, query: confirmed.query, positions, ...counts };
}

/** The page's definitions as Zoekt holds them now: one request, with the lines around each. */
async function confirm(searcher: Searcher, hits: readonly ScoredDefinition[], signal?: AbortSignal): Promise<{ files: FileHit[]; query: string }> {
  const each = hits.map(({ definition: d }) =>
    q.and(q.repo(`^${q.escapeRegex(d.repo)}$`), q.file(`^${q.escapeRegex(d.path)}$`), q.sym(`^${q.escapeRegex(d.name)}$`)),
  );
  const query = q.render(q.and(q.caseMode('yes'), q.or(...each)));
  const files = new Set(hits.map((h) => `${h.definition.repo}\0${h.definition.path}`)).size;
  const w = await searcher.window({ query, size: files, contextLines: DOC_LINES, signal, fresh: true, once: true });
  return { files: w.files, query };
}

/**
 * The definition Zoekt holds for a hit: the same file, name, kind and parent (another one of the
 * name, `B.String` for a deleted `A.String`, is not it), at the nearest line.
 */
function pick(files: readonly FileHit[], hit: ScoredDefinition): SymbolResult | undefined {
  const d = hit.definition;
  const file = files.find((f) => f.repo === d.repo && f.path === d.path);
  if (!file) return undefined;
  const same = symbolsOf(file)
    .map((s) => s.symbol)
    .filter((s) => s.name === d.name && s.kind === d.kind && s.parent === d.parent);
  if (same.length === 0) return undefined;
  return same.reduce((best, s) => (Math.abs(s.line - d.line) < Math.abs(best.line - d.line) ? s : best));
}
