/**
 * zoekt-mcp's symbol extractor: a program Zoekt's indexer runs in place of a ctags binary and
 * talks to through Universal Ctags' interactive protocol. Files in the languages it has a
 * tree-sitter grammar for get their definitions from the grammar; everything else, and the
 * regions a grammar could not parse, from Universal Ctags behind it.
 *
 * It serves both of the indexer's ctags slots:
 *   - SCIP_CTAGS_COMMAND with `-language_map "$(scip-ctags --language-map)"` (zoekt-git-index):
 *     Zoekt sends it the files of the languages on that map and the rest to Universal Ctags;
 *   - CTAGS_COMMAND (zoekt-index, which takes no language map): it gets every file and passes
 *     on to Universal Ctags what it does not parse itself. `--help` says `+interactive`, as
 *     Zoekt checks of that slot.
 */
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { UniversalCtags } from './ctags.js';
import { sourceFor, zoektLanguageMap, extractorLanguages } from './languages.js';
import { ParseWorker } from './parse-worker.js';
import { COMPLETED, protocolLine, readRequests, type TagLine } from './protocol.js';
import type { Tag } from './tags.js';
import { VERSION } from '../version.js';

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

const NAME = 'zoekt-mcp-scip-ctags';

const HELP = `${NAME} ${VERSION}: symbols for Zoekt's indexer from tree-sitter grammars, with
Universal Ctags for the other languages. Zoekt runs it; it speaks Universal Ctags' interactive
protocol on stdin and stdout.

  ${NAME} --_interactive=default [ctags options]   serve the indexer (the options go on to Universal Ctags)
  ${NAME} --language-map                           print zoekt-git-index's -language_map value
  ${NAME} --languages                              list the languages parsed with tree-sitter
  ${NAME} --version | --help

Environment: ZOEKT_MCP_UNIVERSAL_CTAGS, the Universal Ctags to run (default: universal-ctags on
PATH); ZOEKT_MCP_PARSE_TIMEOUT_MS, how long tree-sitter may take on one file before Universal
Ctags tags it instead (default 5000).

Features: +interactive +json (the protocol Zoekt's indexer checks for)
`;

function log(msg: string): void {
  process.stderr.write(`${NAME}: ${msg}\n`);
}

function ctagsBinary(): string {
  return process.env.ZOEKT_MCP_UNIVERSAL_CTAGS || 'universal-ctags';
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

/** Answers one file: its tag lines. */
async function tagsFor(filename: string, content: Buffer, worker: ParseWorker, ctags: UniversalCtags): Promise<string[]> {
  if (content.length > MAX_PARSE_BYTES) {
    log(`${filename}: ${content.length} bytes, more than the ${MAX_PARSE_BYTES} a file may have for symbols; none taken`);
    return [];
  }
  const text = content.toString('utf8');
  const grammar = sourceFor(filename, text);
  if (grammar) {
    try {
      const { tags, errorLines } = await worker.parse(grammar.id, text, parseTimeoutMs());
      const lines = tags.map((t) => tagLine(t, filename, grammar.language));
      if (errorLines.length) {
        // Where the grammar gave up, Universal Ctags' tags for those lines fill the gap.
        const have = new Set(tags.map((t) => `${t.line}\0${t.name}`));
        const inError = (line: number) => errorLines.some(([from, to]) => line >= from && line <= to);
        for (const t of await ctags.tags(filename, content)) {
          if (!inError(t.line) || isLocal(t) || have.has(`${t.line}\0${t.name}`)) continue;
          lines.push(protocolLine({ ...t, path: filename }));
        }
      }
      return lines.filter((l): l is string => l !== undefined);
    } catch (e) {
      log(`tree-sitter failed on ${filename}, using Universal Ctags for it: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const tags = await ctags.tags(filename, content);
  return tags.map((t) => protocolLine({ ...t, path: filename })).filter((l): l is string => l !== undefined);
}

/**
 * V8 optimises a WebAssembly function once it has run this much (twice its default). Most runs of
 * the extractor are a local delta build of a few files, where optimising the grammar and the query
 * engine cost more CPU than the parses: two files 0.33 → 0.25 s of CPU. Ten times the default saved
 * no more and made Go's tree 5–7% slower to index (bench/indexing.sh, 2 rounds); twice it is within
 * that bench's noise (29.4 against 30.5 s, 4 rounds). Set before the worker compiles its first module.
 */
const WASM_TIERING_BUDGET = 3_600_000;

async function serve(args: string[]): Promise<void> {
  setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  const worker = new ParseWorker(new URL('./worker.js', import.meta.url));
  const ctags = new UniversalCtags(ctagsBinary(), args, log);
  process.stdout.write(protocolLine({ _type: 'program', name: NAME, version: VERSION })!);
  try {
    for await (const { filename, content } of readRequests(process.stdin)) {
      const lines = await tagsFor(filename, content, worker, ctags);
      process.stdout.write(lines.join('') + COMPLETED);
    }
  } finally {
    // Zoekt's indexer usually kills the extractor when it is done, so nothing is said here.
    ctags.stop();
    await worker.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(HELP);
    return 0;
  }
  if (argv.includes('--version')) {
    process.stdout.write(`${NAME} ${VERSION}\n`);
    return 0;
  }
  if (argv.includes('--language-map')) {
    process.stdout.write(`${zoektLanguageMap()}\n`);
    return 0;
  }
  if (argv.includes('--languages')) {
    process.stdout.write(`${extractorLanguages().join('\n')}\n`);
    return 0;
  }
  if (!argv.some((a) => a.startsWith('--_interactive'))) {
    process.stderr.write(`${NAME}: run by Zoekt's indexer with --_interactive; see --help\n`);
    return 2;
  }
  await serve(argv);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      log(`stopped: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}
