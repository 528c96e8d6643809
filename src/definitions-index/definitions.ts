/**
 * A file's definitions from the extractor's answer, as Zoekt keeps them and as search/ reads them
 * back: Zoekt places each tag at the first occurrence of its name on its line, drops a tag whose
 * name is not on the line or whose place overlaps one kept before (index/ctags.go,
 * tagsToSections.Convert); search/definitions/symbol.ts then drops a line that only calls the
 * name, makes the kind one of the normalized ones and the parent bare. The doc comment is read
 * from the lines around, as search_symbols reads it (documentation.ts).
 */
import { documentationOf } from '../search/definitions/documentation.js';
import { definesAt, scopeSegments } from '../search/definitions/symbol.js';
import { normalizeKind } from '../search/vocab/kinds.js';
import { LINGUIST } from '../search/vocab/linguist.js';
import { isVendoredPath } from '../search/vocab/vendored.js';
import type { StoredDefinition } from './format.js';

/** A tag line of the ctags protocol, as read. */
export interface Tag {
  name: string;
  line: number;
  kind: string;
  scope?: string;
  scopeKind?: string;
  language?: string;
}

/** The tag lines of one answer (the `completed` line and anything else left out). */
export function tagsOfAnswer(answer: string): Tag[] {
  const tags: Tag[] = [];
  for (const line of answer.split('\n')) {
    if (!line.startsWith('{')) continue;
    let t: Record<string, unknown>;
    try {
      t = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (t._type !== 'tag' || typeof t.name !== 'string' || typeof t.line !== 'number' || typeof t.kind !== 'string') continue;
    const tag: Tag = { name: t.name, line: t.line, kind: t.kind };
    if (typeof t.scope === 'string') tag.scope = t.scope;
    if (typeof t.scopeKind === 'string') tag.scopeKind = t.scopeKind;
    if (typeof t.language === 'string') tag.language = t.language;
    tags.push(tag);
  }
  return tags;
}

/** Universal Ctags' language names where Linguist's (Zoekt's) differ. */
const CTAGS_LANGUAGES: Record<string, string> = {
  Sh: 'Shell',
  Make: 'Makefile',
  ObjectiveC: 'Objective-C',
  Asm: 'Assembly',
  MatLab: 'MATLAB',
  Perl6: 'Raku',
  Powershell: 'PowerShell',
  Protobuf: 'Protocol Buffer',
  Vim: 'Vim Script',
  Lisp: 'Common Lisp',
  tsx: 'TSX',
  typescript: 'TypeScript',
};
const LINGUIST_NAMES = new Map(LINGUIST.map(([name]) => [name.toLowerCase(), name]));

/** The Linguist name of a tag's language (the extractor's are Linguist names already; Universal Ctags' mostly). */
export function linguistName(language: string | undefined): string {
  if (!language) return '';
  const mapped = CTAGS_LANGUAGES[language] ?? language;
  return LINGUIST_NAMES.get(mapped.toLowerCase()) ?? mapped;
}

/** The longest signature kept: a minified line is not a signature anyone reads whole. */
const SIGNATURE_CHARS = 500;

export interface FileDefinitions {
  language: string;
  definitions: StoredDefinition[];
}

/**
 * The definitions of one file from its tags. `lines`: the file's lines (split at `\n`, as Zoekt
 * does; a `\r` before it stays part of the line, as in Zoekt's chunks).
 */
export function definitionsOf(path: string, lines: readonly string[], tags: readonly Tag[]): FileDefinitions {
  const language = linguistName(tags.find((t) => t.language)?.language);
  // Zoekt keeps sections sorted by place and refuses one that overlaps a kept one (overlaps()).
  const lineStart: number[] = [];
  for (let i = 0, at = 0; i < lines.length; i++) {
    lineStart.push(at);
    at += lines[i]!.length + 1;
  }
  const kept: { tag: Tag; line: number; start: number; end: number }[] = [];
  for (const tag of tags) {
    if (tag.line <= 0 || tag.line > lines.length) continue;
    const column = tag.name === '' ? -1 : lines[tag.line - 1]!.indexOf(tag.name);
    if (column < 0) continue;
    const start = lineStart[tag.line - 1]! + column;
    const end = start + tag.name.length;
    let i = kept.length - 1;
    let overlap = false;
    for (; i >= 0; i--) {
      if (start >= kept[i]!.end) break;
      if (end <= kept[i]!.start) continue;
      overlap = true;
      break;
    }
    if (overlap) continue;
    kept.splice(i + 1, 0, { tag, line: tag.line, start: column, end });
  }
  const vendored = isVendoredPath(path);
  const lineAt = (n: number) => (n >= 1 && n <= lines.length ? stripCr(lines[n - 1]!) : undefined);
  const definitions: StoredDefinition[] = [];
  for (const { tag, line, start } of kept) {
    const text = stripCr(lines[line - 1]!);
    if (!definesAt(text, tag.name)) continue;
    const lang = linguistName(tag.language) || language;
    // A Go or Java package is the scope of every symbol in it, not an enclosing type.
    const scoped = !!tag.scope && tag.scopeKind !== 'package';
    const kind = normalizeKind(tag.kind, lang, scoped ? tag.scopeKind : undefined) ?? tag.kind;
    const signature = text.trim();
    const d: StoredDefinition = {
      name: tag.name,
      kind,
      raw_kind: tag.kind,
      line,
      column: start + 1,
      signature: signature.length > SIGNATURE_CHARS ? `${signature.slice(0, SIGNATURE_CHARS - 1)}…` : signature,
      vendored,
    };
    if (scoped) {
      d.parent = scopeSegments(tag.scope!).pop() ?? tag.scope!;
      if (tag.scopeKind) d.parent_kind = tag.scopeKind;
    }
    const doc = lang === 'Go' ? withoutGoDirectives(documentationOf(lineAt, line, lang)) : documentationOf(lineAt, line, lang);
    if (doc) d.documentation = doc;
    definitions.push(d);
  }
  return { language, definitions };
}

/**
 * A Go comment line that is a directive to the toolchain (`//go:noinline`, `//lint:ignore`,
 * `//line`, `//export`, `//extern`), not documentation: go/ast's CommentGroup.Text leaves them out.
 */
const GO_DIRECTIVE = /^(?:[a-z0-9]+:[a-z0-9]|line |extern |export )/;

function withoutGoDirectives(doc: string | undefined): string | undefined {
  if (!doc) return doc;
  const kept = doc.split('\n').filter((l) => !GO_DIRECTIVE.test(l)).join('\n').replace(/\n{3,}/g, '\n\n').trim();
  return kept || undefined;
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
