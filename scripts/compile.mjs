// Every module of src/ as JavaScript in dist/, one file each with its source map: the docs
// generator, scripts/bundle.mjs (which records the tool list from them) and some tests import
// single modules from there. Only the types are stripped, module by module; checking them is
// `npm run typecheck`'s job (npm test runs it), so a build takes about a second instead of tsc's
// ten, on every first run of a fresh clone and after every edit.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src');

const modules = readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
  .map((e) => relative(root, join(e.parentPath, e.name)));

await build({
  absWorkingDir: root,
  entryPoints: modules,
  outbase: 'src',
  outdir: 'dist',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // tsconfig.json's settings that change the JavaScript (class fields as ES2022 defines them).
  tsconfig: 'tsconfig.json',
  logLevel: 'warning',
});
