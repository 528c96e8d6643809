#!/usr/bin/env node
/** Entry: the server program (src/main.ts) with this process's arguments and environment. */
import * as nodeModule from 'node:module';
import { main } from './main.js';

// From Node 22.1 V8's compiled code of the modules is kept on disk (under the system's temporary
// folder, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE turns it off), so a start that follows
// another compiles little (bench/README.md, "Start-up"). Node 20 has no such cache: a no-op there.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`zoekt-mcp: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
