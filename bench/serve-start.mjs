#!/usr/bin/env node
// Time from spawning the README's client command (bash scripts/serve.sh) to `initialize` and
// `tools/list` answered, on a set-up machine. Usage: node bench/serve-start.mjs [ROOT] [RUNS]
// ROOT is the checkout whose scripts/serve.sh is spawned (default: this one). The environment is
// passed through (ZOEKT_MCP_DATA, ZOEKT_PORT, ZOEKT_MCP_TOOLS_DIR, ZOEKT_MCP_REPOS…).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
const runs = Number(process.argv[3] ?? 5);
const times = [];
for (let i = 0; i < runs; i++) {
  const started = performance.now();
  const transport = new StdioClientTransport({ command: 'bash', args: [join(root, 'scripts/serve.sh')], env: { ...process.env, ZOEKT_MCP_LOG_LEVEL: 'warn' }, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const ms = performance.now() - started;
  times.push(ms);
  process.stderr.write(`run ${i + 1}: initialize + tools/list (${tools.length} tools) in ${ms.toFixed(0)} ms\n`);
  await client.close();
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ root, runs, min_ms: Math.round(times[0]), median_ms: Math.round(times[Math.floor(times.length / 2)]), max_ms: Math.round(times.at(-1)) }));
