/** The server program: read the configuration, build the runtime, serve on the chosen transport. */
import { HELP, loadConfig } from './config.js';
import { keepHeapNearLive } from './heap.js';
import { createLogger } from './log.js';
import { runtimeFromConfig, type LocalStatusSource } from './runtime.js';
import { serveStdio } from './server/stdio.js';
import { VERSION } from './version.js';

export interface MainOptions {
  /** The local serve command's view of the index it keeps (src/local/serve.ts). */
  local?: LocalStatusSource;
  /** The repositories of the local serve command's list: every answer is confined to them. */
  listed?: () => readonly string[] | undefined;
}

/** Runs the server as `zoekt-mcp ARGS` would with environment `env`; resolves to the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv, opts: MainOptions = {}): Promise<number> {
  const outcome = loadConfig(argv, env);
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
  const runtime = runtimeFromConfig(config, log, opts.local, opts.listed);
  if (config.allowRepos.length) log.info('confined to repositories', { allow_repos: config.allowRepos });
  if (config.http) {
    // Loaded only here: the stdio server starts without the HTTP stack.
    const { serveHttp } = await import('./server/http.js');
    const server = await serveHttp(config.http, runtime);
    const signal = await stopSignal();
    log.info('signal received', { signal });
    // A second signal while draining means: stop now.
    process.once('SIGINT', () => process.exit(1));
    process.once('SIGTERM', () => process.exit(1));
    await server.shutdown();
  } else {
    const { closed } = serveStdio(runtime);
    await Promise.race([closed, stopSignal()]);
  }
  // Calls still running were aborted above; do not wait long for their sockets.
  await Promise.race([runtime.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  return 0;
}

function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}
