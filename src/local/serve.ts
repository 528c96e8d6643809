/**
 * The local serve command (scripts/serve.sh runs it, through its entry src/serve-cli.ts, once the
 * tools are installed and the server built): take a lease on the data folder's supervisor (starting it when none runs), then serve
 * MCP at once against the Zoekt it owns. Indexing goes on in the supervisor; nothing here waits
 * for it. Modes:
 *   --setup          index the listed repositories, showing progress, and exit when all are done;
 *   --http …         MCP over HTTP (every flag of zoekt-mcp);
 *   stdin not a tty  MCP over stdio (an MCP client spawned us);
 *   in a terminal    print how to connect, keep Zoekt up until Ctrl-C.
 * `--repo PATH` (repeatable), or a folder as the first argument, names what to index instead of
 * the list file.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { HELP } from '../config.js';
import { keptCursorSecretOrWhy } from '../cursor-key.js';
import { SERVE_ENV, SERVE_HELP, serveEnvNumber, zoektPort } from './serve-env.js';
import { socketFor, takeLease, type Lease } from './lease.js';
import { parseServeArgs, type Parsed } from './serve-args.js';
import { listLines, readRepoList } from './repos.js';
import { writeFileAtomically } from './atomic-file.js';
import { clientEntry } from './client-entry.js';
import { FolderWatch } from './folder-watch.js';
import { describeRepo, roughly } from '../search/vocab/local-index.js';
import { PROTOCOL, type ListSpec, type SupervisorStatus } from './status.js';
import { clientView, unavailableBecause, type ClientFacts } from './client-view.js';
import type { SupervisorOptions } from './supervisor.js';

/** The server program as the serve command runs it in its own process (src/main.ts's `main`). */
export interface ServerProgram {
  main(
    argv: string[],
    env: NodeJS.ProcessEnv,
    opts: { local?: () => SupervisorStatus | undefined; listed?: () => readonly string[] | undefined; zoektUrl?: Promise<string> },
  ): Promise<number>;
}

/** What the serve command is given by its entry (src/serve-cli.ts), which knows where it was built. */
export interface ServeWiring {
  /** The checkout or the installed package: zoekt-config/, scripts/serve.sh, and src/ in a checkout. */
  root: string;
  /** The supervisor's program, started detached by the lease client when none runs. */
  supervisorScript: string;
  /** Loads the server program; called at once, so that it loads while the supervisor answers. */
  loadServer: () => Promise<ServerProgram>;
}

const say = (msg: string) => process.stderr.write(`serve: ${msg}\n`);

function env(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}


/**
 * Where everything lives, from the environment (as serve.sh documents it) and the arguments, and
 * what this client wants indexed. One supervisor serves every list of a data folder: each client
 * sees its own list's repositories.
 */
export function supervisorOptions(parsed: Parsed, root: string): { opts: SupervisorOptions; list: ListSpec } {
  const checkout = existsSync(join(root, 'src/cli.ts'));
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(process.cwd(), p));
  const tools = abs(env(SERVE_ENV.tools.env) ?? (checkout ? join(root, '.tools') : join(env('XDG_CACHE_HOME') ?? join(homedir(), '.cache'), 'zoekt-mcp/tools')));
  const data = abs(env(SERVE_ENV.data.env) ?? (checkout ? join(root, '.data') : join(env('XDG_DATA_HOME') ?? join(homedir(), '.local/share'), 'zoekt-mcp')));
  const version = /^ZOEKT_VERSION=(\S+)$/m.exec(readFileSync(join(root, 'zoekt-config/zoekt.env'), 'utf8'))![1]!;
  let list: ListSpec;
  const mine = userListFile(data);
  if (parsed.repos.length && parsed.setup) {
    // --setup --repo: the folders join the user's own list, which every later spawn serves.
    list = { file: mine, base: dirname(mine), label: mine };
  } else if (parsed.repos.length) {
    // A folder named on its own is named by its path under the home folder (or its absolute path).
    list = { dirs: parsed.repos.map(abs), base: homedir(), label: '--repo' };
  } else {
    const given = env(SERVE_ENV.repos.env);
    if (given) {
      const p = abs(given);
      // A folder that is not there is served as one, so that every answer names it (a client
      // that spawned a server that exited at once shows nothing useful).
      if (existsSync(p) && !statSync(p).isDirectory()) list = { file: p, base: dirname(p), label: given };
      else list = { dirs: [p], base: homedir(), label: 'ZOEKT_MCP_REPOS' };
    } else if (existsSync(mine)) {
      list = { file: mine, base: dirname(mine), label: mine };
    } else if (checkout) {
      list = { file: join(root, 'zoekt-config/repos'), base: root, label: 'zoekt-config/repos' };
    } else {
      throw new Error('set ZOEKT_MCP_REPOS to the repository to index (a folder), or to a file listing one path per line, or pass --repo PATH');
    }
  }
  const opts: SupervisorOptions = {
    data,
    bin: join(tools, 'zoekt', version, 'bin'),
    indexCommand: join(root, 'zoekt-config/index'),
    ...zoektPort(process.env),
    lingerMs: serveEnvNumber(SERVE_ENV.lingerMs, process.env),
    pollMs: serveEnvNumber(SERVE_ENV.pollMs, process.env),
    keepUnlistedMs: serveEnvNumber(SERVE_ENV.keepUnlistedMs, process.env),
    idleBuildMs: serveEnvNumber(SERVE_ENV.idleBuildMs, process.env),
    definitions: serveEnvNumber(SERVE_ENV.definitions, process.env) === 1,
    socket: socketFor(data),
    extractorWorker: join(root, 'dist/extractor/worker.js'),
  };
  return { opts, list };
}

/**
 * The user's own list of repositories: `repos` in the data folder (outside the checkout, or in
 * its untracked `.data/`). `--setup --repo PATH` adds to it; with no `--repo` and no
 * ZOEKT_MCP_REPOS, it is what is served when it exists (else zoekt-config/repos, the checkout).
 */
export function userListFile(data: string): string {
  return join(data, 'repos');
}

const USER_LIST_HEADER = `# Your repositories: what zoekt-mcp indexes and serves, one folder a line (absolute, or relative to
# this file's folder; # starts a comment). \`scripts/serve.sh --setup --repo PATH\` adds one; edit it
# freely: changes apply while serving. This file is yours (it lives in the data folder, not in the
# checkout); every client that spawns scripts/serve.sh without --repo serves this list.
`;

/** Adds folders to the user's list (each once); a folder that is not one is an error. */
export function addToUserList(file: string, dirs: readonly string[]): { added: string[]; errors: string[] } {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : USER_LIST_HEADER;
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const have = new Set(listLines(text).map((l) => real(isAbsolute(l.text) ? l.text : resolve(dirname(file), l.text))));
  const added: string[] = [];
  const errors: string[] = [];
  for (const d of dirs) {
    const p = isAbsolute(d) ? d : resolve(process.cwd(), d);
    if (!existsSync(p) || !statSync(p).isDirectory()) {
      errors.push(`--repo ${d}: ${existsSync(p) ? 'is a file, not a folder' : 'no such folder'} (${p})`);
      continue;
    }
    if (have.has(real(p))) continue;
    have.add(real(p));
    added.push(real(p));
  }
  if (added.length || !existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomically(file, `${text.replace(/\n?$/, '\n')}${added.map((a) => `${a}\n`).join('')}`);
  }
  return { added, errors };
}

function repositories(n: number): string {
  return `${n} ${n === 1 ? 'repository' : 'repositories'}`;
}

/** Indexed and holding its files as they are on disk (or failed, said why). */
function done(r: SupervisorStatus['repos'][number]): boolean {
  return (r.state === 'ready' && !r.changed_at) || r.state === 'error';
}

/** Says, as the supervisor's status changes, what each repository's indexing does and how far along it is. */
function progressReporter(): (s: SupervisorStatus) => void {
  const tty = process.stderr.isTTY;
  const lastSaid = new Map<string, string>();
  let lastTime = 0;
  const show = (s: SupervisorStatus, force = false) => {
    const now = Date.now();
    for (const r of s.repos) {
      const text = describeRepo(r);
      const key = r.state === 'indexing' ? `indexing ${Math.floor((r.progress?.percent ?? 0) / 10)}` : r.state;
      if (lastSaid.get(r.name) === key && !(force && r.state === 'indexing')) continue;
      if (r.state === 'checking' || r.state === 'queued') continue;
      if (r.state === 'ready' && !lastSaid.has(r.name) && r.last_duration_ms !== undefined) {
        lastSaid.set(r.name, key);
        say(`${r.name}: up to date (indexed ${r.indexed_at})`);
        continue;
      }
      lastSaid.set(r.name, key);
      const count = `[${s.repos.filter(done).length}/${s.repos.length}]`;
      say(r.state === 'ready' ? `${count} ${r.name}: indexed in ${roughly(r.last_duration_ms ?? 0)}` : `${count} ${text}`);
    }
    lastTime = now;
  };
  // A bad line is said at once (and the set-up fails at the end), not after a long first index.
  const saidErrors = new Set<string>();
  return (s: SupervisorStatus) => {
    for (const e of s.list_errors) {
      if (!saidErrors.has(e)) say(`error: ${e}`);
      saidErrors.add(e);
    }
    show(s, Date.now() - lastTime > (tty ? 2000 : 10_000));
  };
}

/** --setup: wait for every listed repository, saying what happens, how far along, how long. */
async function setup(opts: SupervisorOptions, list: ListSpec, supervisorScript: string): Promise<number> {
  const started = Date.now();
  const lease = await takeLease(opts, list, supervisorScript);
  const report = progressReporter();
  return new Promise<number>((resolvePromise) => {
    let ended = false;
    const end = (code: number) => {
      ended = true;
      lease.close();
      resolvePromise(code);
    };
    /** Zoekt cannot be this data folder's: said with what to do, and the set-up fails. */
    const zoektFailed = (z: NonNullable<SupervisorStatus['zoekt_error']>) => {
      say(`error: ${z.message}`);
      say(z.hint);
      end(1);
    };
    const check = (s: SupervisorStatus) => {
      if (ended) return;
      report(s);
      // A port the user chose that another program holds: nothing this set-up indexes would be served.
      if (s.zoekt_error?.misconfigured) return zoektFailed(s.zoekt_error);
      if (s.pass <= firstPass) return;
      if (s.repos.length === 0) {
        if (!s.list_errors.length) say(`error: nothing to index: ${list.label} names no folder`);
        return end(1);
      }
      if (!s.repos.every(done)) return;
      if (s.zoekt_error) return zoektFailed(s.zoekt_error);
      const failed = s.repos.filter((r) => r.state === 'error');
      const bad = s.list_errors.length ? `; ${s.list_errors.length} bad line(s) in ${list.label}, named above` : '';
      say(`${s.repos.length - failed.length} of ${repositories(s.repos.length)} indexed and served by Zoekt at ${s.zoekt_url} (${roughly(Date.now() - started)})${bad}`);
      end(failed.length || s.list_errors.length ? 1 : 0);
    };
    // Results of the check that follows this connection, not of an earlier one.
    const firstPass = lease.status().pass;
    const first = lease.status();
    say(`${first.zoekt_error ? 'no Zoekt of its own' : `Zoekt at ${first.zoekt_url}`}; checking ${repositories(first.repos.length)} of ${list.label}`);
    lease.onStatus(check);
    lease.poke();
    check(first);
  });
}

export async function serveMain(argv: string[], wiring: ServeWiring): Promise<number | undefined> {
  const { root } = wiring;
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${SERVE_HELP}\n${HELP}`);
    return 0;
  }
  let parsed: Parsed;
  let opts: SupervisorOptions;
  let list: ListSpec;
  try {
    parsed = parseServeArgs(argv);
    ({ opts, list } = supervisorOptions(parsed, root));
  } catch (err) {
    say((err as Error).message);
    return 2;
  }
  if (parsed.rest.some((a) => a === '--zoekt-url' || a.startsWith('--zoekt-url='))) {
    say('--zoekt-url is not an option of the local serve command: it answers only from the Zoekt it runs over its own index (ZOEKT_PORT sets its port); to serve another Zoekt, run zoekt-mcp --zoekt-url URL');
    return 2;
  }
  if (parsed.setup && parsed.repos.length && list.file) {
    const { added, errors } = addToUserList(list.file, parsed.repos);
    for (const e of errors) say(`error: ${e}`);
    if (errors.length) return 2;
    say(`${added.length ? `added ${added.join(', ')} to` : 'already in'} your list of repositories, ${list.file}; clients that spawn ${commandName(root)} without --repo serve it`);
  }
  if (parsed.setup) return setup(opts, list, wiring.supervisorScript);
  const leasing = takeLease(opts, list, wiring.supervisorScript);
  const http = parsed.rest.includes('--http');
  const interactive = !http && process.stdin.isTTY;
  if (!interactive) {
    // Load the server's modules while the supervisor answers (or starts): they have no side effects.
    const warm = wiring.loadServer();
    // Serve at once, and take the lease meanwhile. Which Zoekt answers is the supervisor's word,
    // never a guess: the runtime (built at the first tool call, or a moment after start) asks the
    // URL of the supervisor's first status, and every answer is an error while the supervisor has
    // no Zoekt of its own (client-view.ts).
    const placeholder = `http://127.0.0.1:${opts.port || SERVE_ENV.port.default}`;
    let lease: Lease | undefined;
    const facts: ClientFacts = { data: opts.data };
    const starting: SupervisorStatus = { protocol: PROTOCOL, pid: 0, zoekt_url: placeholder, started_at: new Date().toISOString(), leases: 0, pass: 0, list: list.label, list_errors: [], repos: [], starting: true };
    const seen = ownChanges();
    const local = () => clientView(seen.status(lease?.status() ?? starting), facts);
    const zoektUrl = leasing.then(
      (l) => {
        lease = l;
        seen.follow(l.status());
        l.onStatus((st) => seen.follow(st));
        const s = l.status();
        say(`leased on the local supervisor ${s.pid}; Zoekt at ${s.zoekt_url}`);
        if (s.zoekt_error) say(`error: ${s.zoekt_error.message}\nserve: ${s.zoekt_error.hint}`);
        for (const e of s.list_errors) say(`repo list: ${e}`);
        return (facts.asked = s.zoekt_url || placeholder);
      },
      (err: Error) => {
        say(`no lease on the local supervisor: ${err.message}`);
        facts.leaseError = err.message;
        return (facts.asked = placeholder);
      },
    );
    return startServer(await warm, zoektUrl, parsed.rest, local, listedBy(() => lease?.status(), list), opts.data, http);
  }
  // In a terminal: say how to connect, and how indexing goes, until Ctrl-C.
  const lease = await leasing;
  const first = lease.status();
  for (const e of first.list_errors) say(`repo list: ${e}`);
  const problem = unavailableBecause(first, { data: opts.data });
  process.stderr.write(
    [
      '',
      problem
        ? `error: ${problem.message}\n${problem.hint}`
        : `Zoekt is serving at ${first.zoekt_url}; the index follows the ${first.repos.length} repositories of ${list.label}.`,
      'Connect an MCP client with this server entry (stdio); it starts in well under a second:',
      '',
      JSON.stringify(clientEntry(join(root, 'scripts/serve.sh'), parsed.repos, process.env, process.cwd()), null, 2),
      '',
      'Press Ctrl-C to stop (Zoekt stays up while a client uses it).',
      '',
    ].join('\n'),
  );
  // Indexing goes on meanwhile: say how far along it is.
  const report = progressReporter();
  lease.onStatus(report);
  report(first);
  await new Promise((r) => process.once('SIGINT', r));
  lease.close();
  return 0;
}

/**
 * Changes to this client's folders that the supervisor's last status may not hold yet. The
 * supervisor watches them too, but its status takes a moment to come over the socket: a search
 * sent right after a save could be answered `current` meanwhile. This process watches the same
 * folders (directories only, what git ignores left out: a few inotify watches) and, until a
 * status says they were checked after the change, answers them as behind since that change.
 */
function ownChanges(): { follow(s: SupervisorStatus): void; status(s: SupervisorStatus): SupervisorStatus } {
  const changedAt = new Map<string, number>();
  const watch = new FolderWatch({ changed: (dir) => void (changedAt.has(dir) || changedAt.set(dir, Date.now())), settled: () => undefined }, true);
  let followed = '';
  let cache: { from: SupervisorStatus; at: string; out: SupervisorStatus } | undefined;
  return {
    follow(s) {
      const key = s.repos.map((r) => `${r.kind}:${r.dir}`).join('\0');
      if (key === followed) return;
      followed = key;
      const kinds = new Map(s.repos.map((r) => [r.dir, r.kind]));
      watch.follow(kinds.keys(), (dir) => kinds.get(dir) === 'git');
    },
    status(s) {
      for (const [dir, t] of changedAt) {
        const r = s.repos.find((x) => x.dir === dir);
        // The supervisor compared the folder with its index after this change: its word stands.
        if (!r || (r.checked_at && Date.parse(r.checked_at) >= t)) changedAt.delete(dir);
      }
      if (!changedAt.size) return s;
      const key = [...changedAt].join();
      if (cache?.from === s && cache.at === key) return cache.out;
      const repos = s.repos.map((r) => {
        const t = changedAt.get(r.dir);
        return t !== undefined && r.has_index && !r.changed_at ? { ...r, changed_at: new Date(t).toISOString() } : r;
      });
      cache = { from: s, at: key, out: { ...s, repos } };
      return cache.out;
    },
  };
}

/**
 * This client's repositories, the only ones its answers show: as the supervisor names them, or,
 * before its first status, as this process reads the list itself.
 */
function listedBy(status: () => SupervisorStatus | undefined, list: ListSpec): () => readonly string[] | undefined {
  let own: readonly string[] | undefined;
  let names: readonly string[] = [];
  let from: SupervisorStatus | undefined;
  return () => {
    const s = status();
    if (!s) return (own ??= readRepoList(list).entries.map((e) => e.name));
    if (s !== from) {
      from = s;
      names = s.repos.map((r) => r.name);
    }
    return names;
  };
}

/**
 * The key this data folder's servers sign cursors with, made once (private to the user): a client
 * respawns its server often, and a cursor from the last spawn must still page on.
 */
function cursorSecretOf(data: string): Record<string, string> {
  const kept = keptCursorSecretOrWhy(join(data, 'cursor-secret'));
  if ('secret' in kept) return { ZOEKT_MCP_CURSOR_SECRET: kept.secret };
  // As the plain server does (main.ts): serving matters more than paging across spawns.
  say(`cursor key not kept (${kept.why}): cursors page only within this process; set ZOEKT_MCP_CURSOR_SECRET to keep them`);
  return {};
}

/** The ordinary server, in this process, on the supervisor's Zoekt; the lease ends with the process. */
function startServer(
  server: ServerProgram,
  zoektUrl: Promise<string>,
  rest: string[],
  local: () => SupervisorStatus | undefined,
  listed: () => readonly string[] | undefined,
  data: string,
  http: boolean,
): Promise<number> {
  if (http) say('serving MCP over HTTP');
  const secret = env('ZOEKT_MCP_CURSOR_SECRET') ? {} : cursorSecretOf(data);
  // The supervisor builds the definitions index there after each index build.
  const own = serveEnvNumber(SERVE_ENV.definitions, process.env) === 1;
  const definitions = !own || env('ZOEKT_MCP_DEFINITIONS') || env('ZOEKT_MCP_DEFINITIONS_URL') ? {} : { ZOEKT_MCP_DEFINITIONS: join(data, 'definitions') };
  // ZOEKT_URL only has to be valid here: the runtime asks the URL zoektUrl settles on.
  return server.main(rest, { ...process.env, ZOEKT_URL: 'http://127.0.0.1:1', ...secret, ...definitions }, { local, listed, zoektUrl });
}

/**
 * The command the user typed, for messages: `zoekt-mcp-serve` run from the npm package,
 * `./scripts/serve.sh` in a checkout (serve.sh says which in ZOEKT_MCP_SERVE_COMMAND).
 */
function commandName(root: string): string {
  return env('ZOEKT_MCP_SERVE_COMMAND') ?? join(root, 'scripts/serve.sh');
}
