/**
 * Puts a definitions index built on disk (format.ts) into a Weaviate server, where every adapter
 * replica searches it (weaviate.ts). Only repositories whose generation changed are sent. A
 * repository's new generation is imported whole beside the one searched, counted, and only then
 * named by its record: the switch is that one write, so a search sees the old generation or the
 * new one, never a mix. The old one is deleted after a grace period that outlasts a search which
 * read the record just before the switch.
 */
import { ToolError } from '../errors.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import type { IndexedDefinition } from '../search/definitions/definitions-index.js';
import { concepts } from './bm25.js';
import { readManifest, readRepoIndex, type Manifest, type RepoIndex } from './format.js';
import { definitionText } from './texts.js';
import { WeaviateClient } from './weaviate-client.js';
import { WeaviateDefinitionsIndex } from './weaviate.js';
import {
  checkCollection,
  DEFAULT_COLLECTION,
  definitionsClassSchema,
  generationRepo,
  objectId,
  propertiesOf,
  reposClass,
  reposClassSchema,
  statsClass,
  statsClassSchema,
  statsOf,
  type RepoRecord,
} from './weaviate-schema.js';

export interface PushOptions {
  url: string;
  /** Deadline of each call to Weaviate. */
  timeoutMs?: number;
  collection?: string;
  /** How long the old generations stay after the switch, for searches that read the record before it. */
  graceMs?: number;
  /** Objects per batch request. */
  batchSize?: number;
  /** Send every repository, changed or not. */
  force?: boolean;
  logger?: Logger;
  /** Told of each step, for a command's progress lines. */
  progress?: (line: string) => void;
}

export interface PushReport {
  pushed: { repo: string; generation: string; definitions: number; ms: number }[];
  unchanged: string[];
  failed: { repo: string; error: string }[];
  /** Objects of earlier generations deleted after the switch. */
  deleted: number;
}

/** A search reads the record and then queries, within its deadline: longer than that is enough. */
export const DEFAULT_GRACE_MS = 30_000;
const DEFAULT_BATCH = 500;
/** A batch of a few hundred objects with vectors waits for Weaviate's index writes: more than a search. */
const BATCH_TIMEOUT_MS = 120_000;

/** Pushes every repository of the on-disk index `dir` whose generation the server does not have yet. */
export async function pushDefinitions(dir: string, opts: PushOptions): Promise<PushReport> {
  const manifest = readManifest(dir);
  if (!manifest) throw new ToolError('NOT_FOUND', `no definitions index in ${dir} (no manifest.json)`, 'Build one first: zoekt-mcp definitions build --repo PATH --out DIR', { retryable: false });
  const pusher = new Pusher(opts, manifest);
  try {
    return await pusher.push((repo, entry) => readRepoIndex(dir, repo, entry, manifest.model.dimensions));
  } finally {
    await pusher.close();
  }
}

class Pusher {
  private readonly client: WeaviateClient;
  private readonly collection: string;
  private readonly log: Logger;
  private readonly say: (line: string) => void;

  constructor(
    private readonly opts: PushOptions,
    private readonly manifest: Manifest,
  ) {
    this.collection = checkCollection(opts.collection ?? DEFAULT_COLLECTION);
    this.client = new WeaviateClient({ url: opts.url, timeoutMs: opts.timeoutMs ?? BATCH_TIMEOUT_MS, ...(opts.logger ? { logger: opts.logger } : {}) });
    this.log = opts.logger ?? silentLogger;
    this.say = opts.progress ?? (() => {});
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  async push(read: (repo: string, entry: Manifest['repos'][string]) => RepoIndex): Promise<PushReport> {
    await this.ensureClass(definitionsClassSchema(this.collection), this.collection);
    await this.ensureClass(reposClassSchema(this.collection), reposClass(this.collection));
    await this.ensureClass(statsClassSchema(this.collection), statsClass(this.collection));
    const reader = new WeaviateDefinitionsIndex({ url: this.opts.url, timeoutMs: this.opts.timeoutMs ?? BATCH_TIMEOUT_MS, collection: this.collection, embedder: { info: this.manifest.model, embed: () => [] } });
    const records = new Map((await reader.records().finally(() => reader.close())).map((r) => [r.repo, r]));
    const report: PushReport = { pushed: [], unchanged: [], failed: [], deleted: 0 };
    const switched: { repo: string; generation: string }[] = [];
    for (const [repo, entry] of Object.entries(this.manifest.repos).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const before = records.get(repo);
      const sameModel = before?.model_name === this.manifest.model.name && before.model_dimensions === this.manifest.model.dimensions;
      if (!this.opts.force && before?.generation === entry.generation && !before.pending && sameModel) {
        // Pushed by a version that kept no counts: they are added, nothing else is sent.
        if (!(await this.client.rest('GET', `v1/objects/${statsClass(this.collection)}/${this.statsId(repo, entry.generation)}`))) await this.writeStats(read(repo, entry));
        report.unchanged.push(repo);
        continue;
      }
      const started = Date.now();
      try {
        const index = read(repo, entry);
        await this.writeRecord({ ...(before ?? blankRecord(repo)), pending: entry.generation, error: '' });
        await this.importGeneration(index);
        await this.writeStats(index);
        await this.writeRecord({
          repo,
          generation: entry.generation,
          pending: '',
          error: '',
          built_at: entry.built_at,
          definitions: entry.definitions,
          documented: entry.documented,
          extracted: entry.extracted,
          skipped_files: entry.skipped_files,
          model_name: this.manifest.model.name,
          model_dimensions: this.manifest.model.dimensions,
          model_source: this.manifest.model.source,
        });
        switched.push({ repo, generation: entry.generation });
        report.pushed.push({ repo, generation: entry.generation, definitions: entry.definitions, ms: Date.now() - started });
        this.say(`pushed ${repo} at ${entry.generation.slice(0, 12)}: ${entry.definitions} definitions in ${Date.now() - started} ms`);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        report.failed.push({ repo, error: message });
        this.log.warn('definitions push failed', { repo, error: message });
        this.say(`failed to push ${repo}: ${message}`);
        // The record keeps naming the generation it named; status() says the push failed.
        await this.writeRecord({ ...(before ?? blankRecord(repo)), pending: '', error: message.slice(0, 500) }).catch(() => {});
      }
    }
    if (switched.length) {
      const grace = this.opts.graceMs ?? DEFAULT_GRACE_MS;
      if (grace > 0) {
        this.say(`waiting ${grace} ms before deleting the earlier generations (searches under way read them)`);
        await new Promise((r) => setTimeout(r, grace));
      }
      for (const s of switched) report.deleted += await this.deleteOthers(s.repo, s.generation);
    }
    return report;
  }

  private async ensureClass(schema: unknown, name: string): Promise<void> {
    if (await this.client.rest('GET', `v1/schema/${name}`)) return;
    try {
      await this.client.rest('POST', 'v1/schema', schema);
    } catch (err) {
      // Another push made it meanwhile.
      if (!(await this.client.rest('GET', `v1/schema/${name}`))) throw err;
    }
  }

  private async writeRecord(r: RepoRecord): Promise<void> {
    await this.batch([{ class: reposClass(this.collection), id: objectId(reposClass(this.collection), r.repo), properties: { ...r } }]);
  }

  private statsId(repo: string, generation: string): string {
    return objectId(statsClass(this.collection), generationRepo(repo, generation));
  }

  private async writeStats(index: RepoIndex): Promise<void> {
    const { repo, entry } = index;
    await this.batch([{ class: statsClass(this.collection), id: this.statsId(repo, entry.generation), properties: { repo, generation_repo: generationRepo(repo, entry.generation), stats: JSON.stringify(statsOf(index.definitions)) } }]);
  }

  private async importGeneration(index: RepoIndex): Promise<void> {
    const { repo, entry, definitions, vectors, dimensions } = index;
    const size = this.opts.batchSize ?? DEFAULT_BATCH;
    for (let from = 0; from < definitions.length; from += size) {
      const objects = definitions.slice(from, from + size).map((d, k) => this.objectOf(d, entry.generation, from + k, vectors, dimensions));
      await this.batch(objects);
      if (definitions.length > size * 10 && (from / size) % 20 === 19) this.say(`  ${repo}: ${from + objects.length} of ${definitions.length} definitions sent`);
    }
    const held = await this.countOf(generationRepo(repo, entry.generation));
    if (held !== definitions.length) {
      throw new ToolError('UNAVAILABLE', `weaviate holds ${held} definitions of ${repo} at ${entry.generation} after the import of ${definitions.length}`, 'Push again; check the Weaviate server\'s logs and disk.', { retryable: true });
    }
  }

  private objectOf(d: IndexedDefinition, generation: string, i: number, vectors: Int8Array, dimensions: number): Record<string, unknown> {
    const vector = new Array<number>(dimensions);
    for (let k = 0; k < dimensions; k++) vector[k] = Math.round((vectors[i * dimensions + k]! / 127) * 1e5) / 1e5;
    const text = concepts(definitionText(d)).join(' ');
    return { class: this.collection, id: objectId(this.collection, generation, d.repo, String(i)), properties: propertiesOf(d, generation, text), vector };
  }

  private async batch(objects: Record<string, unknown>[]): Promise<void> {
    const answer = (await this.client.rest('POST', 'v1/batch/objects', { objects })) as { result?: { errors?: { error?: { message?: string }[] } } }[] | undefined;
    const errors = (answer ?? []).flatMap((o) => o.result?.errors?.error ?? []).map((e) => e.message ?? '?');
    if (errors.length) throw new ToolError('UNAVAILABLE', `weaviate refused ${errors.length} of ${objects.length} objects: ${errors[0]}`, 'Check the Weaviate server\'s logs; push again.', { retryable: false });
  }

  private async countOf(key: string): Promise<number> {
    const where = `{path: ["generation_repo"], operator: Equal, valueText: ${JSON.stringify(key)}}`;
    const data = (await this.client.graphql(`{ Aggregate { ${this.collection}(where: ${where}) { meta { count } } } }`)) as { Aggregate?: Record<string, { meta?: { count?: number } }[]> };
    return data?.Aggregate?.[this.collection]?.[0]?.meta?.count ?? 0;
  }

  /** Deletes a repository's objects of every generation but `generation`; how many. */
  private async deleteOthers(repo: string, generation: string): Promise<number> {
    const where = {
      operator: 'And',
      operands: [
        { path: ['repo'], operator: 'Equal', valueText: repo },
        { path: ['generation'], operator: 'NotEqual', valueText: generation },
      ],
    };
    const deleted = await this.deleteWhere(this.collection, where);
    const key = generationRepo(repo, generation);
    await this.deleteWhere(statsClass(this.collection), { operator: 'And', operands: [where.operands[0], { path: ['generation_repo'], operator: 'NotEqual', valueText: key }] });
    return deleted;
  }

  private async deleteWhere(cls: string, where: unknown): Promise<number> {
    let deleted = 0;
    // Weaviate deletes at most QUERY_MAXIMUM_RESULTS objects per request.
    for (let round = 0; round < 10_000; round++) {
      const answer = (await this.client.rest('DELETE', 'v1/batch/objects', { match: { class: cls, where }, output: 'minimal' })) as { results?: { matches?: number; successful?: number } } | undefined;
      const done = answer?.results?.successful ?? 0;
      deleted += done;
      if (!answer?.results?.matches || done === 0) break;
    }
    return deleted;
  }
}

function blankRecord(repo: string): RepoRecord {
  return { repo, generation: '', pending: '', error: '', built_at: '', definitions: 0, documented: 0, extracted: 0, skipped_files: 0, model_name: '', model_dimensions: 0, model_source: '' };
}
