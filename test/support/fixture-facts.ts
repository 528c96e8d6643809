/**
 * The generated tables of test/fixtures/FACTS.md: per repository its files (lines, Zoekt's
 * language) and every symbol the index holds (main branch), and the corpus at a glance. Read
 * from the files and from the fixture index; fixture-facts.test.ts keeps FACTS.md equal to them
 * (UPDATE_FACTS=1 rewrites it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listFiles } from './corpora.js';
import { FIXTURES, fixtureRepos, REPO_PREFIX } from './zoekt.js';

interface Reply {
  Result: {
    Files:
      | {
          FileName: string;
          Language: string;
          ChunkMatches: { Content: string; ContentStart: { LineNumber: number }; Ranges: { Start: { LineNumber: number; Column: number } }[]; SymbolInfo: ({ Sym: string; Kind: string; Parent: string; ParentKind: string } | null)[] | null }[] | null;
        }[]
      | null;
  };
}

async function search(zoektUrl: string, query: string): Promise<Reply['Result']['Files']> {
  const res = await fetch(`${zoektUrl}/api/search`, {
    method: 'POST',
    body: JSON.stringify({ Q: query, Opts: { ChunkMatches: true, NumContextLines: 0, MaxDocDisplayCount: 100_000, ShardMaxMatchCount: 10_000_000, TotalMaxMatchCount: 10_000_000 } }),
  });
  return ((await res.json()) as Reply).Result.Files ?? [];
}

/** Columns padded to the widest cell, two spaces apart, in a code block. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]!].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ').trimEnd();
  return ['```', line(header), ...rows.map(line), '```'].join('\n');
}

const linesOf = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Files of a repository whose symbols are listed (manyhits lists its pages by their layout instead). */
const listed = (repo: string, path: string) => repo !== 'manyhits' || !path.startsWith('src/pages/');

/** The generated sections, by id: `corpus`, `files:<repo>`, `symbols:<repo>`. */
export async function fixtureFacts(zoektUrl: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const glance: string[][] = [];
  for (const repo of fixtureRepos()) {
    const name = `${REPO_PREFIX}${repo}`;
    const scope = `r:^${name.replace(/\./g, '\\.')}$ branch:main`;
    const files = listFiles(join(FIXTURES, repo), () => true);
    const languages = new Map((await search(zoektUrl, `${scope} file:.`))!.map((f) => [f.FileName, f.Language]));
    const texts = new Map(files.map((f) => [f, readFileSync(join(FIXTURES, repo, f), 'utf8')]));
    if (repo !== 'manyhits') out.set(`files:${repo}`, table(['path', 'lines', 'zoekt language'], files.map((f) => [f, String(linesOf(texts.get(f)!)), languages.get(f) ?? '(not indexed)'])));
    const symbols: string[][] = [];
    for (const f of (await search(zoektUrl, `${scope} sym:.`))!) {
      for (const c of f.ChunkMatches ?? []) {
        c.Ranges.forEach((r, i) => {
          const s = c.SymbolInfo?.[i];
          if (!s || !listed(repo, f.FileName)) return;
          const text = texts.get(f.FileName)!.split('\n')[r.Start.LineNumber - 1]!.trim();
          symbols.push([s.Sym, f.FileName, String(r.Start.LineNumber), String(r.Start.Column), s.Kind, s.Parent ? `${s.Parent} (${s.ParentKind})` : '-', text]);
        });
      }
    }
    const total = symbols.length;
    const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    symbols.sort((a, b) => byPath(a[1]!, b[1]!) || Number(a[2]) - Number(b[2]) || Number(a[3]) - Number(b[3]));
    out.set(`symbols:${repo}`, table(['name', 'path', 'line', 'col', 'kind', 'parent', 'line text (trimmed)'], symbols));
    const all = repo === 'manyhits' ? (await search(zoektUrl, `${scope} sym:.`))!.reduce((n, f) => n + (f.ChunkMatches ?? []).reduce((m, c) => m + (c.SymbolInfo ?? []).filter(Boolean).length, 0), 0) : total;
    glance.push([name, String(files.length), String([...texts.values()].reduce((n, t) => n + Buffer.byteLength(t), 0)), String(all)]);
  }
  out.set('corpus', table(['repo', 'files', 'bytes', 'symbols (main)'], glance));
  return out;
}

const SECTION = /<!-- BEGIN GENERATED (\S+) -->\n([\s\S]*?)<!-- END GENERATED \1 -->/g;

/** FACTS.md with its generated sections replaced; throws naming a section it has no content for. */
export function renderFacts(facts: string, sections: Map<string, string>): string {
  return facts.replace(SECTION, (_, id: string) => {
    const content = sections.get(id);
    if (content === undefined) throw new Error(`FACTS.md names a generated section '${id}' that does not exist`);
    return `<!-- BEGIN GENERATED ${id} -->\n${content}\n<!-- END GENERATED ${id} -->`;
  });
}

export function sectionIds(facts: string): string[] {
  return [...facts.matchAll(SECTION)].map((m) => m[1]!);
}
