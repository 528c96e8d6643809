#!/usr/bin/env node
/** Entry: read the configuration, pick the transport, start. */
import { HELP, loadConfig } from './config.js';
import { keepHeapNearLive } from './heap.js';
import { createLogger } from './log.js';
import { serveStdio } from './server/stdio.js';
import { VERSION } from './version.js';
import { ZoektFleet } from './zoekt/fleet.js';
import { RepoScope } from './search/scope.js';
import { WindowCache } from './search/window-cache.js';

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
  keepHeapNearLive();
  const log = createLogger(config.logLevel);
  // Every server of this process signs its cursors with it (a random one when none is given).
  const zoekt = ZoektFleet.fromUrls(config.zoektUrl.split(','), { timeoutMs: config.timeoutMs, logger: log });
  const cache = new WindowCache({ maxBytes: config.cacheMb * 1024 * 1024, ttlMs: config.cacheTtlMs });
  const deps = {
    zoekt,
    log,
    cache,
    scope: new RepoScope(config.allowRepos),
    timeoutMs: config.timeoutMs,
    maxOutputChars: config.maxOutputChars,
    admission: { maxInFlight: config.maxInFlight, maxQueue: config.maxQueue },
    ...(config.cursorSecret ? { cursorSecret: config.cursorSecret } : {}),
  };
  if (config.allowRepos.length) log.info('confined to repositories', { allow_repos: config.allowRepos });
  if (config.http) {
    // Loaded only here: the stdio server starts without the HTTP stack.
    const { serveHttp } = await import('./server/http.js');
    const server = await serveHttp(config.http, deps);
    const signal = await stopSignal();
    log.info('signal received', { signal });
    // A second signal while draining means: stop now.
    process.once('SIGINT', () => process.exit(1));
    process.once('SIGTERM', () => process.exit(1));
    await server.shutdown();
  } else {
    const { closed } = await serveStdio(deps);
    await Promise.race([closed, stopSignal()]);
  }
  // Calls still running were aborted above; do not wait long for their sockets.
  await Promise.race([zoekt.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  return 0;
}

function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`zoekt-mcp: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
