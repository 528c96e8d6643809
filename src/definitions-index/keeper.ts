/**
 * Keeps a definitions index following the index builds of a long-lived process (the local
 * supervisor): after each build of a repository, its definitions are built from the commit Zoekt
 * just indexed, incrementally, one repository at a time. The extractor's parse worker and the
 * model stay loaded between builds, so an edit costs the parse and the embedding of one file.
 * Builds asked for while one of the same repository waits replace it: only the newest commit is
 * built.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { buildRecorded, openTagger, removeRepo, type BuildReport, type Embedder } from './build.js';
import { DefinitionsIndexError, MANIFEST } from './format.js';
import { gitSource } from './sources.js';

export interface KeeperOptions {
  /** The definitions index folder. */
  out: string;
  /** dist/extractor/worker.js. */
  workerScript: URL;
  /** Universal Ctags, for the languages the extractor does not parse. */
  ctags: string;
  loadEmbedder(): Promise<Embedder>;
  log(msg: string): void;
  /** Called after each build, with its report or its error. */
  built?(repo: string, outcome: BuildReport | Error): void;
}

/** A parse worker unused this long is stopped; the next build starts one again. */
const IDLE_MS = 60_000;

export class DefinitionsKeeper {
  private readonly wanted = new Map<string, { gitDir: string; commit: string }>();
  private running: Promise<void> | undefined;
  private embedder: Promise<Embedder> | undefined;
  private tagger: ReturnType<typeof openTagger> | undefined;
  private idle: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly opts: KeeperOptions) {}

  /** Builds `repo`'s definitions from `commit` of the git repository `gitDir` (soon; after the build under way). */
  request(repo: string, gitDir: string, commit: string): void {
    if (this.stopped) return;
    this.wanted.set(repo, { gitDir, commit });
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Drops `repo` from the index (it is no longer indexed). */
  async remove(repo: string): Promise<void> {
    this.wanted.delete(repo);
    await this.running;
    const embedder = await this.loaded().catch(() => undefined);
    if (embedder) await removeRepo(this.opts.out, repo, embedder.info, this.opts.log);
  }

  /** Resolves when no build is under way or asked for. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private loaded(): Promise<Embedder> {
    this.embedder ??= this.opts.loadEmbedder();
    // A model that failed to load is tried again at the next build (it may be installed meanwhile).
    this.embedder.catch(() => (this.embedder = undefined));
    return this.embedder;
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.wanted.size) {
      const [repo, { gitDir, commit }] = this.wanted.entries().next().value!;
      this.wanted.delete(repo);
      if (this.idle) clearTimeout(this.idle);
      try {
        const embedder = await this.loaded();
        this.tagger ??= openTagger(this.opts.workerScript, this.opts.ctags);
        const source = await gitSource(gitDir, commit);
        try {
          const build = () => buildRecorded({ out: this.opts.out, repo, source, embedder, tagger: this.tagger!, log: this.opts.log });
          const report = await build().catch((e: unknown) => {
            // The folder is this process's own: a manifest nobody can read is set aside and the
            // index started again (each repository comes back at its next build), not failed forever.
            if (!(e instanceof DefinitionsIndexError) || e.file !== join(this.opts.out, MANIFEST)) throw e;
            const aside = `${e.file}.unreadable-${Date.now()}`;
            this.opts.log(`${e.message}; set aside as ${aside}, starting the definitions index again`);
            renameSync(e.file, aside);
            return build();
          });
          if (!report.unchanged) {
            const e = report.entry;
            this.opts.log(
              `definitions of ${repo}: ${e.definitions} (${e.documented} documented), ${report.extractedFiles} files read, ${report.reusedFiles} reused, ${(report.ms.total / 1000).toFixed(1)} s`,
            );
          }
          this.opts.built?.(repo, report);
        } finally {
          source.close();
        }
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        this.opts.log(`definitions of ${repo} not built: ${err.message}`);
        this.opts.built?.(repo, err);
      }
    }
    if (!this.stopped && this.tagger) {
      this.idle = setTimeout(() => void this.closeTagger(), IDLE_MS);
      this.idle.unref();
    }
  }

  private async closeTagger(): Promise<void> {
    const tagger = this.tagger;
    this.tagger = undefined;
    await tagger?.close();
  }

  /** Lets the build under way finish, then stops the parse worker. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wanted.clear();
    if (this.idle) clearTimeout(this.idle);
    await this.running;
    await this.closeTagger();
  }
}
