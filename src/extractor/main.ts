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
import { zoektLanguageMap, extractorLanguages } from './languages.js';
import { readRequests } from './protocol.js';
import { log, NAME, PROGRAM_LINE } from './program.js';
import { taggerWithWorker } from './tagger.js';
import { VERSION } from '../version.js';

const HELP = `${NAME} ${VERSION}: symbols for Zoekt's indexer from tree-sitter grammars, with
Universal Ctags for the other languages. Zoekt runs it; it speaks Universal Ctags' interactive
protocol on stdin and stdout.

  ${NAME} --_interactive=default [ctags options]   serve the indexer (the options go on to Universal Ctags)
  ${NAME} --language-map                           print zoekt-git-index's -language_map value
  ${NAME} --languages                              list the languages parsed with tree-sitter
  ${NAME} --version | --help

Environment: ZOEKT_MCP_UNIVERSAL_CTAGS, the Universal Ctags to run (default: universal-ctags on
PATH); ZOEKT_MCP_PARSE_TIMEOUT_MS, how long tree-sitter may take on one file before Universal
Ctags tags it instead (default 5000); ZOEKT_MCP_EXTRACTOR_SOCKET, a warm extractor to ask first
(the local supervisor's; zoekt-config/scip-ctags passes the files on to it, see client.ts).

Features: +interactive +json (the protocol Zoekt's indexer checks for)
`;

/** Answers the indexer on stdin and stdout until its input ends. */
async function serve(args: string[]): Promise<void> {
  const tagger = taggerWithWorker(new URL('./worker.js', import.meta.url), args);
  process.stdout.write(PROGRAM_LINE);
  try {
    for await (const request of readRequests(process.stdin)) process.stdout.write(await tagger.answer(request));
  } finally {
    // Zoekt's indexer usually kills the extractor when it is done, so nothing is said here.
    await tagger.close();
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
