/**
 * One definition as Zoekt's symbol index gives it (`sym:` ranges of a file hit): read into a
 * SymbolResult with its kind normalized and its parent bare, and checked against its line (a
 * tag on a line that only calls the name is no definition). search_symbols, find_references,
 * get_file and get_file_outline all read definitions this way.
 */
import { z } from 'zod';
import type { FileHit } from '../../zoekt/wire.js';
import { normalizeKind } from '../vocab/kinds.js';

export const SymbolResult = z.object({
  name: z.string(),
  kind: z.string(),
  raw_kind: z.string(),
  parent: z.string().optional(),
  parent_kind: z.string().optional(),
  qualified_name: z.string(),
  language: z.string(),
  repo: z.string(),
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  signature: z.string(),
  /** A description search: how much of the description the name covers (0–1), and the words it matched. */
  score: z.number().optional(),
  matched_words: z.array(z.string()).optional(),
  /** A description search: the enclosing type and a few symbols beside it. */
  related: z.object({ parent: z.string().optional(), siblings: z.array(z.string()) }).optional(),
  /** The doc comment or docstring of the definition, trimmed (documentation.ts). */
  documentation: z.string().optional(),
  /** On request: the usage lines find_references counts for it; `complete` false makes it a lower bound. */
  references: z.object({ count: z.number().int(), complete: z.boolean() }).optional(),
});
export type SymbolResult = z.infer<typeof SymbolResult>;

/** The segments of a symbol's scope: `acme::UserService`, `server.Server`, `Outer.Inner`. */
export function scopeSegments(scope: string): string[] {
  return scope.split(/::|\.|#|\//).filter(Boolean);
}

const SCOPE_SEPARATOR: Record<string, string> = { 'C++': '::', Rust: '::', PHP: '::', 'Objective-C++': '::' };

/** What stands before a name in an expression: `x = f(`, `=> f(`, `return f(`, `a && f(`. */
const EXPRESSION_BEFORE = /(?:=>?|[!?]|&&|\|\||\b(?:return|await|new|yield|throw))\s*$/;
/** A call: the name, maybe type arguments, then `(`. */
const CALL_AFTER = /^\s*(?:<[^()]*>)?\s*\(/;

/**
 * Whether the line really defines `name`. Universal Ctags sometimes tags a name that is only called on
 * the line (`const c = f(o)` tagged as a definition of `f`); a line defines the name when one of
 * its whole-word occurrences is not such a call. (Zoekt points at the first occurrence, which on a
 * minified line may be a call before the real `function f(`.)
 */
export function definesAt(line: string, name: string): boolean {
  // Called for every candidate symbol of a window (thousands per call): plain string search, no
  // regex built per name.
  let seen = false;
  for (let at = name === '' ? -1 : line.indexOf(name); at >= 0; at = line.indexOf(name, at + 1)) {
    const end = at + name.length;
    if (isIdentifierChar(codePointBefore(line, at)) || isIdentifierChar(line.codePointAt(end))) continue;
    seen = true;
    if (!(CALL_AFTER.test(line.slice(end)) && EXPRESSION_BEFORE.test(line.slice(0, at)))) return true;
    at = end - 1;
  }
  // A name a parser reported that the line does not spell out (a generated or renamed tag): keep it.
  return !seen;
}

/** A character that continues an identifier: a letter or digit of any script, `_` or `$`. */
export const IDENTIFIER_CHAR = /[\p{L}\p{N}_$]/u;
export const IDENTIFIER_WORD = /^[\p{L}\p{N}_$]+$/u;

function isIdentifierChar(codePoint: number | undefined): boolean {
  return codePoint !== undefined && IDENTIFIER_CHAR.test(String.fromCodePoint(codePoint));
}

/** The code point that ends just before `at` (a surrogate pair read whole). */
function codePointBefore(s: string, at: number): number | undefined {
  if (at === 0) return undefined;
  const low = s.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = s.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return s.codePointAt(at - 2);
  }
  return low;
}

/** Every symbol definition in a file hit, with kinds normalized and parents bare. */
/** The 1-based column where the occurrence of `name` that holds `column` starts on the line; `column` when none does. */
function nameStart(line: string, name: string, column: number): number {
  if (!name) return column;
  for (let at = line.indexOf(name); at !== -1; at = line.indexOf(name, at + 1)) {
    if (at < column && column <= at + name.length) return at + 1;
  }
  return column;
}

export function symbolsOf(file: FileHit): { symbol: SymbolResult; scope: string }[] {
  const out: { symbol: SymbolResult; scope: string }[] = [];
  const seen = new Set<string>();
  for (const chunk of file.chunks) {
    if (chunk.fileName) continue;
    for (const range of chunk.ranges) {
      const sym = range.symbol;
      if (!sym) continue;
      const lineText = chunk.lines[range.line - chunk.startLine] ?? '';
      // A match inside a name (a `sym:` substring) stands for the symbol: its column is where the name starts.
      const column = nameStart(lineText, sym.name, range.column);
      const key = `${range.line}:${column}:${sym.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (!definesAt(lineText, sym.name)) continue;
      // A Go or Java package is the scope of every symbol in it, not an enclosing type.
      const scoped = sym.parent !== '' && sym.parentKind !== 'package';
      const kind = normalizeKind(sym.kind, file.language, scoped ? sym.parentKind : undefined);
      const parent = scoped ? scopeSegments(sym.parent).pop() ?? sym.parent : undefined;
      const separator = SCOPE_SEPARATOR[file.language] ?? '.';
      const symbol: SymbolResult = {
        name: sym.name,
        kind: kind ?? sym.kind,
        raw_kind: sym.kind,
        qualified_name: parent ? `${parent}${separator}${sym.name}` : sym.name,
        language: file.language,
        repo: file.repo,
        path: file.path,
        line: range.line,
        column,
        signature: lineText.trim(),
      };
      if (parent) {
        symbol.parent = parent;
        if (sym.parentKind) symbol.parent_kind = sym.parentKind;
      }
      out.push({ symbol, scope: scoped ? sym.parent : '' });
    }
  }
  return out;
}
