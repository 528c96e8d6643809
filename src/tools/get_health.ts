import { z } from 'zod';
import { GET_HEALTH, getHealth, HealthOutput } from '../search/health.js';
import { defineTool } from './define.js';

const input = z.strictObject({});

export function renderHealth(out: HealthOutput): string {
  const lines = [
    `status: ${out.status}`,
    `zoekt: ${out.zoekt.url} reachable=${out.zoekt.reachable} ready=${out.zoekt.ready} latency=${out.zoekt.latency_ms} ms`,
    ...(out.backends ?? []).map((b) => `  backend ${b.url}: reachable=${b.reachable} ready=${b.ready} latency=${b.latency_ms} ms, ${b.repos} repo(s)${b.reason ? ` (${b.reason})` : ''}`),
    `adapter: zoekt-mcp ${out.adapter.version}, up ${out.adapter.uptime_s} s`,
  ];
  const i = out.index;
  if (i) {
    lines.push(`index: ${i.repos} repo(s), ${i.documents} files, ${i.shards} shard(s), ${i.index_bytes} index bytes, ${i.content_bytes} content bytes`);
    lines.push(`repos without symbols: ${i.repos_without_symbols}`);
    if (i.oldest_index_time) lines.push(`indexed between ${i.oldest_index_time} and ${i.newest_index_time}`);
  }
  if (out.hint) lines.push(`hint: ${out.hint}`);
  return lines.join('\n');
}

export const getHealthTool = defineTool({
  name: GET_HEALTH,
  title: 'Backend health',
  description: [
    'Whether Zoekt is reachable and ready, and index statistics (repos, files, shards, sizes, index times, repos without symbols).',
    'Call it when searches fail or come back empty: a down backend is reported as status "down" with a hint, not as an error.',
    'Example:',
    '- {}',
  ].join('\n'),
  input,
  output: HealthOutput,
  handler: (_args, ctx) => getHealth(ctx.searcher, ctx.signal),
  render: (out) => renderHealth(out),
});
