import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { CursorSigner } from '../../src/search/engine/cursor.js';
import { paginate } from '../../src/search/engine/page.js';
import { AnswerTooLarge } from '../../src/zoekt/client.js';

describe('paginate', () => {
  it("gives a call too broad to answer the tool's own narrowing hint", async () => {
    const run = paginate({
      tool: 'search_symbols',
      cursors: new CursorSigner('s'.repeat(32)),
      args: { name: 'e', regex: true },
      limit: 20,
      fetch: () => Promise.reject(new AnswerTooLarge("zoekt's answer is too large")),
      emptyHint: () => '',
      narrowHint: "Ask for less: a longer name or a prefix glob ('get*'), kinds.",
    });
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true, hint: "Ask for less: a longer name or a prefix glob ('get*'), kinds." });
    expect((err as ToolError).hint).not.toMatch(/context_lines|max_matches_per_file/);
  });
});
