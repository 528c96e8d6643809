/**
 * search_symbols by description on a tree no other test uses and nobody here wrote: the `semver`
 * package (npm's version parser, pinned by package-lock), indexed beside four other libraries of
 * the same node_modules (yaml, qs, path-to-regexp, lru-cache) that compete for the same words
 * (parse, compare, valid). The descriptions are every function of semver's README sections
 * "Functions", "Comparison", "Sorting" and "Ranges", in README order, each its first sentence said
 * as a person would ask for it; the accepted answer is the function the README names (defined
 * anywhere in semver). Nothing here was chosen by how the search does on it. The set and its
 * corpus are in test/support/describe-semver.json, which bench/describe-meaning.mjs reads too.
 *
 * Prints top-1 and top-3 and the misses. The target of issue 36 (top-3 at least 90%) is not
 * asserted: the set reaches 23 of 33 (bench/README.md, "search_symbols by description"), its
 * misses being short forms no rule spells (`eq`, `neq`, `rsort`), names the sentence does not use
 * (`subset`) and one-word names outranked by longer ones. What is held is that figure, so a
 * change that loses ground fails.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectStdio, ok, type Connected } from '../support/mcp.js';
import { ROOT, runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';

interface Sym {
  name: string;
  repo: string;
  path: string;
}

/** The set and its corpus, read by bench/describe-meaning.mjs too. */
interface SemverSet {
  /** [repository name, folder inside node_modules]: semver and the distractor libraries. */
  trees: [string, string][];
  /** Each with the function the README documents with that sentence. */
  descriptions: { description: string; accept: string }[];
}
const SEMVER: SemverSet = JSON.parse(readFileSync(join(ROOT, 'test/support/describe-semver.json'), 'utf8'));
const SEMVER_SET: [string, string][] = SEMVER.descriptions.map((d) => [d.description, d.accept]);

/** Top-3 hits of the set (10 when it was written, 2026-11-27): a change that loses one fails. */
const TOP3_FLOOR = 23;

const TREES = SEMVER.trees;

/** Where npm put a package (every one of TREES is a top-level dependency of a dependency). */
function packageRoot(name: string): string {
  return join(ROOT, 'node_modules', name);
}

describe('descriptions from semver\'s README, over five libraries', { timeout: 180_000 }, () => {
  let work: string;
  let zoekt: RunningZoekt;
  let mcp: Connected;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'describe-heldout-'));
    const index = join(work, 'index');
    mkdirSync(index);
    for (const [repo, folder] of TREES) {
      const [pkg, ...rest] = folder.split('/');
      const tree = join(work, 'trees', repo);
      cpSync(join(packageRoot(pkg!), ...rest), tree, { recursive: true, filter: (src) => !src.includes('node_modules', packageRoot(pkg!).length) && !/\.(map|md)$/.test(src) });
      runIndexer('dir', ['-index', index, tree]);
    }
    zoekt = await startWebserver({ indexDir: index, expectRepos: TREES.length });
    mcp = await connectStdio({ ZOEKT_URL: zoekt.url, ZOEKT_MCP_TIMEOUT_MS: '30000' });
  });
  afterAll(async () => {
    await mcp?.close();
    await zoekt?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('prints top-1 and top-3, and holds top-3 at what it was', async () => {
    let top1 = 0;
    let top3 = 0;
    const misses: string[] = [];
    for (const [description, wanted] of SEMVER_SET) {
      const out = ok<{ symbols: Sym[] }>(await call(mcp.client, 'search_symbols', { description, limit: 3 }));
      const at = out.symbols.findIndex((s) => s.repo === 'semver' && s.name === wanted);
      if (at === 0) top1++;
      if (at >= 0) top3++;
      else misses.push(`${description} (${wanted}): ${out.symbols.map((s) => `${s.repo}/${s.path}:${s.name}`).join(', ')}`);
    }
    const n = SEMVER_SET.length;
    const pct = (k: number) => `${k}/${n} (${Math.round((100 * k) / n)}%)`;
    console.log(`description search on semver's README: top-1 ${pct(top1)}, top-3 ${pct(top3)}${misses.length ? `\nmissed at 3:\n  ${misses.join('\n  ')}` : ''}`);
    expect(top3).toBeGreaterThanOrEqual(TOP3_FLOOR);
  });
});
