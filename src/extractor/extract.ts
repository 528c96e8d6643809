/**
 * One file through tree-sitter: parse it with its grammar and find its definitions with its
 * language's tag rules (queries/<language>.scm, run by rules.ts; C and C++ keep a hand-written
 * walker, lang/c.ts). Where the grammar could not make sense of the text (ERROR nodes), the
 * lines it gave up on are reported, so that Universal Ctags' tags can fill them in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Language, Parser, type Node, type Range } from 'web-tree-sitter';
import { componentCode, COMPONENTS } from './components.js';
import { grammar, type Grammar, type GrammarId, type SourceId } from './languages.js';
import { extractC } from './lang/c.js';
import { goFunctionBodies } from './lang/go-bodies.js';
import { pythonSkeleton } from './lang/python-bodies.js';
import { tagRules } from './rules.js';
import { TagSink, type Tag } from './tags.js';

interface Walker {
  /** The language's query file (queries/<rules>.scm), or a walker of its own (`walk`). */
  rules?: string;
  walk?: (root: Node, sink: TagSink) => void;
  /** Joins the names of nested scopes. */
  separator: string;
  /**
   * A line that starts a top-level statement: where a file the grammar could not parse whole can
   * be cut, to parse its parts alone (see `extract`).
   */
  topLevel?: RegExp;
  /**
   * Every error sends its statement to be parsed again, not only one that may hide definitions:
   * the grammar can read what follows a one-line error into it without another error.
   */
  everyError?: boolean;
  /**
   * The function bodies of a file, found without parsing it (`{` and `}` offsets): they hold no
   * definition, so the parser is told to skip them (see `extract`).
   */
  bodies?: (source: string) => [number, number][];
  /**
   * The file with the function bodies that hold no definition emptied (their lines kept, so
   * every tag's line is the file's), found without parsing it; undefined when there are none
   * (see `extract`).
   */
  skeleton?: (source: string) => string | undefined;
}

/** In TypeScript and JavaScript as people format it, top-level statements start at column 0. */
const SCRIPT_TOP_LEVEL = /^(?:\/\*\*|@[A-Za-z_$]|(?:export|import|function|async|class|abstract|interface|type|enum|declare|namespace|module|const|let|var)\b)/;
/** The same in Swift; `#if` starts a part too (the grammar stumbles on macros such as `#require`). */
const SWIFT_TOP_LEVEL = /^(?:\/\/\/|@[A-Za-z_]|#if\b|(?:public|private|internal|fileprivate|open|package|final|nonisolated|indirect|import|func|class|struct|enum|protocol|extension|actor|typealias|let|var|macro|infix|prefix|postfix|precedencegroup)\b)/;

const WALKERS: Record<GrammarId, Walker> = {
  typescript: { rules: 'typescript', separator: '.', topLevel: SCRIPT_TOP_LEVEL },
  tsx: { rules: 'typescript', separator: '.', topLevel: SCRIPT_TOP_LEVEL },
  javascript: { rules: 'javascript', separator: '.', topLevel: SCRIPT_TOP_LEVEL },
  python: { rules: 'python', separator: '.', skeleton: pythonSkeleton },
  go: { rules: 'go', separator: '.', bodies: goFunctionBodies },
  rust: { rules: 'rust', separator: '::' },
  java: { rules: 'java', separator: '.' },
  c: { walk: extractC, separator: '::' },
  cpp: { walk: extractC, separator: '::' },
  csharp: { rules: 'csharp', separator: '.' },
  ruby: { rules: 'ruby', separator: '.' },
  php: { rules: 'php', separator: '::' },
  kotlin: { rules: 'kotlin', separator: '.' },
  swift: { rules: 'swift', separator: '.', topLevel: SWIFT_TOP_LEVEL, everyError: true },
};

export interface Extraction {
  tags: Tag[];
  /** 1-based first and last lines of the regions the grammar could not parse. */
  errorLines: [number, number][];
}

/**
 * A grammar's WebAssembly: the copy next to the build (dist/grammars/, what the package ships),
 * else, in a checkout running from its sources, the file of the grammar's npm package or the one
 * built from its sources (src/extractor/grammars/, gzipped).
 */
export function grammarBytes(g: Grammar): Uint8Array {
  const here = dirname(fileURLToPath(import.meta.url));
  const copied = join(here, '../grammars', g.wasm);
  if (existsSync(copied)) return readFileSync(copied);
  if (g.package) return readFileSync(join(dirname(createRequire(import.meta.url).resolve(`${g.package}/package.json`)), g.wasm));
  return gunzipSync(readFileSync(join(here, 'grammars', `${g.wasm}.gz`)));
}

let initialized: Promise<void> | undefined;
const languages = new Map<GrammarId, Promise<Language>>();

async function languageOf(g: Grammar): Promise<Language> {
  initialized ??= Parser.init();
  await initialized;
  let loading = languages.get(g.id);
  if (!loading) languages.set(g.id, (loading = Language.load(grammarBytes(g))));
  return loading;
}

/** A parser per grammar, reused across files. */
const parsers = new Map<GrammarId, Parser>();

type Lines = [number, number][];

/** The parse outlived its time: the parser was reset and can go on with other files. */
export class ParseTimeout extends Error {}

const strip = ({ tags, errorLines }: Extraction): Extraction => ({ tags, errorLines });

const within = (line: number, ranges: Lines) => ranges.some(([from, to]) => line >= from && line <= to);

/**
 * The ranges of `source` outside the `holes` (offsets of a `{` and its `}`, in order), in
 * web-tree-sitter's units for a JavaScript string: UTF-16 code units, for offsets and columns.
 */
function rangesAround(source: string, holes: [number, number][]): Range[] {
  const ranges: Range[] = [];
  let row = 0;
  let lineStart = 0;
  let at = 0;
  let from = { index: 0, row: 0, column: 0 };
  const pointAt = (offset: number) => {
    for (; at < offset; at++) {
      if (source.charCodeAt(at) === 0x0a) {
        row++;
        lineStart = at + 1;
      }
    }
    return { index: offset, row, column: offset - lineStart };
  };
  const push = (to: { index: number; row: number; column: number }) => {
    ranges.push({ startIndex: from.index, endIndex: to.index, startPosition: { row: from.row, column: from.column }, endPosition: { row: to.row, column: to.column } });
  };
  for (const [open, close] of holes) {
    // Keep the braces: the parser sees an empty body.
    push(pointAt(open + 1));
    from = pointAt(close);
  }
  push(pointAt(source.length));
  return ranges;
}

/**
 * Whether a region the grammar could not parse may hold a definition: one that spans lines, or
 * stands where statements or members do. An error inside one line of a declaration the grammar
 * did read (TypeScript's `in out` variance in a type parameter list) hides none, and asking
 * Universal Ctags about the whole file for it costs more than it brings.
 */
function mayHideDefinitions(error: Node): boolean {
  if (error.endPosition.row > error.startPosition.row) return true;
  const parent = error.parent;
  return !parent || parent.parent === null || CONTAINERS.has(parent.type);
}

/** Nodes whose children are statements, declarations or members. */
const CONTAINERS = new Set([
  'program', 'statement_block', 'class_body', 'interface_body', 'enum_body', 'module', 'block', 'source_file', 'declaration_list',
  'field_declaration_list', 'translation_unit', 'compilation_unit', 'object_type',
]);

/** Parses `text` and walks it; the tags and the line ranges of ERROR nodes that may hide definitions, `lineOffset` lines down. */
function parseAndWalk(parser: Parser, walker: Walker, text: string, lineOffset: number, deadline: number, timeoutMs: number, includedRanges?: Range[]): Extraction & { clean: boolean; errorRows: Lines } {
  const tree = parser.parse(text, null, { progressCallback: () => performance.now() > deadline, ...(includedRanges ? { includedRanges } : {}) });
  if (!tree) {
    parser.reset();
    throw new ParseTimeout(`parsing took longer than ${timeoutMs} ms`);
  }
  try {
    const root = tree.rootNode;
    const sink = new TagSink(walker.separator, lineOffset);
    let errors: Node[];
    if (walker.walk) {
      walker.walk(root, sink);
      errors = root.hasError ? root.descendantsOfType('ERROR') : [];
    } else {
      errors = tagRules(walker.rules!, parser.language!).run(root, sink);
    }
    const linesOf = (n: Node): [number, number] => [n.startPosition.row + 1 + lineOffset, n.endPosition.row + 1 + lineOffset];
    return { tags: sink.tags, errorLines: errors.filter(mayHideDefinitions).map(linesOf), clean: !root.hasError, errorRows: errors.map(linesOf) };
  } finally {
    tree.delete();
  }
}

/**
 * Parses `source` and returns its definitions; throws when the parse outlives `timeoutMs`.
 *
 * A language that can find its function bodies without parsing has them skipped (Go) or blanked
 * (Python, where only the bodies that define nothing are).
 *
 * A grammar that stumbles on a construct it does not know can lose the rest of the file with it
 * (tree-sitter-typescript on variance annotations, some call signatures), or read what follows
 * as part of it without another error (tree-sitter-swift on macros such as `#require`). Where
 * the whole parse has such errors, each top-level statement one is in is parsed again on its
 * own, and a name the two parses put under different parents is tagged as that parse tags it, so
 * that the mistake stays in the statement that has it; what is still in error is reported for
 * Universal Ctags to fill.
 */
export async function extract(g: Grammar, source: string, timeoutMs: number): Promise<Extraction> {
  const language = await languageOf(g);
  let parser = parsers.get(g.id);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(language);
    parsers.set(g.id, parser);
  }
  const deadline = performance.now() + timeoutMs;
  const walker = WALKERS[g.id];
  const holes = walker.bodies?.(source).filter(([open, close]) => close > open + 1) ?? [];
  if (holes.length) {
    // Without the bodies; a file this reading got wrong does not parse cleanly, and is parsed whole.
    const skeleton = parseAndWalk(parser, walker, source, 0, deadline, timeoutMs, rangesAround(source, holes));
    if (!skeleton.errorLines.length) return strip(skeleton);
  }
  const blanked = walker.skeleton?.(source);
  if (blanked !== undefined) {
    // Any error at all, and the blanking is not trusted: the file is parsed whole.
    const skeleton = parseAndWalk(parser, walker, blanked, 0, deadline, timeoutMs);
    if (skeleton.clean) return strip(skeleton);
  }
  const whole = parseAndWalk(parser, walker, source, 0, deadline, timeoutMs);
  const suspect = walker.everyError ? whole.errorRows : whole.errorLines;
  if (!suspect.length || !walker.topLevel) return strip(whole);
  const lines = source.split('\n');
  const starts = [0, ...lines.flatMap((l, i) => (i > 0 && walker.topLevel!.test(l) ? [i] : []))];
  const parts: Lines = [];
  const fromParts: Tag[] = [];
  const errorLines: Lines = [];
  for (let k = 0; k < starts.length; k++) {
    const from = starts[k]!;
    const to = (starts[k + 1] ?? lines.length) - 1;
    // Only the statements the whole parse had errors in.
    if (!suspect.some(([a, b]) => a - 1 <= to && b - 1 >= from)) continue;
    const part = parseAndWalk(parser, walker, lines.slice(from, to + 1).join('\n'), from, deadline, timeoutMs);
    parts.push([from + 1, to + 1]);
    fromParts.push(...part.tags);
    errorLines.push(...part.errorLines);
  }
  // A name both parses tag: an error carries the whole parse's nesting past its statement, so
  // where they put it under different parents the statement's own parse is right; under the same
  // parent, the whole parse, which read the statement in its file, is kept. What only the whole
  // parse found still counts.
  const wholeTags = new Map(whole.tags.filter((t) => within(t.line, parts)).map((t) => [`${t.line}\0${t.name}`, t]));
  const tags = whole.tags.filter((t) => !within(t.line, parts));
  for (const t of fromParts) {
    const key = `${t.line}\0${t.name}`;
    const w = wholeTags.get(key);
    wholeTags.delete(key);
    tags.push(w && w.scope === t.scope ? w : t);
  }
  tags.push(...wholeTags.values());
  tags.sort((a, b) => a.line - b.line);
  return { tags, errorLines };
}

/**
 * `extract` for what the worker is asked to parse: a file in a grammar's language, or the code of
 * a single-file component (its `<script>` blocks, Astro's frontmatter) at its own lines.
 */
export async function extractSource(id: SourceId, source: string, timeoutMs: number): Promise<Extraction> {
  const component = COMPONENTS.find((c) => c.id === id);
  if (!component) return extract(grammar(id as GrammarId), source, timeoutMs);
  const code = componentCode(component.id, source);
  return code ? extract(grammar(code.grammar), code.text, timeoutMs) : { tags: [], errorLines: [] };
}
