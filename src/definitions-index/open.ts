/**
 * The definitions index a server is configured with, opened on first use: the model and the
 * index are read when a description is first searched (or health asked), not at start, so a
 * server that never searches by description pays nothing for them. Until it can answer, searches
 * say why (DefinitionsIndexUnavailable), and description search matches names meanwhile.
 */
import { loadEmbedder, type Embedder } from '../model/embedder.js';
import {
  DefinitionsIndexUnavailable,
  type DefinitionsAnswer,
  type DefinitionsIndex,
  type DefinitionsIndexStatus,
  type DefinitionsQuery,
} from '../search/definitions/definitions-index.js';
import { FolderDefinitionsIndex } from './folder-index.js';

export interface DefinitionsSource {
  /** A folder holding a definitions index. */
  dir?: string | undefined;
  /** Opens an index held by an engine at this URL (weaviate.ts). */
  remote?: ((embedder: Embedder) => DefinitionsIndex) | undefined;
  /** Where the model is; default: the package's (model/embedder.ts). */
  modelDir?: string | undefined;
}

export class OnFirstUse implements DefinitionsIndex {
  private opened: Promise<DefinitionsIndex> | undefined;
  private ready: DefinitionsIndex | undefined;

  constructor(
    private readonly source: DefinitionsSource,
    private readonly location: string,
  ) {}

  private open(): Promise<DefinitionsIndex> {
    this.opened ??= loadEmbedder(this.source.modelDir).then(
      (embedder) => (this.ready = this.source.remote ? this.source.remote(embedder) : new FolderDefinitionsIndex(this.source.dir!, embedder)),
      (e: unknown) => {
        // A model installed later is found on the next use.
        this.opened = undefined;
        throw e;
      },
    );
    return this.opened;
  }

  /** The status once opened (a search or get_health opened it); undefined before: /metrics opens nothing. */
  async statusIfOpen(): Promise<DefinitionsIndexStatus | undefined> {
    return this.ready?.status();
  }

  async search(query: DefinitionsQuery, signal?: AbortSignal): Promise<DefinitionsAnswer> {
    let index: DefinitionsIndex;
    try {
      index = await this.open();
    } catch (e) {
      throw new DefinitionsIndexUnavailable(`the embedding model cannot be loaded: ${e instanceof Error ? e.message : String(e)}`);
    }
    try {
      return await index.search(query, signal);
    } catch (e) {
      if (signal?.aborted || e instanceof DefinitionsIndexUnavailable) throw e;
      // An engine down or holding another model: names answer meanwhile, and the hint says why.
      throw new DefinitionsIndexUnavailable(`the definitions index at ${this.location} cannot answer (${e instanceof Error ? e.message : String(e)})`);
    }
  }

  async status(): Promise<DefinitionsIndexStatus> {
    try {
      return await (await this.open()).status();
    } catch (e) {
      return {
        model: { name: 'unknown', dimensions: 0, source: 'not loaded' },
        state: 'unavailable',
        error: e instanceof Error ? e.message : String(e),
        location: this.location,
        repos: [],
        figures: { searches: 0 },
      };
    }
  }

  async close(): Promise<void> {
    if (this.opened) await (await this.opened.catch(() => undefined))?.close();
  }
}

/** The configured definitions index, opened on first use; undefined when none is configured. */
export function openDefinitionsIndex(source: DefinitionsSource, location: string): OnFirstUse | undefined {
  if (!source.dir && !source.remote) return undefined;
  return new OnFirstUse(source, location);
}
