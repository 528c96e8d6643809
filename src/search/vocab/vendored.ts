/**
 * Third-party code copied into a repository: what `include_vendored: false` leaves out. One rule
 * for the Zoekt query (filters.ts) and for the definitions index, which marks each definition.
 */

/** Directories of third-party code copied into a repository. */
export const VENDORED_DIRS: readonly string[] = ['vendor', 'vendors', 'node_modules', 'third_party', 'third-party', 'thirdparty', 'bower_components', 'jspm_packages', 'Godeps', '.yarn'];

const VENDORED = new RegExp(`(?:^|/)(?:${VENDORED_DIRS.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})/`, 'i');

/** Whether a repository path is inside a vendored directory, at any depth, in any case (as filterParts folds paths). */
export function isVendoredPath(path: string): boolean {
  return VENDORED.test(path);
}
