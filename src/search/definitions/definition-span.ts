/**
 * The lines one definition spans, from its line in the file: the index knows where a definition
 * starts, not where it ends. Python's ends before the next line indented no deeper than it; a
 * definition in a language of braces ends where the brace it opens closes (strings and comments
 * skipped); one that opens no brace (a type alias, a field, a Go `var`) ends with its statement.
 * Its doc comment, attributes and decorators above it are part of it.
 */

/** How far a definition is followed before the span is cut (a brace that never closes). */
const MAX_SPAN_LINES = 5_000;

const COMMENT_OR_ATTRIBUTE = /^\s*(?:\/\/|\/\*|\*|#\[|@[\w.]+|\[[\w.]+(?:\(.*\))?\]\s*$|#(?!include|define|if|ifdef|ifndef|endif|else|pragma)|""")/;

/** `lines`: the file's lines (index 0 is line 1). `line`: where the definition's name is. */
export function definitionSpan(lines: readonly string[], line: number, language: string): { start: number; end: number } {
  let start = line;
  while (start > 1 && COMMENT_OR_ATTRIBUTE.test(lines[start - 2] ?? '') && (lines[start - 2] ?? '').trim() !== '') start--;
  const end = language === 'Python' ? indentedEnd(lines, line) : bracedEnd(lines, line);
  return { start, end: Math.max(line, end) };
}

function indentOf(text: string): number {
  return text.length - text.trimStart().length;
}

function indentedEnd(lines: readonly string[], line: number): number {
  const own = indentOf(lines[line - 1] ?? '');
  let last = line;
  // The signature may go on over several lines (its parentheses), up to the line ending in `:`.
  let i = line;
  while (i <= lines.length && i < line + 50 && !/:\s*(?:#.*)?$/.test(lines[i - 1] ?? '')) i++;
  last = i;
  for (let n = i + 1; n <= lines.length && n < line + MAX_SPAN_LINES; n++) {
    const text = lines[n - 1]!;
    if (text.trim() === '') continue;
    if (indentOf(text) <= own) break;
    last = n;
  }
  return last;
}

function bracedEnd(lines: readonly string[], line: number): number {
  let depth = 0;
  let opened = false;
  let inBlock = false;
  for (let n = line; n <= lines.length && n < line + MAX_SPAN_LINES; n++) {
    const text = lines[n - 1]!;
    let quote: string | undefined;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      const next = text[i + 1];
      if (inBlock) {
        if (c === '*' && next === '/') {
          inBlock = false;
          i++;
        }
        continue;
      }
      if (quote) {
        if (c === '\\') i++;
        else if (c === quote) quote = undefined;
        continue;
      }
      if (c === '/' && next === '/') break;
      if (c === '/' && next === '*') {
        inBlock = true;
        i++;
        continue;
      }
      if (c === '"' || c === "'" || c === '`') quote = c;
      else if (c === '{') {
        depth++;
        opened = true;
      } else if (c === '}') depth--;
      else if (c === ';' && !opened && depth === 0) return n;
    }
    if (opened && depth <= 0) return n;
    // A declaration that opens no brace by its end: a one-line alias or field.
    if (!opened && n > line && text.trim() === '') return n - 1;
  }
  return opened ? Math.min(lines.length, line + MAX_SPAN_LINES - 1) : line;
}
