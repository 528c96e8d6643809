/**
 * Crafted attempts to reach repositories outside a scope, through query text and through
 * arguments, on every tool, and how to read the repositories an answer names over every page.
 * Used against --allow-repos (repo-scope.test.ts) and against a signed-in caller's scope
 * (http-oauth.test.ts).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call, ok, type Connected } from './mcp.js';
import { REPO_PREFIX } from './zoekt.js';

const GOSVC = `${REPO_PREFIX}gosvc`;

export interface Attempt {
  tool: string;
  args: Record<string, unknown>;
  /** Error codes the confined adapter may answer with instead of results. */
  mayFail?: string[];
  /** Set when the unconfined adapter is expected to error too (so it proves nothing there). */
  unconfinedFails?: boolean;
}

const code = (query: string, extra: Record<string, unknown> = {}, expect: Omit<Attempt, 'tool' | 'args'> = {}): Attempt => ({
  tool: 'search_code',
  args: { query, ...extra },
  ...expect,
});

/**
 * Every attempt targets content that exists outside webapp and pytools. `constraint`: the text a
 * scope's constraint renders as, which one attempt imitates.
 */
export const attempts = (constraint: string): Attempt[] => [
  // Query text: operators, fields, groups and quotes.
  code('Server'),
  code('Server or repo:gosvc'),
  code('repo:gosvc Server'),
  code('r:gosvc'),
  code('repo:.* Server'),
  code('-repo:webapp Server'),
  code('-r:webapp -r:pytools func'),
  code('( Server ) or ( repo:gosvc )'),
  code('Server ) or ( repo:gosvc', {}, { mayFail: ['QUERY_ERROR'], unconfinedFails: true }),
  code('Server) or (repo:gosvc', {}, { mayFail: ['QUERY_ERROR'], unconfinedFails: true }),
  code('( ( repo:gosvc ) )'),
  code('type:repo gosvc'),
  code('type:repo Server'),
  code('type:file ( Server or r:gosvc )'),
  code('"Server" or r:"gosvc"'),
  code('"Server|(x) or (repo:gosvc)"'),
  code('\\" or repo:gosvc \\"'),
  code('case:yes Server or repo:.*'),
  code('case:no repo:gosvc'),
  code('repo:webapp or repo:gosvc'),
  code('repo:github.com/acme/(gosvc|javaapp)'),
  code('branch:main or Server'),
  code('file:server\\.go'),
  code('lang:go func'),
  code('sym:Server'),
  code('Server\nor repo:gosvc'),
  // The query is sent as `( text )`, so this text makes it end with the server's own constraint;
  // `\ ` glues the constraint's `(` into the term before it, so the grouping still balances. A
  // server that skipped queries "already confined" would send this one bare.
  code(`Server or branch:x\\ ${constraint.replace(/ \)$/, '')}`),
  code('errors.New("server stopped")', { literal: true }),
  code('Server', { repos: [GOSVC] }),
  code('Server', { repos: ['*'] }),
  code('Server', { repos: ['github.com/acme/*', 'gosvc'] }),
  code('Server', { repos: ['**'] }),
  code('Server', { repos: ['github.com/acme/[a-z]*'] }),
  code('package', { paths: ['**'], branch: 'main' }),
  // search_symbols: names, regexes and filters.
  { tool: 'search_symbols', args: { name: 'Server' } },
  { tool: 'search_symbols', args: { name: 'Server', repos: [GOSVC] } },
  { tool: 'search_symbols', args: { name: '*' , limit: 100 } },
  { tool: 'search_symbols', args: { name: 'Server|(") or repo:gosvc or sym:(")', regex: true } },
  { tool: 'search_symbols', args: { name: '.*', regex: true, languages: ['go', 'java'] } },
  // search_files: patterns and regexes.
  { tool: 'search_files', args: { pattern: '**' } },
  { tool: 'search_files', args: { pattern: '*.go', repos: ['*'] } },
  { tool: 'search_files', args: { pattern: 'go\\.mod|(" or repo:"gosvc)', regex: true } },
  { tool: 'search_files', args: { pattern: 'go.mod' } },
  // find_references: identifiers and filters.
  { tool: 'find_references', args: { symbol: 'Server' } },
  { tool: 'find_references', args: { symbol: 'UserService', repos: ['*'] } },
  { tool: 'find_references', args: { symbol: 'Start', languages: ['go'] } },
];

/** The repositories a successful answer names, tool by tool. */
export function reposIn(tool: string, out: Record<string, unknown>): string[] {
  const list = (key: string, field = 'repo') => ((out[key] as Record<string, string>[] | undefined) ?? []).map((r) => r[field]!);
  switch (tool) {
    case 'search_code':
      return list('results');
    case 'search_symbols':
      return list('symbols');
    case 'search_files':
      return list('files');
    case 'find_references':
      return [...list('definitions'), ...list('usages')];
    case 'list_repos':
      return list('repos', 'name');
    case 'get_file':
      return [out.repo as string];
    default:
      throw new Error(`no repo reader for ${tool}`);
  }
}

/** Every page of a call, up to a bound, with the Zoekt queries each page reports. */
export async function allPages(client: Connected['client'], tool: string, args: Record<string, unknown>): Promise<{ repos: string[]; queries: string[]; error?: CallToolResult }> {
  const repos: string[] = [];
  const queries: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 40; page++) {
    const result = await call(client, tool, { ...args, ...(cursor ? { cursor } : {}) });
    if (result.isError) return { repos, queries, error: result };
    const out = ok(result);
    repos.push(...reposIn(tool, out));
    if (typeof out.zoekt_query === 'string') queries.push(out.zoekt_query);
    if (out.zoekt_queries) queries.push(...Object.values(out.zoekt_queries as Record<string, string>));
    cursor = out.next_cursor as string | undefined;
    if (!cursor) break;
  }
  return { repos, queries };
}

