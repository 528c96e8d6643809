/**
 * The languages the extractor parses with tree-sitter, and how it tells which one a file is in.
 * Zoekt's indexer hands the extractor a file's base name and bytes, never the language it
 * detected, so the grammar is chosen here: by extension, else by the `#!` line of a script.
 * Single-file components (.vue, .svelte, .astro) are parsed with the TypeScript or JavaScript
 * grammar, their code only (components.ts). Everything else goes to Universal Ctags.
 */
import { COMPONENTS, type Component, type ComponentId } from './components.js';

export type GrammarId = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java' | 'c' | 'cpp' | 'csharp' | 'ruby' | 'php' | 'kotlin' | 'swift';

export interface Grammar {
  id: GrammarId;
  /** The Linguist name Zoekt gives files of this language. */
  language: string;
  /**
   * The npm package that ships the grammar as WebAssembly, and the file in it; without a package,
   * the file is built from a package's sources (scripts/build-grammar.sh) and kept gzipped in
   * src/extractor/grammars/.
   */
  package?: string;
  wasm: string;
  /**
   * Zoekt's keys for these files in its language map (cmd/zoekt-git-index -language_map): the
   * Linguist names, lower-cased, with `c#` spelled `c_sharp` (index/ctags.go normalizeLanguage).
   */
  zoektKeys: string[];
  extensions: string[];
}

export const GRAMMARS: readonly Grammar[] = [
  { id: 'typescript', language: 'TypeScript', package: 'tree-sitter-typescript', wasm: 'tree-sitter-typescript.wasm', zoektKeys: ['typescript'], extensions: ['.ts', '.mts', '.cts'] },
  { id: 'tsx', language: 'TSX', package: 'tree-sitter-typescript', wasm: 'tree-sitter-tsx.wasm', zoektKeys: ['tsx'], extensions: ['.tsx'] },
  // JSX is JavaScript to Linguist, and the JavaScript grammar parses it.
  { id: 'javascript', language: 'JavaScript', package: 'tree-sitter-javascript', wasm: 'tree-sitter-javascript.wasm', zoektKeys: ['javascript'], extensions: ['.js', '.mjs', '.cjs', '.jsx', '.es', '.es6', '.jsm'] },
  { id: 'python', language: 'Python', package: 'tree-sitter-python', wasm: 'tree-sitter-python.wasm', zoektKeys: ['python'], extensions: ['.py', '.pyi', '.pyw', '.py3', '.gyp', '.gypi', '.wsgi', '.tac'] },
  { id: 'go', language: 'Go', package: 'tree-sitter-go', wasm: 'tree-sitter-go.wasm', zoektKeys: ['go'], extensions: ['.go'] },
  { id: 'rust', language: 'Rust', package: 'tree-sitter-rust', wasm: 'tree-sitter-rust.wasm', zoektKeys: ['rust'], extensions: ['.rs'] },
  { id: 'java', language: 'Java', package: 'tree-sitter-java', wasm: 'tree-sitter-java.wasm', zoektKeys: ['java'], extensions: ['.java'] },
  { id: 'c', language: 'C', package: 'tree-sitter-c', wasm: 'tree-sitter-c.wasm', zoektKeys: ['c'], extensions: ['.c', '.cats', '.idc'] },
  // Headers (.h) are parsed as C++: its grammar reads C headers too, and Linguist cannot always tell.
  {
    id: 'cpp',
    language: 'C++',
    package: 'tree-sitter-cpp',
    wasm: 'tree-sitter-cpp.wasm',
    zoektKeys: ['c++'],
    extensions: ['.cpp', '.cc', '.cxx', '.c++', '.cp', '.cppm', '.h', '.hh', '.hpp', '.hxx', '.h++', '.inl', '.ipp', '.ixx', '.tcc', '.tpp', '.txx', '.ino'],
  },
  { id: 'csharp', language: 'C#', package: 'tree-sitter-c-sharp', wasm: 'tree-sitter-c_sharp.wasm', zoektKeys: ['c_sharp'], extensions: ['.cs', '.csx', '.cake'] },
  { id: 'ruby', language: 'Ruby', package: 'tree-sitter-ruby', wasm: 'tree-sitter-ruby.wasm', zoektKeys: ['ruby'], extensions: ['.rb', '.rake', '.gemspec', '.ru', '.rbw', '.podspec', '.thor', '.jbuilder'] },
  // The grammar that reads PHP inside HTML (tree-sitter-php_only.wasm reads PHP alone).
  { id: 'php', language: 'PHP', package: 'tree-sitter-php', wasm: 'tree-sitter-php.wasm', zoektKeys: ['php'], extensions: ['.php', '.phtml', '.php3', '.php4', '.php5', '.phps', '.phpt'] },
  { id: 'kotlin', language: 'Kotlin', package: '@tree-sitter-grammars/tree-sitter-kotlin', wasm: 'tree-sitter-kotlin.wasm', zoektKeys: ['kotlin'], extensions: ['.kt', '.kts', '.ktm'] },
  // tree-sitter-swift's package ships native code only: built from its sources.
  { id: 'swift', language: 'Swift', wasm: 'tree-sitter-swift.wasm', zoektKeys: ['swift'], extensions: ['.swift'] },
];

const BY_ID = new Map(GRAMMARS.map((g) => [g.id, g]));
const BY_EXTENSION = new Map(GRAMMARS.flatMap((g) => g.extensions.map((e) => [e, g] as const)));

export function grammar(id: GrammarId): Grammar {
  return BY_ID.get(id)!;
}

/** Interpreters named on a `#!` line, by the grammar that parses their scripts. */
const INTERPRETERS: [RegExp, GrammarId][] = [
  [/^(?:python|pypy)(?:\d+(?:\.\d+)*)?$/, 'python'],
  [/^(?:node|nodejs)$/, 'javascript'],
  [/^(?:ts-node|tsx|deno|bun)$/, 'typescript'],
  [/^(?:ruby|jruby|truffleruby)(?:\d+(?:\.\d+)*)?$/, 'ruby'],
  [/^php(?:\d+(?:\.\d+)*)?$/, 'php'],
];

/** The interpreter a `#!` line runs (`#!/usr/bin/env -S python3 -u` → python3). */
export function shebangInterpreter(content: string): string | undefined {
  if (!content.startsWith('#!')) return undefined;
  const line = content.slice(2, content.indexOf('\n') === -1 ? undefined : content.indexOf('\n')).trim();
  const words = line.split(/\s+/);
  let at = 0;
  if (words[0]?.endsWith('/env') || words[0] === 'env') {
    at = 1;
    // env's own options (-S, -i, -u NAME) and VAR=value assignments come before the command.
    while (at < words.length && (words[at]!.startsWith('-') || words[at]!.includes('='))) at += words[at] === '-u' ? 2 : 1;
  }
  const command = words[at];
  return command ? command.slice(command.lastIndexOf('/') + 1) : undefined;
}

/** What the extractor's worker parses: a file in a grammar's language, or a component holding code. */
export type SourceId = GrammarId | ComponentId;

const COMPONENT_BY_EXTENSION = new Map(COMPONENTS.flatMap((c) => c.extensions.map((e) => [e, c] as const)));

/** How the extractor parses a file (a grammar, or a component's code), or undefined when it does not. */
export function sourceFor(fileName: string, content: string): Grammar | Component | undefined {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const component = dot > 0 ? COMPONENT_BY_EXTENSION.get(base.slice(dot).toLowerCase()) : undefined;
  return component ?? grammarFor(fileName, content);
}

/** The grammar for a file, or undefined when tree-sitter does not parse its language here. */
export function grammarFor(fileName: string, content: string): Grammar | undefined {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const byExtension = dot > 0 ? BY_EXTENSION.get(base.slice(dot).toLowerCase()) : undefined;
  if (byExtension) return byExtension;
  const interpreter = shebangInterpreter(content);
  if (!interpreter) return undefined;
  const id = INTERPRETERS.find(([re]) => re.test(interpreter))?.[1];
  return id ? grammar(id) : undefined;
}

/** The -language_map value that sends these languages to the extractor (Zoekt's "scip" slot). */
export function zoektLanguageMap(): string {
  return [...new Set([...GRAMMARS, ...COMPONENTS].flatMap((g) => g.zoektKeys))].map((k) => `${k}:scip`).join(',');
}

/** The Linguist names of the languages the extractor parses. */
export function extractorLanguages(): string[] {
  return [...GRAMMARS, ...COMPONENTS].map((g) => g.language);
}
