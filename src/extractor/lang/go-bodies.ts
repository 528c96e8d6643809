/**
 * Where the bodies of a Go file's top-level functions are, found by reading its tokens, without
 * parsing: half of a Go file is function bodies, which mostly hold no definition the extractor
 * tags, and tree-sitter parses a file faster by two and a half when it is told to skip them. A
 * body that binds a function literal to a name (`f := func…`, `var f = func…`, at any depth of
 * it) holds a definition, and is not skipped.
 *
 * Go's lexical rules make this sound: strings, raw strings, runes and comments are the only
 * places a brace does not count, and the `{` that opens a function's body stands on the line its
 * signature ends on (a newline there would end the declaration). A brace after `struct` or
 * `interface` opens a type, not a body (`func f() struct{ x int } { … }`). Should a file defeat
 * this anyway, its parse has errors and it is parsed again, whole.
 */

/** Pairs of code-unit offsets: a top-level function body's `{` and its matching `}`, where it binds no function literal. */
export function goFunctionBodies(source: string): [number, number][] {
  const bodies: [number, number][] = [];
  /** Open braces, and for each whether it opened a function body. */
  const braces: { at: number; body: boolean }[] = [];
  let parens = 0;
  let brackets = 0;
  /** A top-level `func` whose body has not opened yet. */
  let pendingFunc = false;
  let lastWord = '';
  /** The last character of code before this one, past spaces, newlines and comments: `=` before a `func` binds it. */
  let lastCode = 0;
  /** The open top-level body binds a function literal to a name. */
  let binds = false;
  const n = source.length;
  let i = 0;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === 0x2f /* / */ && source.charCodeAt(i + 1) === 0x2f) {
      const end = source.indexOf('\n', i);
      i = end === -1 ? n : end;
      continue;
    }
    if (c === 0x2f && source.charCodeAt(i + 1) === 0x2a /* * */) {
      const end = source.indexOf('*/', i + 2);
      // A comment that spans lines ends a statement like a newline does.
      if (pendingFunc && parens === 0 && brackets === 0 && source.slice(i, end).includes('\n')) pendingFunc = false;
      i = end === -1 ? n : end + 2;
      continue;
    }
    if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
      let j = i + 1;
      while (j < n && source.charCodeAt(j) !== c && source.charCodeAt(j) !== 0x0a) j += source.charCodeAt(j) === 0x5c /* \ */ ? 2 : 1;
      i = j + 1;
      lastWord = '';
      lastCode = c;
      continue;
    }
    if (c === 0x60 /* ` */) {
      const end = source.indexOf('`', i + 1);
      i = end === -1 ? n : end + 1;
      lastWord = '';
      lastCode = c;
      continue;
    }
    if (isWordChar(c)) {
      let j = i + 1;
      while (j < n && isWordChar(source.charCodeAt(j))) j++;
      lastWord = source.slice(i, j);
      if (lastWord === 'func' && braces.length === 0 && parens === 0 && brackets === 0) pendingFunc = true;
      else if (lastWord === 'func' && lastCode === 0x3d /* = */ && braces.length > 0) binds = true;
      lastCode = c;
      i = j;
      continue;
    }
    switch (c) {
      case 0x0a: // newline: ends a declaration whose body did not open on its line
        if (pendingFunc && parens === 0 && brackets === 0) pendingFunc = false;
        break;
      case 0x28: // (
        parens++;
        break;
      case 0x29: // )
        if (parens > 0) parens--;
        break;
      case 0x5b: // [
        brackets++;
        break;
      case 0x5d: // ]
        if (brackets > 0) brackets--;
        break;
      case 0x7b: {
        // {
        const body = pendingFunc && parens === 0 && brackets === 0 && lastWord !== 'struct' && lastWord !== 'interface';
        if (body) {
          pendingFunc = false;
          binds = false;
        }
        braces.push({ at: i, body });
        break;
      }
      case 0x7d: {
        // }
        const open = braces.pop();
        if (open?.body && !binds) bodies.push([open.at, i]);
        break;
      }
    }
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) lastWord = '';
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) lastCode = c;
    i++;
  }
  return bodies;
}

function isWordChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c >= 0x80;
}
