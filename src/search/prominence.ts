/**
 * Which of several definitions of one name an agent most likely means: among definitions that
 * match a name equally well, search_symbols puts first
 *   1. the public ones: exported or visible outside their file or class, as the language says it
 *      (an upper-case Go name; `export` in TypeScript and JavaScript, `exports.x =`; no leading
 *      `_` in Python, dunders aside; `pub` in Rust; `public` in Java and C#, or a member of an
 *      interface; not `static` in C and C++; not `private`, `protected` or `#` in a class);
 *   2. then those outside tests, examples and fixtures (a folder named test, tests, __tests__, spec,
 *      testdata, e2e, example(s), playground(s), demo(s), sample(s), fixture(s), benchmark(s); a
 *      file named *_test.go, *.test.ts, *.spec.js, test_*.py, *_test.py, *Test.java, *Tests.cs …):
 *      a project's own API before the copies of it its examples and tests define;
 *   3. then those in shallower folders.
 * Each step only orders what the step before left tied. Read from the definition's line and path.
 */

export interface Definition {
  name: string;
  language: string;
  path: string;
  /** The trimmed line that defines it. */
  signature: string;
  parent?: string | undefined;
  parent_kind?: string | undefined;
}

const word = (line: string, w: string) => new RegExp(`(^|[^\\w$])${w}([^\\w$]|$)`).test(line);

/** Whether the definition is visible beyond its own file or class; true when the language gives no sign. */
export function isPublic(d: Definition): boolean {
  const line = d.signature;
  const member = d.parent !== undefined;
  switch (d.language) {
    case 'Go': {
      const first = d.name.codePointAt(0);
      return first !== undefined && String.fromCodePoint(first) !== String.fromCodePoint(first).toLowerCase();
    }
    case 'TypeScript':
    case 'TSX':
    case 'JavaScript':
      if (member) return !word(line, 'private') && !word(line, 'protected') && !d.name.startsWith('#');
      return word(line, 'export') || /^(module\.)?exports\./.test(line);
    case 'Python':
      return !d.name.startsWith('_') || (d.name.startsWith('__') && d.name.endsWith('__'));
    case 'Rust':
      return word(line, 'pub') || /interface|trait/i.test(d.parent_kind ?? '');
    case 'Java':
    case 'C#':
      return word(line, 'public') || /interface/i.test(d.parent_kind ?? '');
    case 'C':
    case 'C++':
      return !word(line, 'static') || member;
    default:
      return true;
  }
}

const TEST_FOLDER = /(^|\/)(tests?|__tests__|specs?|testdata|testing|e2e|examples?|playgrounds?|demos?|samples?|fixtures?|__fixtures__|benchmarks?)\//i;
const TEST_FILE = /(_test\.go|\.(test|spec)\.[cm]?[jt]sx?|(^|\/)test_[^/]*\.py|_test\.py|Tests?\.(java|kt|cs|scala)|_spec\.rb)$/;

/** A test, an example or a fixture: code that uses or imitates a project's API rather than defining it. */
export function isTest(path: string): boolean {
  return TEST_FOLDER.test(path) || TEST_FILE.test(path);
}

const NOT_PUBLIC = 2 ** 20;
const IN_TEST = 2 ** 19;
const DEPTH_CAP = 2 ** 18;

/**
 * A number that orders definitions that match equally well, smaller first: public before not,
 * then outside tests before in them, then shallower before deeper.
 */
export function prominence(d: Definition): number {
  return (isPublic(d) ? 0 : NOT_PUBLIC) + (isTest(d.path) ? IN_TEST : 0) + Math.min(depth(d.path), DEPTH_CAP);
}

/**
 * Files by folder depth and language, as a search can ask Zoekt for them: those less than
 * `maxDepth` folders deep (every depth when Infinity), in any language but `skip`.
 */
export interface PathClass {
  maxDepth: number;
  skip: readonly string[];
}

/**
 * The languages in which a definition named `name` is never public, whatever its line says (see
 * isPublic): Go when the name does not start with a capital, Python when it starts with `_` and
 * is no dunder.
 */
export function neverPublic(name: string): string[] {
  return ['Go', 'Python'].filter((language) => !isPublic({ name, language, path: '', signature: '' }));
}

/**
 * Where the definitions that rank before prominence `p` can be: a definition at depth d has a
 * prominence of at least d (capped), and a public one can only be in a language where its name
 * may be public (`hidden`: those where it may not, see neverPublic). What a search reading
 * shallow files first relies on (symbols.ts).
 */
export function rivalsOf(p: number, hidden: readonly string[]): PathClass[] {
  const before = (rest: number): number => (rest <= DEPTH_CAP ? rest : Number.POSITIVE_INFINITY);
  // Public: any public definition shallower (or outside tests, when p is a test's).
  if (p < NOT_PUBLIC) return p === 0 ? [] : [{ maxDepth: before(p), skip: hidden }];
  // Not public: every public one, and those not public that are shallower.
  const rest = p - NOT_PUBLIC;
  return [{ maxDepth: Number.POSITIVE_INFINITY, skip: hidden }, ...(rest === 0 ? [] : [{ maxDepth: before(rest), skip: [] }])];
}

/** Where the definitions whose prominence is exactly `p` can be (as rivalsOf). */
export function peersOf(p: number, hidden: readonly string[]): PathClass {
  const d = p % IN_TEST;
  return { maxDepth: d >= DEPTH_CAP ? Number.POSITIVE_INFINITY : d + 1, skip: p < NOT_PUBLIC ? hidden : [] };
}

function depth(path: string): number {
  let n = 0;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) n++;
  return n;
}
