import { readFileSync } from 'node:fs';

/** The package version, read once from package.json next to the build output. */
export const VERSION: string = (() => {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'zoekt-mcp' && pkg.version) return pkg.version;
    } catch {
      // try the next location: src/ and dist/ sit at different depths
    }
  }
  return '0.0.0';
})();
