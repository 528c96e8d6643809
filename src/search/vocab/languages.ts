/**
 * Languages as Zoekt names them (go-enry's Linguist names: `TypeScript`, `C++`, `Go Module`), the
 * aliases agents type (`ts`, `golang`, `c++`, `py`), a category for each, and the families that
 * find_references narrows usages to.
 *
 * Every name sent to Zoekt is a canonical one: Zoekt turns a `lang:` value it does not know into
 * "match nothing" without an error, so an unknown language has to be caught here.
 */
import { invalidArgument } from '../../errors.js';
import * as q from '../../zoekt/query.js';
import { closest } from './text-distance.js';
import { LINGUIST, type LinguistType } from './linguist.js';

export type LanguageCategory = 'code' | 'prose' | 'config' | 'data';

export interface Language {
  /** The name Zoekt reports in a result's `language`, and accepts in `lang:`. */
  name: string;
  category: LanguageCategory;
  /** Languages whose code refers to each other's identifiers share a family. */
  family: string;
}

/** Aliases agents use that Linguist does not list. */
const EXTRA_ALIASES: Record<string, string> = {
  py: 'Python',
  py3: 'Python',
  jsx: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  cxx: 'C++',
  'c/c++': 'C++',
  hpp: 'C++',
  cs: 'C#',
  kt: 'Kotlin',
  kts: 'Kotlin',
  txt: 'Text',
  text: 'Text',
  plaintext: 'Text',
  proto: 'Protocol Buffer',
  protobuf: 'Protocol Buffer',
  dockerfile: 'Dockerfile',
  make: 'Makefile',
  cmake: 'CMake',
  tf: 'HCL',
  terraform: 'HCL',
};

/** Linguist files these under "data" or "markup", but they are written and read as source code. */
const CODE_OVERRIDES = new Set([
  'SQL', 'PLSQL', 'PLpgSQL', 'TSQL', 'GraphQL', 'Protocol Buffer', 'Gradle', 'Gradle Kotlin DSL', 'Prisma', 'Avro IDL',
  'Linker Script', 'SPARQL', 'Kusto', 'RBS', 'WebAssembly Interface Type', 'Cloud Firestore Security Rules', 'Soong', 'GN',
]);

/** Markup that is documents rather than code. */
const PROSE_OVERRIDES = new Set(['TeX', 'Roff', 'Roff Manpage', 'RUNOFF', 'Rich Text Format', 'BibTeX', 'MDX', 'Bikeshed', 'Ecmarkup']);

/** Data languages whose files configure tools and services. */
const CONFIG = new Set([
  'YAML', 'MiniYAML', 'TOML', 'INI', 'JSON with Comments', 'JSON5', 'HOCON', 'EditorConfig', 'Git Config', 'Git Attributes',
  'Ignore List', 'Dotenv', 'Java Properties', 'Maven POM', 'Ant Build System', 'Go Module', 'Go Workspace', 'Go Checksums',
  'NPM Config', 'Pip Requirements', 'Cabal Config', 'Browserslist', 'CODEOWNERS', 'Option List', 'SSH Config', 'Nginx',
  'ApacheConf', 'HAProxy', 'Caddyfile', 'Readline Config', 'ShellCheck Config', 'Wget Config', 'cURL Config', 'crontab',
  'desktop', 'nanorc', 'dircolors', 'XCompose', 'Hosts File', 'Kickstart', 'Debian Package Control File', 'Redirect Rules',
  'Proguard', 'robots.txt', 'Gemfile.lock', 'NEON', 'XML Property List', 'Checksums',
]);

/** Usages of an identifier are looked for across the languages of its family. */
const FAMILIES: Record<string, string[]> = {
  'JavaScript/TypeScript': ['JavaScript', 'TypeScript', 'TSX', 'Vue', 'Svelte', 'Astro', 'Glimmer JS', 'Glimmer TS', 'MDX'],
  'C/C++/Objective-C': ['C', 'C++', 'Objective-C', 'Objective-C++', 'CUDA', 'Metal', 'OpenCL'],
  JVM: ['Java', 'Kotlin', 'Scala', 'Groovy', 'Clojure'],
  '.NET': ['C#', 'F#', 'Visual Basic .NET'],
  Python: ['Python', 'Cython', 'Jupyter Notebook'],
  Shell: ['Shell', 'Alpine Abuild', 'Gentoo Ebuild', 'Gentoo Eclass'],
};

function categoryOf(name: string, type: LinguistType): LanguageCategory {
  if (CODE_OVERRIDES.has(name)) return 'code';
  if (PROSE_OVERRIDES.has(name)) return 'prose';
  if (CONFIG.has(name)) return 'config';
  if (type === 'programming' || type === 'markup') return 'code';
  return type;
}

/** Lower case, and spaces, underscores and dashes in any mix count as one space (`go_module` = `Go Module`). */
function key(text: string): string {
  return text.trim().toLowerCase().replace(/[\s_]+/g, ' ');
}

const familyByName = new Map<string, string>();
for (const [family, names] of Object.entries(FAMILIES)) for (const n of names) familyByName.set(n, family);

const byName = new Map<string, Language>();
const byKey = new Map<string, Language>();
for (const [name, type, group] of LINGUIST) {
  const lang: Language = { name, category: categoryOf(name, type), family: familyByName.get(name) ?? familyByName.get(group) ?? (group || name) };
  byName.set(name, lang);
  byKey.set(key(name), lang);
}
for (const [name, , , aliases] of LINGUIST) {
  for (const alias of aliases) if (!byKey.has(key(alias))) byKey.set(key(alias), byName.get(name)!);
}
for (const [alias, name] of Object.entries(EXTRA_ALIASES)) {
  const lang = byName.get(name);
  if (lang && !byKey.has(key(alias))) byKey.set(key(alias), lang);
}

export const LANGUAGE_NAMES: readonly string[] = [...byName.keys()];

/** The canonical language for a Zoekt language name (as reported in results), if known. */
export function languageByName(name: string): Language | undefined {
  return byName.get(name);
}

/** Resolves a name or alias, case-insensitively; an unknown one is INVALID_ARGUMENT naming the closest. */
export function resolveLanguage(input: string, argument: string): Language {
  const found = byKey.get(key(input));
  if (found) return found;
  const near = closest(input, [...byKey.keys()], 6)
    .map((k) => byKey.get(k)!.name)
    .filter((n, i, all) => all.indexOf(n) === i)
    .slice(0, 4);
  throw invalidArgument(
    `${argument}: unknown language '${input}'`,
    near.length
      ? `Did you mean ${near.map((n) => `'${n}'`).join(', ')}? Languages are Linguist names or common aliases ('ts', 'golang', 'c++', 'py').`
      : "Use a Linguist name or a common alias, e.g. 'TypeScript' or 'ts', 'Go' or 'golang', 'C++' or 'cpp', 'Python' or 'py'.",
  );
}

/** Every language of a family: its main languages first, then the dialects Linguist groups under them. */
export function familyLanguages(family: string): string[] {
  const main = FAMILIES[family] ?? [];
  return [...main, ...LANGUAGE_NAMES.filter((n) => byName.get(n)!.family === family && !main.includes(n))];
}

/** Languages that source_code_only leaves out: prose, config and data. */
export const NON_CODE_LANGUAGES: readonly string[] = LANGUAGE_NAMES.filter((n) => byName.get(n)!.category !== 'code');

export interface LanguageFilters {
  languages?: string[] | undefined;
  exclude_languages?: string[] | undefined;
  source_code_only?: boolean | undefined;
}

/**
 * The language filters as `lang:` / `-lang:` terms (pre-filters inside the Zoekt query), after
 * the conflict rules: languages with source_code_only, or one language both included and
 * excluded, is INVALID_ARGUMENT.
 */
export function languageParts(f: LanguageFilters): q.QueryPart[] {
  const include = (f.languages ?? []).map((l) => resolveLanguage(l, 'languages').name);
  const exclude = (f.exclude_languages ?? []).map((l) => resolveLanguage(l, 'exclude_languages').name);
  if (include.length && f.source_code_only) {
    throw invalidArgument(
      'languages and source_code_only cannot be combined',
      'Give languages alone (it already picks what to search), or source_code_only alone, optionally with exclude_languages.',
    );
  }
  const both = include.filter((n) => exclude.includes(n));
  if (both.length) {
    throw invalidArgument(
      `${both.map((n) => `'${n}'`).join(', ')} is both in languages and in exclude_languages`,
      'Remove it from one of the two lists.',
    );
  }
  const parts: q.QueryPart[] = [];
  const unique = (names: string[]) => [...new Set(names)];
  if (include.length) parts.push(q.or(...unique(include).map(q.lang)));
  const excluded = unique([...exclude, ...(f.source_code_only ? NON_CODE_LANGUAGES : [])]);
  for (const n of excluded) parts.push(q.not(q.lang(n)));
  return parts;
}
