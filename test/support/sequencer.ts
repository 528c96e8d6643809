/**
 * The order test files start in. Vitest runs the files that took longest on this machine's last
 * run first, so that the workers finish together; a fresh clone (CI) has no such record, and
 * Vitest then goes by file size, which starts the files with long set-ups but short sources
 * (window-cache-heap, serve) last, and the run waits on them alone. Where nothing is recorded,
 * the files named below start first, in this order (the longest of a run on the reference
 * machine, set-up included: bench/README.md, "The test suite"); the others follow by size.
 */
import { basename, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST_FIRST = [
  'local-serve',
  'serve',
  'local-lists',
  'hostile-traffic',
  'scale',
  'protocol-eras',
  'load',
  'window-cache-heap',
  'local-fairness',
  'heap-growth',
  'symbol-truth',
  'local-indexer',
  'helm-chart',
  'fleet',
  'fuzz',
  'broad-queries',
  'local-states',
  'stdio-prelude',
].map((name) => `${name}.test.ts`);

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const recorded = (f: TestSpecification) => this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`);
    if (sorted.some(recorded)) return sorted;
    const rank = (f: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(basename(f.moduleId));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    // Stable: projects and group order stay where the base order put them.
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => (a.f.project === b.f.project ? rank(a.f) - rank(b.f) : 0) || a.i - b.i)
      .map(({ f }) => f);
  }
}
