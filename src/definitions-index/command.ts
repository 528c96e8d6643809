/**
 * `zoekt-mcp definitions build`: the definitions index of one repository, built beside a Zoekt
 * index someone runs themselves (and by the container's indexer beside its shards). The entry
 * (main.ts) passes in what it knows of naming repositories.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildRecorded, openTagger, type Embedder } from './build.js';
import { DefinitionsIndexError } from './format.js';
import { folderSource, gitSource, resolveCommit, type Source } from './sources.js';
import { execFileSync } from 'node:child_process';

export const DEFINITIONS_HELP = `zoekt-mcp definitions build: the definitions index of one repository, for description search

  zoekt-mcp definitions build --repo PATH --out DIR [--name NAME] [--commit REV] [--model DIR] [--quiet]

Reads the repository as Zoekt's indexer does (a git repository at a commit, as zoekt-git-index;
any other folder as its files, as zoekt-index), takes every file's definitions from zoekt-mcp's
symbol extractor with their doc comments, embeds them with the model the package carries, and
writes them into DIR beside the index others in DIR already hold. Run again after each Zoekt
index: only files whose content changed are read again. Point zoekt-mcp at DIR with
--definitions DIR (ZOEKT_MCP_DEFINITIONS).

  --repo PATH     the repository: a git work tree or bare repository, or a plain folder
  --out DIR       the definitions index folder (created; several repositories share one)
  --name NAME     the repository's name in Zoekt (default: what Zoekt names it: git config
                  zoekt.name, else its origin URL as host/path, else the folder's name)
  --commit REV    the commit Zoekt indexed (git only; default HEAD)
  --model DIR     the embedding model's folder (default: the package's; ZOEKT_MCP_MODEL_DIR)
  --quiet         no progress on stderr, only the summary on stdout

Environment: ZOEKT_MCP_UNIVERSAL_CTAGS, the Universal Ctags for languages the extractor does not
parse itself (default: the package's zoekt-config/universal-ctags, else universal-ctags on PATH).

Exit status: 0 built (or already current), 1 the build failed, 2 wrong arguments.

zoekt-mcp definitions push --from DIR --weaviate URL puts a built index into a Weaviate server that
several zoekt-mcp replicas read (zoekt-mcp definitions push --help).
`;

export interface DefinitionsCommandDeps {
  /** The name Zoekt gives a repository from its origin URL (src/local/repos.ts). */
  nameFromOrigin(remote: string): string | undefined;
  /** Loads the embedding model (src/model/embedder.ts). */
  loadEmbedder(dir?: string): Promise<Embedder>;
  /** Other `definitions` commands, by name (each gets the arguments after its name). */
  commands?: Record<string, (argv: string[]) => Promise<number>>;
  out?: (text: string) => void;
  err?: (text: string) => void;
}

/** The nearest folder above `from` with a package.json: the package this module runs from. */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

function gitValue(dir: string, args: string[]): string {
  try {
    return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** A git repository: a work tree's root or a bare repository. */
function isGit(dir: string): boolean {
  return existsSync(join(dir, '.git')) || (existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects')));
}

/** What Zoekt's indexer names the repository (zoekt-git-index: zoekt.name, the origin, the folder; zoekt-index: the folder). */
export function zoektName(dir: string, git: boolean, nameFromOrigin: (remote: string) => string | undefined): string {
  const folder = basename(dir).replace(/\.git$/, '');
  if (!git) return basename(dir);
  return gitValue(dir, ['config', 'zoekt.name']) || nameFromOrigin(gitValue(dir, ['config', 'remote.origin.url'])) || folder;
}

class UsageError extends Error {}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Runs `zoekt-mcp definitions ARGS`; resolves to the exit status. */
export async function definitionsMain(argv: string[], deps: DefinitionsCommandDeps): Promise<number> {
  const out = deps.out ?? ((t) => process.stdout.write(t));
  const err = deps.err ?? ((t) => process.stderr.write(t));
  if (argv[0] === '--help' || argv[0] === 'help' || argv.length === 0) {
    (argv.length === 0 ? err : out)(DEFINITIONS_HELP);
    return argv.length === 0 ? 2 : 0;
  }
  const other = deps.commands?.[argv[0]!];
  if (other) return other(argv.slice(1));
  if (argv[0] !== 'build') {
    err(`zoekt-mcp definitions: unknown command '${argv[0]}'\nhint: zoekt-mcp definitions build --repo PATH --out DIR${deps.commands ? `, or ${Object.keys(deps.commands).join(', ')}` : ''} (see zoekt-mcp definitions --help)\n`);
    return 2;
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: argv.slice(1),
      options: {
        repo: { type: 'string' },
        out: { type: 'string' },
        name: { type: 'string' },
        commit: { type: 'string' },
        model: { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help) {
      out(DEFINITIONS_HELP);
      return 0;
    }
    if (!values.repo) throw new UsageError('--repo PATH is required');
    if (!values.out) throw new UsageError('--out DIR is required');
    if (values.name === '') throw new UsageError('--name must not be empty');
  } catch (e) {
    err(`zoekt-mcp definitions build: ${(e as Error).message}\nhint: zoekt-mcp definitions build --repo PATH --out DIR [--name NAME] [--commit REV] (see --help)\n`);
    return 2;
  }
  const dir = resolve(values.repo);
  if (!existsSync(dir)) {
    err(`zoekt-mcp definitions build: ${dir}: no such folder\nhint: --repo names the repository Zoekt indexed\n`);
    return 2;
  }
  const git = isGit(dir);
  if (values.commit && !git) {
    err(`zoekt-mcp definitions build: --commit ${values.commit}: ${dir} is not a git repository\nhint: leave --commit out for a plain folder\n`);
    return 2;
  }
  const say = values.quiet ? () => undefined : (m: string) => err(`definitions: ${m}\n`);
  const repo = values.name ?? zoektName(dir, git, deps.nameFromOrigin);
  const root = packageRoot(dirname(fileURLToPath(import.meta.url)));
  const workerFile = join(root, 'dist/extractor/worker.js');
  if (!existsSync(workerFile)) {
    err(`zoekt-mcp definitions build: the symbol extractor is not built (${workerFile})\nhint: run npm run build in the checkout\n`);
    return 1;
  }
  const packagedCtags = join(root, 'zoekt-config/universal-ctags');
  const ctags = process.env.ZOEKT_MCP_UNIVERSAL_CTAGS || (existsSync(packagedCtags) ? packagedCtags : 'universal-ctags');
  let source: Source | undefined;
  let tagger: ReturnType<typeof openTagger> | undefined;
  try {
    const embedder = await deps.loadEmbedder(values.model ? resolve(values.model) : undefined);
    if (git) await resolveCommit(dir, values.commit ?? 'HEAD');
    source = git ? await gitSource(dir, values.commit ?? 'HEAD') : folderSource(dir);
    say(`${repo}: ${source.files.length} files at ${source.generation.slice(0, 12)} (${git ? 'git' : 'folder'})`);
    tagger = openTagger(pathToFileURL(workerFile), ctags);
    // Interrupted, the build stops between files and the manifest says it failed (not building for ever).
    const stop = new AbortController();
    const interrupt = (signal: string) => stop.abort(new DefinitionsIndexError(`interrupted by ${signal}`, 'run the build again'));
    process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
    const report = await buildRecorded({ out: resolve(values.out), repo, source, embedder, tagger, log: say, signal: stop.signal }).finally(() => {
      process.off('SIGINT', interrupt).off('SIGTERM', interrupt);
    });
    const e = report.entry;
    out(
      `${repo}@${e.generation.slice(0, 12)}: ${e.definitions} definitions (${e.documented} documented) of ${e.extracted} tags in ${e.files} files` +
        (report.unchanged
          ? '; already current\n'
          : `; ${report.extractedFiles} files extracted, ${report.reusedFiles} reused, ${e.skipped_files} skipped; ${report.embedded} embedded; ` +
            `${seconds(report.ms.total)} s (extract ${seconds(report.ms.extract)}, embed ${seconds(report.ms.embed)}, write ${seconds(report.ms.write)})\n`),
    );
    return 0;
  } catch (e) {
    const hint = e instanceof DefinitionsIndexError ? e.hint : undefined;
    err(`zoekt-mcp definitions build: ${(e as Error).message}\n${hint ? `hint: ${hint}\n` : ''}`);
    return 1;
  } finally {
    source?.close();
    await tagger?.close();
  }
}
