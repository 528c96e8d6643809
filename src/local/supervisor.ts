/**
 * The per-user local supervisor: one per data folder, started on demand by the serve command and
 * shared by every MCP server that runs over that data folder. It wires four parts:
 *
 * - the lease server (lease-server.ts): clients connect, say what they want indexed, and hear
 *   their own repositories' status; the supervisor exits `lingerMs` after the last lease is gone;
 * - the reconciler (reconcile.ts): every client's list in, what to index and what to remove out;
 *   a repository stays indexed while any live client lists it;
 * - the index runner (index-runner.ts): the only writer of the index, one job at a time and a
 *   quick one beside it;
 * - the webserver (webserver.ts): zoekt-webserver, started, adopted after a crash of ours,
 *   restarted if it dies, so no client depends on another client's process.
 *
 * It keeps the index following the code on disk: listed folders are watched (git work trees with
 * their uncommitted edits, and plain directories) and checked when they change, and every
 * `pollMs` the lists are read again and unwatchable folders checked.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ExtractorService } from '../extractor/service.js';
import { DefinitionsKeeper } from '../definitions-index/keeper.js';
import { resolveCommit } from '../definitions-index/sources.js';
import { writeFileAtomically } from './atomic-file.js';
import { FolderWatch } from './folder-watch.js';
import { pick, schedule, type LaneJob } from './job-lanes.js';
import { IndexRunner, type Saved, type Speed } from './index-runner.js';
import { hasShards, removeShards, shadowDir, shardCount, sweep, type IndexerPaths } from './indexer.js';
import { LeaseServer, type LeaseClient } from './lease-server.js';
import { reconcile, type Plan } from './reconcile.js';
import { readRepoList, type RepoEntry } from './repos.js';
import { PROTOCOL, type ListSpec, type RepoStatus, type SupervisorStatus } from './status.js';
import { Webserver } from './webserver.js';
import { ZoektClient } from '../zoekt/client.js';
import { escapeRegex, render, repo } from '../zoekt/query.js';

export interface SupervisorOptions {
  data: string;
  /** zoekt-webserver and zoekt-git-index. */
  bin: string;
  /** zoekt-config/index. */
  indexCommand: string;
  /** Zoekt's port; 0 picks a free one. */
  port: number;
  /** The user chose `port` (ZOEKT_PORT): Zoekt serves there or nowhere (webserver.ts). */
  portGiven: boolean;
  lingerMs: number;
  pollMs: number;
  /** How long a repository no live client lists stays indexed. */
  keepUnlistedMs: number;
  /** How long nothing must change before deltas are built whole in the background; 0: never. */
  idleBuildMs: number;
  socket: string;
  /** dist/extractor/worker.js: the parse worker of the warm extractor the index builds use. */
  extractorWorker: string;
  /** Build the definitions index after each index build (ZOEKT_MCP_SERVE_DEFINITIONS). */
  definitions: boolean;
}

interface State {
  /** By directory. */
  repos: Record<string, Saved>;
  /** The measured indexing speed of this machine. */
  speed?: Speed;
}

/** A repository found behind its files on disk, waiting for its turn to be indexed. */
/** A repository being indexed: since when, and what it was expected to take. */
interface Job {
  e: RepoEntry;
  started: number;
  expected: number;
}

interface Stale {
  fp: string;
  size: { files: number; bytes: number };
  /** Expected milliseconds to index it. */
  cost: number;
  /** When it was found behind (ms). */
  since: number;
  /** When the check that took its snapshot began (ISO). */
  at: string;
}

/** One client's list as last read. */
interface ClientState {
  spec: ListSpec;
  stamp: string;
  entries: RepoEntry[];
  errors: string[];
}

/**
 * How long a client's first status may wait for its repositories' first check: an answer then
 * says current or behind, not "not checked yet", about an index that is there.
 */
const FIRST_STATUS_WAIT_MS = 3000;

/** After a start, how long repositories no client lists are kept (at most keepUnlistedMs). */
const START_GRACE_MS = 10_000;
/** The longest a build waits for Zoekt to serve its shards before it is reported current. */
const SERVED_WAIT_MS = 5000;

const say = (msg: string) => process.stderr.write(`${new Date().toISOString()} supervisor[${process.pid}]: ${msg}\n`);

export class Supervisor {
  private readonly leases: LeaseServer;
  private readonly webserver: Webserver;
  private readonly runner: IndexRunner;
  private readonly paths: IndexerPaths;
  private readonly extractor: ExtractorService;
  /** The definitions index beside Zoekt's (<data>/definitions/), built after each index of a repository. */
  private readonly definitions: DefinitionsKeeper;
  private readonly statePath: string;
  private readonly startedAt = new Date().toISOString();
  private state: State = { repos: {} };
  private lists = new Map<string, ClientState>();
  private plan: Plan = reconcile([], [], 0, 0);
  private status = new Map<string, RepoStatus>();
  private readonly folders = new FolderWatch({
    changed: (dir) => this.changed(dir),
    settled: () => this.poke(),
    gitDirOf: (dir) => shadowDir(this.paths, { dir }),
  });
  /** Repositories found behind their files, waiting for the indexer. */
  private readonly stale = new Map<string, Stale>();
  /** The repositories being indexed (two at most: see next()), by folder. */
  private readonly jobs = new Map<string, Job>();
  /** Repositories checked at least once since this supervisor started. */
  private readonly checked = new Set<string>();
  /** Clients whose first status waits for their repositories' first check (until the deadline, ms). */
  private readonly awaitingFirst = new Map<string, number>();
  private pass = 0;
  private stopping = false;
  private swept = false;
  private lingerTimer?: NodeJS.Timeout;
  private broadcastTimer?: NodeJS.Timeout;
  private wake?: () => void;
  /** Asks Zoekt which shards it serves (served()), at the URL it was made for. */
  private zoekt?: { url: string; client: ZoektClient };
  /** Asked to wake while a pass ran: what it read may be older, so the next wait returns at once. */
  private woken = false;
  private markStarted!: () => void;
  private readonly started = new Promise<void>((r) => (this.markStarted = r));
  private isStarted = false;

  constructor(private readonly opts: SupervisorOptions) {
    this.paths = {
      bin: opts.bin,
      index: join(opts.data, 'index'),
      shadows: join(opts.data, 'shadow'),
      indexCommand: opts.indexCommand,
      log: (line) => process.stderr.write(line),
    };
    this.statePath = join(opts.data, 'state.json');
    this.extractor = new ExtractorService(join(opts.data, 'run', 'extractor.sock'), pathToFileURL(opts.extractorWorker), say);
    const packagedCtags = join(dirname(opts.indexCommand), 'universal-ctags');
    this.definitions = new DefinitionsKeeper({
      out: join(opts.data, 'definitions'),
      workerScript: pathToFileURL(opts.extractorWorker),
      ctags: process.env.ZOEKT_MCP_UNIVERSAL_CTAGS || (existsSync(packagedCtags) ? packagedCtags : 'universal-ctags'),
      // Loaded at the first build only: a supervisor whose repositories are current never reads the model.
      loadEmbedder: async () => (await import('../model/embedder.js')).loadEmbedder(),
      log: say,
    });
    void this.started.then(() => (this.isStarted = true));
    this.runner = new IndexRunner(this.paths, say, () => this.poke());
    this.webserver = new Webserver({ data: opts.data, bin: opts.bin, index: this.paths.index, port: opts.port, portGiven: opts.portGiven, say });
    this.leases = new LeaseServer(opts.socket, {
      joined: (c) => this.joined(c),
      left: (c) => this.left(c),
      poked: () => this.poke(),
      say,
    });
  }

  /** Binds the socket; false when another supervisor already serves this data folder. */
  claim(): Promise<boolean> {
    return this.leases.claim();
  }

  async run(): Promise<void> {
    mkdirSync(this.paths.index, { recursive: true });
    this.loadState();
    await this.runner.stopLeftovers();
    if (await this.extractor.listen()) this.paths.extractorSocket = this.extractor.path;
    // Nobody connected within the linger time after start (the spawner died): stop.
    this.armLinger(Math.max(this.opts.lingerMs, 10_000));
    // Checks and indexes need no Zoekt: they begin while it starts (loading the shards takes a
    // while), so that a first status, which waits for its client's checks, says current at once.
    const zoekt = this.webserver.start(() => this.markStarted());
    void this.loop();
    await zoekt;
    this.markStarted();
    this.broadcast();
  }

  /** What one client is told: Zoekt's URL, and its own list's repositories. */
  statusFor(id: string): SupervisorStatus {
    const list = this.lists.get(id);
    const mine = this.plan.clients.get(id);
    // Until the loop has reconciled a new client's list, its entries as read stand in.
    const entries = list ? (mine?.entries ?? list.entries) : this.plan.wanted;
    return {
      protocol: PROTOCOL,
      pid: process.pid,
      zoekt_url: this.webserver.url,
      started_at: this.startedAt,
      leases: this.leases.size,
      pass: this.pass,
      list: list?.spec.label ?? '(every list)',
      list_errors: mine?.errors ?? list?.errors ?? [],
      repos: entries.map((e) => this.repoStatus(e)),
      ...(this.webserver.error ? { zoekt_error: this.webserver.error } : {}),
    };
  }

  private repoStatus(e: RepoEntry): RepoStatus {
    const known = this.status.get(e.dir);
    if (known && known.name === e.name) return known;
    const saved = this.state.repos[e.dir];
    const has = hasShards(this.paths.index, e.name);
    return {
      name: e.name,
      dir: e.dir,
      kind: e.kind,
      // An index that is there is compared with the files at once: "checking", not "queued".
      state: has ? 'checking' : 'queued',
      has_index: has,
      ...(saved && has && saved.name === e.name ? { indexed_at: saved.indexed_at, last_duration_ms: saved.duration_ms } : {}),
    };
  }

  private joined(c: LeaseClient): void {
    if (this.stopping) return;
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    const spec = c.hello.list;
    if (spec) {
      this.lists.set(c.id, this.read(spec, undefined) ?? { spec, stamp: '', entries: [], errors: [] });
      say(`a client joined with ${spec.label} (${this.leases.clients().length} now)`);
    }
    // The first status names Zoekt's URL: sent once Zoekt's URL is settled, and once the client's
    // repositories were checked (for a moment at most), so that it says what the index holds.
    this.awaitingFirst.set(c.id, Date.now() + FIRST_STATUS_WAIT_MS);
    void this.started.then(() => this.sendFirst(c.id));
    // (Also after the deadline, once Zoekt is up: the timer may fire before.)
    setTimeout(() => this.sendFirst(c.id, true), FIRST_STATUS_WAIT_MS).unref();
    this.poke();
    this.broadcast();
  }

  /** A client's first status, if it is due: Zoekt is up, and its repositories were checked (or it waited long enough). */
  private sendFirst(id: string, force = false): void {
    const deadline = this.awaitingFirst.get(id);
    if (deadline === undefined || !this.isStarted) return;
    const list = this.lists.get(id);
    const entries = list ? (this.plan.clients.get(id)?.entries ?? list.entries) : [];
    if (!force && Date.now() < deadline && !entries.every((e) => this.checked.has(e.dir))) return;
    this.awaitingFirst.delete(id);
    this.leases.sendTo(id, this.statusFor(id));
  }

  private left(c: LeaseClient | undefined): void {
    if (c) this.awaitingFirst.delete(c.id);
    if (c?.hello.list) {
      this.lists.delete(c.id);
      say(`a client with ${c.hello.list.label} left (${this.leases.clients().length} now)`);
    }
    // With no Zoekt of its own on the port the user chose, nothing is kept warm for the next
    // client: it starts a supervisor of its own, with its own ZOEKT_PORT.
    if (this.leases.size === 0) this.armLinger(this.webserver.blocked ? 0 : this.opts.lingerMs);
    this.poke();
    this.broadcast();
  }

  private armLinger(ms: number): void {
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = setTimeout(() => {
      if (this.leases.size === 0) void this.stop('no client left').then(() => process.exit(0));
    }, ms);
  }

  /** Each client's own status, at most every 100 ms. */
  private broadcast(): void {
    if (this.broadcastTimer) return;
    this.broadcastTimer = setTimeout(() => {
      this.broadcastTimer = undefined;
      this.expectations();
      for (const id of this.awaitingFirst.keys()) this.sendFirst(id);
      this.leases.send((c) => (this.awaitingFirst.has(c.id) ? undefined : this.statusFor(c.id)));
    }, 100);
  }

  private loadState(): void {
    try {
      this.state = JSON.parse(readFileSync(this.statePath, 'utf8')) as State;
      this.state.repos ??= {};
    } catch {
      this.state = { repos: {} };
    }
    this.runner.speed = this.state.speed;
  }

  private saveState(): void {
    this.state.speed = this.runner.speed;
    writeFileAtomically(this.statePath, JSON.stringify(this.state, null, 1));
  }

  /**
   * A client's list, read again when its file changed (the text itself, not its mtime: a list
   * rewritten twice within one tick still counts); undefined when unchanged. A list file that
   * cannot be read keeps the entries it had (moved away for a moment), with the error said.
   */
  private read(spec: ListSpec, before: ClientState | undefined): ClientState | undefined {
    let stamp = 'dirs';
    if (spec.file) {
      try {
        stamp = readFileSync(spec.file, 'utf8');
      } catch {
        stamp = 'missing';
      }
    }
    if (before && before.stamp === stamp) return undefined;
    const list = readRepoList(spec);
    for (const err of list.errors) say(`repo list ${spec.label}: ${err}`);
    if (list.unreadable) return { spec, stamp, entries: before?.entries ?? [], errors: list.errors };
    return { spec, stamp, entries: list.entries, errors: list.errors };
  }

  /** Every client's list in, the index's actions out: carried out between indexes. */
  private reconcile(): void {
    for (const [id, before] of this.lists) {
      const now = this.read(before.spec, before);
      if (now) this.lists.set(id, now);
    }
    const indexed = Object.values(this.state.repos).map((r) => ({ dir: r.dir, name: r.name, ...(r.unlisted_since ? { unlistedSince: Date.parse(r.unlisted_since) } : {}) }));
    const plan = reconcile(
      [...this.lists].map(([id, l]) => ({ id, entries: l.entries, errors: l.errors })),
      indexed,
      Date.now(),
      this.opts.keepUnlistedMs,
    );
    this.plan = plan;
    let changed = false;
    for (const [dir, since] of plan.unlisted) {
      const saved = this.state.repos[dir];
      if (!saved) continue;
      if (since === undefined) delete saved.unlisted_since;
      else saved.unlisted_since = new Date(since).toISOString();
      changed = true;
    }
    // Nothing leaves the index for being unlisted while no client with a list is here (the last
    // one just quit; the supervisor is about to stop), nor in the first seconds after a start,
    // while the clients that started it may still be saying what they want.
    const settled = this.lists.size > 0 && Date.now() - Date.parse(this.startedAt) >= Math.min(START_GRACE_MS, this.opts.keepUnlistedMs);
    const forced = (r: { dir: string; name: string }) => plan.wanted.some((e) => e.dir === r.dir || e.name === r.name);
    for (const r of plan.remove.filter((x) => settled || forced(x))) {
      const removed = removeShards(this.paths.index, r.name);
      void this.definitions.remove(r.name).catch((err: Error) => say(`definitions of ${r.name} not removed: ${err.message}`));
      rmSync(shadowDir(this.paths, r), { recursive: true, force: true });
      say(`${r.name} (${r.dir}) is listed by no client${plan.wanted.some((e) => e.dir === r.dir) ? ' under that name' : ''}: removed ${removed.length} shard file(s)`);
      delete this.state.repos[r.dir];
      this.status.delete(r.dir);
      changed = true;
    }
    if (changed) this.saveState();
    const wanted = new Set(plan.wanted.map((e) => e.dir));
    for (const e of plan.wanted) {
      const st = this.status.get(e.dir);
      if (!st || st.name !== e.name) this.status.set(e.dir, this.repoStatus(e));
    }
    for (const dir of [...this.status.keys()]) if (!wanted.has(dir)) this.status.delete(dir);
    for (const dir of [...this.stale.keys()]) if (!wanted.has(dir)) this.stale.delete(dir);
    const kinds = new Map(plan.wanted.map((e) => [e.dir, e.kind]));
    this.folders.follow(wanted, (dir) => kinds.get(dir) === 'git');
    // Shards and shadows of no repository the index keeps: left by a state file lost, or an index
    // interrupted (its temporary files, at the first pass only).
    if (this.lists.size === 0) return this.broadcast();
    const keep = [...plan.wanted, ...Object.values(this.state.repos)];
    const swept = sweep(this.paths, keep, !this.swept);
    this.swept = true;
    if (swept.length) say(`removed what no listed repository uses: ${swept.join(', ')}`);
    this.broadcast();
  }

  /** Wakes the loop; asked for during a pass, the pass after it follows at once (nothing is lost). */
  private poke(): void {
    this.woken = true;
    this.wake?.();
  }

  /**
   * Each pass: the lists read again, every folder due for a check compared with its index (a
   * quick snapshot), and, while the indexer has a free lane, the next repository found behind given
   * to it (next()). The job runs beside the checks of the next passes, so that a client that comes meanwhile
   * hears at once that its index is current, and its own repositories are queued fairly.
   */
  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      await this.webserver.check();
      try {
        this.reconcile();
      } catch (err) {
        say(`reconciling the lists failed: ${(err as Error).message}`);
      }
      for (const e of this.checkOrder()) {
        if (this.stopping) break;
        if (this.jobs.has(e.dir)) continue;
        const st = this.status.get(e.dir);
        const known = st && (st.state === 'ready' || st.state === 'error' || this.stale.has(e.dir));
        if (!st || !this.folders.due(e.dir, !!known)) continue;
        await this.check(e);
        // Indexing starts as soon as there is something to index, beside the checks still to come.
        this.next();
      }
      if (this.stopping) break;
      this.next();
      if (!this.jobs.size && !this.stale.size) await this.wholeBuilds();
      this.pass++;
      this.broadcast();
      await new Promise<void>((resolve) => {
        if (this.woken) return resolve();
        // Woken when idle long enough for a whole build, too. A folder changed while its job runs
        // is checked once the job ends (which wakes the loop), not over and over meanwhile.
        const idleLeft = this.opts.idleBuildMs ? this.folders.lastChange + this.opts.idleBuildMs - Date.now() : Infinity;
        const pending = this.folders.pendingBeside((dir) => this.jobs.has(dir));
        const t = setTimeout(resolve, pending ? 0 : Math.min(this.opts.pollMs, idleLeft > 0 ? idleLeft + 10 : this.opts.pollMs));
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /**
   * In which order folders are checked: those with an index first (quick, and they say current or
   * behind), then the others, taking each client's list in turn, shortest lists first, so that a
   * small list is not checked (and queued) behind a long one.
   */
  private checkOrder(): RepoEntry[] {
    const indexed = this.plan.wanted.filter((e) => this.status.get(e.dir)?.has_index);
    const seen = new Set(indexed.map((e) => e.dir));
    const lists = [...this.plan.clients.values()].map((c) => c.entries.filter((e) => !seen.has(e.dir))).sort((a, b) => a.length - b.length);
    const rest: RepoEntry[] = [];
    for (let i = 0; lists.some((l) => i < l.length); i++) {
      for (const l of lists) {
        const e = l[i];
        if (e && !seen.has(e.dir)) {
          seen.add(e.dir);
          rest.push(e);
        }
      }
    }
    return [...indexed, ...rest, ...this.plan.wanted.filter((e) => !seen.has(e.dir))];
  }

  /** Compares one folder with its index: current, behind (queued for the indexer), or failed. */
  private async check(e: RepoEntry): Promise<void> {
    this.folders.checking(e.dir);
    const at = new Date().toISOString();
    const st = this.status.get(e.dir)!;
    if (st.state === 'queued' && !this.stale.has(e.dir)) this.set(e.dir, { state: 'checking' });
    const saved = this.state.repos[e.dir];
    const r = await this.runner.check(e, saved);
    const now = this.status.get(e.dir);
    if (this.stopping || !now || now.name !== e.name) return;
    this.checked.add(e.dir);
    // A change seen after the snapshot began may not be in it: behind still.
    const later = now.changed_at && now.changed_at > at ? now.changed_at : undefined;
    if (r.kind === 'failed') {
      this.stale.delete(e.dir);
      this.set(e.dir, { state: 'error', error: r.error, checked_at: at, progress: undefined });
    } else if (r.kind === 'current') {
      this.stale.delete(e.dir);
      this.set(e.dir, {
        state: 'ready',
        has_index: true,
        checked_at: at,
        error: undefined,
        progress: undefined,
        changed_at: later,
        ...(saved ? { indexed_at: now.indexed_at ?? saved.indexed_at, last_duration_ms: now.last_duration_ms ?? saved.delta_ms ?? saved.duration_ms } : {}),
      });
    } else {
      const prev = this.stale.get(e.dir);
      const cost = this.runner.expected(e, r.size, saved);
      this.stale.set(e.dir, { fp: r.fp, size: r.size, cost, since: prev?.since ?? Date.now(), at });
      if (!prev && !now.has_index) say(`queued ${e.name}: ${r.size.files} files, expected ${(cost / 1000).toFixed(1)} s`);
      // Found behind by a check rather than a watch: behind since the check began.
      if (now.has_index) this.set(e.dir, { state: 'ready', checked_at: at, changed_at: now.changed_at ?? at, progress: undefined, error: undefined });
      else this.set(e.dir, { state: 'queued', checked_at: at, progress: undefined });
    }
    for (const id of this.awaitingFirst.keys()) this.sendFirst(id);
  }

  /**
   * What the indexer does next, in order: deltas first (an index answers already, behind an
   * edit: oldest edit first); then first indexes, for the client with the least left to index
   * before its first complete answer, its smallest repository first.
   */
  private queue(): RepoEntry[] {
    const byDir = new Map(this.plan.wanted.map((e) => [e.dir, e]));
    const waiting = [...this.stale.keys()].filter((d) => byDir.has(d) && !this.jobs.has(d));
    const cost = (d: string) => this.stale.get(d)!.cost;
    const order = waiting
      .filter((d) => this.status.get(d)?.has_index)
      .sort((a, b) => this.stale.get(a)!.since - this.stale.get(b)!.since)
      .map((d) => byDir.get(d)!);
    const firsts = new Set(waiting.filter((d) => !this.status.get(d)?.has_index));
    const lists = [...this.plan.clients.values()].map((c) => c.entries.map((e) => e.dir));
    while (firsts.size) {
      let best: string[] | undefined;
      let least = Infinity;
      for (const dirs of lists) {
        const left = dirs.filter((d) => firsts.has(d)).reduce((n, d) => n + cost(d), 0);
        if (left > 0 && left < least) [best, least] = [dirs, left];
      }
      const pick = (best ?? [...firsts]).filter((d) => firsts.has(d)).sort((a, b) => cost(a) - cost(b))[0]!;
      firsts.delete(pick);
      order.push(byDir.get(pick)!);
    }
    return order;
  }

  /**
   * Gives the indexer what it may take now (job-lanes.ts): the queue's head, or a small job
   * further on, as long as one may start beside the running ones.
   */
  private next(): void {
    while (!this.stopping) {
      const running = [...this.jobs.values()].map((j) => ({ ...this.laneJob(j.e.dir, j.expected), rest: this.rest(j) }));
      const queue = this.queue();
      const e = queue[pick(queue.map((q) => this.laneJob(q.dir, this.stale.get(q.dir)!.cost)), running)];
      if (!e) return;
      const s = this.stale.get(e.dir)!;
      this.stale.delete(e.dir);
      this.jobs.set(e.dir, { e, started: Date.now(), expected: s.cost });
      void this.index(e, s)
        .catch((err: Error) => say(`indexing ${e.name} failed: ${err.message}`))
        .finally(() => {
          this.jobs.delete(e.dir);
          this.broadcast();
          this.poke();
        });
    }
  }

  /** Indexes one repository found behind its files (at the snapshot its check took). */
  private async index(e: RepoEntry, s: Stale): Promise<void> {
    const saved = this.state.repos[e.dir];
    const outcome = await this.runner.index(e, s.fp, s.size, saved, (progress) => this.set(e.dir, { state: 'indexing', progress, error: undefined }));
    if (this.stopping || outcome.kind === 'stopped') return;
    const st = this.status.get(e.dir);
    if (!st) return;
    if (outcome.kind === 'failed') {
      this.set(e.dir, { state: 'error', progress: undefined, error: outcome.error, has_index: hasShards(this.paths.index, e.name) });
      return;
    }
    const { saved: now } = outcome;
    // Current only once Zoekt serves what was written: it loads a new shard a moment later.
    await this.served(e.name);
    this.state.repos[e.dir] = now;
    this.saveState();
    // Its definitions from the snapshot Zoekt now serves (the shadow's main until the next index).
    const gitDir = shadowDir(this.paths, e);
    if (this.opts.definitions) await resolveCommit(gitDir, 'refs/heads/main').then(
      (commit) => this.definitions.request(e.name, gitDir, commit),
      (err: Error) => say(`definitions of ${e.name} not built: ${err.message}`),
    );
    say(`estimate ratio for ${e.name}: expected ${(outcome.estimated / 1000).toFixed(1)} s, took ${(outcome.duration / 1000).toFixed(1)} s`);
    this.set(e.dir, {
      state: 'ready',
      has_index: hasShards(this.paths.index, e.name),
      indexed_at: now.indexed_at,
      last_duration_ms: outcome.duration,
      // What it holds is the snapshot of that check.
      checked_at: s.at,
      progress: undefined,
      error: undefined,
      // Behind still, if a change came after the snapshot was taken.
      changed_at: st.changed_at && st.changed_at > s.at ? st.changed_at : undefined,
    });
  }

  /**
   * Waits until Zoekt serves as many shards of `name` as the index folder holds, at most
   * SERVED_WAIT_MS: zoekt-webserver loads a shard it sees written a moment later (longer on a busy
   * machine), and a status that said current meanwhile would be answered from the shards before.
   * A Zoekt that does not answer is no reason to wait: its answers are errors until it does.
   */
  private async served(name: string): Promise<void> {
    const want = shardCount(this.paths.index, name);
    const until = Date.now() + SERVED_WAIT_MS;
    while (!this.stopping && want > 0 && Date.now() < until) {
      const url = this.webserver.url;
      if (!url) return;
      if (this.zoekt?.url !== url) this.zoekt = { url, client: new ZoektClient({ url, timeoutMs: 1000, retries: 0 }) };
      const listed = await this.zoekt.client.list(render(repo(`^${escapeRegex(name)}$`))).catch(() => undefined);
      if (!listed) return;
      if (listed.repos.find((r) => r.name === name)?.stats.shards === want) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /**
   * When each repository waiting for the indexer is probably indexed: the running jobs' rest, then
   * the queue given out as next() will give it, each job at its expected cost.
   */
  private expectations(): void {
    const now = Date.now();
    for (const st of this.status.values()) delete st.expected_at;
    const running = [...this.jobs.values()].map((j) => ({ dir: j.e.dir, ...this.laneJob(j.e.dir, j.expected), rest: this.rest(j, now) }));
    const queued = this.queue().map((e) => ({ dir: e.dir, ...this.laneJob(e.dir, this.stale.get(e.dir)!.cost) }));
    for (const [dir, ms] of schedule(running, queued)) {
      const st = this.status.get(dir);
      if (st) st.expected_at = new Date(now + ms).toISOString();
    }
  }

  /** A job as the lanes see it: how long it takes, and which clients list its repository. */
  private laneJob(dir: string, cost: number): LaneJob {
    const clients = [...this.plan.clients].filter(([, c]) => c.entries.some((e) => e.dir === dir)).map(([id]) => id);
    return { cost, clients };
  }

  /** What a running job has left, by its progress (or, before its first report, its expected time). */
  private rest(j: Job, now = Date.now()): number {
    const p = this.status.get(j.e.dir)?.progress;
    return p ? Math.max(0, p.estimated_ms - p.elapsed_ms) : Math.max(0, j.expected - (now - j.started));
  }

  /** A listed folder changed: its index is behind from now until a check finds it current. */
  private changed(dir: string): void {
    const st = this.status.get(dir);
    if (st && st.has_index && !st.changed_at) {
      this.set(dir, { changed_at: new Date().toISOString() });
      // Said at once, not within the next 100 ms: an answer given meanwhile must not say current.
      if (this.broadcastTimer) clearTimeout(this.broadcastTimer);
      this.broadcastTimer = undefined;
      this.leases.send((c) => (this.awaitingFirst.has(c.id) ? undefined : this.statusFor(c.id)));
    }
  }

  private set(dir: string, patch: Partial<RepoStatus>): void {
    const st = this.status.get(dir);
    if (!st) return;
    Object.assign(st, patch);
    for (const k of Object.keys(patch) as (keyof RepoStatus)[]) if (patch[k] === undefined) delete st[k];
    this.broadcast();
  }

  /**
   * A whole build that ended in the background is brought up to date and swapped in; when
   * nothing has changed for idleBuildMs, one repository that has gathered deltas is built whole
   * in the background.
   */
  private async wholeBuilds(): Promise<void> {
    const done = this.runner.backgroundDone;
    if (done) {
      const e = this.plan.wanted.find((w) => w.dir === done.dir);
      const saved = e ? this.state.repos[e.dir] : undefined;
      const next = await this.runner.finishWholeBuild(e, saved);
      if (next && !this.stopping && this.state.repos[next.dir] === saved) {
        this.state.repos[next.dir] = next;
        this.saveState();
      }
    }
    const idle = this.opts.idleBuildMs;
    if (!idle || this.folders.pending || Date.now() - this.folders.lastChange < idle) return;
    const e = this.plan.wanted.find((w) => this.status.get(w.dir)?.state === 'ready' && this.runner.wantsWholeBuild(w, this.state.repos[w.dir]));
    if (e) this.runner.startWholeBuild(e, this.state.repos[e.dir]!);
  }

  /** Stops the indexer and Zoekt, then gives up the socket; the caller exits. */
  async stop(reason: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    say(`stopping: ${reason}`);
    this.poke();
    this.folders.close();
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    if (this.broadcastTimer) clearTimeout(this.broadcastTimer);
    // The socket stays bound until the indexer and Zoekt are gone (leases asked for meanwhile
    // are refused): a successor never indexes beside this one, nor adopts a webserver being stopped.
    this.leases.closeAll();
    await this.runner.stop();
    await this.definitions.stop();
    await this.extractor.close();
    const { builds, files, workers } = this.extractor.counts;
    const n = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;
    if (builds) say(`the warm extractor tagged ${n(files, 'file')} of ${n(builds, 'index build')} with ${n(workers, 'parse worker')} started`);
    await this.webserver.stop();
    this.leases.release();
  }
}

/** Entry: `node dist/local/supervisor.js '<options as JSON>'`, started detached by the lease client. */
export async function supervisorMain(argv: string[]): Promise<number | undefined> {
  const opts = JSON.parse(argv[0] ?? '{}') as SupervisorOptions;
  const sup = new Supervisor(opts);
  if (!(await sup.claim())) {
    say('another supervisor serves this data folder; leaving it to that one');
    return 0;
  }
  const stop = (why: string) => void sup.stop(why).then(() => process.exit(0));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => undefined);
  await sup.run();
  return undefined;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  supervisorMain(process.argv.slice(2)).then(
    (code) => {
      if (code !== undefined) process.exit(code);
    },
    (err: unknown) => {
      say(`fatal: ${err instanceof Error ? err.stack : String(err)}`);
      process.exit(1);
    },
  );
}
