// Time from save to searchable in local mode: a copy of Go's source tree (11k files) made a git
// repository, served by scripts/serve.sh --repo with a data folder of its own; a line is appended
// to a file (never committed), then search_code is asked every 100 ms until it finds the line.
// Prints the first index's time and the median and max over BENCH_EDITS (20) edits. Removes what
// it made. Asserts nothing.
//   node bench/save.mjs
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = join(import.meta.dirname, '..');
const EDITS = Number(process.env.BENCH_EDITS ?? 20);
const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-save-'));
const repo = join(work, 'src');
const git = (...args) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
try {
  cpSync(join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src'), repo, { recursive: true });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.email=bench@localhost', '-c', 'user.name=bench', 'commit', '-q', '-m', 'tree');
  const client = new Client({ name: 'bench-save', version: '1.0.0' });
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? work, ZOEKT_MCP_DATA: join(work, 'data'), ZOEKT_MCP_LINGER_MS: '0', ZOEKT_MCP_TOOLS_DIR: process.env.ZOEKT_MCP_TOOLS_DIR ?? join(ROOT, '.tools') };
  await client.connect(new StdioClientTransport({ command: 'bash', args: [join(ROOT, 'scripts/serve.sh'), '--repo', repo], env, stderr: 'ignore' }), { timeout: 600_000 });
  const t0 = Date.now();
  for (;;) {
    const h = await client.callTool({ name: 'get_health', arguments: {} });
    const repos = h.structuredContent.indexing?.repos ?? [];
    if (repos.length && repos.every((r) => r.state === 'ready')) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`save to searchable on Go's source tree (a git work tree, edits not committed)`);
  console.log(`  first index: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const times = [];
  for (let i = 0; i < EDITS; i++) {
    const marker = `saveBenchMarker${i}x${Date.now()}`;
    const started = Date.now();
    appendFileSync(join(repo, i % 2 ? 'strings/strings.go' : 'net/http/server.go'), `\n// ${marker}\n`);
    for (;;) {
      const r = await client.callTool({ name: 'search_code', arguments: { query: marker, limit: 1 } });
      if (r.structuredContent?.results?.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    times.push(Date.now() - started);
    if (process.env.BENCH_VERBOSE) console.log(`  edit ${i}: ${times.at(-1)} ms`);
  }
  times.sort((a, b) => a - b);
  console.log(`  ${EDITS} edits: median ${times[Math.floor(EDITS / 2)]} ms, max ${times.at(-1)} ms`);
  await client.close();
} finally {
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
}
