/**
 * `zoekt-mcp definitions push`: a definitions index built on disk (zoekt-mcp definitions build)
 * put into a Weaviate server, where every replica of a deployment searches it
 * (--definitions-url). The Helm indexer runs it after each build.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ToolError } from '../errors.js';
import { DefinitionsIndexError } from './format.js';
import { DEFAULT_GRACE_MS, pushDefinitions } from './weaviate-push.js';
import { DEFAULT_COLLECTION } from './weaviate-schema.js';

export const PUSH_HELP = `zoekt-mcp definitions push: put a definitions index into a Weaviate server

  zoekt-mcp definitions push --from DIR --weaviate URL [--collection NAME] [--grace-ms N] [--force] [--quiet]

Sends the repositories of the definitions index in DIR (built by zoekt-mcp definitions build)
whose generation the server does not hold yet, with their vectors. Each repository's new
generation is searched only once all of it is in; the earlier one is deleted after --grace-ms.
Point the servers at it with --definitions-url URL (ZOEKT_MCP_DEFINITIONS_URL).

  --from DIR         the definitions index folder (definitions build --out DIR)
  --weaviate URL     the Weaviate server (default: ZOEKT_MCP_DEFINITIONS_URL)
  --collection NAME  the Weaviate class of the index (default ${DEFAULT_COLLECTION})
  --grace-ms N       how long an earlier generation stays after the switch, for searches under
                     way (default ${DEFAULT_GRACE_MS})
  --force            send every repository, changed or not
  --quiet            no progress on stderr, only the summary on stdout

Exit status: 0 pushed (or nothing changed), 1 a repository failed or the server is unreachable,
2 wrong arguments.
`;

export interface PushCommandIo {
  out?: (text: string) => void;
  err?: (text: string) => void;
}

export async function pushMain(argv: string[], env: NodeJS.ProcessEnv, io: PushCommandIo = {}): Promise<number> {
  const out = io.out ?? ((t) => process.stdout.write(t));
  const err = io.err ?? ((t) => process.stderr.write(t));
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        from: { type: 'string' },
        weaviate: { type: 'string' },
        collection: { type: 'string' },
        'grace-ms': { type: 'string' },
        force: { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    err(`zoekt-mcp definitions push: ${(e as Error).message}\nhint: zoekt-mcp definitions push --from DIR --weaviate URL (see --help)\n`);
    return 2;
  }
  if (values.help) {
    out(PUSH_HELP);
    return 0;
  }
  const url = values.weaviate ?? env.ZOEKT_MCP_DEFINITIONS_URL;
  const usage = (why: string) => {
    err(`zoekt-mcp definitions push: ${why}\nhint: zoekt-mcp definitions push --from DIR --weaviate URL (see --help)\n`);
    return 2;
  };
  if (!values.from) return usage('--from DIR is required');
  if (!url) return usage('--weaviate URL (or ZOEKT_MCP_DEFINITIONS_URL) is required');
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
  } catch {
    return usage(`--weaviate ${url} is not an http(s) URL`);
  }
  const grace = values['grace-ms'] === undefined ? DEFAULT_GRACE_MS : Number(values['grace-ms']);
  if (!Number.isInteger(grace) || grace < 0) return usage(`--grace-ms ${values['grace-ms']} is not a whole number of milliseconds`);
  const say = values.quiet ? undefined : (m: string) => err(`definitions push: ${m}\n`);
  try {
    const report = await pushDefinitions(resolve(values.from), {
      url,
      graceMs: grace,
      ...(values.collection ? { collection: values.collection } : {}),
      ...(values.force ? { force: true } : {}),
      ...(say ? { progress: say } : {}),
    });
    const defs = report.pushed.reduce((n, p) => n + p.definitions, 0);
    out(
      `${report.pushed.length} repositories pushed (${defs} definitions), ${report.unchanged.length} unchanged, ${report.failed.length} failed; ${report.deleted} objects of earlier generations deleted\n` +
        report.failed.map((f) => `  ${f.repo}: ${f.error}\n`).join(''),
    );
    return report.failed.length ? 1 : 0;
  } catch (e) {
    const hint = e instanceof DefinitionsIndexError || e instanceof ToolError ? e.hint : undefined;
    err(`zoekt-mcp definitions push: ${(e as Error).message}\n${hint ? `hint: ${hint}\n` : ''}`);
    return e instanceof Error && /cannot name a Weaviate class/.test(e.message) ? 2 : 1;
  }
}
