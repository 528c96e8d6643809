/**
 * Entry: the local serve command (src/local/serve.ts; scripts/serve.sh, zoekt-mcp-serve), wired to
 * the server program it runs in its own process (src/main.ts) and to the supervisor's program, both
 * found beside this file once built.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveMain } from './local/serve.js';

const here = dirname(fileURLToPath(import.meta.url));

serveMain(process.argv.slice(2), {
  root: resolve(here, '..'),
  supervisorScript: join(here, 'local/supervisor.js'),
  loadServer: () => import('./main.js'),
}).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`serve: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
