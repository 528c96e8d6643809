// The programs that run (the server, the serve command, the local supervisor, the symbol
// extractor and its worker) as bundles in dist/: one file each plus shared chunks, instead of
// hundreds of modules resolved and read one by one at every start. The rest of dist/ stays as
// scripts/compile.mjs wrote it (the docs generator and tests import single modules from it).
// The extractor's grammars are copied to dist/grammars/: the package ships them, not the grammar
// packages (each of which carries sources and native builds for six platforms).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const root = join(import.meta.dirname, '..');

// tools/list as the server answers it, for servers to read at start (src/server/catalog.ts),
// from tsc's output of the same sources. Its hash is compiled into the bundles: a bundle reads
// only the list of its own build, and the stdio server answers from it without loading the tools.
const { TOOLS } = await import(join(root, 'dist/tools/index.js'));
const { describeTools } = await import(join(root, 'dist/server/catalog.js'));
const { VERSION } = await import(join(root, 'dist/version.js'));
const tools = describeTools(TOOLS);
const id = createHash('sha256').update(JSON.stringify({ version: VERSION, tools })).digest('base64url').slice(0, 16);

// What the SDK's own stdio server answers to a client's first requests (initialize in each
// protocol version it supports, then tools/list), recorded from this build's server factory and
// compiled into the bundles: the stdio server gives these answers before loading the SDK
// (src/server/stdio-prelude.ts).
const stdioAnswers = await recordStdioAnswers();

async function recordStdioAnswers() {
  const { serverFactory } = await import(join(root, 'dist/server/factory.js'));
  const { silentLogger } = await import(join(root, 'dist/log.js'));
  const { SUPPORTED_PROTOCOL_VERSIONS } = await import('@modelcontextprotocol/server');
  const { serveStdio, StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const { PassThrough, Writable } = await import('node:stream');
  const host = { catalog: { list: { tools } }, dispatcher: { call: () => Promise.reject(new Error('not called')) }, log: silentLogger };
  const answers = { initialize: {}, toolsList: undefined };
  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    const input = new PassThrough();
    const responses = [];
    let arrived = () => undefined;
    const output = new Writable({
      write(chunk, _encoding, callback) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) responses.push(JSON.parse(line));
        if (responses.length === 2) arrived();
        callback();
      },
    });
    const both = new Promise((resolve) => (arrived = resolve));
    const handle = serveStdio(serverFactory(host), { transport: new StdioServerTransport(input, output) });
    const send = (m) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'bundle', version: '0' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    await both;
    await handle.close();
    const [init, list] = responses;
    if (init.id !== 1 || !init.result || list.id !== 2 || !list.result) throw new Error(`bundle: the SDK's stdio server answered ${JSON.stringify(responses).slice(0, 300)}`);
    answers.initialize[version] = init;
    answers.toolsList = list;
  }
  return answers;
}

// The sources import zod as `import { z } from 'zod'`. Through that binding esbuild cannot tell
// which of zod's exports are used and keeps them all (its locales, JSON Schema conversions both
// ways), and as the MCP SDK reaches the same modules, all of it loads before the first answer.
// Read as `import * as z from 'zod'` (the same exports, one namespace up) the uses resolve at
// build time and only they are bundled: half a megabyte less to load at start (bench/README.md,
// "Start-up"). The sources themselves are not changed: this is how they are bundled.
const src = join(root, 'src');
const zodNamespace = {
  name: 'zod-namespace',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, ({ path }) => {
      if (!path.startsWith(src)) return undefined;
      return { contents: readFileSync(path, 'utf8').replace(/^import \{ z \} from 'zod';$/m, "import * as z from 'zod';"), loader: 'ts' };
    });
  },
};

// The extractor's tag rules (src/extractor/queries/*.scm, one per language), compiled into its
// bundle as text: it reads them there, and from the sources when it runs unbundled.
const queryDir = join(src, 'extractor/queries');
const queries = Object.fromEntries(readdirSync(queryDir).filter((f) => f.endsWith('.scm')).map((f) => [f.slice(0, -'.scm'.length), readFileSync(join(queryDir, f), 'utf8')]));

const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts', 'src/serve-cli.ts', 'src/local/supervisor.ts', 'src/extractor/main.ts', 'src/extractor/client.ts', 'src/extractor/worker.ts'],
  // It finds its own WebAssembly next to its module, so it stays a package of its own.
  external: ['web-tree-sitter'],
  outbase: 'src',
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // CommonJS packages bundled into ES modules call require() for Node's own modules.
  banner: { js: "import { createRequire as __zoektMcpRequire } from 'node:module'; const require = __zoektMcpRequire(import.meta.url);" },
  define: { ZOEKT_MCP_TOOLS_LIST_ID: JSON.stringify(id), ZOEKT_MCP_QUERIES: JSON.stringify(queries), ZOEKT_MCP_STDIO_ANSWERS: JSON.stringify(stdioAnswers) },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [zodNamespace],
});
// A use of the namespace as a value (not `z.something`) brings all of zod back: say so.
const bundled = Object.values(result.metafile.outputs).flatMap((o) => Object.entries(o.inputs).filter(([, i]) => i.bytesInOutput > 0).map(([f]) => f));
const wholeZod = bundled.find((f) => /node_modules\/zod\/v4\/locales\/[a-z]{2}\.js$/.test(f) && !f.endsWith('/en.js'));
if (wholeZod) console.warn(`bundle: all of zod is bundled (${wholeZod} among it); the servers load it at start`);

// Chunks of earlier builds stay a day: a server started before this build still loads its lazy
// chunks (the HTTP stack, undici) by their old names.
const current = new Set(Object.keys(result.metafile.outputs).map((f) => join(root, f)));
const chunks = join(root, 'dist/chunks');
for (const name of readdirSync(chunks)) {
  const file = join(chunks, name);
  if (!current.has(file) && Date.now() - statSync(file).mtimeMs > 24 * 3600 * 1000) rmSync(file, { force: true });
}

// What Zoekt's indexers ask the extractor before indexing (the language map; --help of the ctags
// slot, for +interactive), as files: zoekt-config/scip-ctags answers from them without starting
// Node, once per index build. Written by the bundled extractor itself, so they cannot disagree.
for (const ask of ['--help', '--language-map']) {
  writeFileSync(join(root, 'dist/extractor', ask.slice(2)), execFileSync(process.execPath, [join(root, 'dist/extractor/main.js'), ask]));
}

writeFileSync(join(root, 'dist/tools-list.json'), `${JSON.stringify({ version: VERSION, id, tools })}\n`);

const { GRAMMARS } = await import(join(root, 'dist/extractor/languages.js'));
const require = createRequire(import.meta.url);
mkdirSync(join(root, 'dist/grammars'), { recursive: true });
for (const g of GRAMMARS) {
  const to = join(root, 'dist/grammars', g.wasm);
  // A grammar without a package is built from sources (scripts/build-grammar.sh) and kept gzipped.
  if (g.package) copyFileSync(join(dirname(require.resolve(`${g.package}/package.json`)), g.wasm), to);
  else writeFileSync(to, gunzipSync(readFileSync(join(root, 'src/extractor/grammars', `${g.wasm}.gz`))));
}

// The embedding model of description search (scripts/setup.sh model installs it, with its license
// and notice) goes to dist/model/, where the server loads it from (src/model/embedder.ts): the
// package and the container image carry it, and nothing downloads it at run time. npm ci builds
// before the set-up installs it; the set-up's build step then builds again. A package made
// without it would be missing a part, so npm pack and npm publish refuse.
const modelFrom = join(process.env.ZOEKT_MCP_TOOLS_DIR || join(root, '.tools'), 'model/potion-base-8M');
const modelTo = join(root, 'dist/model/potion-base-8M');
const stamp = (dir) => (existsSync(join(dir, '.installed')) ? readFileSync(join(dir, '.installed'), 'utf8') : undefined);
if (stamp(modelFrom) === undefined) {
  const message = `the embedding model is not installed (${modelFrom}): run \`bash scripts/setup.sh model\``;
  if (['pack', 'publish'].includes(process.env.npm_command ?? '')) throw new Error(`bundle: ${message}; the package would ship without it`);
  if (stamp(modelTo) === undefined) console.warn(`bundle: ${message}; dist/ is built without it and description search cannot embed`);
} else if (stamp(modelFrom) !== stamp(modelTo)) {
  rmSync(modelTo, { recursive: true, force: true });
  // The stamp last: a copy cut short is copied again at the next build.
  cpSync(modelFrom, modelTo, { recursive: true, filter: (f) => !f.endsWith('/.installed') });
  copyFileSync(join(modelFrom, '.installed'), join(modelTo, '.installed'));
}

// The mark of a complete build, last: scripts/setup.sh and scripts/serve.sh build again only when a
// source is newer than it, so a build made with `npm run build` is not made again at `npm test`.
writeFileSync(join(root, 'dist/.built'), '');
