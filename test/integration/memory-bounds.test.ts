/**
 * Calls that ask Zoekt for far more than a page (a regex matching nearly every symbol of the Go
 * source tree) are bounded by what one call may hold: they come back as a partial answer that
 * says how to narrow, not as an error and not as hundreds of MiB held (bench/memory.mjs measures
 * the memory; this checks the contract).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SymbolSearchOutput } from '../../src/search/symbols.js';
import { answerCap } from '../../src/zoekt/client.js';
import { call, connectStdio, ok, type Connected } from '../support/mcp.js';

let mcp: Connected;
beforeAll(async () => {
  mcp = await connectStdio({ ZOEKT_URL: inject('goZoektUrl'), ZOEKT_MCP_TIMEOUT_MS: '60000' });
});
afterAll(() => mcp?.close());

describe('bounded answers', () => {
  it('caps what a search may hold well below the transport cap; whole files keep it', () => {
    expect(answerCap({})).toBe(16 * 1024 * 1024);
    expect(answerCap({ whole: true })).toBe(64 * 1024 * 1024);
  });

  it.each(['e', 'n'])('search_symbols {"name":"%s","regex":true} is a partial answer with a narrowing hint, not an error', async (name) => {
    const out = ok<SymbolSearchOutput>(await call(mcp.client, 'search_symbols', { name, regex: true }));
    expect(out.symbols.length).toBe(20);
    expect(out.stats.complete).toBe(false);
    expect(out.partial?.reason).toMatch(/^too_large$|match budget|time limit/);
    expect(out.partial?.hint).toMatch(/Narrow|narrow|longer name/);
    expect(out.next_cursor).toBeDefined();
  });
});
