#!/usr/bin/env node
/** Entry: the server program (src/main.ts) with this process's arguments and environment. */
import { main } from './main.js';

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`zoekt-mcp: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
