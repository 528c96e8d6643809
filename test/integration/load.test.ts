/**
 * Load and faults over Streamable HTTP: more concurrent clients than the admission limits let in
 * (--max-in-flight 4, --max-queue 8: 40 clients is over three times both together), against a
 * zoekt-webserver of this test's own over the fixture index, which is then stopped (SIGSTOP,
 * SIGCONT) and killed and restarted while the load runs. Loopback only, bounded in clients and in
 * time; everything started here is stopped here.
 *
 * What is asserted is that every call is answered, and how: a result, or a structured error in
 * the contract (OVERLOADED with retry_after_ms, TIMEOUT, UNAVAILABLE), or an HTTP 503/429
 * refusal. No latency figure is asserted, except the deadline: the server's own log of every call
 * (its time from arrival to answer, by the server's clock) must be within --timeout-ms 3000 plus
 * 1 s. Seen from the clients, a call not answered within the deadline plus 10 s counts as
 * unanswered, and there must be none: that wider bound is for what the server's deadline cannot
 * see (the request waiting in socket buffers while 40 clients, the server and Zoekt share two
 * cores with other work), not for the server's own promise.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectStreamable, startAdapter, type Adapter } from '../support/http.js';
import { startIssuer, type Issuer } from '../support/oauth-issuer.js';
import type { Connected, ToolErrorShape } from '../support/mcp.js';
import { REPO_PREFIX, startWebserver, type RunningZoekt } from '../support/zoekt.js';

const MAX_IN_FLIGHT = 4;
const MAX_QUEUE = 8;
const CLIENTS = 40;
const DEADLINE_MS = 3000;
/** The server's own margin over its deadline (timer and reply), by its clock. */
const SERVER_MARGIN_MS = 1000;
/** Past the deadline by this much, seen from a client, a call counts as unanswered (a hang). */
const HANG_MARGIN_MS = 10_000;

/** A mix of the tools, each cheap on the fixture index: the load is in their number. */
const CALLS: { name: string; arguments: Record<string, unknown> }[] = [
  { name: 'search_code', arguments: { query: 'paginate_marker', limit: 5 } },
  { name: 'search_symbols', arguments: { name: 'UserService' } },
  { name: 'search_files', arguments: { pattern: '**/*.ts' } },
  { name: 'find_references', arguments: { symbol: 'getUser' } },
  { name: 'list_repos', arguments: { limit: 5 } },
  { name: 'get_file', arguments: { repo: `${REPO_PREFIX}gosvc`, path: 'go.mod' } },
];

type Outcome = 'ok' | 'OVERLOADED' | 'TIMEOUT' | 'UNAVAILABLE' | 'http_refused' | 'unanswered' | 'other';

interface Answer {
  outcome: Outcome;
  /** When it was sent and when it was answered, ms since the load began. */
  sent: number;
  answered: number;
  detail?: string;
  error?: ToolErrorShape & { retry_after_ms?: number };
}

interface LoadRun {
  answers: Answer[];
  /** Answers of one outcome given within [from, to) ms since the load began. */
  count(outcome: Outcome, from?: number, to?: number): number;
}

function classify(result: CallToolResult): Pick<Answer, 'outcome' | 'error' | 'detail'> {
  if (!result.isError) return { outcome: 'ok' };
  const error = (result.structuredContent as { error?: ToolErrorShape & { retry_after_ms?: number } } | undefined)?.error;
  if (error && (error.code === 'OVERLOADED' || error.code === 'TIMEOUT' || error.code === 'UNAVAILABLE')) return { outcome: error.code, error };
  return { outcome: 'other', detail: JSON.stringify(result.structuredContent ?? result.content).slice(0, 300) };
}

/**
 * Runs CLIENTS clients, each calling one tool after another for at least `durationMs`; `during`
 * runs alongside (the fault being injected), with the time since the load began, and the load
 * goes on until 2 s after it ends whenever that is later.
 */
async function runLoad(
  url: string,
  durationMs: number,
  during: (sinceStart: () => number) => Promise<void> = async () => undefined,
  headers: () => Promise<Record<string, string>> = async () => ({}),
): Promise<LoadRun> {
  const clients: Connected[] = await Promise.all(Array.from({ length: CLIENTS }, async () => connectStreamable(url, await headers())));
  const answers: Answer[] = [];
  const t0 = Date.now();
  const since = () => Date.now() - t0;
  let stopAt = durationMs;
  let faultOver = false;
  try {
    const worker = async (i: number) => {
      for (let n = i; !faultOver || since() < stopAt; n++) {
        const c = CALLS[n % CALLS.length]!;
        const sent = since();
        let answer: Pick<Answer, 'outcome' | 'error' | 'detail'>;
        try {
          // The client gives up at deadline + hang margin: that is what "unanswered" means here.
          const result = (await clients[i]!.client.callTool(c, undefined, { timeout: DEADLINE_MS + HANG_MARGIN_MS })) as CallToolResult;
          answer = classify(result);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          if (err instanceof McpError && err.code === -32001) answer = { outcome: 'unanswered', detail: message };
          else if (/HTTP (503|429)\b/.test(message)) answer = { outcome: 'http_refused', detail: message };
          else answer = { outcome: 'other', detail: message.slice(0, 300) };
        }
        answers.push({ ...answer, sent, answered: since() });
        // Pace a refused client as told (capped, so the load stays up); a failing backend
        // answers fast, and a client that retried at once would only spin.
        if (answer.outcome === 'OVERLOADED') await pause(Math.min(answer.error?.retry_after_ms ?? 100, 250));
        else if (answer.outcome !== 'ok') await pause(50);
      }
    };
    const fault = during(since).then(() => {
      stopAt = Math.max(stopAt, since() + 2000);
      faultOver = true;
    });
    await Promise.all([...clients.map((_, i) => worker(i)), fault]);
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  }
  return {
    answers,
    count: (outcome, from = 0, to = Infinity) => answers.filter((a) => a.outcome === outcome && a.answered >= from && a.answered < to).length,
  };
}

/** Pacing of the load and of the faults; never used to wait for something to have happened. */
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The invariants every run keeps, whatever was injected. */
function expectEveryCallAnswered(run: LoadRun, adapter: Adapter): void {
  const tally: Record<string, number> = {};
  for (const a of run.answers) tally[a.outcome] = (tally[a.outcome] ?? 0) + 1;
  const summary = JSON.stringify(tally);
  process.stderr.write(`load: ${summary}\n`);
  expect(run.answers.length, summary).toBeGreaterThan(CLIENTS);
  expect(run.answers.filter((a) => a.outcome === 'unanswered'), summary).toEqual([]);
  expect(run.answers.filter((a) => a.outcome === 'other').map((a) => a.detail), summary).toEqual([]);
  const served = adapter.logs().filter((l) => l.msg === 'tool call' || l.msg === 'tool error');
  expect(served.length).toBeGreaterThan(0);
  const late = served.filter((l) => (l.ms as number) > DEADLINE_MS + SERVER_MARGIN_MS);
  expect(late, summary).toEqual([]);
  for (const a of run.answers) {
    expect(a.answered - a.sent, summary).toBeLessThanOrEqual(DEADLINE_MS + HANG_MARGIN_MS);
    if (a.error) {
      expect(a.error.retryable, a.error.code).toBe(true);
      expect(a.error.hint.length).toBeGreaterThan(0);
      if (a.outcome === 'OVERLOADED') {
        expect(Number.isInteger(a.error.retry_after_ms)).toBe(true);
        expect(a.error.retry_after_ms).toBeGreaterThan(0);
      }
    }
  }
}

describe('under load, with faults', () => {
  let zoekt: RunningZoekt;
  let adapter: Adapter;

  beforeAll(async () => {
    zoekt = await startWebserver({ indexDir: inject('indexDir'), expectRepos: inject('repos').length });
    adapter = await startAdapter({
      zoektUrl: zoekt.url,
      args: ['--max-in-flight', String(MAX_IN_FLIGHT), '--max-queue', String(MAX_QUEUE), '--timeout-ms', String(DEADLINE_MS)],
    });
  }, 60_000);

  afterAll(async () => {
    await adapter?.stop();
    zoekt?.thaw();
    await zoekt?.stop();
  });

  it('answers every call past the admission limits: results, or OVERLOADED with retry_after_ms', async () => {
    const run = await runLoad(adapter.url, 3000);
    expectEveryCallAnswered(run, adapter);
    expect(run.count('ok')).toBeGreaterThan(0);
    expect(run.count('UNAVAILABLE')).toBe(0);
  }, 60_000);

  it('Zoekt stopped with SIGSTOP past the deadline: calls time out and the rest are refused, then served again after SIGCONT', async () => {
    let stoppedAt = 0;
    let continuedAt = 0;
    // As long as the fault lasts, and 2 s after it.
    const run = await runLoad(adapter.url, 0, async (since) => {
      await pause(1000);
      stoppedAt = since();
      await zoekt.freeze();
      // Longer than the deadline: every call admitted meanwhile runs out of it.
      await pause(DEADLINE_MS + 1500);
      continuedAt = since();
      zoekt.thaw();
    });
    expectEveryCallAnswered(run, adapter);
    // The calls holding the four slots run into their deadline while Zoekt is stopped, eight more
    // wait, and the other clients are refused.
    const during = (o: Outcome) => run.count(o, stoppedAt, continuedAt);
    const window = JSON.stringify({ TIMEOUT: during('TIMEOUT'), OVERLOADED: during('OVERLOADED'), ok: during('ok'), UNAVAILABLE: during('UNAVAILABLE') });
    expect(during('TIMEOUT'), window).toBeGreaterThan(0);
    expect(during('OVERLOADED'), window).toBeGreaterThan(0);
    expect(run.count('ok', continuedAt), window).toBeGreaterThan(0);
  }, 60_000);

  it('Zoekt killed and restarted on its port: calls fail in the contract meanwhile and succeed again after', async () => {
    let readyAgainAt = Infinity;
    // As long as the fault lasts, and 2 s after it.
    const run = await runLoad(adapter.url, 0, async (since) => {
      await pause(1000);
      const exited = new Promise((r) => zoekt.process.once('exit', r));
      zoekt.process.kill('SIGKILL');
      await exited;
      await pause(2000);
      zoekt = await startWebserver({ indexDir: inject('indexDir'), port: zoekt.port, expectRepos: inject('repos').length });
      readyAgainAt = since();
    });
    expectEveryCallAnswered(run, adapter);
    expect(readyAgainAt).toBeLessThan(Infinity);
    expect(run.count('ok', readyAgainAt)).toBeGreaterThan(0);
    const mcp = await connectStreamable(adapter.url);
    try {
      const result = (await mcp.client.callTool(CALLS[0]!)) as CallToolResult;
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
    } finally {
      await mcp.close();
    }
  }, 90_000);
});

describe('under load, signed in (resource-server mode)', () => {
  let issuer: Issuer;
  let adapter: Adapter;

  beforeAll(async () => {
    issuer = await startIssuer();
    adapter = await startAdapter({
      zoektUrl: inject('zoektUrl'),
      args: ['--max-in-flight', String(MAX_IN_FLIGHT), '--max-queue', String(MAX_QUEUE), '--timeout-ms', String(DEADLINE_MS)],
      env: { ZOEKT_MCP_OAUTH_ISSUER: issuer.url, ZOEKT_MCP_OAUTH_REPOS_CLAIM: 'groups', ZOEKT_MCP_OAUTH_REPOS_MAP: `team-a=${REPO_PREFIX}*;team-b=${REPO_PREFIX}gosvc` },
    });
  }, 60_000);

  afterAll(async () => {
    await adapter?.stop();
    await issuer?.stop();
  });

  it('answers every call of clients with tokens of two users past the admission limits', async () => {
    let n = 0;
    // Each client its own token from the issuer, half of them of each user.
    const run = await runLoad(adapter.url, 3000, undefined, async () => ({ authorization: `Bearer ${await issuer.token(n++ % 2 ? 'agent-a' : 'agent-b', adapter.url)}` }));
    expectEveryCallAnswered(run, adapter);
    expect(run.count('ok')).toBeGreaterThan(0);
    expect(run.count('UNAVAILABLE')).toBe(0);
  }, 60_000);
});
