/**
 * The definitions index of one folder (format.ts), searched in this process (memory-engine.ts).
 * Each search first looks whether the manifest changed (one stat): a repository whose generation
 * changed is read again, alone, so an edit the builder wrote is searched the next call; the rest
 * stay as loaded. A repository that cannot be read keeps answering from what was loaded before and
 * is named in status().
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '../model/embedder.js';
import { DefinitionsIndexUnavailable, type DefinitionsAnswer, type DefinitionsIndex, type DefinitionsIndexStatus, type DefinitionsQuery } from '../search/definitions/definitions-index.js';
import { DefinitionsIndexError, MANIFEST, readManifest, type Manifest } from './format.js';
import { packPostings, searchSegments, type Segment } from './memory-engine.js';
import { PackError, readPack } from './pack.js';
import { SearchFigures } from './search-figures.js';
import { LRUCache } from 'lru-cache';

export class FolderDefinitionsIndex implements DefinitionsIndex {
  private segments = new Map<string, Segment>();
  private manifest: Manifest | undefined;
  private seen = '';
  private readonly unreadable = new Map<string, string>();
  private problem: string | undefined;
  private readonly figures = new SearchFigures();
  /**
   * The description's dot product with every row of the model (rowDots: 7.5 M multiplications, a
   * third of a search), kept for the descriptions asked last: a walk asks each page with the same one.
   */
  private readonly dots = new LRUCache<string, Float32Array>({ max: 16 });

  constructor(
    readonly dir: string,
    private readonly embedder: Embedder,
  ) {}

  /** Reads what changed since the last look; cheap when nothing did. */
  refresh(): void {
    let mark: string;
    try {
      const st = statSync(join(this.dir, MANIFEST));
      mark = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      mark = 'none';
    }
    if (mark === this.seen) return;
    this.seen = mark;
    try {
      this.manifest = readManifest(this.dir);
      this.problem = undefined;
    } catch (e) {
      this.problem = e instanceof DefinitionsIndexError ? `${e.message} (${e.hint})` : String(e);
      return;
    }
    const manifest = this.manifest;
    if (!manifest) {
      this.segments = new Map();
      return;
    }
    if (manifest.model.name !== this.embedder.info.name || manifest.model.dimensions !== this.embedder.info.dimensions) {
      this.problem = `the index in ${this.dir} was built with the model ${manifest.model.name} (${manifest.model.dimensions} dimensions); this server embeds with ${this.embedder.info.name} (${this.embedder.info.dimensions}): build it again with this version`;
      this.segments = new Map();
      return;
    }
    const next = new Map<string, Segment>();
    for (const [repo, entry] of Object.entries(manifest.repos)) {
      const had = this.segments.get(repo);
      if (had && had.generation === entry.generation && had.status.built_at === entry.built_at) {
        next.set(repo, had);
        continue;
      }
      const file = join(this.dir, `${entry.stem}.pack`);
      try {
        const pack = readPack(file);
        if (pack.repo !== repo || pack.generation !== entry.generation || pack.definitions !== entry.definitions) {
          throw new PackError(`${file} holds ${pack.repo}@${pack.generation} (${pack.definitions} definitions), the manifest names ${repo}@${entry.generation} (${entry.definitions})`);
        }
        next.set(repo, {
          repo,
          generation: entry.generation,
          pack,
          texts: packPostings(pack),
          status: { repo, generation: entry.generation, built_at: entry.built_at, definitions: entry.definitions, documented: entry.documented, extracted: entry.extracted, skipped_files: entry.skipped_files },
        });
        this.unreadable.delete(repo);
      } catch (e) {
        // A newer build removed the stem between the manifest and it: the next look reads the new one.
        const gone = (e as NodeJS.ErrnoException).code === 'ENOENT';
        if (gone) this.seen = '';
        this.unreadable.set(repo, gone ? `${file} was replaced while being read; read again on the next search` : `${e instanceof Error ? e.message : String(e)} (rebuild it: zoekt-mcp definitions build)`);
        if (had) next.set(repo, had);
      }
    }
    this.segments = next;
  }

  async search(query: DefinitionsQuery): Promise<DefinitionsAnswer> {
    const started = performance.now();
    this.refresh();
    const segments = [...this.segments.values()];
    if (segments.length === 0) {
      const building = this.manifest?.building?.length;
      throw new DefinitionsIndexUnavailable(
        this.problem ?? (building ? `the definitions index in ${this.dir} is being built` : `the definitions index in ${this.dir} holds no repository yet`),
      );
    }
    const vector = this.figures.vectorOf(query.text, (t) => this.embedder.embed([t])[0]!);
    let dots = this.dots.get(query.text);
    if (!dots) {
      dots = this.embedder.rowDots(vector);
      this.dots.set(query.text, dots);
    }
    const answer = searchSegments(segments, query, dots);
    this.figures.took(performance.now() - started);
    return { ...answer, generations: new Map(segments.map((s) => [s.repo, s.generation])) };
  }

  async status(): Promise<DefinitionsIndexStatus> {
    this.refresh();
    const failed = this.manifest?.failed ?? {};
    const building = this.manifest?.building ?? [];
    const repoErrors = [...[...this.unreadable].map(([repo, error]) => ({ repo, error })), ...Object.entries(failed).map(([repo, why]) => ({ repo, error: `the last build failed: ${why}` }))];
    const state: DefinitionsIndexStatus['state'] = this.problem ? 'unavailable' : building.length ? 'building' : repoErrors.length ? 'failed' : 'current';
    return {
      model: { name: this.embedder.info.name, dimensions: this.embedder.info.dimensions, source: this.embedder.info.source },
      state,
      ...(this.problem ? { error: this.problem } : {}),
      ...(repoErrors.length ? { repoErrors } : {}),
      location: this.dir,
      repos: [...this.segments.values()].map((s) => s.status),
      figures: this.figures.figures(),
    };
  }

  async close(): Promise<void> {
    this.segments = new Map();
  }
}
