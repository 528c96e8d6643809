/**
 * Symbol kind words normalized across languages and parsers. Universal Ctags names kinds per
 * parser: Go says `func` for functions and methods alike, Python says `member` for methods, Go
 * and C say `member` for struct fields, Rust traits come out as `interface`, Zoekt's own Java
 * regex says `classes`. The tree-sitter extractor writes SCIP's kind names (`Method`,
 * `EnumMember`, `TypeAlias`…). Agents filter on one vocabulary; `raw_kind` keeps the parser's word.
 */
import { invalidArgument } from '../../errors.js';
import { closest } from './text-distance.js';

export const KINDS = [
  'function', 'method', 'class', 'struct', 'interface', 'trait', 'enum', 'type', 'variable', 'constant', 'field', 'property',
  'module', 'namespace', 'macro',
] as const;

export type Kind = (typeof KINDS)[number];

/** The same word means the same thing in every parser. */
const COMMON = new Map<string, Kind>(
  (
    [
      ['function', ['function', 'func', 'subroutine', 'procedure', 'prototype', 'generator']],
      ['method', ['method', 'methodspec', 'singletonmethod', 'constructor', 'getter', 'setter', 'accessor']],
      ['class', ['class', 'classes']],
      ['struct', ['struct', 'union']],
      ['interface', ['interface', 'protocol']],
      ['trait', ['trait']],
      ['enum', ['enum']],
      ['type', ['type', 'typedef', 'alias', 'typealias', 'talias']],
      ['variable', ['variable', 'var', 'local']],
      ['constant', ['constant', 'const', 'enumerator', 'enumconstant', 'enummember']],
      ['field', ['field', 'member', 'anonmember']],
      ['property', ['property']],
      ['module', ['module', 'package']],
      ['namespace', ['namespace']],
      ['macro', ['macro', 'define']],
    ] as [Kind, string[]][]
  ).flatMap(([kind, words]) => words.map((w): [string, Kind] => [w, kind])),
);

/** Where a parser's word means something else than in COMMON. */
const BY_LANGUAGE = new Map<string, Map<string, Kind>>([
  ['Python', new Map([['member', 'method']])],
  ['TSX', new Map([['member', 'method']])],
  ['Rust', new Map([['interface', 'trait']])],
  ['Java', new Map([['package', 'namespace']])],
]);

/** The normalized kind, or undefined when the parser's word has no counterpart (Markdown headings, Rust impl blocks). */
export function normalizeKind(rawKind: string, language: string, parentKind?: string): Kind | undefined {
  const word = rawKind.toLowerCase();
  // A Go func with a receiver (Universal Ctags gives it the receiver type as scope) is a method.
  if (word === 'func' && parentKind && parentKind !== 'package') return 'method';
  const kind = BY_LANGUAGE.get(language)?.get(word) ?? COMMON.get(word);
  // C++ out-of-line member definitions are `function`s scoped to their class. The extractor says
  // `Method` for a type's functions: its `Function` in a type is in the body of a member it does
  // not name (`[Symbol.iterator]() { const next = () => … }`), not one.
  if (kind === 'function' && rawKind !== 'Function' && parentKind && TYPE_SCOPES.has(parentKind.toLowerCase())) return 'method';
  return kind;
}

const TYPE_SCOPES = new Set(['class', 'classes', 'struct', 'union', 'interface', 'implementation', 'impl', 'trait', 'enum', 'type']);

/** Validates `kinds`; an unknown one is INVALID_ARGUMENT listing the valid ones. */
export function parseKinds(kinds: readonly string[] | undefined): Set<Kind> | undefined {
  if (!kinds?.length) return undefined;
  const out = new Set<Kind>();
  for (const k of kinds) {
    const word = k.trim().toLowerCase();
    if ((KINDS as readonly string[]).includes(word)) {
      out.add(word as Kind);
      continue;
    }
    const near = closest(word, KINDS, 2);
    throw invalidArgument(
      `kinds: unknown kind '${k}'`,
      `${near.length ? `Did you mean ${near.map((n) => `'${n}'`).join(' or ')}? ` : ''}Kinds are: ${KINDS.join(', ')}.`,
    );
  }
  return out;
}
