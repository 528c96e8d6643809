import { z } from 'zod';
import { LIST_REPOS, LIST_REPOS_DEFAULTS, listRepos, ListReposOutput } from '../search/repos.js';
import { ageText } from '../search/freshness.js';
import { defineTool } from './define.js';
import { cursorArg, pagingFooter, text, toolInput } from './shared.js';

const input = toolInput({
  filter: text(500).optional().describe("Repo name glob ('github.com/acme/*', or a last segment like 'webapp')"),
  limit: z.number().int().min(1).max(500).optional().describe(`Default ${LIST_REPOS_DEFAULTS.limit}`),
  cursor: cursorArg,
});

export function renderRepos(out: ListReposOutput): string {
  const lines = out.repos.map((r) => {
    const branches = r.branches.map((b) => `${b.name}@${b.version.slice(0, 10)}`).join(', ');
    return `${r.name}  [${branches}]  ${r.files} files, ${r.content_bytes} bytes${r.has_symbols ? '' : ', no symbols'}${r.index_time ? `, indexed ${r.index_time}${r.index_age_s !== undefined ? ` (${ageText(r.index_age_s)} ago)` : ''}` : ''}${r.index_state ? `, ${r.index_state}` : ''}${r.backend ? `, on ${r.backend}` : ''}`;
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
    'Indexed repos: names (for repos and get_file), branches, index time and age, symbols or not, sizes.',
    'Examples:',
    '- {}',
    '- {"filter": "github.com/acme/*"}',
  ].join('\n'),
  input,
  output: ListReposOutput,
  handler: (args, ctx) => listRepos(ctx.searcher, args, ctx.signal),
  render: (out) => renderRepos(out),
});
