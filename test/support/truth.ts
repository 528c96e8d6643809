/**
 * Expected answers for the Go corpus (test/support/goroot.ts), computed by reading the files and
 * never by asking Zoekt.
 *
 * Which files Zoekt holds, and which of them it holds as text, follows zoekt-index at the pinned
 * version (cmd/zoekt-index/main.go, index/builder.go Builder.Add, index/shard_builder.go
 * DocChecker.Check and ShardBuilder.Add):
 * - the tree is walked without following symbolic links; only regular files are added; folders
 *   named .git, .hg or .svn are skipped (-ignore_dirs default);
 * - a file is kept as a "NOT-INDEXED: <reason>" placeholder, searchable by name but not by its
 *   content, when it is larger than 4 MiB (-file_limit, as zoekt-config/index sets it), has 1 or 2 bytes (too few
 *   trigrams), has its first NUL byte anywhere but at offset 0 (binary; a NUL at offset 0 is
 *   not seen, Zoekt's quirk), or has more than 50000 distinct trigrams of runes
 *   (-max_trigram_count as zoekt-config/index sets it; only counted when bytes - 2 > 50000);
 * - every other file, the empty ones included, is indexed with its text.
 *
 * Lines are the file split on '\n' with a trailing '\r' dropped; the empty string after a final
 * '\n' is not a line. Files are decoded as UTF-8 (invalid bytes become U+FFFD). Patterns are JS
 * RegExps tested line by line: keep to what RE2 means the same way, and avoid patterns that can
 * match an empty line (Zoekt also matches those after a final '\n', and reports them oddly).
 *
 * Checked against the pinned Zoekt on go1.26.8 with zoekt-config/index's limits: the same 11478
 * documents and the same 738 placeholders per reason (730 binary, 4 too few trigrams, 4 too many
 * trigrams; skipped-files.test.ts checks them), and (one-off, not in the tests) identical file and line sets for `case:yes content:` SetDeadline,
 * \bReader\b, \berr\b, TODO, "^func \(", [^\x00-\x7f], `case:no content:deadline`, and
 * `lang:Go` + \bString\b / \bReader\b against wordLines(..., GO_FILES).
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type SkipReason = 'too-large' | 'too-small' | 'binary' | 'too-many-trigrams';

export interface Corpus {
  /** Files Zoekt indexes with their text: what content searches can find. Sorted, '/'-separated. */
  indexed: string[];
  /** Files Zoekt keeps only as NOT-INDEXED placeholders (found by file name, never by content). */
  skipped: Map<string, SkipReason>;
  /** indexed and skipped together: every document Zoekt holds (what `type:filename` sees). Sorted. */
  all: string[];
}

export interface LineMatch {
  path: string;
  /** 1-based. */
  line: number;
  /** The line without its '\n' or trailing '\r'. */
  text: string;
}

/** Which files to look at besides `files`: file extensions ('.go') or a predicate on the path. */
export type PathFilter = readonly string[] | ((path: string) => boolean);

/** zoekt-config/index's -file_limit and -max_trigram_count (Zoekt's defaults are 2 MiB and 20000). */
const SIZE_MAX = 4 << 20;
const TRIGRAM_MAX = 50000;
const IGNORE_DIRS = new Set(['.git', '.hg', '.svn']);

const corpora = new Map<string, Corpus>();
/** Decoded text of the indexed files, per srcRoot, filled as files are read. */
const texts = new Map<string, Map<string, string>>();
const lineCache = new Map<string, Map<string, string[]>>();

function textsOf(srcRoot: string): Map<string, string> {
  let m = texts.get(srcRoot);
  if (!m) texts.set(srcRoot, (m = new Map()));
  return m;
}

/** Go's utf8.DecodeRune: the rune at `i` and its size; an invalid byte is U+FFFD of size 1. */
function decodeRune(b: Buffer, i: number): [number, number] {
  const c0 = b[i]!;
  if (c0 < 0x80) return [c0, 1];
  const n = b.length - i;
  const cont = (k: number) => (k < n ? b[i + k]! : -1);
  if (c0 >= 0xc2 && c0 <= 0xdf) {
    const c1 = cont(1);
    if (c1 >= 0x80 && c1 <= 0xbf) return [((c0 & 0x1f) << 6) | (c1 & 0x3f), 2];
  } else if (c0 >= 0xe0 && c0 <= 0xef) {
    const c1 = cont(1);
    const lo = c0 === 0xe0 ? 0xa0 : 0x80;
    const hi = c0 === 0xed ? 0x9f : 0xbf;
    const c2 = cont(2);
    if (c1 >= lo && c1 <= hi && c2 >= 0x80 && c2 <= 0xbf) return [((c0 & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f), 3];
  } else if (c0 >= 0xf0 && c0 <= 0xf4) {
    const c1 = cont(1);
    const lo = c0 === 0xf0 ? 0x90 : 0x80;
    const hi = c0 === 0xf4 ? 0x8f : 0xbf;
    const c2 = cont(2);
    const c3 = cont(3);
    if (c1 >= lo && c1 <= hi && c2 >= 0x80 && c2 <= 0xbf && c3 >= 0x80 && c3 <= 0xbf) {
      return [((c0 & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f), 4];
    }
  }
  return [0xfffd, 1];
}

/** Bits for the trigrams of three ASCII runes (7 bits each), cleared for every file. */
const asciiSeen = new Uint32Array((1 << 21) / 32);

/** DocChecker.Check's count: more than `max` distinct trigrams of runes? */
function tooManyTrigrams(b: Buffer, max: number): boolean {
  asciiSeen.fill(0);
  let other: Set<number | string> | undefined; // trigrams with a non-ASCII rune (rare)
  let count = 0;
  let r0 = 0;
  let r1 = 0;
  for (let i = 0; i < b.length; ) {
    let r = b[i]!;
    if (r < 0x80) {
      i++;
    } else {
      const [rr, sz] = decodeRune(b, i);
      r = rr;
      i += sz;
    }
    const first = r0;
    r0 = r1;
    r1 = r;
    if (first === 0) continue; // start of file (Go compares cur[0] with rune 0)
    if ((first | r0 | r1) < 0x80) {
      const k = (first << 14) | (r0 << 7) | r1;
      const bit = 1 << (k & 31);
      if (asciiSeen[k >>> 5]! & bit) continue;
      asciiSeen[k >>> 5]! |= bit;
    } else {
      other ??= new Set();
      // Three 21-bit runes: exact as a number below 2^53, else as a string.
      const key = first < 2048 ? first * 2 ** 42 + r0 * 2 ** 21 + r1 : `${first},${r0},${r1}`;
      if (other.has(key)) continue;
      other.add(key);
    }
    if (++count > max) return true;
  }
  return false;
}

function skipReason(b: Buffer): SkipReason | undefined {
  if (b.length === 0) return undefined;
  if (b.length > SIZE_MAX) return 'too-large';
  if (b.length < 3) return 'too-small';
  if (b.indexOf(0) > 0) return 'binary';
  if (b.length - 3 + 1 > TRIGRAM_MAX && tooManyTrigrams(b, TRIGRAM_MAX)) return 'too-many-trigrams';
  return undefined;
}

/**
 * Every file zoekt-index adds for `srcRoot`, split into those indexed with their text and the
 * NOT-INDEXED placeholders. Reads the whole tree once per process (about a second for GOROOT);
 * the text of the indexed files stays cached for the other helpers.
 */
export function scanCorpus(srcRoot: string): Corpus {
  const cached = corpora.get(srcRoot);
  if (cached) return cached;
  const indexed: string[] = [];
  const skipped = new Map<string, SkipReason>();
  const all: string[] = [];
  const cache = textsOf(srcRoot);
  const walk = (dir: string, rel: string) => {
    // filepath.Walk visits names in byte order; the order does not matter here (sorted below).
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      const path = rel ? `${rel}/${name}` : name;
      const st = lstatSync(abs);
      if (st.isDirectory()) {
        if (!IGNORE_DIRS.has(name)) walk(abs, path);
        continue;
      }
      if (!st.isFile()) continue; // symbolic links, sockets, devices
      all.push(path);
      if (st.size > SIZE_MAX) {
        skipped.set(path, 'too-large'); // zoekt-index does not even read it
        continue;
      }
      const b = readFileSync(abs);
      const reason = skipReason(b);
      if (reason) {
        skipped.set(path, reason);
      } else {
        indexed.push(path);
        cache.set(path, b.toString('utf8'));
      }
    }
  };
  walk(srcRoot, '');
  const corpus = { indexed: indexed.sort(), skipped, all: all.sort() };
  corpora.set(srcRoot, corpus);
  return corpus;
}

/** The files Zoekt indexes with their text (NOT-INDEXED placeholders excluded). Sorted. */
export function indexedFiles(srcRoot: string): string[] {
  return scanCorpus(srcRoot).indexed;
}

/** The text of one file (relative path), read once per process. */
export function fileText(srcRoot: string, path: string): string {
  const cache = textsOf(srcRoot);
  let t = cache.get(path);
  if (t === undefined) cache.set(path, (t = readFileSync(join(srcRoot, path), 'utf8')));
  return t;
}

/** The lines of one file: split on '\n', trailing '\r' dropped, no empty line after a final '\n'. */
export function fileLines(srcRoot: string, path: string): string[] {
  let perRoot = lineCache.get(srcRoot);
  if (!perRoot) lineCache.set(srcRoot, (perRoot = new Map()));
  let lines = perRoot.get(path);
  if (!lines) {
    const text = fileText(srcRoot, path);
    lines = text === '' ? [] : text.split('\n');
    if (text.endsWith('\n')) lines.pop();
    for (let i = 0; i < lines.length; i++) if (lines[i]!.endsWith('\r')) lines[i] = lines[i]!.slice(0, -1);
    perRoot.set(path, lines);
  }
  return lines;
}

function matcher(re: RegExp): RegExp {
  // Without g/y, test() keeps no lastIndex between lines.
  return re.global || re.sticky ? new RegExp(re.source, re.flags.replace(/[gy]/g, '')) : re;
}

function accepts(filter: PathFilter | undefined): (path: string) => boolean {
  if (!filter) return () => true;
  if (typeof filter === 'function') return filter;
  const exts = [...filter];
  return (path) => exts.some((e) => path.endsWith(e));
}

/**
 * Whether a match inside one line implies a match in the whole text, so that a file whose text
 * the regex does not match can be skipped without splitting it into lines. True unless the
 * regex has anchors or lookarounds, whose outcome depends on what surrounds the line.
 */
function lineLocal(re: RegExp): boolean {
  return !/[\^$]|\(\?<?[=!]/.test(re.source);
}

function scan(
  srcRoot: string,
  files: readonly string[],
  re: RegExp,
  filter: PathFilter | undefined,
  needle: string | undefined,
  each: (path: string, lines: string[], m: RegExp) => void,
): void {
  const m = matcher(re);
  const ok = accepts(filter);
  const quick = lineLocal(m);
  for (const path of files) {
    if (!ok(path)) continue;
    if (needle !== undefined || quick) {
      const text = fileText(srcRoot, path);
      if (needle !== undefined && !text.includes(needle)) continue;
      if (quick && !m.test(text)) continue;
    }
    each(path, fileLines(srcRoot, path), m);
  }
}

/**
 * Every line of `files` the regex matches, in the order of `files`, then by line. `needle`, when
 * given, is text every matching line contains (a fast pre-check; it does not change the answer
 * if true).
 */
export function linesMatching(srcRoot: string, files: readonly string[], re: RegExp, filter?: PathFilter, needle?: string): LineMatch[] {
  const out: LineMatch[] = [];
  scan(srcRoot, files, re, filter, needle, (path, lines, m) => {
    for (let i = 0; i < lines.length; i++) if (m.test(lines[i]!)) out.push({ path, line: i + 1, text: lines[i]! });
  });
  return out;
}

/** The files among `files` where the regex matches some line. */
export function filesMatching(srcRoot: string, files: readonly string[], re: RegExp, filter?: PathFilter, needle?: string): Set<string> {
  const out = new Set<string>();
  scan(srcRoot, files, re, filter, needle, (path, lines, m) => {
    if (lines.some((l) => m.test(l))) out.add(path);
  });
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Lines holding `identifier` as a whole word, case-sensitively: not preceded or followed by
 * [A-Za-z0-9_] (so 'Foo' never matches FooBar, Foo_x or xFoo). One entry per line.
 * `filter` narrows the files: ['.go'] is exactly Zoekt's `lang:Go` on GOROOT (every .go file is
 * Go and nothing else is).
 */
export function wordLines(srcRoot: string, files: readonly string[], identifier: string, filter?: PathFilter): LineMatch[] {
  return linesMatching(srcRoot, files, new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(identifier)}(?![A-Za-z0-9_])`), filter, identifier);
}

/** Exactly Zoekt's `lang:Go` on GOROOT. */
export const GO_FILES: PathFilter = ['.go'];

/**
 * Lines of .go files that define a func or method named exactly `name`:
 * `func Name(`, `func Name[T any](`, `func (r *T) Name(`.
 */
export function goFuncDefinitions(srcRoot: string, files: readonly string[], name: string): LineMatch[] {
  return linesMatching(srcRoot, files, new RegExp(`^func (\\([^)]*\\) )?${escapeRegExp(name)}[[(]`), GO_FILES, name);
}

/**
 * Lines of .go files that define a type named exactly `name`: `type Name ...`, `type Name[T any]
 * ...`, aliases `type Name = Other`, and specs inside a `type ( ... )` block (a line `\tName ...`
 * between a line `type (` and the `)` that closes it at the start of a line).
 * Nested type declarations inside function bodies count too (`\ttype Name struct`).
 */
export function goTypeDefinitions(srcRoot: string, files: readonly string[], name: string): LineMatch[] {
  const n = escapeRegExp(name);
  const single = new RegExp(`^\\s*type ${n}(\\s|\\[|=|$)`);
  const inBlock = new RegExp(`^\\s+${n}(\\s|\\[|=|$)`);
  const blockStart = /^\s*type \($/;
  const word = new RegExp(`(?<![A-Za-z0-9_])${n}(?![A-Za-z0-9_])`);
  const out: LineMatch[] = [];
  for (const path of files) {
    if (!path.endsWith('.go')) continue;
    const text = fileText(srcRoot, path);
    if (!text.includes(name) || !word.test(text)) continue;
    const lines = fileLines(srcRoot, path);
    let blockIndent: string | undefined; // indentation of the open `type (`, if any
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (blockIndent !== undefined) {
        if (line.startsWith(`${blockIndent})`)) {
          blockIndent = undefined;
        } else if (inBlock.test(line) && line.startsWith(`${blockIndent}\t`) && !line.startsWith(`${blockIndent}\t\t`)) {
          out.push({ path, line: i + 1, text: line });
        }
        continue;
      }
      if (blockStart.test(line.trimEnd())) {
        blockIndent = /^\s*/.exec(line)![0];
        continue;
      }
      if (single.test(line)) out.push({ path, line: i + 1, text: line });
    }
  }
  return out;
}
