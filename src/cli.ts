#!/usr/bin/env node
/** Entry: read the configuration, pick the transport, start. */
import { HELP, loadConfig } from './config.js';
import { createLogger } from './log.js';
import { serveStdio } from './server/stdio.js';
import { VERSION } from './version.js';
import { ZoektClient } from './zoekt/client.js';

async function main(): Promise<number> {
  const outcome = loadConfig(process.argv.slice(2), process.env);
  switch (outcome.kind) {
    case 'help':
      process.stdout.write(HELP);
      return 0;
    case 'version':
      process.stdout.write(`zoekt-mcp ${VERSION}\n`);
      return 0;
    case 'error':
      process.stderr.write(`zoekt-mcp: ${outcome.reason}\n`);
      return 2;
    case 'run':
      break;
  }
  const { config } = outcome;
  const log = createLogger(config.logLevel);
  const zoekt = new ZoektClient({ url: config.zoektUrl, timeoutMs: config.timeoutMs, logger: log });
  const { closed } = await serveStdio({ zoekt, log });
  const stop = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await Promise.race([closed, stop]);
  await zoekt.close().catch(() => undefined);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`zoekt-mcp: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
