/**
 * Globs turned into RE2 regexes, with every character that is not a glob operator escaped.
 *
 * Path globs follow gitignore: a glob with a `/` at the start or in the middle is anchored at
 * the repository root (`src/**\/*.ts`, `/main.go`); otherwise it matches a name at any depth
 * (`*.go`, `Makefile`); a trailing `/` means a directory and everything under it (`test/`).
 * `*` and `?` never cross a `/`; `**` does. `[abc]`, `[a-z]` and `[!abc]` are classes; `\x`
 * escapes x.
 */
import { invalidArgument } from '../errors.js';

const RE2_META = /[\\.+*?()|[\]{}^$]/g;

function escapeChar(c: string): string {
  return c.replace(RE2_META, '\\$&');
}

/**
 * A class that would be an invalid RE2 class is refused here, naming the glob, rather than sent
 * to Zoekt as a regex the caller never wrote: `[z-a]` (a range running backwards). (`[]` and `[!]`
 * have no end: their `]` is a member.)
 */
function checkClass(body: string, glob: string, what: string): void {
  const chars = [...body];
  for (let i = 1; i + 1 < chars.length; i++) {
    if (chars[i] !== '-') continue;
    const from = chars[i - 1]!;
    const to = chars[i + 1]!;
    if (from.codePointAt(0)! > to.codePointAt(0)!) {
      throw invalidArgument(`${what} '${glob}' has the range '${from}-${to}', which runs backwards`, `Write the range low to high ('${to}-${from}'), or put '-' first or last in the class to match a literal '-'.`);
    }
    i++;
  }
}

/**
 * Translates glob syntax to a regex body. `segmentStar` is what `*` becomes: `[^/]*` for paths
 * and repo names, `.*` where there are no separators.
 */
function translate(glob: string, what: string, segmentStar: string, segmentOne: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\') {
      const next = glob[i + 1];
      if (next === undefined) throw invalidArgument(`${what} '${glob}' ends with a lone backslash`, 'Remove the trailing \\ or escape it as \\\\.');
      out += escapeChar(next);
      i++;
    } else if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more directories; any other `**` matches anything.
        if (glob[i + 2] === '/') {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else {
        out += segmentStar;
      }
    } else if (c === '?') {
      out += segmentOne;
    } else if (c === '[') {
      // As in gitignore, a ']' right after '[' or '[!' is a member of the class, not its end.
      const negate = glob[i + 1] === '!' || glob[i + 1] === '^';
      const first = i + (negate ? 2 : 1);
      const close = glob.indexOf(']', first + 1);
      if (close < 0) {
        const member = glob[first] === ']' ? ` (a ']' right after '${negate ? `[${glob[i + 1]}` : '['}' is a character of the class, not its end)` : '';
        throw invalidArgument(`${what} '${glob}' has a '[' that is never closed${member}`, `Close the class ('[abc]', '[!abc]') or escape the bracket as '\\['.`);
      }
      const body = glob.slice(first, close);
      checkClass(body, glob, what);
      // Inside a class only \ ] [ ^ need escaping for RE2; '-' keeps its range meaning.
      const cls = body.replace(/[\\\]\[^]/g, '\\$&');
      // In a path, as in gitignore, a negated class does not match the `/` between segments.
      out += `[${negate ? (segmentStar === '[^/]*' ? '^/' : '^') : ''}${cls}]`;
      i = close;
    } else {
      out += escapeChar(c);
    }
  }
  return out;
}

/** A gitignore-style path glob as an RE2 regex over the path inside the repo. */
export function pathGlobToRegex(glob: string): string {
  const g = glob.trim();
  if (g === '' || g === '/') throw invalidArgument('an empty path glob', "Give a glob such as '*.ts', 'src/', or 'src/**/*.go'.");
  const directory = g.endsWith('/');
  let body = directory ? g.slice(0, -1) : g;
  // `**/x` is `x` at any depth, which is what `x` without a `/` means.
  if (body.startsWith('**/') && !body.slice(3).includes('/')) body = body.slice(3);
  const anchored = body.startsWith('/') || body.includes('/');
  if (body.startsWith('/')) body = body.slice(1);
  // `*.h` is any path that ends in `.h`: with nothing after the `*` that can match a `/` (no
  // class, no `**`), `(?:^|/)[^/]*` adds nothing, and Zoekt matched it against every file name
  // at half the speed (`type:filename file:"(?:^|/)[^/]*\.h$"` 31 ms over the benchmark
  // corpus's 21,302 files, `\.h$` 16 ms).
  if (!anchored && !directory && /^\*[^*[\\]/.test(body) && !/[[\\]|\*\*/.test(body)) return `${translate(body.slice(1), 'path glob', '[^/]*', '[^/]')}$`;
  const re = translate(body, 'path glob', '[^/]*', '[^/]');
  const prefix = anchored ? '^' : '(?:^|/)';
  return directory ? `${prefix}${re}/` : `${prefix}${re}$`;
}

/**
 * A repo-name glob (`github.com/acme/*`). Like path globs, one without a `/` matches the last
 * segments of a name at any depth (`webapp` finds `github.com/acme/webapp`); with a `/` it
 * matches the whole name.
 */
export function repoGlobToRegex(glob: string): string {
  const g = glob.trim().replace(/\/+$/, '');
  if (g === '') throw invalidArgument('an empty repo glob', "Give a repo name or glob such as 'github.com/acme/*' or 'webapp'.");
  const re = translate(g, 'repo glob', '[^/]*', '[^/]');
  return g.includes('/') ? `^${re}$` : `(?:^|/)${re}$`;
}

/** A glob over a plain name (symbols): `*` and `?` match any characters, anchored at both ends. */
export function nameGlobToRegex(glob: string): string {
  return `^${translate(glob, 'name glob', '.*', '.')}$`;
}

/** Whether a string uses glob operators at all. */
export function isGlob(text: string): boolean {
  return /(?<!\\)[*?[]/.test(text);
}
