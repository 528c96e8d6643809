/**
 * The README's serve command in a fresh clone: a client spawns scripts/serve.sh, which installs
 * what is missing, indexes the repositories of zoekt-config/repos (this repository), starts
 * zoekt-webserver and serves MCP over stdio. The clone shares this checkout's Zoekt build
 * (ZOEKT_MCP_TOOLS_DIR) so the test does not compile Zoekt twice; npm packages are installed
 * in the clone as a user's first run would.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { call, ok } from '../support/mcp.js';
import { freePort, ROOT } from '../support/zoekt.js';

describe('scripts/serve.sh in a fresh clone', () => {
  let work: string;
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-serve-'));
    const clone = join(work, 'zoekt-mcp');
    execFileSync('git', ['clone', '-q', ROOT, clone]);
    const transport = new StdioClientTransport({
      command: 'bash',
      args: [join(clone, 'scripts/serve.sh')],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? work,
        ZOEKT_PORT: String(await freePort()),
        ZOEKT_MCP_DATA: join(work, 'data'),
        ZOEKT_MCP_TOOLS_DIR: join(ROOT, '.tools'),
        ZOEKT_MCP_LOG_LEVEL: 'warn',
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    client = new Client({ name: 'serve-test', version: '1.0.0' });
    await client.connect(transport);
  }, 300_000);

  afterAll(async () => {
    await client?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('answers tools/list', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('search_code');
    expect(stderr).toContain('indexing git repository .');
  });

  it('answers search_code over its own source, indexed with symbols', async () => {
    const out = ok<CodeSearchOutput>(await call(client, 'search_code', { query: 'sym:^buildServer$', context_lines: 0 }));
    const hit = out.results.find((r) => r.path === 'src/server/build.ts');
    expect(hit, JSON.stringify(out)).toBeDefined();
    expect(hit!.matches[0]!.symbol).toEqual({ name: 'buildServer', kind: 'function' });
  });
});
