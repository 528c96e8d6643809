/**
 * What the extractor reports for a file: one tag per definition, in the shape Zoekt's indexer
 * stores (name, line, kind, enclosing scope and its kind).
 *
 * Kinds are the names of SCIP's SymbolInformation.Kind (PascalCase). Zoekt lower-cases a kind
 * before ranking by it, so `Class`, `Method`, `Function`… rank as Universal Ctags' `class`,
 * `method`, `function` do; and because Universal Ctags never writes a kind in PascalCase, the
 * kinds in an index also tell which of the two parsers tagged a file (see search/definitions/coverage.ts).
 * One word is Universal Ctags' rather than SCIP's: `Prototype`, an overload signature that its
 * implementation follows (a function or method declared without a body, as ctags' `prototype`
 * is in C), which a search reads as a declaration and ranks after the implementation
 * (search/definitions/prominence.ts).
 */
import type { Node } from 'web-tree-sitter';

export const TAG_KINDS = [
  'Class', 'Struct', 'Union', 'Interface', 'Trait', 'Enum', 'EnumMember', 'TypeAlias', 'Type',
  'Function', 'Method', 'Constructor', 'Field', 'Property', 'Constant', 'Variable',
  'Module', 'Namespace', 'Package', 'Macro', 'Prototype',
] as const;
export type TagKind = (typeof TAG_KINDS)[number];

/** An `impl` block's scope (Rust): its members belong to the type it implements. */
export type ScopeKind = TagKind | 'Impl';

export interface Tag {
  name: string;
  /** 1-based line of the name. */
  line: number;
  kind: TagKind;
  /** The enclosing definitions, outermost first, joined by the language's separator. */
  scope?: string;
  scopeKind?: ScopeKind;
}

/** An enclosing definition: its qualified name and kind. */
export interface Scope {
  path: string;
  kind: ScopeKind;
}

/**
 * The named nodes of a field. A grammar may file the separators of a list under the field too
 * (Go's `const B, C`), and those are not names.
 */
export function fieldNodes(node: Node, field: string): Node[] {
  return node.childrenForFieldName(field).filter((n) => n.isNamed);
}

/** Longer names are not identifiers anyone searches for (generated code); a tag line stays under go-ctags' 4 KiB. */
const MAX_NAME = 1000;

/** Collects the tags of one file; a language's walker calls `add` for each definition it meets. */
export class TagSink {
  readonly tags: Tag[] = [];

  /** `lineOffset`: lines before the text parsed (a part of a file parsed alone). */
  constructor(
    readonly separator: string,
    private readonly lineOffset = 0,
  ) {}

  /** Tags `name` (the text of `at` by default) on `at`'s line; returns the scope it opens. */
  add(at: Node | null | undefined, kind: TagKind, scope: Scope | undefined, name = at?.text): Scope | undefined {
    // `_` (Go's blank identifier, a throwaway in most languages) names nothing that can be found.
    if (!at || !name || name === '_') return undefined;
    this.addAt(at.startPosition.row, kind, scope, name);
    return this.scope(name, kind, scope);
  }

  /** Tags `name` on the 0-based `row` of the text parsed. */
  addAt(row: number, kind: TagKind, scope: Scope | undefined, name: string): void {
    if (!name || name === '_') return;
    // Zoekt keeps a tag only where its name is spelled on its line.
    if (name.length > MAX_NAME || name.includes('\n')) return;
    const tag: Tag = { name, line: row + 1 + this.lineOffset, kind };
    if (scope) {
      tag.scope = scope.path;
      tag.scopeKind = scope.kind;
    }
    this.tags.push(tag);
  }

  /** A scope that is not itself tagged (a Rust `impl` block). */
  scope(name: string, kind: ScopeKind, outer: Scope | undefined): Scope {
    return { path: outer ? `${outer.path}${this.separator}${name}` : name, kind };
  }
}
