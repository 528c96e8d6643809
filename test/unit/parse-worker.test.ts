/**
 * The extractor's hold on its tree-sitter worker thread. A real grammar cannot be made to crash or
 * hang on demand, so the worker here is a stand-in script (a real worker thread) that does, on
 * request: exits, never answers, reports a WebAssembly trap, or a parse timeout. After each,
 * the next file must be parsed, by a new worker when the old one cannot be trusted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ParseWorker } from '../../src/extractor/parse-worker.js';

let dir: string;
let script: URL;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'zoekt-mcp-parse-worker-'));
  const file = join(dir, 'worker.mjs');
  writeFileSync(
    file,
    `import { parentPort, threadId } from 'node:worker_threads';
parentPort.on('message', ({ id, source }) => {
  if (source === 'exit') process.exit(3);
  if (source === 'hang') for (;;) {}
  if (source === 'throw') throw new Error('thrown in the worker');
  if (source === 'trap') return parentPort.postMessage({ id, ok: false, error: 'RuntimeError: unreachable', fatal: true });
  if (source === 'slow') return parentPort.postMessage({ id, ok: false, error: 'parsing took longer than 5 ms', fatal: false });
  parentPort.postMessage({ id, ok: true, tags: [{ name: 'thread' + threadId, line: 1, kind: 'Function' }], errorLines: [] });
});
`,
  );
  script = pathToFileURL(file);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('replaces a worker that exits, hangs, throws or traps, and keeps one that only timed out', async () => {
  const worker = new ParseWorker(script);
  const thread = async () => (await worker.parse('typescript', 'ok', 5)).tags[0]!.name;
  try {
    const first = await thread();
    expect(worker.started).toBe(1);

    await expect(worker.parse('typescript', 'exit', 5)).rejects.toThrow(/exited with 3/);
    const second = await thread();
    expect(second).not.toBe(first);
    expect(worker.started).toBe(2);

    // The stand-in never answers: given up after twice the timeout and a second, and terminated.
    const hung = Date.now();
    await expect(worker.parse('typescript', 'hang', 5)).rejects.toThrow(/did not answer within 1010 ms/);
    expect(Date.now() - hung).toBeLessThan(5_000);
    expect(await thread()).not.toBe(second);
    expect(worker.started).toBe(3);

    await expect(worker.parse('typescript', 'throw', 5)).rejects.toThrow(/crashed: thrown in the worker/);
    await thread();
    expect(worker.started).toBe(4);

    await expect(worker.parse('typescript', 'trap', 5)).rejects.toThrow(/unreachable/);
    const afterTrap = await thread();
    expect(worker.started).toBe(5);

    // A parse that timed out reset its parser: the same worker goes on.
    await expect(worker.parse('typescript', 'slow', 5)).rejects.toThrow(/longer than/);
    expect(await thread()).toBe(afterTrap);
    expect(worker.started).toBe(5);
  } finally {
    await worker.close();
  }
});
