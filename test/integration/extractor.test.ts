/**
 * The symbol extractor (zoekt-config/scip-ctags) as Zoekt's indexer drives it: Universal Ctags'
 * interactive protocol on stdin and stdout. Which parser tags what, and that no file stops it: a
 * file its grammar cannot parse, a 5 MB minified bundle, binary bytes, a parse that times out,
 * a missing Universal Ctags; the code of a single-file component. Then a whole index built with
 * such files in it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zoektLanguageMap } from '../../src/extractor/languages.js';
import { CtagsClient, type TagReply } from '../support/ctags-protocol.js';
import { call, connectInProcess, ok } from '../support/mcp.js';
import { git, ROOT, runIndexer, startWebserver, withoutWarmExtractor } from '../support/zoekt.js';

const EXTRACTOR = join(ROOT, 'zoekt-config/scip-ctags');
/** The extractor as a cold program: without the warm one the test run's index builds share. */
const env = (extra: Record<string, string> = {}) => ({ ...withoutWarmExtractor(), ZOEKT_MCP_NODE: process.execPath, ...extra });
const brief = (tags: TagReply[]) => tags.map((t) => `${t.line} ${t.name} ${t.kind}${t.scope ? ` ${t.scope}` : ''}`);

const TS = `export class Store {
  get(key: string): string { return key; }
}
export function helper() {}
`;
const MARKDOWN = '# Title\n\n## Section\n';
/** A statement tree-sitter-typescript cannot parse (variance annotations and a call signature it misreads), between two it can. */
const BROKEN_TS = `export function before() {}
export const dual: {
  <A>(arity: number, body: A): A
  <A>(isDataFirst: (args: IArguments) => boolean, body: A): A
} = function(arity, body) { return body }
export interface Cache<in out K, out V> { get(key: K): V }
export function after() {}
`;
/** A Vue component: its definitions are in its script blocks, at their own lines. */
const VUE = `<template>
  <button @click="increment">{{ count }}</button>
</template>
<script lang="ts">
export default defineComponent({
  methods: { increment() {} },
})
</script>
<script setup lang="ts">
function reset(): void {
  const clear = () => {}
}
</script>
`;
/** A plugin factory (vite's kind): the hooks of the object it returns are its methods. */
const PLUGIN = `export function viteBuildPlugin(config: Config): Plugin {
  return {
    name: 'vite:build',
    generateBundle(options, bundle) {},
    transform: async (code: string) => code,
  };
}
`;
/** One line of 5 MB: a minified bundle. */
const MINIFIED = `var a=0;${Array.from({ length: 200_000 }, (_, i) => `function f${i}(x){return x+${i}}`).join(';')}\n`;

describe('zoekt-config/scip-ctags', () => {
  it('answers --help with +interactive (Zoekt checks it of its ctags slot) and prints its language map', () => {
    const help = spawnSync(EXTRACTOR, ['--help'], { env: env(), encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('+interactive');
    const map = spawnSync(EXTRACTOR, ['--language-map'], { env: env(), encoding: 'utf8' });
    expect(map.stdout.trim()).toBe(zoektLanguageMap());
    expect(map.stdout).toContain('typescript:scip');
    expect(map.stdout).toContain('c_sharp:scip');
    // Both are asked before every index build and answered from the build's files, with the
    // extractor's own words, without starting Node.
    const extractor = join(ROOT, 'dist/extractor/main.js');
    for (const ask of ['--help', '--language-map']) {
      const withoutNode = spawnSync(EXTRACTOR, [ask], { env: env({ ZOEKT_MCP_NODE: '/bin/false' }), encoding: 'utf8' });
      expect(withoutNode.status, ask).toBe(0);
      expect(withoutNode.stdout, ask).toBe(spawnSync(process.execPath, [extractor, ask], { encoding: 'utf8' }).stdout);
    }
    const wrong = spawnSync(EXTRACTOR, [], { env: env(), encoding: 'utf8' });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('--_interactive');
  });

  it('tags its languages with tree-sitter and hands the others to Universal Ctags', async () => {
    const ctags = new CtagsClient(EXTRACTOR, env());
    try {
      expect(await ctags.program).toMatchObject({ _type: 'program', name: 'zoekt-mcp-scip-ctags' });
      expect(brief(await ctags.tags('store.ts', TS))).toEqual(['1 Store Class', '2 get Method Store', '4 helper Function']);
      expect(brief(await ctags.tags('README.md', MARKDOWN))).toEqual(['1 Title chapter', '3 Section section Title']);
      // A script is parsed in the language of its #! line.
      expect(brief(await ctags.tags('report', '#!/usr/bin/env -S python3 -u\ndef main():\n    pass\n'))).toEqual(['2 main Function']);
      expect(brief(await ctags.tags('run', '#!/usr/bin/env node\nfunction start() {}\n'))).toEqual(['2 start Function']);
      // Each tag names the file as the indexer sent it.
      expect((await ctags.tags('store.ts', TS)).every((t) => t.path === 'store.ts')).toBe(true);
    } finally {
      ctags.kill();
    }
  });

  it('tags the code of a single-file component (Vue, Svelte, Astro) at its own lines', async () => {
    const ctags = new CtagsClient(EXTRACTOR, env());
    try {
      const tags = await ctags.tags('Counter.vue', VUE);
      // A function bound to a name in a function is one too, under it.
      expect(brief(tags)).toEqual(['6 increment Method methods', '10 reset Function', '11 clear Function reset']);
      // The tags say the file's language, as Zoekt names it.
      expect(tags.every((t) => (t as TagReply & { language?: string }).language === 'Vue')).toBe(true);
      expect(brief(await ctags.tags('index.astro', '---\nconst title = "x";\n---\n<h1>{title}</h1>\n'))).toEqual(['2 title Constant']);
    } finally {
      ctags.kill();
    }
  });

  it('keeps the definitions around a statement its grammar cannot parse', async () => {
    const ctags = new CtagsClient(EXTRACTOR, env());
    try {
      const names = (await ctags.tags('broken.ts', BROKEN_TS)).map((t) => `${t.line} ${t.name}`);
      expect(names).toEqual(expect.arrayContaining(['1 before', '2 dual', '6 Cache', '7 after']));
    } finally {
      ctags.kill();
    }
  });

  it('goes on after a 5 MB minified file (no symbols for it), binary bytes and text that is no language', async () => {
    const ctags = new CtagsClient(EXTRACTOR, env());
    try {
      expect(await ctags.tags('bundle.min.js', MINIFIED)).toEqual([]);
      expect(ctags.stderr).toContain(`bundle.min.js: ${Buffer.byteLength(MINIFIED)} bytes, more than the 4194304 a file may have for symbols; none taken`);
      const garbage = Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 7919 + 13) % 256));
      await ctags.tags('garbage.ts', garbage);
      await ctags.tags('garbage.py', garbage);
      await ctags.tags('noise.go', 'func func func ((( {{{ ]]] package');
      expect(brief(await ctags.tags('store.ts', TS))).toEqual(['1 Store Class', '2 get Method Store', '4 helper Function']);
    } finally {
      ctags.kill();
    }
  }, 60_000);

  it('hands a file to Universal Ctags when tree-sitter takes too long on it', async () => {
    const ctags = new CtagsClient(EXTRACTOR, env({ ZOEKT_MCP_PARSE_TIMEOUT_MS: '1' }));
    try {
      // Universal Ctags' own words: the file was tagged, by the parser behind the extractor.
      const big = `${TS}\n${Array.from({ length: 20_000 }, (_, i) => `export const c${i} = ${i};`).join('\n')}\n`;
      const tags = await ctags.tags('big.ts', big);
      expect(tags.find((t) => t.name === 'Store')?.kind).toBe('class');
      expect(ctags.stderr).toMatch(/tree-sitter failed on big\.ts, using Universal Ctags for it: parsing took longer than 1 ms/);
      expect((await ctags.tags('store.ts', TS)).map((t) => t.name)).toContain('Store');
    } finally {
      ctags.kill();
    }
  }, 60_000);

  it('still tags its own languages without a Universal Ctags, and says why the others get none', async () => {
    const ctags = new CtagsClient(EXTRACTOR, env({ ZOEKT_MCP_UNIVERSAL_CTAGS: '/nonexistent/universal-ctags' }));
    try {
      expect(await ctags.tags('README.md', MARKDOWN)).toEqual([]);
      expect(brief(await ctags.tags('store.ts', TS))).toEqual(['1 Store Class', '2 get Method Store', '4 helper Function']);
      expect(ctags.stderr).toContain('universal-ctags failed on README.md');
    } finally {
      ctags.kill();
    }
  });
});

describe('an index with files no grammar can make sense of', () => {
  let work: string;
  let zoekt: Awaited<ReturnType<typeof startWebserver>>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-extractor-'));
    const repo = join(work, 'messy');
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, 'src/bundle.min.js'), MINIFIED);
    writeFileSync(join(repo, 'src/broken.ts'), BROKEN_TS);
    writeFileSync(join(repo, 'src/store.ts'), TS);
    writeFileSync(join(repo, 'src/garbage.ts'), Buffer.from(Array.from({ length: 4096 }, (_, i) => 1 + ((i * 7919) % 255))));
    writeFileSync(join(repo, 'README.md'), MARKDOWN);
    writeFileSync(join(repo, 'src/Counter.vue'), VUE);
    writeFileSync(join(repo, 'src/plugin.ts'), PLUGIN);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'messy');
    mkdirSync(join(work, 'index'));
    // -file_limit: large enough for the bundle to reach the symbol parsers.
    runIndexer('git', ['-file_limit', String(8 << 20), '-index', join(work, 'index'), repo], { cold: true });
    zoekt = await startWebserver({ indexDir: join(work, 'index'), expectRepos: 1 });
  }, 120_000);
  afterAll(async () => {
    await zoekt?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('is built, and every other file has its symbols', async () => {
    const mcp = await connectInProcess({ url: zoekt.url });
    try {
      const sites = async (name: string) =>
        ok<{ symbols: { path: string; line: number }[] }>(await call(mcp.client, 'search_symbols', { name, case_sensitive: true })).symbols.map((s) => `${s.path}:${s.line}`);
      expect(await sites('Store')).toEqual(['src/store.ts:1']);
      expect(await sites('after')).toEqual(['src/broken.ts:7']);
      expect(await sites('Section')).toEqual(['README.md:3']);
      expect(await sites('increment')).toEqual(['src/Counter.vue:6']);
      expect(await sites('reset.clear')).toEqual(['src/Counter.vue:11']);
      // Nested definitions by their qualified names.
      expect(await sites('viteBuildPlugin.generateBundle')).toEqual(['src/plugin.ts:4']);
      expect(await sites('viteBuildPlugin.transform')).toEqual(['src/plugin.ts:5']);
      const files = ok<{ files: { path: string }[] }>(await call(mcp.client, 'search_files', { pattern: '*' })).files.map((f) => f.path);
      expect(files.sort()).toEqual(['README.md', 'src/Counter.vue', 'src/broken.ts', 'src/bundle.min.js', 'src/garbage.ts', 'src/plugin.ts', 'src/store.ts']);
    } finally {
      await mcp.close();
    }
  });
});
