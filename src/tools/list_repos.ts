import { z } from 'zod';
import { LIST_REPOS, LIST_REPOS_DEFAULTS, listRepos, ListReposOutput } from '../search/repos.js';
import type { LanguageCoverage } from '../search/definitions/coverage.js';
import { ageText } from '../search/vocab/freshness.js';
import { describeReasons } from '../search/engine/skipped.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, text, toolInput } from './shared.js';

const input = toolInput({
  filter: text(500).optional().describe("Repo name glob ('github.com/acme/*', or a last segment like 'webapp')"),
  limit: z.number().int().min(1).max(500).optional().describe(`Default ${LIST_REPOS_DEFAULTS.limit}`),
  cursor: cursorArg,
});

/** `symbols: Go 4/4 (tree-sitter), Markdown 1/1 (universal-ctags); none for Makefile (1)`. */
function symbolsLine(languages: LanguageCoverage[]): string {
  const some = languages.filter((l) => l.files_with_symbols > 0).map((l) => `${l.language} ${l.files_with_symbols}/${l.files} (${l.parser})`);
  const none = languages.filter((l) => l.files_with_symbols === 0).map((l) => `${l.language} (${l.files})`);
  return `  symbols: ${some.join(', ') || 'none'}${none.length ? `; none for ${none.join(', ')}` : ''}`;
}

export function renderRepos(out: ListReposOutput): string {
  const lines = out.repos.flatMap((r) => {
    const branches = r.branches.map((b) => `${b.name}@${b.version.slice(0, 10)}`).join(', ');
    const head = `${r.name}  [${branches}]  ${r.files} files, ${r.content_bytes} bytes${r.has_symbols ? '' : ', no symbols'}${r.index_time ? `, indexed ${r.index_time}${r.index_age_s !== undefined ? ` (${ageText(r.index_age_s)} ago)` : ''}` : ''}${r.index_state ? `, ${r.index_state}${r.behind_s !== undefined ? ` (files changed ${ageText(r.behind_s)} ago)` : ''}` : ''}${r.backend ? `, on ${r.backend}` : ''}`;
    const skipped = r.not_indexed ? [`  not indexed: ${r.not_indexed.files} file(s) kept by name only (${describeReasons(r.not_indexed)})`] : [];
    return [head, ...(r.symbols ? [symbolsLine(r.symbols)] : []), ...skipped];
  });
  const t = out.totals;
  lines.push('', `${out.repos.length} repo(s) on this page; ${t.repos} repo(s), ${t.documents} files, ${t.shards} shard(s), ${t.index_bytes} index bytes in all`);
  lines.push(...pagingFooter(out));
  return lines.join('\n');
}

export const listReposTool = defineTool({
  name: LIST_REPOS,
  title: 'List repositories',
  description: [
    'Indexed repos: names (for repos and get_file), branches, index time, sizes, files not indexed, symbol coverage per language.',
    'Examples:',
    '- {}',
    '- {"filter": "github.com/acme/*"}',
  ].join('\n'),
  input,
  output: ListReposOutput,
  handler: (args, ctx, budget) => listRepos(ctx.searcher, args, budget, ctx.signal),
  render: (out) => renderRepos(out),
  reads: {
    covers: (a) => (a.filter ? { globs: [a.filter] } : undefined),
    shows: (out) => out.repos.map((r) => r.name),
    empty: (out) => out.repos.length === 0,
    ages: 'entries',
  },
});
