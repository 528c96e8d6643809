/**
 * Single-file components (src/extractor/components.ts): the code of `.vue`, `.svelte` and `.astro`
 * files (their `<script>` blocks, Astro's frontmatter) is parsed with the TypeScript or JavaScript
 * rules, and its definitions keep their own lines. Each tag reads `line name Kind parent`.
 */
import { describe, expect, it } from 'vitest';
import { componentCode } from '../../src/extractor/components.js';
import { extractSource } from '../../src/extractor/extract.js';
import { sourceFor, zoektLanguageMap, extractorLanguages, type SourceId } from '../../src/extractor/languages.js';

async function tags(fileName: string, source: string): Promise<string[]> {
  const parsed = sourceFor(fileName, source);
  if (!parsed) return [];
  const { tags } = await extractSource(parsed.id as SourceId, source, 10_000);
  return tags.map((t) => `${t.line} ${t.name} ${t.kind} ${t.scope ?? '-'}`);
}

describe('which files are components', () => {
  it('by extension, in the language map Zoekt reads and the languages the extractor names', () => {
    expect(sourceFor('src/App.vue', '')).toMatchObject({ id: 'vue', language: 'Vue' });
    expect(sourceFor('Button.svelte', '')).toMatchObject({ id: 'svelte', language: 'Svelte' });
    expect(sourceFor('pages/index.astro', '')).toMatchObject({ id: 'astro', language: 'Astro' });
    expect(sourceFor('main.ts', '')).toMatchObject({ id: 'typescript' });
    expect(zoektLanguageMap().split(',')).toEqual(expect.arrayContaining(['vue:scip', 'svelte:scip', 'astro:scip', 'typescript:scip']));
    expect(extractorLanguages()).toEqual(expect.arrayContaining(['Vue', 'Svelte', 'Astro']));
  });
});

describe('Vue', () => {
  it('both script blocks, at their own lines; the template holds no definitions', async () => {
    const src = [
      '<template>', // 1
      '  <button @click="increment">{{ count }}</button>', // 2
      '  <!-- <script>function commented() {}</script> -->', // 3
      '</template>', // 4
      '', // 5
      '<script lang="ts">', // 6
      'export default defineComponent({', // 7
      '  name: "Counter",', // 8
      '  data() { return { count: 0 } },', // 9
      '  methods: { increment() { this.count++ } },', // 10
      '})', // 11
      '</script>', // 12
      '<script setup lang="ts">', // 13
      'const props = defineProps<{ start: number }>()', // 14
      'function reset(): void {}', // 15
      '</script>', // 16
      '<style>.a { color: red }</style>', // 17
    ].join('\n');
    expect(await tags('Counter.vue', src)).toEqual(['9 data Method -', '10 increment Method methods', '14 props Constant -', '15 reset Function -']);
  });

  it('JavaScript when no block says TypeScript; JSON and external scripts are not code', () => {
    const src = '<script>\nexport default {}\n</script>\n<script type="application/json">{"a": 1}</script>\n<script src="./x.js"></script>\n';
    const code = componentCode('vue', src)!;
    expect(code.grammar).toBe('javascript');
    // The same lines and columns, only the code kept.
    expect(code.text.length).toBe(src.length);
    expect(code.text.split('\n').map((l) => l.trim())).toEqual(['', 'export default {}', '', '', '', '']);
  });
});

describe('Svelte', () => {
  it('the module script and the instance script', async () => {
    const src = [
      '<script context="module" lang="ts">', // 1
      '  export const prerender = true;', // 2
      '</script>', // 3
      '<script lang="ts">', // 4
      '  export let name: string;', // 5
      '  function greet() { return `hi ${name}` }', // 6
      '  const handlers = { click() {} };', // 7
      '</script>', // 8
      '<h1 on:click={greet}>{name}</h1>', // 9
    ].join('\n');
    expect(await tags('Greeting.svelte', src)).toEqual(['2 prerender Constant -', '5 name Variable -', '6 greet Function -', '7 handlers Constant -', '7 click Method handlers']);
  });
});

describe('Astro', () => {
  it('the frontmatter, as TypeScript, and client scripts', async () => {
    const src = [
      '---', // 1
      "import Layout from '../layouts/Layout.astro';", // 2
      'interface Props { title: string }', // 3
      'const { title } = Astro.props;', // 4
      'function slug(s: string) { return s }', // 5
      '---', // 6
      '<Layout title={title}>', // 7
      '  <script>', // 8
      '    function track() {}', // 9
      '  </script>', // 10
      '</Layout>', // 11
    ].join('\n');
    expect(await tags('index.astro', src)).toEqual(['3 Props Interface -', '3 title Property Props', '4 title Constant -', '5 slug Function -', '9 track Function -']);
  });

  it('a file without code has no tags', async () => {
    expect(await tags('static.astro', '<p>no code</p>\n')).toEqual([]);
    expect(componentCode('astro', '<p>no code</p>\n')).toBeUndefined();
  });
});
