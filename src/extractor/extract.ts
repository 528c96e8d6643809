/**
 * One file through tree-sitter: parse it with its grammar and walk the tree with its language's
 * rules. Where the grammar could not make sense of the text (ERROR nodes), the lines it gave up
 * on are reported, so that Universal Ctags' tags can fill them in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { type Grammar, type GrammarId } from './languages.js';
import { extractC } from './lang/c.js';
import { extractCSharp } from './lang/csharp.js';
import { extractGo } from './lang/go.js';
import { extractJava } from './lang/java.js';
import { extractPython } from './lang/python.js';
import { extractRust } from './lang/rust.js';
import { extractTypeScript } from './lang/typescript.js';
import { TagSink, type Tag } from './tags.js';

const WALKERS: Record<GrammarId, { walk: (root: Node, sink: TagSink) => void; separator: string }> = {
  typescript: { walk: extractTypeScript, separator: '.' },
  tsx: { walk: extractTypeScript, separator: '.' },
  javascript: { walk: extractTypeScript, separator: '.' },
  python: { walk: extractPython, separator: '.' },
  go: { walk: extractGo, separator: '.' },
  rust: { walk: extractRust, separator: '::' },
  java: { walk: extractJava, separator: '.' },
  c: { walk: extractC, separator: '::' },
  cpp: { walk: extractC, separator: '::' },
  csharp: { walk: extractCSharp, separator: '.' },
};

export interface Extraction {
  tags: Tag[];
  /** 1-based first and last lines of the regions the grammar could not parse. */
  errorLines: [number, number][];
}

/**
 * Where a grammar's WebAssembly file is: copied next to the build (dist/grammars/, what the
 * package ships), else in the grammar's npm package (a checkout running from its sources).
 */
export function grammarFile(g: Grammar): string {
  const built = join(dirname(fileURLToPath(import.meta.url)), '../grammars', g.wasm);
  if (existsSync(built)) return built;
  return join(dirname(createRequire(import.meta.url).resolve(`${g.package}/package.json`)), g.wasm);
}

let initialized: Promise<void> | undefined;
const languages = new Map<GrammarId, Promise<Language>>();

async function languageOf(g: Grammar): Promise<Language> {
  initialized ??= Parser.init();
  await initialized;
  let loading = languages.get(g.id);
  if (!loading) languages.set(g.id, (loading = Language.load(readFileSync(grammarFile(g)))));
  return loading;
}

/** A parser per grammar, reused across files. */
const parsers = new Map<GrammarId, Parser>();

/** Parses `source` and returns its definitions; throws when the parse outlives `timeoutMs`. */
export async function extract(g: Grammar, source: string, timeoutMs: number): Promise<Extraction> {
  const language = await languageOf(g);
  let parser = parsers.get(g.id);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(language);
    parsers.set(g.id, parser);
  }
  const deadline = performance.now() + timeoutMs;
  const tree = parser.parse(source, null, { progressCallback: () => performance.now() > deadline });
  if (!tree) {
    parser.reset();
    throw new Error(`parsing took longer than ${timeoutMs} ms`);
  }
  try {
    const root = tree.rootNode;
    const { walk, separator } = WALKERS[g.id];
    const sink = new TagSink(separator);
    walk(root, sink);
    const errorLines: [number, number][] = root.hasError ? root.descendantsOfType('ERROR').map((n) => [n.startPosition.row + 1, n.endPosition.row + 1]) : [];
    return { tags: sink.tags, errorLines };
  } finally {
    tree.delete();
  }
}
