/**
 * The layers of src/ import only downwards. Every import of every file (static, `export … from`,
 * dynamic `import()`, and `import('…')` types) is read with the TypeScript parser and checked
 * against the rules below; a broken rule fails naming the file, the line, the import and the rule.
 *
 *   src/zoekt/      Zoekt's wire format and HTTP client
 *   src/search/     what the tools mean, for any caller (over vocab/, engine/, definitions/)
 *   src/tools/      one file per MCP tool
 *   src/server/     MCP: dispatch, stdio, HTTP
 *   src/local/      the local serve command and its supervisor (tools and server/ read its state
 *                   through search/vocab/local-index.ts, never its modules)
 *   src/extractor/  the symbol extractor Zoekt's indexer runs (scip-ctags), a program of its own
 *   src/model/      the embedding model: its table and tokenizer read into vectors
 *   src/definitions-index/  the definitions index (texts, vectors, full text, its store and engines)
 *                   behind the port search/definitions/definitions-index.ts; builds with the extractor
 *   entry           the programs and their wiring: cli.ts, serve-cli.ts, main.ts, runtime.ts
 *   base            what every layer may use: config.ts, log.ts, errors.ts, deadline.ts, version.ts,
 *                   heap.ts, metrics.ts, cjs.ts, and src/patterns/ (the syntax config.ts parses)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

type Layer = 'zoekt' | 'search' | 'tools' | 'server' | 'local' | 'extractor' | 'model' | 'definitions-index' | 'entry' | 'base';
const LAYERS: Layer[] = ['zoekt', 'search', 'tools', 'server', 'local', 'extractor', 'model', 'definitions-index', 'entry', 'base'];

/** The top-level files that start a program or wire its layers together; every other one is base. */
const ENTRY = ['cli.ts', 'serve-cli.ts', 'main.ts', 'runtime.ts'];
/** Folders of the base layer. */
const BASE_FOLDERS = ['patterns'];

interface Rule {
  /** The layers the rule applies to. */
  from: Layer[];
  /** Layers (`layer:tools`) or packages (a name, or a prefix ending in `/`) they may not import. */
  forbid: string[];
  why: string;
}

const MCP = '@modelcontextprotocol/';
const HTTP = ['node:http', 'node:https', 'node:http2', 'node:net', 'undici', '@modelcontextprotocol/node', '@modelcontextprotocol/server-legacy/'];

const RULES: Rule[] = [
  {
    from: ['base'],
    forbid: ['layer:zoekt', 'layer:search', 'layer:tools', 'layer:server', 'layer:local', 'layer:extractor', 'layer:model', 'layer:definitions-index', 'layer:entry'],
    why: 'the base layer (config, log, errors, patterns, …) is used by every layer and imports none of them',
  },
  {
    from: ['zoekt', 'search', 'tools', 'server', 'local', 'extractor', 'model', 'definitions-index', 'base'],
    forbid: ['layer:entry'],
    why: 'only the entries (cli.ts, serve-cli.ts, main.ts, runtime.ts) wire the layers: no layer imports them; a layer declares what it needs (an interface) and the wiring passes it in',
  },
  {
    from: ['zoekt'],
    forbid: ['layer:search', 'layer:tools', 'layer:server', 'layer:local', 'layer:extractor', MCP],
    why: 'zoekt/ knows no MCP: it speaks to Zoekt and hands back plain types',
  },
  {
    from: ['search'],
    forbid: ['layer:tools', 'layer:server', 'layer:local', 'layer:extractor', 'layer:model', 'layer:definitions-index', MCP, ...HTTP],
    why: 'search/ knows no transport and no engine: it is what the tools mean, whoever calls them; it asks a definitions index through its port',
  },
  {
    from: ['model'],
    forbid: ['layer:zoekt', 'layer:search', 'layer:tools', 'layer:server', 'layer:local', 'layer:extractor', 'layer:definitions-index', MCP, ...HTTP],
    why: 'model/ turns text into vectors and knows nothing of what they are for',
  },
  {
    from: ['definitions-index'],
    forbid: ['layer:zoekt', 'layer:tools', 'layer:server', 'layer:local', MCP, 'node:http', 'node:https', 'node:http2', '@modelcontextprotocol/node', '@modelcontextprotocol/server-legacy/'],
    why: 'the definitions index is a room beside zoekt/: it builds with the extractor, embeds with model/, serves search/ through its port, and speaks only to its own engine',
  },
  {
    from: ['tools'],
    forbid: ['layer:server', 'layer:extractor', ...HTTP],
    why: 'tools/ know no HTTP: a tool is the same over stdio and HTTP',
  },
  {
    from: ['extractor'],
    forbid: ['layer:zoekt', 'layer:search', 'layer:tools', 'layer:server', 'layer:local', 'layer:model', 'layer:definitions-index', MCP, 'undici'],
    why: 'extractor/ is a program Zoekt\'s indexer runs; it shares nothing with the server but helpers',
  },
  {
    from: ['zoekt', 'search', 'local', 'extractor', 'model', 'definitions-index', 'entry', 'base'],
    forbid: [MCP],
    why: 'only tools/ and server/ know the MCP SDK',
  },
  {
    from: ['search', 'tools', 'server', 'local', 'extractor', 'model', 'entry', 'base'],
    forbid: ['undici'],
    why: 'only zoekt/ (to Zoekt) and definitions-index/ (to its engine) make HTTP requests',
  },
  {
    from: ['zoekt', 'search', 'local', 'extractor', 'model', 'definitions-index', 'base'],
    forbid: ['layer:tools'],
    why: 'the tool list is wired in by server/ and the top level only',
  },
  {
    from: ['zoekt', 'search', 'tools', 'local', 'extractor', 'model', 'definitions-index', 'base'],
    forbid: ['layer:server'],
    why: 'server/ is the outermost layer: only the top-level wiring starts it',
  },
  {
    from: ['tools', 'server'],
    forbid: ['layer:local'],
    why: "tools and server/ know the local index only as search/vocab/local-index.ts describes it: the supervisor's messages are local/'s own",
  },
];

interface Import {
  file: string;
  line: number;
  specifier: string;
}

/** Every module a source file imports, with the line it is named on. */
function importsOf(file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (node: ts.Node, literal: ts.Node | undefined) => {
    if (literal && ts.isStringLiteralLike(literal)) {
      found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, specifier: literal.text });
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node, node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node, node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The layer of a path under src/ (`tools/define.ts` → tools, `main.ts` → entry, `config.ts` → base). */
function layerOf(pathInSrc: string): Layer {
  const first = pathInSrc.split('/')[0]!;
  // Files are named as imports name them (`main.js`) or as they are (`main.ts`).
  if (!pathInSrc.includes('/')) return ENTRY.includes(pathInSrc.replace(/\.js$/, '.ts')) ? 'entry' : 'base';
  if (BASE_FOLDERS.includes(first)) return 'base';
  if ((LAYERS as string[]).includes(first) && first !== 'entry' && first !== 'base') return first as Layer;
  throw new Error(`src/${pathInSrc}: a folder of no layer; name it in LAYERS or BASE_FOLDERS of test/unit/layers.test.ts`);
}

/** What an import names, as the rules spell it: `layer:search`, or the package (`http` read as `node:http`). */
function target(fileInSrc: string, specifier: string): string {
  if (specifier.startsWith('.')) return `layer:${layerOf(posix.normalize(posix.join(posix.dirname(fileInSrc), specifier)))}`;
  return builtinModules.includes(specifier) ? `node:${specifier}` : specifier;
}

function matches(forbidden: string, name: string): boolean {
  return forbidden.endsWith('/') ? name.startsWith(forbidden) || name === forbidden.slice(0, -1) : name === forbidden || name.startsWith(`${forbidden}/`);
}

/** The rules an import breaks, as messages naming file, line, import and rule. */
function violations(imports: Import[]): string[] {
  const out: string[] = [];
  for (const imp of imports) {
    const from = layerOf(imp.file);
    const name = target(imp.file, imp.specifier);
    for (const rule of RULES) {
      if (!rule.from.includes(from)) continue;
      const hit = rule.forbid.find((f) => matches(f, name));
      if (hit) out.push(`src/${imp.file}:${imp.line} imports '${imp.specifier}' (${name}): ${rule.why}`);
    }
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('layers of src/', () => {
  const files = sourceFiles(SRC).map((f) => relative(SRC, f).split('\\').join('/'));
  const imports = files.flatMap((f) => importsOf(f, readFileSync(join(SRC, f), 'utf8')));

  it('every layer has files, and every file is read', () => {
    for (const layer of LAYERS) expect(files.some((f) => layerOf(f) === layer), layer).toBe(true);
    expect(imports.length).toBeGreaterThan(300);
    // Each folder's files name its modules the way the rules expect: relative, with .js.
    for (const imp of imports) if (imp.specifier.startsWith('.')) expect(imp.specifier, `src/${imp.file}:${imp.line}`).toMatch(/\.js$/);
  });

  it('import only what their rules allow', () => {
    expect(violations(imports)).toEqual([]);
  });

  it('a forbidden import is found in each form it can take, and named with its rule', () => {
    const text = [
      "import { request } from 'node:http';",
      "import type { Server } from '../server/http.js';",
      "export { TOOLS } from '../tools/index.js';",
      "const m = await import('@modelcontextprotocol/server');",
      "type U = typeof import('undici');",
      "import { x } from './ok.js';",
    ].join('\n');
    const found = violations(importsOf('search/example.ts', text));
    expect(found).toEqual([
      "src/search/example.ts:1 imports 'node:http' (node:http): search/ knows no transport and no engine: it is what the tools mean, whoever calls them; it asks a definitions index through its port",
      "src/search/example.ts:2 imports '../server/http.js' (layer:server): search/ knows no transport and no engine: it is what the tools mean, whoever calls them; it asks a definitions index through its port",
      "src/search/example.ts:2 imports '../server/http.js' (layer:server): server/ is the outermost layer: only the top-level wiring starts it",
      "src/search/example.ts:3 imports '../tools/index.js' (layer:tools): search/ knows no transport and no engine: it is what the tools mean, whoever calls them; it asks a definitions index through its port",
      "src/search/example.ts:3 imports '../tools/index.js' (layer:tools): the tool list is wired in by server/ and the top level only",
      "src/search/example.ts:4 imports '@modelcontextprotocol/server' (@modelcontextprotocol/server): search/ knows no transport and no engine: it is what the tools mean, whoever calls them; it asks a definitions index through its port",
      "src/search/example.ts:4 imports '@modelcontextprotocol/server' (@modelcontextprotocol/server): only tools/ and server/ know the MCP SDK",
      "src/search/example.ts:5 imports 'undici' (undici): search/ knows no transport and no engine: it is what the tools mean, whoever calls them; it asks a definitions index through its port",
      "src/search/example.ts:5 imports 'undici' (undici): only zoekt/ (to Zoekt) and definitions-index/ (to its engine) make HTTP requests",
    ]);
    expect(violations(importsOf('zoekt/example.ts', "import type { CallToolResult } from '@modelcontextprotocol/server';"))[0]).toContain('zoekt/ knows no MCP');
    expect(violations(importsOf('tools/example.ts', "import { createServer } from 'http';"))[0]).toContain('tools/ know no HTTP');
    expect(violations(importsOf('tools/example.ts', "import type { CallToolResult } from '@modelcontextprotocol/server';"))).toEqual([]);
    // The wiring imports only downwards: each edge that once ran back up is named.
    expect(violations(importsOf('config.ts', "import { hostAllowed } from './server/hosts.js';"))[0]).toContain('the base layer (config, log, errors, patterns, …) is used by every layer');
    expect(violations(importsOf('config.ts', "import { pathGlobToRegex } from './search/files.js';"))[0]).toContain('the base layer');
    expect(violations(importsOf('patterns/globs.ts', "import type { Runtime } from '../runtime.js';"))[0]).toContain('the base layer');
    expect(violations(importsOf('local/serve.ts', "const m = await import('../main.js');"))[0]).toContain('only the entries (cli.ts, serve-cli.ts, main.ts, runtime.ts) wire the layers');
    expect(violations(importsOf('local/serve.ts', "import type { LocalStatusSource } from '../runtime.js';"))[0]).toContain('only the entries');
    expect(violations(importsOf('server/http/serve.ts', "import type { Runtime } from '../../runtime.js';"))[0]).toContain('only the entries');
    expect(violations(importsOf('tools/freshness.ts', "import type { SupervisorStatus } from '../local/status.js';"))[0]).toContain('know the local index only as search/vocab/local-index.ts describes it');
    expect(violations(importsOf('server/dispatch.ts', "import { describeRepo } from '../local/status.js';"))[0]).toContain('know the local index only');
    expect(violations(importsOf('local/status.ts', "import type { LocalIndex } from '../search/vocab/local-index.js';"))).toEqual([]);
    expect(violations(importsOf('main.ts', "import type { StdioHost } from './server/stdio.js';"))).toEqual([]);
    expect(violations(importsOf('serve-cli.ts', "import { serveMain } from './local/serve.js';"))).toEqual([]);
  });
});
