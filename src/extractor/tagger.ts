/**
 * One file's answer in the ctags protocol: its tag lines, from tree-sitter in the parse worker,
 * with Universal Ctags for the other languages and for the lines a grammar gave up on. The same
 * whether the extractor answers the indexer itself (main.ts) or a warm service does (service.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { UniversalCtags } from './ctags.js';
import { sourceFor } from './languages.js';
import { ParseWorker } from './parse-worker.js';
import { ctagsBinary, log } from './program.js';
import { COMPLETED, protocolLine, type TagLine, type TagRequest } from './protocol.js';
import type { Tag } from './tags.js';

/** A parse that takes longer is stopped and the file goes to Universal Ctags (ZOEKT_MCP_PARSE_TIMEOUT_MS). */
function parseTimeoutMs(): number {
  const ms = Number(process.env.ZOEKT_MCP_PARSE_TIMEOUT_MS);
  return Number.isInteger(ms) && ms > 0 ? ms : 5_000;
}

/**
 * Larger files get no symbols: they are generated or bundled, their "definitions" are noise, and
 * Universal Ctags takes tens of seconds on one (bench/README.md, "Symbol extraction").
 */
const MAX_PARSE_BYTES = 4 << 20;

/**
 * V8 optimises a WebAssembly function once it has run this much (twice Node 20's default). Most
 * runs of the extractor are a local delta build of a few files, where optimising the grammar and
 * the query engine cost more CPU than the parses: two files 0.33 → 0.25 s of CPU. Ten times the
 * default saved no more and made Go's tree 5–7% slower to index (bench/indexing.sh, 2 rounds);
 * twice it is within that bench's noise (29.4 against 30.5 s, 4 rounds). Measured on Node 20.
 * The V8 of Node 22 and 24 defaults to 13M, later than this already: there the budget is left as
 * it is, where setting this one would have it optimise sooner.
 */
const WASM_TIERING_BUDGET = 3_600_000;

/** The budget to set for this V8 (`process.versions.v8`), or undefined to keep its own. */
export function wasmTieringBudget(v8Version: string): number | undefined {
  const major = Number(v8Version.split('.')[0]);
  // V8 11 is Node 20's, whose default is 1.8M; Node 22's (12.4) and 24's (13.6) have 13M.
  return major <= 11 ? WASM_TIERING_BUDGET : undefined;
}

/** Set before a worker compiles its first module: V8 reads the budget as it instantiates one. */
export function tuneWasm(): void {
  const budget = wasmTieringBudget(process.versions.v8);
  if (budget !== undefined) setFlagsFromString(`--wasm-tiering-budget=${budget}`);
}

function tagLine(tag: Tag, filename: string, language: string): string | undefined {
  const line: TagLine = { _type: 'tag', name: tag.name, path: filename, line: tag.line, kind: tag.kind, language };
  if (tag.scope) {
    line.scope = tag.scope;
    line.scopeKind = tag.scopeKind;
  }
  return protocolLine(line);
}

/** Scopes whose tags Universal Ctags gives for names local to a function body (TypeScript's `const` inside a function). */
const BODY_SCOPES = new Set(['function', 'method', 'generator', 'constructor', 'getter', 'setter', 'accessor', 'member', 'lambda']);

/** Kinds that are definitions wherever they stand, in a function body too (a nested function, a class in a test). */
const DEFINITION_KINDS = new Set(['function', 'class', 'method', 'member', 'generator', 'interface', 'enum', 'struct', 'trait']);

/** A tag of Universal Ctags' that names a local, not a definition. */
function isLocal(t: TagLine): boolean {
  return t.kind === 'local' || t.kind === 'parameter' || (BODY_SCOPES.has(t.scopeKind ?? '') && !DEFINITION_KINDS.has(t.kind));
}

/** Answers the files of one indexer, in order, with one parse worker and one Universal Ctags. */
export class Tagger {
  private readonly ctags: UniversalCtags;

  constructor(
    private readonly worker: ParseWorker,
    ctagsBin: string,
    ctagsArgs: string[],
  ) {
    this.ctags = new UniversalCtags(ctagsBin, ctagsArgs, log);
  }

  /** The file's tag lines and the line that completes them. */
  async answer({ filename, content }: TagRequest): Promise<string> {
    return (await this.tagsFor(filename, content)).join('') + COMPLETED;
  }

  private async tagsFor(filename: string, content: Buffer): Promise<string[]> {
    if (content.length > MAX_PARSE_BYTES) {
      log(`${filename}: ${content.length} bytes, more than the ${MAX_PARSE_BYTES} a file may have for symbols; none taken`);
      return [];
    }
    const text = content.toString('utf8');
    const grammar = sourceFor(filename, text);
    if (grammar) {
      try {
        const { tags, errorLines } = await this.worker.parse(grammar.id, text, parseTimeoutMs());
        const lines = tags.map((t) => tagLine(t, filename, grammar.language));
        if (errorLines.length) {
          // Where the grammar gave up, Universal Ctags' tags for those lines fill the gap.
          const have = new Set(tags.map((t) => `${t.line}\0${t.name}`));
          const inError = (line: number) => errorLines.some(([from, to]) => line >= from && line <= to);
          for (const t of await this.ctags.tags(filename, content)) {
            if (!inError(t.line) || isLocal(t) || have.has(`${t.line}\0${t.name}`)) continue;
            lines.push(protocolLine({ ...t, path: filename }));
          }
        }
        return lines.filter((l): l is string => l !== undefined);
      } catch (e) {
        log(`tree-sitter failed on ${filename}, using Universal Ctags for it: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const tags = await this.ctags.tags(filename, content);
    return tags.map((t) => protocolLine({ ...t, path: filename })).filter((l): l is string => l !== undefined);
  }

  /** Stops Universal Ctags; the worker is the caller's. */
  close(): void {
    this.ctags.stop();
  }
}

/**
 * A tagger with a parse worker of its own, for one indexer: the extractor run cold (main.ts), or
 * the client when the warm one cannot answer. `workerScript` is the worker beside the caller's
 * module (this module may be bundled elsewhere).
 */
export function taggerWithWorker(workerScript: URL, args: string[]): { answer(request: TagRequest): Promise<string>; close(): Promise<void> } {
  tuneWasm();
  const worker = new ParseWorker(workerScript);
  const tagger = new Tagger(worker, ctagsBinary(), args);
  return {
    answer: (request) => tagger.answer(request),
    close: async () => {
      tagger.close();
      await worker.close();
    },
  };
}
