import { z } from 'zod';
import { describeLanguage, withoutSymbols } from '../search/definitions/coverage.js';
import { describeReasons } from '../search/engine/skipped.js';
import { GET_HEALTH, getHealth, HealthOutput, healthWithoutZoekt } from '../search/health.js';
import { localIndexing } from './freshness.js';
import { describeRepo, type LocalIndex } from '../search/vocab/local-index.js';
import { defineTool } from './define.js';
import { toolInput } from './shared.js';
import { fitToBudget, halve, truncatedField, truncatedLine, type Budget, type Truncated } from '../search/engine/budget.js';

const input = toolInput({});

/** get_health's answer, plus the local serve command's view of the index when there is one. */
const output = HealthOutput.extend({
  ...truncatedField,
  indexing: z
    .object({
      starting: z.boolean().optional(),
      list: z.string(),
      list_errors: z.array(z.string()),
      repos: z.array(
        z.object({
          name: z.string(),
          dir: z.string(),
          kind: z.enum(['git', 'dir']),
          state: z.enum(['queued', 'checking', 'indexing', 'ready', 'error']),
          has_index: z.boolean(),
          indexed_at: z.string().optional(),
          index_age_s: z.number().optional(),
          behind_s: z.number().optional(),
          progress: z
            .object({ files: z.number(), bytes: z.number(), elapsed_ms: z.number(), estimated_ms: z.number(), percent: z.number() })
            .optional(),
          error: z.string().optional(),
        }),
      ),
    })
    .optional(),
});

type Output = z.output<typeof output>;

/**
 * Adds the local supervisor's view, when there is one: indexing progress makes the status
 * degraded; an index that cannot answer says why first.
 */
function withIndexing(out: HealthOutput, status: LocalIndex | undefined): Output {
  const indexing = localIndexing(status);
  if (!indexing) return out;
  const res: Output = { ...out, indexing };
  const u = status?.unavailable;
  if (u && !u.zoekt) {
    // Zoekt answers, but this server has nothing there to search: that, not Zoekt's figures, is the news.
    if (res.status === 'ok') res.status = 'degraded';
    res.hint = `${u.message}. ${u.hint}`;
    return res;
  }
  const waiting = indexing.repos.filter((r) => !r.has_index || r.state === 'error');
  const problems = [
    ...(indexing.starting ? ['the local index service is starting'] : []),
    ...indexing.list_errors.map((e) => `repo list: ${e}`),
    ...waiting.map((r) => describeRepo({ ...r, state: r.state })),
  ];
  if (problems.length) {
    if (res.status === 'ok') res.status = 'degraded';
    res.hint = [res.hint, `${problems.join('; ')}.`].filter(Boolean).join(' ');
  }
  return res;
}

/** Long lists (languages, local repositories) are shortened to fit the output budget; list_repos pages through them all. */
function fitHealth(out: Output, budget: Budget<Output>): Output {
  const longest = Math.max(out.index?.symbols?.languages.length ?? 0, out.indexing?.repos.length ?? 0);
  const make = (s: Record<'list_items', number>, truncated: Truncated | undefined): Output => {
    if (!truncated) return out;
    const res: Output = { ...out, truncated };
    if (res.index?.symbols) res.index = { ...res.index, symbols: { ...res.index.symbols, languages: res.index.symbols.languages.slice(0, s.list_items) } };
    if (res.indexing) res.indexing = { ...res.indexing, repos: res.indexing.repos.slice(0, s.list_items) };
    res.hint = [res.hint, 'list_repos shows each repository, page by page, with its languages and symbol coverage.'].filter(Boolean).join(' ');
    return res;
  };
  return fitToBudget(make, { list_items: longest }, [{ name: 'list_items', down: halve(1) }], budget);
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

export function renderHealth(out: Output): string {
  const lines = [
    `status: ${out.status}`,
    `zoekt: ${out.zoekt.url} reachable=${out.zoekt.reachable} ready=${out.zoekt.ready} latency=${out.zoekt.latency_ms} ms`,
    ...(out.backends ?? []).map((b) => `  backend ${b.url}: reachable=${b.reachable} ready=${b.ready} latency=${b.latency_ms} ms, ${b.repos} repo(s)${b.reason ? ` (${b.reason})` : ''}`),
    `adapter: zoekt-mcp ${out.adapter.version}, up ${out.adapter.uptime_s} s`,
  ];
  const i = out.index;
  if (i) {
    lines.push(`index: ${i.repos} repo(s), ${i.documents} files, ${i.shards} shard(s), ${i.index_bytes} index bytes, ${i.content_bytes} content bytes`);
    if (i.symbols) {
      const counted = i.symbols.complete ? '' : ' (at least; the count was cut short)';
      const withSymbols = i.symbols.languages.filter((l) => l.files_with_symbols > 0);
      const none = withoutSymbols(i.symbols);
      lines.push(`symbols${counted}: ${withSymbols.map(describeLanguage).join(', ') || 'none'}`);
      if (none.length) lines.push(`no symbols: ${none.map((l) => `${l.language} (${l.files} files)`).join(', ')}`);
    } else {
      lines.push('symbols: coverage not read yet');
    }
    if (i.repos_without_symbols) lines.push(`${i.repos_without_symbols} repo(s) indexed without symbols`);
    if (i.not_indexed) {
      lines.push(`not indexed: ${i.not_indexed.complete ? '' : 'at least '}${i.not_indexed.files} file(s) in ${i.not_indexed.repos} repo(s) kept by name only (${describeReasons(i.not_indexed)}); list_repos names the repositories`);
    }
    if (i.oldest_index_time) lines.push(`indexed between ${i.oldest_index_time} and ${i.newest_index_time}`);
  }
  const c = out.calls;
  const rate = c.cache.hit_rate === undefined ? '' : `, hit rate ${pct(c.cache.hit_rate)}`;
  const held = c.cache.bytes === undefined ? '' : `, ${mib(c.cache.bytes)} of ${mib(c.cache.max_bytes ?? 0)} MiB held`;
  lines.push(`window cache: ${c.cache.hits} hit(s), ${c.cache.misses} miss(es)${rate}${held}; ${c.in_flight} call(s) in flight`);
  if (c.connections) {
    const shed = Object.entries(c.connections.shed).map(([reason, n]) => `${reason} ${n}`);
    lines.push(`http connections: ${c.connections.active} active, ${c.connections.unfinished} unfinished, ${c.connections.idle} idle; shed since start: ${shed.join(', ') || 'none'}`);
  }
  for (const t of c.tools) lines.push(`  ${t.tool}: ${t.calls} call(s), ${t.errors} error(s), p50 ${t.p50_ms} ms, p95 ${t.p95_ms} ms, p99 ${t.p99_ms} ms`);
  for (const r of out.indexing?.repos ?? []) lines.push(`repo ${describeRepo(r)}`);
  lines.push(...truncatedLine(out.truncated));
  if (out.hint) lines.push(`hint: ${out.hint}`);
  return lines.join('\n');
}

export const getHealthTool = defineTool({
  name: GET_HEALTH,
  title: 'Backend health',
  description: [
    'Zoekt up and ready; index stats, symbol coverage, files not indexed; per-tool latency. Call it when searches fail.',
    'Example:',
    '- {}',
  ].join('\n'),
  input,
  output,
  // The tool to call when others fail: never queued behind them.
  queued: false,
  handler: async (_args, ctx, budget) => {
    const local = ctx.local?.();
    // Not this index's own Zoekt: it is not asked, and nothing of its index is reported.
    const u = local?.unavailable;
    const health = u?.zoekt ? healthWithoutZoekt(ctx.searcher, ctx.metrics, u.message, u.hint) : await getHealth(ctx.searcher, ctx.metrics);
    return fitHealth(withIndexing(health, local), budget);
  },
  render: (out) => renderHealth(out),
});
