/**
 * Single-file components: Vue (`.vue`), Svelte (`.svelte`) and Astro (`.astro`) files hold their
 * code in `<script>` blocks (and Astro in its `---` frontmatter), the rest being a template. The
 * extractor parses the code with the TypeScript or JavaScript grammar and its rules: the file is
 * handed to the grammar with everything outside the code blanked (spaces, newlines kept), so the
 * definitions keep their own lines and columns.
 */

export type ComponentId = 'vue' | 'svelte' | 'astro';

export interface Component {
  id: ComponentId;
  /** The Linguist name Zoekt gives files of this kind. */
  language: string;
  /** Zoekt's key for them in its language map (the Linguist name, lower-cased). */
  zoektKeys: string[];
  extensions: string[];
}

export const COMPONENTS: readonly Component[] = [
  { id: 'vue', language: 'Vue', zoektKeys: ['vue'], extensions: ['.vue'] },
  { id: 'svelte', language: 'Svelte', zoektKeys: ['svelte'], extensions: ['.svelte'] },
  { id: 'astro', language: 'Astro', zoektKeys: ['astro'], extensions: ['.astro'] },
];

/** The grammars a component's code is parsed with (a subset of languages.ts' GrammarId). */
export type ScriptGrammar = 'typescript' | 'tsx' | 'javascript';

export interface ComponentCode {
  /** The grammar for the code: TypeScript if a block says so, JavaScript otherwise (Astro's is TypeScript). */
  grammar: ScriptGrammar;
  /** The file with everything but its code blanked. */
  text: string;
}

/** `<script …>` (not `<scripts>`), and its end. */
const SCRIPT_OPEN = /<script(?=[\s>/])([^>]*)>/gi;
const SCRIPT_CLOSE = /<\/script\s*>/gi;
/** `lang="ts"`, `lang='tsx'`, `type="text/typescript"`. */
const LANG = /\b(?:lang|type)\s*=\s*["']?([\w/+.-]+)/i;
/** Script types that are not code: JSON, templates, import maps. */
const NOT_CODE = /^(?:application\/(?:ld\+)?json|importmap|speculationrules|text\/(?:template|html|x-template|x-handlebars-template|plain))$/i;

/** The code of a component file, or undefined when it has none. */
export function componentCode(id: ComponentId, source: string): ComponentCode | undefined {
  const spans: [number, number][] = [];
  let grammar: ScriptGrammar = id === 'astro' ? 'typescript' : 'javascript';
  const comments = htmlComments(source);
  if (id === 'astro') {
    // The frontmatter: from a first line `---` to the next line `---`.
    const open = /^\s*---[ \t]*\r?\n/.exec(source);
    if (open) {
      const close = /^---[ \t]*$/m.exec(source.slice(open[0].length));
      const start = open[0].length;
      const end = close ? start + close.index : source.length;
      spans.push([start, end]);
    }
  }
  SCRIPT_OPEN.lastIndex = 0;
  for (let m = SCRIPT_OPEN.exec(source); m; m = SCRIPT_OPEN.exec(source)) {
    const start = m.index + m[0].length;
    if (comments.some(([a, b]) => m!.index >= a && m!.index < b) || spans.some(([a, b]) => m!.index >= a && m!.index < b)) continue;
    SCRIPT_CLOSE.lastIndex = start;
    const close = SCRIPT_CLOSE.exec(source);
    const end = close ? close.index : source.length;
    SCRIPT_OPEN.lastIndex = close ? close.index + close[0].length : source.length;
    const lang = LANG.exec(m[1] ?? '')?.[1]?.toLowerCase() ?? '';
    if (NOT_CODE.test(lang) || /\bsrc\s*=/.test(m[1] ?? '')) continue;
    if (/^(?:tsx|text\/tsx)$/.test(lang)) grammar = 'tsx';
    else if (/^(?:ts|typescript|text\/typescript|application\/typescript)$/.test(lang) && grammar !== 'tsx') grammar = 'typescript';
    spans.push([start, end]);
  }
  if (spans.length === 0) return undefined;
  return { grammar, text: blankOutside(source, spans) };
}

/** `<!-- … -->` regions: a `<script>` there is no code. */
function htmlComments(source: string): [number, number][] {
  const out: [number, number][] = [];
  for (let at = source.indexOf('<!--'); at !== -1; at = source.indexOf('<!--', at)) {
    const end = source.indexOf('-->', at + 4);
    out.push([at, end === -1 ? source.length : end + 3]);
    if (end === -1) break;
    at = end + 3;
  }
  return out;
}

/** `source` with what lies outside `spans` turned to spaces, its line breaks kept. */
function blankOutside(source: string, spans: [number, number][]): string {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  const blank = (s: string) => s.replace(/[^\r\n]/g, ' ');
  for (const [start, end] of sorted) {
    if (start < at) continue;
    out += blank(source.slice(at, start)) + source.slice(start, end);
    at = end;
  }
  return out + blank(source.slice(at));
}
