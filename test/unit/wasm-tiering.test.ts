/**
 * The extractor's WebAssembly budget (src/extractor/tagger.ts) only ever delays V8's optimising:
 * set where the V8's own default is lower, left alone where it is not. Checked against the
 * default that this Node's V8 reports, as well as for the V8 of each supported Node.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { wasmTieringBudget } from '../../src/extractor/tagger.js';

describe('the extractor\'s WebAssembly tiering budget', () => {
  it('is set for Node 20\'s V8 and left to V8 for Node 22\'s and 24\'s', () => {
    expect(wasmTieringBudget('11.3.244.8-node.38')).toBe(3_600_000);
    expect(wasmTieringBudget('12.4.254.21-node.57')).toBeUndefined();
    expect(wasmTieringBudget('13.6.233.17-node.53')).toBeUndefined();
  });

  it('is never lower than the default of the V8 running this test', () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    const m = /default: --wasm-tiering-budget=(\d+)/.exec(options);
    expect(m, 'node --v8-options names the default').not.toBeNull();
    const defaultBudget = Number(m![1]);
    const budget = wasmTieringBudget(process.versions.v8);
    if (budget === undefined) expect(defaultBudget).toBeGreaterThan(3_600_000);
    else expect(budget).toBeGreaterThan(defaultBudget);
  });
});
