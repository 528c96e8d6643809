/**
 * The filters shared by the search tools, turned into Zoekt query parts. They are pre-filters:
 * they go inside the query Zoekt runs, so a page is never short because of them.
 */
import * as q from '../../zoekt/query.js';
import { pathGlobToRegex, repoGlobToRegex } from '../../patterns/globs.js';
import { languageParts, type LanguageFilters } from './languages.js';
import { VENDORED_DIRS } from './vendored.js';

export interface SharedFilters extends LanguageFilters {
  repos?: string[] | undefined;
  paths?: string[] | undefined;
  exclude_paths?: string[] | undefined;
}

/**
 * `foldPaths`: path patterns match in any case even inside a `case:yes` query. Zoekt's `case:`
 * holds for the whole query, and a file name regex keeps RE2's `(?i:…)`; repo:, lang: and
 * branch: match the same in either case mode, so nothing else changes.
 */
export function filterParts(f: SharedFilters, foldPaths = false): q.QueryPart[] {
  const parts: q.QueryPart[] = [];
  const path = (glob: string) => q.file(foldPaths ? q.anyCase(pathGlobToRegex(glob)) : pathGlobToRegex(glob));
  if (f.repos?.length) parts.push(q.or(...f.repos.map((g) => q.repo(repoGlobToRegex(g)))));
  if (f.paths?.length) parts.push(q.or(...f.paths.map(path)));
  for (const g of f.exclude_paths ?? []) parts.push(q.not(path(g)));
  parts.push(...languageParts(f));
  return parts;
}

/** Paths inside vendored directories, at any depth (`foldPaths`: in any case, as filterParts). */
export function vendoredPart(foldPaths = false): q.QueryPart {
  const re = `(?:^|/)(?:${VENDORED_DIRS.map(q.escapeRegex).join('|')})/`;
  return q.file(foldPaths ? q.anyCase(re) : re);
}

/** A short description of the active filters, for zero-result hints. */
export function describeFilters(f: SharedFilters): string[] {
  const out: string[] = [];
  if (f.repos?.length) out.push(`repos ${JSON.stringify(f.repos)}`);
  if (f.paths?.length) out.push(`paths ${JSON.stringify(f.paths)}`);
  if (f.exclude_paths?.length) out.push(`exclude_paths ${JSON.stringify(f.exclude_paths)}`);
  if (f.languages?.length) out.push(`languages ${JSON.stringify(f.languages)}`);
  if (f.exclude_languages?.length) out.push(`exclude_languages ${JSON.stringify(f.exclude_languages)}`);
  if (f.source_code_only) out.push('source_code_only');
  return out;
}
