/**
 * What the local serve command (scripts/serve.sh, zoekt-mcp-serve) reads from the environment
 * besides the server's options (OPTIONS in src/config.ts): where the index and the tools live, what
 * to index, and how the shared Zoekt behaves. As data, like OPTIONS: the table in docs/local-mode.md
 * is generated from it, and src/local/serve.ts reads and checks every variable through it.
 */
export interface ServeEnvSpec {
  env: string;
  /** The value's placeholder: N for a whole number, else what it names. */
  value: string;
  default: number | { text: string };
  description: string;
  min?: number;
  max?: number;
}

export const SERVE_ENV = {
  repos: {
    env: 'ZOEKT_MCP_REPOS',
    value: 'PATH',
    default: { text: '`zoekt-config/repos` in a checkout; none installed' },
    description: 'what to index: a folder, or a file listing one folder per line (relative to the file); `--repo PATH` overrides it',
  },
  data: {
    env: 'ZOEKT_MCP_DATA',
    value: 'DIR',
    default: { text: '`.data/` in a checkout, `~/.local/share/zoekt-mcp` installed' },
    description: 'where the index, its state and the logs of the shared Zoekt and its supervisor live',
  },
  tools: {
    env: 'ZOEKT_MCP_TOOLS_DIR',
    value: 'DIR',
    default: { text: '`.tools/` in a checkout, `~/.cache/zoekt-mcp/tools` installed' },
    description: 'where Zoekt is installed (at the pinned version, in a folder of its own)',
  },
  port: {
    env: 'ZOEKT_PORT',
    value: 'N',
    default: 6070,
    min: 0,
    max: 65_535,
    description: "the shared Zoekt's port: unset, the one it had last time (`zoekt.port` in the data folder), else 6070, else a free one when another program holds it; set, that port or none (every answer then says what holds it); 0 picks a free one",
  },
  lingerMs: {
    env: 'ZOEKT_MCP_LINGER_MS',
    value: 'N',
    default: 60_000,
    min: 0,
    max: 86_400_000,
    description: 'how long the shared Zoekt stays up after its last client quit, so a client spawned again soon finds it running',
  },
  pollMs: {
    env: 'ZOEKT_MCP_POLL_MS',
    value: 'N',
    default: 2000,
    min: 100,
    max: 3_600_000,
    description: 'how often the list and the listed folders that cannot be watched are checked for changes (the others are watched, and checked once a minute besides)',
  },
  idleBuildMs: {
    env: 'ZOEKT_MCP_IDLE_BUILD_MS',
    value: 'N',
    default: 10_000,
    min: 0,
    max: 86_400_000,
    description: 'how long no listed folder must change before a repository indexed in several deltas is built whole in the background (edits go on as deltas meanwhile, and the build takes them in when it ends); 0 turns it off, and the change after nine deltas waits for a whole build instead',
  },
  keepUnlistedMs: {
    env: 'ZOEKT_MCP_KEEP_UNLISTED_MS',
    value: 'N',
    default: 3_600_000,
    min: 0,
    max: 2_592_000_000,
    description: 'how long a repository that no running client lists stays in the index (a client started again within it finds its index current); what a client does not list is never shown to it',
  },
  definitions: {
    env: 'ZOEKT_MCP_SERVE_DEFINITIONS',
    value: 'N',
    default: 1,
    min: 0,
    max: 1,
    description: "1: build the definitions index (description search by meaning, docs/definitions.md) beside the index after each index build of a repository; 0: don't (it costs about as much CPU again as Zoekt's own index the first time; description search then matches names)",
  },
} as const satisfies Record<string, ServeEnvSpec>;

/** A whole-number variable of SERVE_ENV: its default when unset or empty; throws, naming it, when out of bounds. */
export function serveEnvNumber(spec: ServeEnvSpec, env: NodeJS.ProcessEnv): number {
  const v = env[spec.env];
  if (v === undefined || v === '') {
    if (typeof spec.default !== 'number') throw new Error(`${spec.env} has no default`);
    return spec.default;
  }
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || (spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
    throw new Error(`${spec.env} must be a whole number from ${spec.min ?? 0} to ${spec.max ?? Number.MAX_SAFE_INTEGER}, got ${JSON.stringify(v)}`);
  }
  return n;
}

/**
 * Not a user's setting (ZOEKT_PORT is): the default port in its place, for tests, which must not
 * take 6070 on a machine others use, yet must run the code of a default port another program holds.
 */
export const DEFAULT_PORT_ENV = 'ZOEKT_MCP_DEFAULT_PORT';

/**
 * Zoekt's port, and whether the user chose it: ZOEKT_PORT set means that port or none (an error
 * naming what holds it); unset, the default is only a wish (webserver.ts takes the port of last
 * time, then the default, then a free one).
 */
export function zoektPort(env: NodeJS.ProcessEnv): { port: number; portGiven: boolean } {
  const given = env[SERVE_ENV.port.env];
  if (given !== undefined && given !== '') return { port: serveEnvNumber(SERVE_ENV.port, env), portGiven: true };
  const dflt = env[DEFAULT_PORT_ENV];
  return { port: dflt ? serveEnvNumber({ ...SERVE_ENV.port, env: DEFAULT_PORT_ENV }, env) : SERVE_ENV.port.default, portGiven: false };
}

/** The local serve command's help: its own arguments and environment, then the server's. */
export const SERVE_HELP = [
  'zoekt-mcp-serve (scripts/serve.sh in a checkout): zoekt-mcp over your own code, in one step',
  '',
  'Usage: serve.sh [FOLDER] [--repo PATH]... [--setup] [zoekt-mcp options]',
  '',
  'Installs what is missing (first run only), keeps one shared Zoekt and its index of the listed',
  'repositories (started on demand, stopped a while after its last client), then serves MCP: over',
  'stdio when an MCP client spawned it, over HTTP with --http, or, in a terminal, says how to connect.',
  '',
  'Options:',
  `  ${'FOLDER'.padEnd(26)} a folder to index, as the first argument (the same as --repo FOLDER)`,
  `  ${'--repo PATH'.padEnd(26)} serve PATH instead of the list; repeat it for several (clients with different lists share one Zoekt, each sees its own)`,
  `  ${'--setup'.padEnd(26)} install, index with progress, and exit once every repository is indexed; with --repo PATH, first add PATH to your own list (repos in the data folder), which a spawn without --repo serves`,
  `  ${'-h, --help'.padEnd(26)} show this help`,
  '',
  'Environment:',
  ...Object.values(SERVE_ENV).map(
    (e) => `  ${`${e.env}=${e.value}`.padEnd(26)} ${e.description.replace(/`/g, "'")} (default: ${typeof e.default === 'number' ? e.default : e.default.text.replace(/`/g, "'")})`,
  ),
  '',
  "Every other option is the server's:",
  '',
].join('\n');
