/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned; it needs Node 22 or
 * later) against the server over Streamable HTTP, for both protocol revisions the server speaks:
 * every scenario a revision requires, with the expected failures of test/conformance/ (each one
 * needs a fixture tool, resources or prompts this server does not offer, and says so).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startAdapter, type Adapter } from '../support/http.js';
import { PROTOCOL_TOOLS, ROOT } from '../support/zoekt.js';

let adapter: Adapter;
let out: string;

beforeAll(async () => {
  adapter = await startAdapter({ zoektUrl: inject('zoektUrl') });
  out = mkdtempSync(join(tmpdir(), 'zoekt-mcp-conformance-'));
});
afterAll(async () => {
  await adapter?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

function conformance(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(PROTOCOL_TOOLS.node[22], [PROTOCOL_TOOLS.conformance, ...args], { timeout: 120_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('the MCP conformance suite', () => {
  it.each(['2026-07-28', '2025-11-25'])('passes every scenario revision %s requires, but those that need what the server does not offer', async (revision) => {
    const run = await conformance([
      'server',
      '--url',
      `${adapter.url}/mcp`,
      '--requirements',
      revision,
      '--expected-failures',
      join(ROOT, `test/conformance/expected-failures-${revision}.yml`),
      '-o',
      join(out, revision),
    ]);
    const summary = run.output.split('\n').filter((l) => /^(✓|✗) |^Total|Baseline|Unexpected|Stale|^\s+[✓✗] /.test(l));
    process.stderr.write(`conformance ${revision}:\n${summary.join('\n')}\n`);
    expect(run.output).toMatch(/Baseline check passed: all failures are expected/);
    expect(run.code).toBe(0);
    // The scenarios about the protocol itself pass whole. (tools-call-error calls a fixture tool,
    // test_error_handling: a name that is no tool here is -32602, as the spec's Error Handling says.)
    for (const scenario of revision === '2026-07-28' ? ['tools-list', 'http-header-validation', 'dns-rebinding-protection'] : ['server-initialize', 'ping', 'logging-set-level', 'tools-list', 'dns-rebinding-protection']) {
      expect(run.output, scenario).toMatch(new RegExp(`^✓ ${scenario}: [1-9]\\d* passed, 0 failed$`, 'm'));
    }
  }, 150_000);
});
