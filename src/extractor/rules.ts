/**
 * Tag rules as data: what a language defines is a tree-sitter query, one file per language
 * (queries/<language>.scm), and this one engine turns a query's matches into tags. The queries
 * say which nodes are definitions, of which kind, and which nodes enclose others; the engine
 * nests what they found by the ranges of the nodes (as Sourcegraph's scip-ctags does with its
 * `@scope` captures) and names each definition's parent.
 *
 * Captures a query may use (a pattern has at most one of the first five):
 *   `@definition.<Kind>`  a definition of that kind (a TagKind); the node captured is the range
 *                         whose definitions it encloses (a class, a function, a variable with the
 *                         object literal it is assigned). With `@name`: the name, whose text on its
 *                         line is the tag.
 *   `@scope.<Kind>`       with `@name`: an enclosing name that is not itself tagged (the type a Rust
 *                         `impl` block implements, the property an object literal is the value of).
 *   `@names.<Kind>`       a pattern (destructuring) whose `@binding` names are definitions of that kind.
 *   `@binding`            a name a pattern binds: a definition only inside a `@names` capture.
 *   `@local`              a region whose names are locals: where it is the nearest enclosing range,
 *                         definitions of patterns marked `(#is-not? local)` are not tagged. They still
 *                         name what they enclose (an object literal assigned to a local variable).
 *   `@exclude`            no name inside this node is a definition (the names an import binds).
 *   `@parent`             the parent, when the definition does not sit inside it (a Go method's
 *                         receiver type, `C` of `C.prototype.m = function …`).
 *   `@_…`                 nodes a pattern's predicates test; no meaning to the engine.
 * Properties (`#set!`):
 *   `in.type <Kind>`      the kind when the parent is a type (class, struct, interface, trait,
 *                         enum, union, impl): a function there is a method.
 *   `in.<Kind> <Kind>`    the kind when the parent is of the first kind.
 *   `parent outer`        the parent is the enclosing definition's parent (a constructor's
 *                         parameter property belongs to the class).
 *   `lookup <Kind>`       the kind of a `@scope` or `@parent`: that of the file's type of that name,
 *                         else this one.
 *   `range following`     the definition holds what follows it in its parent (`namespace A;` in C#
 *                         and PHP holds the rest of the file), not only its own node.
 *   `overload <Kind>`     a signature without a body (a TypeScript overload): when the next
 *                         definition in its scope has its name and is no such signature (the
 *                         implementation, after any further overloads), it is of that kind, so
 *                         that a search can rank the implementation first; alone (a `declare`,
 *                         a `.d.ts`), it keeps its pattern's kind.
 * Where several patterns capture the same name, the first pattern of the file wins: specific
 * patterns come before general ones. A file may start with `; include: <language>` lines, which
 * put that language's rules first, and a `; max-start-depth: <n>` line: no definition starts
 * deeper in the tree than n (the source file's children are at depth 1), and the query does not
 * look deeper (a language without nested definitions, where looking costs a third of parsing).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Query, type Language, type Node, type QueryProperties } from 'web-tree-sitter';
import { TAG_KINDS, type Scope, type ScopeKind, type TagKind, type TagSink } from './tags.js';

/** The query files' text, compiled into the bundles by scripts/bundle.mjs; read from src/ otherwise. */
declare const ZOEKT_MCP_QUERIES: Record<string, string> | undefined;

/** Kinds that hold members: what `in.type` and `lookup` mean by a type. */
const TYPE_KINDS = new Set<ScopeKind>(['Class', 'Struct', 'Union', 'Interface', 'Trait', 'Enum', 'Impl', 'Type']);
const KINDS = new Set<string>([...TAG_KINDS, 'Impl']);

/** The folders the query files may be in: the sources, seen from src/extractor/ or from dist/extractor/ (or dist/chunks/). */
function queryDirs(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  return [join(here, 'queries'), join(here, '../../src/extractor/queries')];
}

/** The text of a language's query file, its includes first. */
export function queryText(name: string, seen = new Set<string>()): string {
  if (seen.has(name)) throw new Error(`query ${name} includes itself`);
  seen.add(name);
  let text: string | undefined = typeof ZOEKT_MCP_QUERIES === 'object' ? ZOEKT_MCP_QUERIES[name] : undefined;
  if (text === undefined) {
    const dir = queryDirs().find((d) => existsSync(join(d, `${name}.scm`)));
    if (!dir) throw new Error(`no query file for ${name} (looked in ${queryDirs().join(', ')})`);
    text = readFileSync(join(dir, `${name}.scm`), 'utf8');
  }
  const includes = [...text.matchAll(/^; include: (\S+)$/gm)].map((m) => m[1]!);
  return [...includes.map((i) => queryText(i, seen)), text].join('\n');
}

type Role = { type: 'definition' | 'scope' | 'names'; kind: ScopeKind } | { type: 'name' | 'binding' | 'local' | 'exclude' | 'parent' | 'error' | 'ignored' };

function roleOf(capture: string): Role {
  const dot = capture.indexOf('.');
  const head = dot === -1 ? capture : capture.slice(0, dot);
  if (head === 'definition' || head === 'scope' || head === 'names') {
    const kind = capture.slice(dot + 1);
    if (dot === -1 || !KINDS.has(kind) || (head === 'definition' && kind === 'Impl')) throw new Error(`@${capture}: not a kind (${TAG_KINDS.join(', ')})`);
    return { type: head, kind: kind as ScopeKind };
  }
  if (head === 'name' || head === 'binding' || head === 'local' || head === 'exclude' || head === 'parent' || head === 'error') return { type: head };
  if (capture.startsWith('_')) return { type: 'ignored' };
  throw new Error(`@${capture}: not a capture the tag rules know`);
}

/** What a pattern says, the same in each of its matches. */
interface Pattern {
  /** `(#is-not? local)`: not a definition where a @local is the nearest enclosing range. */
  localOnly: boolean;
  props: QueryProperties;
}

/** A compiled query file. */
export class TagRules {
  private readonly query: Query;
  private readonly roles: Map<string, Role>;
  private readonly patterns: Pattern[] = [];

  /** `; max-start-depth: n` of the query file. */
  private readonly maxStartDepth: number | undefined;

  constructor(language: Language, source: string) {
    // What the grammar could not parse, found in the same pass over the tree as the definitions.
    this.query = new Query(language, `${source}\n${ERRORS}`);
    const depth = /^; max-start-depth: (\d+)$/m.exec(source)?.[1];
    this.maxStartDepth = depth === undefined ? undefined : Number(depth);
    this.roles = new Map(this.query.captureNames.map((c) => [c, roleOf(c)]));
    for (let i = 0; i < this.query.patternCount(); i++) {
      const props = this.query.setProperties[i] ?? {};
      for (const key of ['in.type', 'lookup', 'overload']) if (props[key] != null && !KINDS.has(props[key])) throw new Error(`pattern ${i}: ${props[key]} is not a kind`);
      this.patterns.push({ localOnly: this.query.refutedProperties[i]?.local !== undefined, props });
    }
  }

  /**
   * Tags the definitions under `root`; returns the ERROR nodes of the tree. What they cover is the
   * grammar's guess at text it could not read (a comment read as code): no definition there.
   */
  run(root: Node, sink: TagSink): Node[] {
    const found = this.collect(root);
    if (this.maxStartDepth !== undefined && root.hasError) {
      // The query did not look deep enough for every error.
      found.errors = root.descendantsOfType('ERROR');
      found.excludes.push(...found.errors.map((e) => ({ start: e.startIndex, end: e.endIndex })));
    }
    emit(found, sink);
    return found.errors;
  }

  private collect(root: Node): Found {
    const found: Found = { candidates: new Map(), frames: [], bindings: new Map(), excludes: [], errors: [] };
    for (const match of this.query.matches(root, this.maxStartDepth === undefined ? {} : { maxStartDepth: this.maxStartDepth })) {
      const pattern = this.patterns[match.patternIndex]!;
      let role: { type: 'definition' | 'scope' | 'names'; kind: ScopeKind } | undefined;
      let region: Node | undefined;
      let name: Node | undefined;
      let parent: Node | undefined;
      for (const { node, name: capture } of match.captures) {
        const r = this.roles.get(capture)!;
        switch (r.type) {
          case 'definition':
          case 'scope':
          case 'names':
            role = r;
            region = node;
            break;
          case 'name':
            name = node;
            break;
          case 'parent':
            parent = node;
            break;
          case 'local':
            found.frames.push({ type: 'local', start: node.startIndex, end: node.endIndex, candidate: undefined });
            break;
          case 'error':
            // What an error covers holds no definition.
            found.errors.push(node);
            found.excludes.push({ start: node.startIndex, end: node.endIndex });
            break;
          case 'exclude':
            found.excludes.push({ start: node.startIndex, end: node.endIndex });
            break;
          case 'binding':
            found.bindings.set(node.startIndex, node);
            break;
          case 'ignored':
            break;
        }
      }
      if (!role || !region) continue;
      if (role.type === 'names') {
        found.frames.push({ type: 'names', start: region.startIndex, end: region.endIndex, candidate: candidate(match.patternIndex, pattern, role, region, region, undefined) });
        continue;
      }
      if (!name) throw new Error(`pattern ${match.patternIndex}: @${role.type}.${role.kind} without @name`);
      const seen = found.candidates.get(name.startIndex);
      if (seen && seen.order <= match.patternIndex) continue;
      found.candidates.set(name.startIndex, candidate(match.patternIndex, pattern, role, region, name, parent));
    }
    return found;
  }
}

function candidate(order: number, pattern: Pattern, role: { type: string; kind: ScopeKind }, region: Node, name: Node, parent: Node | undefined): Candidate {
  return {
    order,
    kind: role.kind,
    tagged: role.type !== 'scope',
    localOnly: pattern.localOnly,
    props: pattern.props,
    start: region.startIndex,
    end: pattern.props.range === 'following' ? (region.parent?.endIndex ?? region.endIndex) : region.endIndex,
    name,
    parent,
    owner: undefined,
    isLocal: false,
    outer: undefined,
    resolved: undefined,
    text: undefined,
  };
}

/** The pattern the engine adds to every query file. */
const ERRORS = '(ERROR) @error';

/** Per grammar (TypeScript and TSX share a query file, not node types). */
const compiled = new Map<Language, Map<string, TagRules>>();

/** The rules of query file `name` for `language`, compiled once. */
export function tagRules(name: string, language: Language): TagRules {
  let forLanguage = compiled.get(language);
  if (!forLanguage) compiled.set(language, (forLanguage = new Map()));
  let rules = forLanguage.get(name);
  if (!rules) forLanguage.set(name, (rules = new TagRules(language, queryText(name))));
  return rules;
}

export interface Range {
  start: number;
  end: number;
}

/** A definition, a scope, or a pattern of names (`@names`), as a query found it. */
interface Candidate extends Range {
  /** The pattern's index: where several capture one name, the first pattern wins. */
  order: number;
  kind: ScopeKind;
  tagged: boolean;
  localOnly: boolean;
  props: QueryProperties;
  /** The name (`@name`); for a pattern of names, the pattern. */
  name: Node;
  parent: Node | undefined;
  /** The nearest enclosing definition or scope. */
  owner: Candidate | undefined;
  /** Not tagged: a local. */
  isLocal: boolean;
  /** The scope it is in. */
  outer: Scope | undefined;
  /** The scope it opens: null while being worked out, or for none. */
  resolved: Scope | null | undefined;
  /** The name's text, read when needed. */
  text: string | undefined;
}

/** A name as code refers to it: Swift and Kotlin quote a keyword used as a name in backticks (`protocol`). */
const textOf = (c: Candidate) => (c.text ??= unquoted(c.name.text));
const unquoted = (name: string) => (name.length > 2 && name.startsWith('`') && name.endsWith('`') ? name.slice(1, -1) : name);

interface Frame extends Range {
  type: 'local' | 'names' | 'candidate';
  candidate: Candidate | undefined;
}

interface Found {
  /** By the name's start. */
  candidates: Map<number, Candidate>;
  frames: Frame[];
  /** `@binding` names, by start. */
  bindings: Map<number, Node>;
  excludes: Range[];
  errors: Node[];
}

const within = (inner: Range, outer: Range) => outer.start <= inner.start && inner.end <= outer.end;

/** Whether an offset is inside one of `ranges`: they are merged and searched by halves. */
function inside(ranges: Range[]): (offset: number) => boolean {
  const merged: Range[] = [];
  for (const r of [...ranges].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ start: r.start, end: r.end });
  }
  return (offset) => {
    let lo = 0;
    let hi = merged.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const m = merged[mid]!;
      if (offset < m.start) hi = mid - 1;
      else if (offset >= m.end) lo = mid + 1;
      else return true;
    }
    return false;
  };
}

/** Frames at one range: a local around a definition, a pattern of names around its names. */
const RANK = { local: 0, names: 1, candidate: 2 };

function emit(found: Found, sink: TagSink): void {
  const excluded = inside(found.excludes);
  const frames = found.frames;
  const all: Candidate[] = [];
  for (const c of found.candidates.values()) {
    if (excluded(c.name.startIndex)) continue;
    frames.push({ type: 'candidate', start: c.start, end: c.end, candidate: c });
  }
  // A bound name: a definition of the kind of the innermost `@names` around it, if any.
  const inNames = inside(frames.filter((f) => f.type === 'names'));
  for (const [start, node] of found.bindings) {
    if (!inNames(start) || found.candidates.has(start) || excluded(start)) continue;
    frames.push({ type: 'candidate', start, end: node.endIndex, candidate: { ...BINDING, name: node, start, end: node.endIndex } });
  }
  frames.sort((a, b) => a.start - b.start || b.end - a.end || RANK[a.type] - RANK[b.type]);
  // The frames around each, innermost last; with it, the innermost definition or scope, the
  // innermost local or definition (which says whether it is a local) and pattern of names.
  const stack: { frame: Frame; owner: Candidate | undefined; enclosing: Frame | undefined; names: Frame | undefined }[] = [];
  for (const frame of frames) {
    for (;;) {
      const top = stack[stack.length - 1]?.frame;
      // Two definitions of one range (`const A, B = …` in Go, by name) are side by side.
      if (!top || (within(frame, top) && !(top.type === 'candidate' && frame.type === 'candidate' && top.start === frame.start && top.end === frame.end))) break;
      stack.pop();
    }
    const top = stack[stack.length - 1];
    const owner = top ? (top.frame.type === 'candidate' ? top.frame.candidate : top.owner) : undefined;
    const enclosing = top ? (top.frame.type === 'names' ? top.enclosing : top.frame) : undefined;
    const names = top ? (top.frame.type === 'names' ? top.frame : top.names) : undefined;
    const c = frame.candidate;
    if (frame.type === 'candidate' && c) {
      if (c.order === -1) {
        if (!names?.candidate) continue;
        const of = names.candidate;
        Object.assign(c, { order: of.order, kind: of.kind, localOnly: of.localOnly, props: of.props });
      }
      c.owner = owner;
      // Nearest a local, or inside a local definition (a field of a type local to a function).
      c.isLocal = c.localOnly && (enclosing?.type === 'local' || (enclosing?.candidate?.isLocal ?? false));
      all.push(c);
    }
    stack.push({ frame, owner, enclosing, names });
  }
  const types = new Map<string, ScopeKind>();
  for (const c of all) if (c.tagged && TYPE_KINDS.has(c.kind) && !types.has(textOf(c))) types.set(textOf(c), c.kind);
  const byName = new Map(all.map((c) => [c.name.startIndex, c]));

  /** The scope a candidate is in: its `@parent`, the parent of its enclosing definition (`parent outer`), or its enclosing definition. */
  const parentOf = (c: Candidate, depth: number): Scope | undefined => {
    if (c.parent) {
      const named = byName.get(c.parent.startIndex);
      if (named) return resolve(named, depth + 1);
      const text = c.parent.text;
      return { path: text, kind: types.get(text) ?? ((c.props.lookup as ScopeKind | undefined) ?? 'Type') };
    }
    const owner = c.props.parent === 'outer' ? c.owner?.owner : c.owner;
    return owner ? resolve(owner, depth + 1) : undefined;
  };
  /** The scope a candidate opens, after its parent's; its kind settled on the way. */
  const resolve = (c: Candidate, depth: number): Scope | undefined => {
    if (c.resolved !== undefined) return c.resolved ?? undefined;
    c.resolved = null;
    if (depth > 100) return undefined;
    const outer = parentOf(c, depth);
    c.outer = outer;
    const text = textOf(c);
    if (!c.tagged && c.props.lookup) {
      c.kind = types.get(text) ?? (c.props.lookup as ScopeKind);
    } else if (c.tagged && outer) {
      const inKind = c.props[`in.${outer.kind}`] ?? (TYPE_KINDS.has(outer.kind) ? c.props['in.type'] : undefined);
      if (inKind) c.kind = inKind as TagKind;
    }
    // `_` names nothing that can be found; what it encloses belongs to its parent.
    const scope = text === '_' || text === '' ? outer : sink.scope(text, c.kind, outer);
    c.resolved = scope ?? null;
    return scope;
  };
  all.sort((a, b) => a.name.startIndex - b.name.startIndex);
  // A local is worked out only if it encloses a definition (an object literal's methods).
  const tagged = all.filter((c) => c.tagged && !c.isLocal);
  for (const c of tagged) resolve(c, 0);
  const kinds = overloadKinds(tagged);
  for (const c of tagged) sink.addAt(c.name.startPosition.row, kinds.get(c) ?? (c.kind as TagKind), c.outer, textOf(c));
}

/**
 * The kinds of the signatures (`overload`) that an implementation follows in their scope, in
 * the order of their names: a run of signatures of one name ended by a definition of that name
 * that is no signature. TypeScript has an implementation follow its overloads at once; a
 * definition of another name in the scope ends the run.
 */
const IMPLEMENTS = new Set(['Function', 'Method', 'Constructor']);

function overloadKinds(tagged: readonly Candidate[]): Map<Candidate, TagKind> {
  const kinds = new Map<Candidate, TagKind>();
  const runs = new Map<string, Candidate[]>();
  for (const c of tagged) {
    const scope = c.outer?.path ?? '';
    const run = runs.get(scope);
    const same = run !== undefined && textOf(run[0]!) === textOf(c);
    if (c.props.overload) {
      if (same) run.push(c);
      else runs.set(scope, [c]);
      continue;
    }
    // Only a function ends a run as its implementation: `declare namespace foo` after the
    // signatures of `declare function foo` merges with them and implements none.
    if (same && IMPLEMENTS.has(c.kind)) for (const s of run) kinds.set(s, s.props.overload as TagKind);
    runs.delete(scope);
  }
  return kinds;
}

/** What a bound name is until its pattern of names is known. */
const BINDING: Omit<Candidate, 'name' | 'start' | 'end'> = {
  order: -1,
  kind: 'Variable',
  tagged: true,
  localOnly: false,
  props: {},
  parent: undefined,
  owner: undefined,
  isLocal: false,
  outer: undefined,
  resolved: undefined,
  text: undefined,
};
