/**
 * A Python file with the bodies of its functions blanked where they define nothing, found by
 * reading its tokens, without parsing. Most of a Python file is function bodies; what a function
 * assigns is local to it, so a body holds a definition only where a nested `def`, `class` or
 * decorator stands, or a lambda is bound to a name. Parsing the rest, and walking its expressions for the tag query, was a third
 * of the extractor's time on CPython's Lib.
 *
 * Python's lexical rules make this sound: a statement ends at a newline outside brackets,
 * strings and a backslash continuation, and a block is the lines indented deeper than its
 * header. A blanked body keeps its newlines, so every line of the rest is that of the file (tags
 * are by line), and holds the expression `0` at the indentation of its first statement, so the
 * function still parses as one. A file this reading does not end cleanly (a string or bracket
 * left open) is not blanked; should one defeat it anyway, its parse has errors and it is parsed
 * again, whole.
 */

/** A logical line: where its first token is, its indentation, and how it ends. */
interface Line {
  /** Offset of its first token. */
  start: number;
  /** Offset of the newline that ends it (or the end of the text). */
  end: number;
  indent: number;
  /** It opens a block on the lines below: its last token is `:`. */
  opensBlock: boolean;
}

/** A `def` whose body is still open. */
interface OpenDef {
  indent: number;
  /** Where its header ends: the body's text starts after this. */
  headerEnd: number;
  /** Its body's first statement, once seen. */
  first: Line | undefined;
  last: Line | undefined;
  /** A definition stands inside it: it keeps its body. */
  keep: boolean;
}

/** The text with the bodies that define nothing blanked; undefined when there are none, or the text does not lex cleanly. */
export function pythonSkeleton(source: string): string | undefined {
  const lines = logicalLines(source);
  if (!lines) return undefined;
  const blank: [Line, Line, number][] = [];
  const open: OpenDef[] = [];
  // The next `lambda` at or after a line's start: lines come in order, so the file is searched once.
  let lambda = source.indexOf('lambda');
  const bindsLambda = (line: Line) => {
    while (lambda !== -1 && lambda < line.start) lambda = source.indexOf('lambda', lambda + 1);
    return lambda !== -1 && lambda < line.end && BINDS_LAMBDA.test(source.slice(line.start, line.end));
  };
  const close = (upTo: number) => {
    while (open.length && open[open.length - 1]!.indent >= upTo) {
      const d = open.pop()!;
      if (!d.keep && d.first && d.last) blank.push([d.first, d.last, d.headerEnd]);
    }
  };
  for (const line of lines) {
    close(line.indent);
    const top = open[open.length - 1];
    if (top && !top.first) top.first = line;
    for (const d of open) d.last = line;
    if (DEFINES.test(source.slice(line.start, line.start + 12)) || bindsLambda(line)) {
      for (const d of open) d.keep = true;
      if (line.opensBlock && /^(?:async\s+)?def\b/.test(source.slice(line.start, line.start + 12))) {
        open.push({ indent: line.indent, headerEnd: line.end, first: undefined, last: undefined, keep: false });
      }
    }
  }
  close(-1);
  if (!blank.length) return undefined;
  const out: string[] = [];
  let at = 0;
  for (const [first, last, headerEnd] of blank.sort((a, b) => a[2] - b[2])) {
    out.push(source.slice(at, headerEnd));
    // The body's lines, emptied: `0` where its first statement starts, after its indentation.
    const lineStart = source.lastIndexOf('\n', first.start) + 1;
    out.push('\n'.repeat(countNewlines(source, headerEnd, lineStart)), source.slice(lineStart, first.start), '0', '\n'.repeat(countNewlines(source, first.start, last.end)));
    at = last.end;
  }
  out.push(source.slice(at));
  return out.join('');
}

function countNewlines(source: string, from: number, to: number): number {
  let count = 0;
  for (let i = source.indexOf('\n', from); i !== -1 && i < to; i = source.indexOf('\n', i + 1)) count++;
  return count;
}

/** A statement that defines something wherever it stands: a function, a class, or a decorator of either. */
const DEFINES = /^(?:(?:async\s+)?def\s|class[\s(:]|@)/;

/** `f = lambda …`, `f: T = (lambda …)`, `a = b = lambda …`: a lambda bound to a name, a function wherever it stands. */
const BINDS_LAMBDA = /^[\p{L}_][\p{L}\p{N}_]*\s*(?::[^=]*)?=\s*(?:[\p{L}_][\p{L}\p{N}_]*\s*=\s*)*\(?\s*lambda\b/u;

/**
 * The logical lines of a Python file, as its tokenizer reads them (blank and comment-only lines
 * are none), or undefined where a string or a bracket is left open at the end.
 */
function logicalLines(src: string): Line[] | undefined {
  const lines: Line[] = [];
  const n = src.length;
  let i = 0;
  while (i < n) {
    // The indentation of a physical line: tabs to the next multiple of 8, as Python's tokenizer does.
    let indent = 0;
    for (; i < n; i++) {
      const c = src.charCodeAt(i);
      if (c === 0x20) indent++;
      else if (c === 0x09) indent = (Math.floor(indent / 8) + 1) * 8;
      else if (c === 0x0c) indent = 0;
      else break;
    }
    if (i >= n) break;
    const c = src.charCodeAt(i);
    if (c === 0x0a || c === 0x0d || c === 0x23 /* # */ || (c === 0x5c && src.charCodeAt(i + 1) === 0x0a)) {
      // A blank or comment-only line (or a lone continuation): no statement starts here.
      const end = src.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
      continue;
    }
    const start = i;
    const end = scanStatement(src, i);
    if (end === undefined) return undefined;
    lines.push({ start, end: end.at, indent, opensBlock: end.lastColon });
    i = end.at + 1;
  }
  return lines;
}

/** From a statement's first token to the newline that ends it; undefined where something is left open. */
function scanStatement(src: string, from: number): { at: number; lastColon: boolean } | undefined {
  const n = src.length;
  let depth = 0;
  let lastColon = false;
  let i = from;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 0x0a) {
      if (depth === 0) return { at: i, lastColon };
      i++;
      continue;
    }
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0c) {
      i++;
      continue;
    }
    if (c === 0x23) {
      const end = src.indexOf('\n', i);
      i = end === -1 ? n : end;
      continue;
    }
    if (c === 0x5c /* \ */) {
      // A continuation: the statement goes on past the newline.
      i += src.charCodeAt(i + 1) === 0x0d && src.charCodeAt(i + 2) === 0x0a ? 3 : 2;
      continue;
    }
    lastColon = c === 0x3a;
    if (c === 0x22 || c === 0x27 || isWordStart(c)) {
      const end = scanToken(src, i);
      if (end === undefined) return undefined;
      i = end;
      continue;
    }
    if (c === 0x28 || c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x29 || c === 0x5d || c === 0x7d) {
      if (--depth < 0) return undefined;
    }
    i++;
  }
  return depth === 0 ? { at: n, lastColon } : undefined;
}

/**
 * From a string's opening quote, or a word's first character, to the offset after it (a word
 * that prefixes a string, `rb'…'`, with its string); undefined where a string does not close.
 */
function scanToken(src: string, at: number): number | undefined {
  const c = src.charCodeAt(at);
  if (c === 0x22 || c === 0x27) return scanString(src, at, '');
  let j = at + 1;
  while (j < src.length && isWordChar(src.charCodeAt(j))) j++;
  const q = src.charCodeAt(j);
  if ((q === 0x22 || q === 0x27) && j - at <= 2 && PREFIX.test(src.slice(at, j))) return scanString(src, j, src.slice(at, j).toLowerCase());
  return j;
}

/** String prefixes: raw, bytes, unicode, formatted. */
const PREFIX = /^(?:[rRuUbBfF]|[bB][rR]|[rR][bB]|[fF][rR]|[rR][fF])$/;

/**
 * From a string's opening quote to the offset after its closing one; undefined if it does not
 * close. A backslash keeps the next character from ending it, raw or not. In an f-string, a
 * replacement field is code to its `}`, and may hold strings of its own, in any quote (3.12).
 */
function scanString(src: string, at: number, prefix: string): number | undefined {
  const n = src.length;
  const q = src.charCodeAt(at);
  const triple = src.charCodeAt(at + 1) === q && src.charCodeAt(at + 2) === q;
  const formatted = prefix.includes('f');
  let i = at + (triple ? 3 : 1);
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 0x5c) {
      i += 2;
      continue;
    }
    if (c === q) {
      if (!triple) return i + 1;
      if (src.charCodeAt(i + 1) === q && src.charCodeAt(i + 2) === q) return i + 3;
    } else if (c === 0x0a && !triple) {
      return undefined;
    } else if (formatted && c === 0x7b /* { */) {
      if (src.charCodeAt(i + 1) === 0x7b) {
        i += 2;
        continue;
      }
      const end = scanField(src, i + 1);
      if (end === undefined) return undefined;
      i = end;
      continue;
    }
    i++;
  }
  return undefined;
}

/** An f-string's replacement field, after its `{`: to the offset after its `}`. */
function scanField(src: string, from: number): number | undefined {
  const n = src.length;
  let depth = 0;
  let i = from;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 0x22 || c === 0x27 || isWordStart(c)) {
      const end = scanToken(src, i);
      if (end === undefined) return undefined;
      i = end;
      continue;
    }
    if (c === 0x28 || c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x29 || c === 0x5d) depth--;
    else if (c === 0x7d) {
      if (depth === 0) return i + 1;
      depth--;
    }
    i++;
  }
  return undefined;
}

function isWordStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c >= 0x80;
}

function isWordChar(c: number): boolean {
  return isWordStart(c) || (c >= 0x30 && c <= 0x39);
}
