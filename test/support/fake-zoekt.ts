/**
 * A Zoekt that answers from a list of files given by the test, for unit tests of the search
 * engine (ranked windows, match caps, rounds, walks, the cache) without a real Zoekt. It does
 * what the engine relies on and nothing more: files ranked by score with ties in a random order
 * (as shards answer), MaxDocDisplayCount, MaxMatchDisplayCount counted over the whole answer as
 * Zoekt's display truncator does (index/limit.go), the `-( repo: file: )` exclusions of capped
 * rounds, `file:` restrictions of a page's files, and `type:filename` listings. The query's own
 * terms are ignored: every file matches. What only a real Zoekt can show stays in test/integration.
 */
import type { ZoektFleet } from '../../src/zoekt/fleet.js';
import { markCut, type SearchRequest } from '../../src/zoekt/client.js';
import type { Chunk, FileHit, SearchResult } from '../../src/zoekt/wire.js';

export interface FakeFile {
  repo: string;
  path: string;
  score: number;
  /** Matched lines, one match each. */
  matches: number;
  /** The branch of this version of the path, when the index holds several (a `file:` names them all). */
  version?: string;
}

export interface FakeRequest {
  query: string;
  maxDocs: number;
  maxMatches?: number | undefined;
  /** Matches sent back. */
  sent: number;
}

/** Undoes quote() and escapeRegex() of src/zoekt/query.ts for the ^…$ values the engine sends. */
function unquote(value: string): string {
  return value.replace(/\\(.)/g, '$1').replace(/\\(.)/g, '$1').replace(/^\^/, '').replace(/\$$/, '');
}

const EXCLUDED = /-\( repo:"((?:[^"\\]|\\.)*)" file:"((?:[^"\\]|\\.)*)" \)/g;
const FILE_TOKEN = /file:"((?:[^"\\]|\\.)*)"/g;

function chunkOf(line: number, fileName: boolean): Chunk {
  return { startLine: line, lines: [`match ${line}`], ranges: [{ line, column: 1, endLine: line, endColumn: 6 }], matchLines: [line], fileName, score: 0 };
}

const MAX_REQUESTS = 10_000;

export class FakeZoekt {
  readonly requests: FakeRequest[] = [];
  readonly several = false;

  /**
   * `budget`: like ShardMaxMatchCount, files are evaluated in the order given until this many
   * matches were found; only those are ranked, and the answer says Zoekt stopped early.
   */
  constructor(
    private readonly files: readonly FakeFile[],
    private readonly random: () => number = Math.random,
    private readonly budget = Number.POSITIVE_INFINITY,
  ) {}

  /** The fake as the engine's Zoekt: it implements the part of ZoektFleet a Searcher uses for searches. */
  asFleet(): ZoektFleet {
    return this as unknown as ZoektFleet;
  }

  async repoIdsOf(): Promise<undefined> {
    return undefined;
  }

  async search(req: SearchRequest & { repos?: readonly string[] }): Promise<SearchResult> {
    // The fake answers at once, so an engine that asks forever never lets a test's timer fire: fail instead.
    if (this.requests.length >= MAX_REQUESTS) throw new Error(`the engine sent more than ${MAX_REQUESTS} searches: it is going round in circles`);
    const excluded = new Set([...req.query.matchAll(EXCLUDED)].map((m) => `${unquote(m[1]!)}\u0000${unquote(m[2]!)}`));
    const rest = req.query.replace(EXCLUDED, '');
    const only = new Set([...rest.matchAll(FILE_TOKEN)].map((m) => unquote(m[1]!)));
    const listing = /^type:filename\b/.test(req.query);
    const matching = this.files.filter((f) => !excluded.has(`${f.repo}\u0000${f.path}`) && (only.size === 0 || only.has(f.path)));
    let found = 0;
    const candidates = matching.filter((f) => found < this.budget && (found += listing ? 1 : f.matches) > 0);
    const stoppedEarly = candidates.length < matching.length;
    // Zoekt sorts by score; equal scores come in whatever order the shards answered.
    const keyed = candidates.map((f) => ({ f, tie: this.random() }));
    keyed.sort((a, b) => b.f.score - a.f.score || a.tie - b.tie);
    let files = keyed.slice(0, req.maxDocs).map(({ f }) => {
      const chunks = listing ? [chunkOf(1, true)] : Array.from({ length: f.matches }, (_, i) => chunkOf(i + 1, false));
      const hit: FileHit = { repo: f.repo, path: f.path, language: 'Go', branches: f.version ? [f.version] : [], score: f.score, chunks };
      if (f.version) hit.version = f.version;
      return hit;
    });
    // MaxMatchDisplayCount: files in rank order take matches until the count runs out in one.
    if (req.maxMatches) {
      let left = req.maxMatches;
      for (let i = 0; i < files.length; i++) {
        const f = files[i]!;
        if (f.chunks.length >= left) {
          f.chunks = f.chunks.slice(0, left);
          files = files.slice(0, i + 1);
          break;
        }
        left -= f.chunks.length;
      }
    }
    const sent = files.reduce((n, f) => n + f.chunks.length, 0);
    this.requests.push({ query: req.query, maxDocs: req.maxDocs, maxMatches: req.maxMatches, sent });
    const result: SearchResult = {
      files,
      stats: {
        fileCount: candidates.length,
        matchCount: listing ? candidates.length : candidates.reduce((n, f) => n + f.matches, 0),
        durationMs: 0,
        ...(stoppedEarly ? { stopped: { cause: 'match_limit' as const, limit: this.budget } } : {}),
      },
      truncated: files.length >= req.maxDocs,
    };
    if (req.maxMatches) markCut(result, req.maxMatches);
    return result;
  }
}
