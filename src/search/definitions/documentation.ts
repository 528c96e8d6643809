/**
 * The documentation of a definition, read from the lines around it: the comment block right above
 * it (Go and C doc comments, `///` in Rust and C#, JSDoc/TSDoc and Javadoc `/** … *\/`, `#` in
 * scripting languages), past attributes and decorators; in Python the docstring below the `def`
 * or `class` line. Markers are stripped and the text trimmed to DOC_CHARS.
 */

/** Characters of documentation kept per symbol: the summary an agent needs, not the manual. */
export const DOC_CHARS = 300;
/** Lines read above and below a definition for its documentation. */
export const DOC_LINES = 12;
/** The most lines documentationOf reads on one side of a definition but for line comments: a docstring's. */
export const DOC_READ_LINES = 3 * DOC_LINES;
/** Lines read around a definition whose line comments run further up still. */
export const DOC_MAX_READ_LINES = 200;

/** Lines of a decorator or attribute that stand between a doc comment and its definition. */
const ATTRIBUTE = /^\s*(?:@[\w.]+|#\[.*\]|\[[\w.]+(?:\(.*\))?\]\s*$)/;
const LINE_COMMENT = /^\s*(?:\/\/[/!]?|#(?![[!])|--)\s?(.*)$/;

/**
 * `lineAt(n)`: line n of the file (1-based), or undefined when it was not read. `line`: where the
 * definition's name is. Returns the documentation, or undefined when there is none.
 */
export function documentationOf(lineAt: (n: number) => string | undefined, line: number, language: string): string | undefined {
  const text = language === 'Python' ? docstringBelow(lineAt, line) ?? commentAbove(lineAt, line, language) : commentAbove(lineAt, line, language);
  if (!text) return undefined;
  const flat = text
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .replace(/\n{2,}/g, '\n\n')
    .trim();
  if (!flat) return undefined;
  return flat.length > DOC_CHARS ? `${flat.slice(0, DOC_CHARS - 1).trimEnd()}…` : flat;
}

function commentAbove(lineAt: (n: number) => string | undefined, line: number, language: string): string | undefined {
  let n = line - 1;
  while (n >= 1 && ATTRIBUTE.test(lineAt(n) ?? '')) n--;
  const first = lineAt(n);
  if (first === undefined) return undefined;
  // A block comment ending just above: `/** … */`, `/* … */`.
  if (/\*\/\s*$/.test(first)) {
    const body: string[] = [];
    for (let m = n; m >= 1 && m > n - 2 * DOC_LINES; m--) {
      const l = lineAt(m);
      if (l === undefined) return undefined;
      body.unshift(l);
      if (/^\s*\/\*/.test(l)) {
        return body
          .join('\n')
          .replace(/^\s*\/\*+!?/, '')
          .replace(/\*+\/\s*$/, '')
          .split('\n')
          .map((x) => x.replace(/^\s*\*(?!\/) ?/, ''))
          .join('\n');
      }
    }
    return undefined;
  }
  // Line comments, contiguous. `#` only where it starts a comment (not C's `#define`).
  const hash = !['C', 'C++', 'Objective-C', 'C#', 'Rust'].includes(language);
  const body: string[] = [];
  for (let m = n; m >= 1; m--) {
    const l = lineAt(m);
    if (l === undefined) break;
    const c = LINE_COMMENT.exec(l);
    if (!c || (!hash && /^\s*#/.test(l)) || (/^\s*--/.test(l) && !['SQL', 'Lua', 'Haskell'].includes(language))) break;
    body.unshift(c[1]!);
  }
  return body.length ? body.join('\n') : undefined;
}

/** The docstring: the first statement after the `def`/`class` line(s), when it is a string. */
function docstringBelow(lineAt: (n: number) => string | undefined, line: number): string | undefined {
  // The signature may run over several lines; it ends with the line ending in `:`.
  let n = line;
  while (n < line + DOC_LINES && !/:\s*(?:#.*)?$/.test(lineAt(n) ?? ':')) n++;
  let m = n + 1;
  while ((lineAt(m) ?? 'x').trim() === '' && m < n + DOC_LINES) m++;
  const start = lineAt(m);
  const open = start === undefined ? null : /^\s*[rRuUbB]?("""|''')(.*)$/.exec(start);
  if (!open) return undefined;
  const quote = open[1]!;
  const rest = open[2]!;
  if (rest.includes(quote)) return rest.slice(0, rest.indexOf(quote));
  const body = [rest];
  for (let k = m + 1; k < m + DOC_READ_LINES; k++) {
    const l = lineAt(k);
    if (l === undefined) break;
    const end = l.indexOf(quote);
    if (end >= 0) {
      body.push(l.slice(0, end));
      return body.join('\n');
    }
    body.push(l);
  }
  // Longer than what was read: what was read.
  return body.join('\n');
}
