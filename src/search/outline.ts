/**
 * get_file_outline: the symbols of one file in line order, each under the definition that holds
 * it (a method under its class), read from the index like search_symbols (`sym:.` on that file).
 * Pages run over the symbols in line order; within a page a symbol goes under its parent when
 * the parent is on the page, and stands at the top with `parent` named otherwise (a Go method
 * whose type is declared in another file, or a member whose class started on an earlier page).
 */
import { z } from 'zod';
import * as q from '../zoekt/query.js';
import { clip, fitPage, LIST_DIALS, MAX_LINE_CHARS, truncatedField, type Budget } from './engine/budget.js';
import { completeField, paginate, pagingFields, pagingOutput } from './engine/page.js';
import { findFile } from './file.js';
import type { Searcher } from './engine/searcher.js';
import { symbolsOf, type SymbolResult } from './definitions/symbol.js';

export const GET_FILE_OUTLINE = 'get_file_outline';

export interface OutlineArgs {
  repo: string;
  path: string;
  branch?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface OutlineSymbol {
  name: string;
  kind: string;
  raw_kind: string;
  line: number;
  signature: string;
  /** Its enclosing definition, when that is not the node it is listed under. */
  parent?: string | undefined;
  children?: OutlineSymbol[] | undefined;
}

const OutlineSymbol: z.ZodType<OutlineSymbol> = z.lazy(() =>
  z.object({
    name: z.string(),
    kind: z.string(),
    raw_kind: z.string(),
    line: z.number().int(),
    signature: z.string(),
    parent: z.string().optional(),
    children: z.array(OutlineSymbol).optional(),
  }),
);

export const OutlineOutput = z.object({
  repo: z.string(),
  path: z.string(),
  language: z.string(),
  symbols: z.array(OutlineSymbol),
  stats: z.object({ symbols: z.number().int(), complete: completeField }),
  ...truncatedField,
  ...pagingFields,
});
export type OutlineOutput = z.infer<typeof OutlineOutput>;

export const OUTLINE_DEFAULTS = { limit: 100 };

/** Kinds that hold members: the node a member goes under, when one of these has its parent's name. */
const HOLDERS = new Set(['class', 'struct', 'interface', 'trait', 'enum', 'type', 'module', 'namespace']);

/**
 * Each symbol under the definition its parent names, when that is on the list (before or after
 * it: a Go method may come before its type), members in line order; the rest at the top level.
 */
export function nest(symbols: readonly SymbolResult[], lineChars = MAX_LINE_CHARS): OutlineSymbol[] {
  const nodes = symbols.map((s) => ({ s, node: { name: s.name, kind: s.kind, raw_kind: s.raw_kind, line: s.line, signature: clip(s.signature, s.signature.indexOf(s.name) + 1, lineChars) } as OutlineSymbol }));
  const types = new Map<string, OutlineSymbol>();
  // A type of that name first; when there is none, the definition of that name the symbol is in.
  for (const { s, node } of nodes) if (HOLDERS.has(s.kind) && !types.has(s.name)) types.set(s.name, node);
  const others = new Map<string, { s: SymbolResult; node: OutlineSymbol }[]>();
  for (const n of nodes) {
    if (types.has(n.s.name)) continue;
    const same = others.get(n.s.name);
    if (same) same.push(n);
    else others.set(n.s.name, [n]);
  }
  const top: OutlineSymbol[] = [];
  for (const { s, node } of nodes) {
    const holder = s.parent === undefined ? undefined : (types.get(s.parent) ?? holderAbove(others.get(s.parent), node));
    if (holder && holder !== node && !holds(node, holder)) (holder.children ??= []).push(node);
    else {
      if (s.parent !== undefined) node.parent = s.parent;
      top.push(node);
    }
  }
  return top;
}

/**
 * Of the definitions of one name (not a type), the one that `inner` is in: the last other that
 * starts at or above it, an overload signature (`Prototype`) only when nothing else does (what is
 * nested is in the implementation's body); else the first.
 */
function holderAbove(same: readonly { s: SymbolResult; node: OutlineSymbol }[] | undefined, inner: OutlineSymbol): OutlineSymbol | undefined {
  if (!same?.length) return undefined;
  const above = same.filter((n) => n.node !== inner && n.s.line <= inner.line);
  const bodies = above.filter((n) => n.s.raw_kind.toLowerCase() !== 'prototype');
  return (bodies[bodies.length - 1] ?? above[above.length - 1] ?? same[0])!.node;
}

/** Whether `holder` is already somewhere under `node` (a cycle of same-named definitions). */
function holds(node: OutlineSymbol, holder: OutlineSymbol): boolean {
  return (node.children ?? []).some((c) => c === holder || holds(c, holder));
}

export async function fileOutline(searcher: Searcher, args: OutlineArgs, budget: Budget<OutlineOutput>, signal?: AbortSignal): Promise<OutlineOutput> {
  const limit = args.limit ?? OUTLINE_DEFAULTS.limit;
  const path = args.path.replace(/^\/+/, '');
  const { file } = await findFile(searcher, { repo: args.repo, path, branch: args.branch }, signal, q.sym('.'));
  const all = symbolsOf(file)
    .map((x) => x.symbol)
    .sort((a, b) => a.line - b.line || a.column - b.column);
  const page = await paginate({
    tool: GET_FILE_OUTLINE,
    cursors: searcher.cursors,
    args: { ...args },
    limit,
    fetch: async (offset) => ({ items: all.slice(offset, offset + limit), more: all.length > offset + limit, complete: true }),
    emptyHint: () =>
      file.notIndexed
        ? `Zoekt kept no text of this file (it ${file.notIndexed}), so it has no symbols here. Read it from the repository itself.`
        : `No symbols are indexed for this ${file.language || 'file'}: no symbol parser reads its language, or its repository was indexed without one (get_health lists each language's coverage). get_file reads it.`,
    narrowHint: 'Ask for fewer symbols with limit.',
  });
  const make = (s: Record<'results' | 'line_chars', number>, truncated: OutlineOutput['truncated']): OutlineOutput => ({
    repo: file.repo,
    path: file.path,
    language: file.language,
    symbols: nest(page.items.slice(0, s.results), s.line_chars),
    stats: { symbols: all.length, complete: true },
    ...(truncated ? { truncated } : {}),
    ...pagingOutput(page),
  });
  return fitPage(page, make, { line_chars: MAX_LINE_CHARS }, LIST_DIALS, budget);
}
