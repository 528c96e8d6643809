/**
 * The server program: read the configuration, build the runtime, serve on the chosen transport.
 *
 * Only what reading the arguments needs is imported here: `--version`, `--help` and a bad
 * configuration answer without loading the server. The rest is loaded once the configuration
 * says what to serve, and the stdio server answers `initialize` and `tools/list` before the
 * runtime (the tools, the search engine, the Zoekt client) is loaded (RuntimeOnDemand below).
 */
import { HELP, loadConfig, type Config } from './config.js';
import { keptCursorSecretOrWhy, userCursorKeyFile } from './cursor-key.js';
import { keepHeapNearLive } from './heap.js';
import { createLogger, type Logger } from './log.js';
import type { Runtime } from './runtime.js';
import type { LocalIndexSource } from './search/vocab/local-index.js';
import type { StdioHost } from './server/stdio.js';
import { builtStdioAnswers, StdioPrelude } from './server/stdio-prelude.js';
import { VERSION } from './version.js';

export interface MainOptions {
  /** The local serve command's view of the index it keeps (src/local/serve.ts). */
  local?: LocalIndexSource;
  /** The repositories of the local serve command's list: every answer is confined to them. */
  listed?: () => readonly string[] | undefined;
  /**
   * The local serve command's Zoekt, once its supervisor has said where it is: the runtime waits
   * for it and asks that URL, whatever the configuration says (local mode answers only from the
   * Zoekt over its own index).
   */
  zoektUrl?: Promise<string>;
}

/** Runs the server as `zoekt-mcp ARGS` would with environment `env`; resolves to the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv, opts: MainOptions = {}): Promise<number> {
  if (argv[0] === 'definitions') return definitionsCommand(argv.slice(1), env);
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
  const build = async (c = config) => (await import('./runtime.js')).runtimeFromConfig(opts.zoektUrl ? { ...c, zoektUrl: await opts.zoektUrl } : c, log, opts.local, opts.listed);
  let runtime: Runtime | undefined;
  if (config.http) {
    runtime = await build();
    if (config.allowRepos.length) log.info('confined to repositories', { allow_repos: config.allowRepos });
    // Loaded only here: the stdio server starts without the HTTP stack.
    const { serveHttp } = await import('./server/http/serve.js');
    const server = await serveHttp(config.http, runtime);
    const signal = await stopSignal();
    log.info('signal received', { signal });
    // A second signal while draining means: stop now.
    process.once('SIGINT', () => process.exit(1));
    process.once('SIGTERM', () => process.exit(1));
    await server.shutdown();
  } else {
    const stdinEnded = new Promise<void>((resolve) => process.stdin.once('end', () => resolve()));
    log.info('serving MCP over stdio', { zoekt: config.zoektUrl });
    // The first answers come before the SDK is loaded (stdio-prelude.ts); it loads once they are
    // out, at the first message they are not, or PRELOAD_AFTER_MS after start.
    const answers = builtStdioAnswers();
    const prelude = answers ? new StdioPrelude(answers) : undefined;
    if (prelude) await Promise.race([prelude.done, stdinEnded, new Promise((r) => setTimeout(r, PRELOAD_AFTER_MS).unref())]);
    const [{ serveStdio }, { builtToolList }] = await Promise.all([import('./server/stdio.js'), import('./server/catalog.js')]);
    // Without the list the build writes (tsc's output, a missing or stale file) the runtime
    // describes the tools itself, so it is built before serving, as over HTTP.
    const list = builtToolList();
    // A client may spawn a server per call: without --cursor-secret the key is the user's, kept on disk.
    const buildStdio = () => build(config.cursorSecret ? config : withUserCursorSecret(config, env, log));
    const host = list ? new RuntimeOnDemand(buildStdio, list, log) : (runtime = await buildStdio());
    if (config.allowRepos.length) log.info('confined to repositories', { allow_repos: config.allowRepos });
    const streams = prelude?.handOver();
    serveStdio(host, streams);
    // The connection ends when the server has read the last of stdin.
    const closed = streams ? new Promise<void>((resolve) => streams.input.once('end', () => resolve())) : stdinEnded;
    if (host instanceof RuntimeOnDemand) {
      host.loadAfter(PRELOAD_AFTER_MS);
      await Promise.race([closed, stopSignal(), host.failed]);
      runtime = await host.started();
    } else {
      await Promise.race([closed, stopSignal()]);
    }
  }
  // Calls still running were aborted above; do not wait long for their sockets.
  if (runtime) await Promise.race([runtime.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  return 0;
}

/**
 * The configuration with the user's kept cursor key (cursor-key.ts), or as it is when there is
 * none to be had (no home folder, a read-only one, a key file others may read): cursors then last
 * as long as this process, and the log says why.
 */
function withUserCursorSecret(config: Config, env: NodeJS.ProcessEnv, log: Logger): Config {
  const file = userCursorKeyFile(env);
  const kept = keptCursorSecretOrWhy(file);
  if ('secret' in kept) return { ...config, cursorSecret: kept.secret };
  log.warn('cursor key not kept: cursors will page only within this process; give --cursor-secret (ZOEKT_MCP_CURSOR_SECRET) to keep them', { file, reason: kept.why });
  return config;
}

/**
 * When the stdio server loads its runtime if no client has asked for tools/list or called a tool
 * by then: late enough that the first answers of a client that spawned it do not wait for it.
 */
const PRELOAD_AFTER_MS = 1000;

/**
 * The stdio server's runtime before a tool is called. `tools/list` is answered from the list the
 * build wrote (the same answer the runtime gives); the runtime is loaded once that answer is out
 * (a client lists the tools first and calls one later), or PRELOAD_AFTER_MS after serving began,
 * or by the first call, which waits for it: the call's deadline counts from its arrival. A
 * runtime that fails to load ends the server (`failed`), as it would have at start.
 */
class RuntimeOnDemand implements StdioHost {
  readonly dispatcher: StdioHost['dispatcher'];
  /** Rejects with the error of a runtime that failed to load; never resolves. */
  readonly failed: Promise<never>;
  private loading: Promise<Runtime> | undefined;
  private fail: (err: unknown) => void = () => undefined;

  constructor(
    private readonly build: () => Promise<Runtime>,
    private readonly list: StdioHost['catalog']['list'],
    readonly log: Logger,
  ) {
    this.failed = new Promise<never>((_, reject) => (this.fail = reject));
    this.dispatcher = {
      call: async (name, args, options) => {
        const arrived = options.arrived ?? Date.now();
        const runtime = await this.load();
        return runtime.dispatcher.call(name, args, { ...options, arrived });
      },
    };
  }

  /** Read by each tools/list: answered from the built list, and the runtime loads right after. */
  get catalog(): StdioHost['catalog'] {
    setImmediate(() => void this.load().catch(() => undefined));
    return { list: this.list };
  }

  load(): Promise<Runtime> {
    if (!this.loading) {
      const started = performance.now();
      this.loading = this.build();
      this.loading.then(
        () => this.log.debug('runtime loaded', { ms: Math.round(performance.now() - started) }),
        (err: unknown) => this.fail(err),
      );
    }
    return this.loading;
  }

  loadAfter(ms: number): void {
    setTimeout(() => void this.load().catch(() => undefined), ms).unref();
  }

  /** The runtime, if loading it began and succeeded. */
  async started(): Promise<Runtime | undefined> {
    return this.loading?.catch(() => undefined);
  }
}

function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

/** `zoekt-mcp definitions build|push …`: the definitions index's commands (src/definitions-index/). */
async function definitionsCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [{ definitionsMain }, { pushMain }, { loadEmbedder }, { nameFromOrigin }] = await Promise.all([
    import('./definitions-index/command.js'),
    import('./definitions-index/push-command.js'),
    import('./model/embedder.js'),
    import('./local/repos.js'),
  ]);
  return definitionsMain(argv, { nameFromOrigin, loadEmbedder, commands: { push: (rest) => pushMain(rest, env) } });
}
