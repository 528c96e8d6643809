/**
 * The filters shared by the search tools, turned into Zoekt query parts. They are pre-filters:
 * they go inside the query Zoekt runs, so a page is never short because of them.
 */
import * as q from '../../zoekt/query.js';
import { pathGlobToRegex, repoGlobToRegex } from '../../patterns/globs.js';
import { languageParts, type LanguageFilters } from './languages.js';

export interface SharedFilters extends LanguageFilters {
  repos?: string[] | undefined;
  paths?: string[] | undefined;
  exclude_paths?: string[] | undefined;
}

export function filterParts(f: SharedFilters): q.QueryPart[] {
  const parts: q.QueryPart[] = [];
  if (f.repos?.length) parts.push(q.or(...f.repos.map((g) => q.repo(repoGlobToRegex(g)))));
  if (f.paths?.length) parts.push(q.or(...f.paths.map((g) => q.file(pathGlobToRegex(g)))));
  for (const g of f.exclude_paths ?? []) parts.push(q.not(q.file(pathGlobToRegex(g))));
  parts.push(...languageParts(f));
  return parts;
}

/** Directories of third-party code copied into a repository. */
const VENDORED_DIRS = ['vendor', 'vendors', 'node_modules', 'third_party', 'third-party', 'thirdparty', 'bower_components', 'jspm_packages', 'Godeps', '.yarn'];

/** Paths inside vendored directories, at any depth. */
export function vendoredPart(): q.QueryPart {
  return q.file(`(?:^|/)(?:${VENDORED_DIRS.map(q.escapeRegex).join('|')})/`);
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
