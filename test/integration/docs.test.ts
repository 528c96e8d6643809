/**
 * The reference sections of the README and docs/ are what scripts/gen-docs.mjs writes from the
 * code (the tool definitions, the option list, the error codes, clients/), the defaults the tool
 * descriptions state are the ones the tools apply, and every link between the pages resolves.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENTS, homeOf, PAGES, render, sections, statedDefault } from '../../scripts/gen-docs.mjs';
import { CODE_DEFAULTS } from '../../src/search/code.js';
import { FILE_DEFAULTS } from '../../src/search/files.js';
import { REFERENCE_DEFAULTS } from '../../src/search/references.js';
import { LIST_REPOS_DEFAULTS } from '../../src/search/repos.js';
import { SYMBOL_DEFAULTS } from '../../src/search/symbols.js';
import { TOOLS } from '../../src/tools/index.js';
import { ROOT } from '../support/zoekt.js';

const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');
const README = read('README.md');
const TOOLS_PAGE = read('docs/tools.md');

describe('generated sections', () => {
  it('are what npm run docs writes, on every page (run it after changing a tool, an option, an error code or clients/)', () => {
    const check = spawnSync(process.execPath, [join(ROOT, 'scripts/gen-docs.mjs'), '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(check.stderr).toContain('generated sections are up to date');
    expect(check.status).toBe(0);
  });

  it('cover every tool, option and client file, each on its page', () => {
    const generated = sections();
    for (const tool of TOOLS) {
      expect(generated.get(`tool:${tool.name}`), tool.name).toContain('Output (`structuredContent`');
      expect(TOOLS_PAGE).toContain(`<!-- BEGIN GENERATED tool:${tool.name} `);
    }
    for (const name of generated.keys()) {
      expect(PAGES, name).toContain(homeOf(name));
      expect(read(homeOf(name)), name).toContain(`<!-- BEGIN GENERATED ${name} `);
    }
    const options = `${generated.get('options-general')}\n${generated.get('options-http')}`;
    for (const flag of execFileSync(process.execPath, [join(ROOT, 'dist/cli.js'), '--help'], { encoding: 'utf8' }).matchAll(/^ {2}(--[a-z-]+)/gm)) {
      expect(options).toContain(`\`${flag[1]}`);
    }
    for (const client of CLIENTS) expect(generated.get('clients')).toContain(readFileSync(join(ROOT, client.file), 'utf8').trimEnd());
  });

  it('refuse a page that lacks a section, names one that does not exist, or holds one of another page', () => {
    const withoutTool = TOOLS_PAGE.replace(/<!-- BEGIN GENERATED tool:get_health [^>]*-->[\s\S]*?<!-- END GENERATED tool:get_health -->\n/, '');
    expect(() => render('docs/tools.md', withoutTool)).toThrow(/docs\/tools\.md lacks markers for: tool:get_health[\s\S]*<!-- BEGIN GENERATED tool:get_health/);
    const unknown = `${TOOLS_PAGE}\n<!-- BEGIN GENERATED tool:no_such_tool -->\n<!-- END GENERATED tool:no_such_tool -->\n`;
    expect(() => render('docs/tools.md', unknown)).toThrow(/no generated section is called tool:no_such_tool/);
    const misplaced = `${README}\n<!-- BEGIN GENERATED errors -->\n<!-- END GENERATED errors -->\n`;
    expect(() => render('README.md', misplaced)).toThrow(/errors belongs in docs\/errors\.md/);
  });

  it('leave the hand-written text alone', () => {
    expect(README.startsWith('# zoekt-mcp\n')).toBe(true);
    const edited = README.replace('# zoekt-mcp\n', '# zoekt-mcp\n\nA hand-written line.\n');
    expect(render('README.md', edited)).toContain('A hand-written line.');
    expect(render('README.md', edited).length - README.length).toBe('\nA hand-written line.\n'.length);
  });
});

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingSlugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = m[1]!
      .replace(/<[^>]+>/g, '')
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n ? `${base}-${n}` : base);
  }
  return slugs;
}

/** Markdown without its fenced blocks, where nothing is a heading or a link. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[ \t]*$/gm, '');
}

/** Markdown without fenced blocks and with inline code emptied: what is left holds the links. */
function withoutCode(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '``');
}

/** Every relative link and #anchor of a page that does not resolve, as `page: target: why`. */
function brokenLinks(page: string): string[] {
  const text = read(page);
  const broken: string[] = [];
  for (const m of withoutCode(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const link = m[1]!;
    if (/^[a-z][a-z+.-]*:/i.test(link)) continue; // https:, mailto:
    const [path, anchor] = link.split('#') as [string, string | undefined];
    const target = path ? posix.normalize(posix.join(posix.dirname(page), path)) : page;
    if (target.startsWith('..') || !existsSync(join(ROOT, target))) {
      broken.push(`${page}: ${link}: no file ${target}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!target.endsWith('.md')) broken.push(`${page}: ${link}: an anchor into a file that is not Markdown`);
    else if (!headingSlugs(read(target)).has(anchor)) broken.push(`${page}: ${link}: ${target} has no heading #${anchor}`);
  }
  return broken;
}

describe('links in the README and docs/', () => {
  const pages = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'docker/README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

  it('every page of docs/ is linked from the README', () => {
    for (const page of pages.filter((p) => p.startsWith('docs/'))) expect(README, page).toContain(`](${page})`);
  });

  it('name files that exist and headings that the target page has', () => {
    expect(pages.flatMap(brokenLinks)).toEqual([]);
  });

  it('are checked the way GitHub names headings', () => {
    const slugs = headingSlugs('# A\n## `search_code` — text and regex search\n## Zoekt\'s memory\n## Protocol layer: `bench/protocol.sh`\n## A\n```sh\n# not a heading\n```\n');
    expect([...slugs]).toEqual(['a', 'search_code--text-and-regex-search', 'zoekts-memory', 'protocol-layer-benchprotocolsh', 'a-1']);
  });
});

describe('defaults stated in the tool descriptions', () => {
  const applied: Record<string, Record<string, unknown>> = {
    search_code: CODE_DEFAULTS,
    search_symbols: SYMBOL_DEFAULTS,
    search_files: FILE_DEFAULTS,
    find_references: REFERENCE_DEFAULTS,
    list_repos: LIST_REPOS_DEFAULTS,
  };

  it.each(Object.keys(applied))('%s: are the defaults its handler applies', (name) => {
    const tool = TOOLS.find((t) => t.name === name)!;
    for (const [arg, value] of Object.entries(applied[name]!)) {
      const field = tool.input.shape[arg] as { description?: string } | undefined;
      expect(field, `${name}.${arg}`).toBeDefined();
      expect(statedDefault(field!.description), `${name}.${arg}: ${field!.description}`).toEqual({ value: String(value) });
    }
  });

  it('reads the forms the descriptions use', () => {
    expect(statedDefault('Files per page (1–50, default 10).')).toEqual({ value: '10' });
    expect(statedDefault('Search the exact text. Default false.')).toEqual({ value: 'false' });
    expect(statedDefault("'auto' (default): case-sensitive only if …")).toEqual({ value: 'auto' });
    expect(statedDefault('Only this branch. Default: all indexed branches.')).toEqual({ text: 'all indexed branches' });
    expect(statedDefault('Leave out these languages.')).toBeUndefined();
  });
});
