// What an answer costs an agent: characters of text and of structuredContent per result, for the
// bench's queries, through one build or two (before/after) in the same run, beside what Zoekt
// itself returned for the same call (the bytes of its JSON answers, counted by a proxy in front
// of it). bench/output-size.sh sets up the corpus and Zoekt. Prints figures; asserts nothing.
//   ZOEKT_URL=… [ZOEKT_MCP_CLI=dist/cli.js] [ZOEKT_MCP_BEFORE_CLI=…/dist/cli.js] node bench/output-size.mjs
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { request } from 'undici';

const ROOT = join(import.meta.dirname, '..');
const AFTER = process.env.ZOEKT_MCP_CLI ?? join(ROOT, 'dist/cli.js');
const BEFORE = process.env.ZOEKT_MCP_BEFORE_CLI;
const ZOEKT_URL = process.env.ZOEKT_URL;
if (!ZOEKT_URL) {
  console.error('bench: set ZOEKT_URL, or run bash bench/output-size.sh');
  process.exit(2);
}

// The perf bench's 30 search_code queries, a broad in-bounds page (limit 50), and the other tools.
const WORDS = ['function', 'return', 'export', 'import', 'const', 'async', 'await', 'Promise', 'Error', 'string', 'number', 'interface', 'class', 'extends', 'throw', 'undefined', 'null', 'length', 'push', 'Map'];
const CALLS = [
  ...WORDS.map((w) => ['search_code', { query: w, limit: 10 }]),
  ['search_code', { query: 'create[A-Z]\\w+', limit: 10 }],
  ['search_code', { query: 'new Map(', literal: true, limit: 10 }],
  ['search_code', { query: 'TODO', limit: 10 }],
  ['search_code', { query: 'file:\\.d\\.ts$ export', limit: 10 }],
  ['search_code', { query: 'lang:typescript readonly', limit: 10 }],
  ['search_code', { query: 'parse', source_code_only: true, limit: 10 }],
  ['search_code', { query: 'z\\.object', limit: 10 }],
  ['search_code', { query: 'socket', limit: 10, context_lines: 2 }],
  ['search_code', { query: 'Symbol\\.iterator', limit: 10 }],
  ['search_code', { query: 'JSON.stringify', literal: true, limit: 10 }],
  ['search_code', { query: 'e', limit: 50, context_lines: 3, max_matches_per_file: 20 }, 'broad'],
  ['search_code', { query: 'sourceMappingURL', limit: 50, context_lines: 3 }, 'broad'],
  ['search_symbols', { name: 'create*', limit: 100 }],
  ['search_symbols', { name: 'parse*', limit: 100 }],
  ['search_files', { pattern: '**/*.ts', limit: 200 }],
  ['find_references', { symbol: 'Error', limit: 200, context_lines: 2 }],
  ['find_references', { symbol: 'push', limit: 200 }],
  ['list_repos', { limit: 500 }],
  ['get_file', { repo: 'npm-typescript-lib', path: 'lib.es5.d.ts', start_line: 1, end_line: 2000 }],
  ['get_file', { repo: 'npm-typescript-lib', path: 'lib.dom.d.ts', start_line: 1, end_line: 2000 }],
];

/** A proxy in front of Zoekt that counts the bytes of its answers. */
async function counter() {
  let bytes = 0;
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    const up = await request(`${ZOEKT_URL}${req.url}`, { method: req.method, headers: { 'content-type': 'application/json' }, body: req.method === 'POST' ? body : undefined });
    const answer = Buffer.from(await up.body.arrayBuffer());
    if (req.method === 'POST' && req.url === '/api/search') bytes += answer.length;
    res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') });
    res.end(answer);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, take: () => ((b) => ((bytes = 0), b))(bytes), close: () => server.close() };
}

/** How many results an answer holds: its list's items (get_file: lines). */
function results(tool, out) {
  if (tool === 'get_file') return Math.max(1, out.end_line - out.start_line + 1);
  const list = out.results ?? out.symbols ?? out.files ?? out.repos ?? [...(out.definitions ?? []), ...(out.usages ?? [])];
  return Math.max(1, list.length);
}

async function measure(cli, label) {
  const proxy = await counter();
  // No window cache: every call asks Zoekt, so its bytes are this call's.
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, '--cache-mb', '0'], env: { PATH: process.env.PATH ?? '', ZOEKT_URL: proxy.url, ZOEKT_MCP_LOG_LEVEL: 'warn' }, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const rows = [];
  for (const [tool, args, tag] of CALLS) {
    proxy.take();
    const res = await client.callTool({ name: tool, arguments: args });
    const raw = proxy.take();
    const text = res.content.map((c) => c.text ?? '').join('').length;
    const structured = JSON.stringify(res.structuredContent ?? {}).length;
    const n = res.isError ? 1 : results(tool, res.structuredContent);
    rows.push({ tool, tag, args, text, structured, raw, n, error: res.isError ? res.structuredContent?.error?.code : undefined, truncated: tool === 'get_file' ? Boolean(res.structuredContent?.budget) : typeof res.structuredContent?.truncated === 'object' });
  }
  await client.close();
  proxy.close();
  console.error(`bench: ${label}: ${rows.length} calls measured`);
  return rows;
}

const k = (n) => (n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));
const sum = (rows, f) => rows.reduce((a, r) => a + f(r), 0);

function summary(rows) {
  const byTool = new Map();
  for (const r of rows) {
    const key = r.tag === 'broad' ? 'search_code (broad: limit 50)' : r.tool;
    byTool.set(key, [...(byTool.get(key) ?? []), r]);
  }
  return byTool;
}

const after = await measure(AFTER, 'after');
const before = BEFORE ? await measure(BEFORE, 'before') : undefined;

console.log('\n## Characters per answer and per result (text | structuredContent | raw Zoekt JSON)\n');
const head = ['calls', 'results', 'text/answer', 'text/result', 'struct/result', 'struct÷text', 'raw Zoekt/result', 'largest text', 'cut by budget'];
const line = (cells) => console.log(`| ${cells.join(' | ')} |`);
for (const [label, rows] of [['after', after], ...(before ? [['before', before]] : [])]) {
  console.log(`### ${label} (${label === 'after' ? AFTER : BEFORE})\n`);
  line(['tool', ...head]);
  line(['---', ...head.map(() => '---')]);
  for (const [tool, rs] of summary(rows)) {
    const n = sum(rs, (r) => r.n);
    line([
      tool,
      rs.length,
      n,
      k(sum(rs, (r) => r.text) / rs.length),
      k(sum(rs, (r) => r.text) / n),
      k(sum(rs, (r) => r.structured) / n),
      (sum(rs, (r) => r.structured) / sum(rs, (r) => r.text)).toFixed(2),
      k(sum(rs, (r) => r.raw) / n),
      k(Math.max(...rs.map((r) => r.text))),
      rs.filter((r) => r.truncated).length,
    ]);
  }
  console.log('');
}
if (before) {
  console.log('### after ÷ before, same calls\n');
  line(['tool', 'largest text', 'largest structuredContent', 'all text', 'all structuredContent']);
  line(['---', '---', '---', '---', '---']);
  const b = summary(before);
  for (const [tool, rs] of summary(after)) {
    const bs = b.get(tool);
    const ratio = (f, g) => (f(rs) / f(bs)).toFixed(2);
    line([
      tool,
      ratio((x) => Math.max(...x.map((r) => r.text))),
      ratio((x) => Math.max(...x.map((r) => r.structured))),
      ratio((x) => sum(x, (r) => r.text)),
      ratio((x) => sum(x, (r) => r.structured)),
    ]);
  }
  console.log('');
}
const errors = after.filter((r) => r.error);
if (errors.length) console.log(`errors: ${errors.map((r) => `${r.tool} ${JSON.stringify(r.args)}: ${r.error}`).join('; ')}`);
