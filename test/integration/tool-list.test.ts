/**
 * What agents see of the tools — names, titles, descriptions, schemas, annotations — is kept in a
 * reviewed snapshot, so any change to it shows up in the diff of test/integration/__snapshots__/.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeTools } from '../../src/server/catalog.js';
import { TOOLS } from '../../src/tools/index.js';
import { connectStdio, type Connected } from '../support/mcp.js';
import { ROOT } from '../support/zoekt.js';

describe('tools/list', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
  });
  afterAll(() => mcp.close());

  it('is what the build wrote for servers to read at start, and what the sources describe', async () => {
    const { tools } = await mcp.client.listTools();
    const built = JSON.parse(readFileSync(join(ROOT, 'dist/tools-list.json'), 'utf8')) as { tools: unknown[] };
    expect(built.tools).toEqual(describeTools(TOOLS));
    expect(tools).toEqual(built.tools);
  });

  it('matches the reviewed snapshot', async () => {
    const { tools } = await mcp.client.listTools();
    await expect(JSON.stringify(tools, null, 2)).toMatchFileSnapshot('__snapshots__/tools.json');
  });

  // Every conversation pays for tools/list: it stays lean, and its size is in the test's output.
  it('stays within 12 KiB', async () => {
    const { tools } = await mcp.client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(tools));
    const perTool = tools.map((t) => `${t.name} ${Buffer.byteLength(JSON.stringify(t))}`).join(', ');
    console.log(`tools/list: ${bytes} bytes (${perTool})`);
    expect(bytes).toBeLessThanOrEqual(12_288);
  });

  it('marks every tool read-only, idempotent and closed-world, with input schemas that refuse unknown keys', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.outputSchema).toBeDefined();
      // Two examples at least, or the one call of a tool whose only argument is the output bound.
      const takesArguments = Object.keys(tool.inputSchema.properties ?? {}).some((k) => k !== 'max_output_chars');
      expect(tool.description?.split('\n').filter((l) => l.startsWith('- {')).length, tool.name).toBeGreaterThanOrEqual(takesArguments ? 2 : 1);
    }
  });
});
