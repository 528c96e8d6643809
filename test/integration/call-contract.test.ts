/**
 * Every failure a caller can cause at the tools/call level is a tool error with a code and a
 * hint, over a real stdio transport; a call has one deadline, and past the admission limits a
 * call is refused at once with OVERLOADED. Real zoekt-webservers; a hung backend is a
 * zoekt-webserver frozen with SIGSTOP.
 */
import { CallToolResultSchema, LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, connectStdio, failed, textOf, type Connected } from '../support/mcp.js';
import { startWebserver } from '../support/zoekt.js';

/** Sends tools/call params as given, bypassing the client's own typing. */
async function rawCall(mcp: Connected, params: unknown): Promise<CallToolResult> {
  return (await mcp.client.request({ method: 'tools/call', params: params as { name: string } }, CallToolResultSchema)) as CallToolResult;
}

function expectNoJsText(result: CallToolResult) {
  const text = textOf(result);
  expect(text).not.toMatch(/TypeError|ReferenceError|at .*\.js:\d+|ZodError|"code": "invalid_type"/);
}

describe('tools/call errors a caller can cause', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
  });
  afterAll(() => mcp.close());

  it('an unknown tool is a protocol error, -32602, naming the nearest tool and listing them all', async () => {
    const err = await rawCall(mcp, { name: 'search_cod', arguments: { query: 'x' } }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string; data?: { hint: string; tools: string[]; nearest?: string } },
    );
    expect(err?.code).toBe(-32602);
    expect(err?.message).toContain("Unknown tool: 'search_cod'");
    expect(err?.data?.hint).toContain("Did you mean 'search_code'?");
    expect(err?.data?.nearest).toBe('search_code');
    expect(err?.data?.tools).toContain('get_health');
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'query=foo'],
    ['a number', 7],
    ['null', null],
  ])('arguments that are %s: INVALID_ARGUMENT naming the tool and what it takes', async (_what, args) => {
    const result = await rawCall(mcp, { name: 'search_code', arguments: args });
    const err = failed(result);
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('must be a JSON object');
    expect(err.hint).toContain('search_code takes: query');
    expectNoJsText(result);
  });

  it('a name that is not a string, or no name: -32602 listing the tools', async () => {
    for (const params of [{ name: 42, arguments: {} }, { arguments: {} }]) {
      const err = await rawCall(mcp, params).then(
        () => undefined,
        (e: unknown) => e as { code: number; data?: { hint: string } },
      );
      expect(err?.code).toBe(-32602);
      expect(err?.data?.hint).toContain('search_code');
    }
  });

  it('nothing in a well-formed call stands in for the params of a malformed one', async () => {
    // The shape of what a malformed call's params once travelled in: a call to the tool named ''.
    const err = await rawCall(mcp, { name: '', arguments: { 'io.zoekt-mcp/params-as-sent': { name: 'search_code', arguments: { query: 'func' } } } }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(err?.code).toBe(-32602);
    expect(err?.message).toContain('tools/call needs the name of a tool');
  });

  it('arguments with thousands of values are refused before any work', async () => {
    const repos = Array.from({ length: 5000 }, (_, i) => `repo${i}`);
    const err = failed(await call(mcp.client, 'search_code', { query: 'x', repos }));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('more than 1000 values');
  });

  it('the session goes on answering after each of them', async () => {
    const result = await call(mcp.client, 'search_code', { query: 'func' });
    expect(result.isError).toBeFalsy();
  });
});

describe('log messages on a 2025 stdio connection', () => {
  it('none until the client sets a level; then one per call at or above it', async () => {
    const mcp = await connectStdio({ ZOEKT_URL: inject('zoektUrl') });
    try {
      const logs: { level: string; data: unknown }[] = [];
      mcp.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(n.params);
      });
      // A call's log message is sent before its answer, on the same ordered stream.
      expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
      expect(logs).toEqual([]);
      await mcp.client.setLoggingLevel('info');
      expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
      expect(logs).toEqual([{ level: 'info', logger: 'zoekt-mcp', data: expect.objectContaining({ tool: 'search_code' }) }]);
      // Above the level of a plain call's message: none.
      await mcp.client.setLoggingLevel('error');
      expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
      expect(logs).toHaveLength(1);
    } finally {
      await mcp.close();
    }
  });
});

describe('one deadline per call; admission limits', () => {
  it('with Zoekt hung: the running call gets TIMEOUT at its deadline, a call past the limits gets OVERLOADED at once, get_health still answers', async () => {
    const zoekt = await startWebserver({ indexDir: inject('indexDir'), expectRepos: 1 });
    const mcp = await connectStdio({ ZOEKT_URL: zoekt.url, ZOEKT_MCP_TIMEOUT_MS: '2000', ZOEKT_MCP_MAX_IN_FLIGHT: '1', ZOEKT_MCP_MAX_QUEUE: '1' });
    try {
      expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
      await zoekt.freeze();
      const started = Date.now();
      const running = call(mcp.client, 'search_code', { query: 'func' });
      const queued = call(mcp.client, 'search_files', { pattern: '*.go' });
      // Sent after the two above on the same ordered stream: both are admitted or queued by then.
      const refused = failed(await call(mcp.client, 'search_symbols', { name: 'Server' }));
      expect(refused.code).toBe('OVERLOADED');
      expect(refused.retryable).toBe(true);
      const retryAfter = (refused as unknown as { retry_after_ms: number }).retry_after_ms;
      expect(retryAfter).toBeGreaterThanOrEqual(100);
      expect(refused.hint).toContain(`Retry after ${retryAfter} ms`);

      const timedOut = failed(await running);
      expect(timedOut.code).toBe('TIMEOUT');
      expect(timedOut.message).toContain('2000 ms');
      // The queued call has its own deadline, counted from its arrival, a moment after the first
      // one's: whether it ends waiting or gets the freed slot with nothing left, it is TIMEOUT.
      expect(failed(await queued).code).toBe('TIMEOUT');
      // Both deadlines are 2 s from arrival; the margin is for a busy machine, not for the design.
      expect(Date.now() - started).toBeLessThan(2000 + 3000);

      const health = await call(mcp.client, 'get_health', {});
      expect(health.isError).toBeFalsy();
      expect((health.structuredContent as { status: string }).status).toBe('down');

      zoekt.thaw();
      expect((await call(mcp.client, 'search_code', { query: 'func' })).isError).toBeFalsy();
    } finally {
      zoekt.thaw();
      await mcp.close();
      await zoekt.stop();
    }
  });
});
