/**
 * The local serve command keeps a definitions index beside its Zoekt index (<data>/definitions/):
 * built after each index of a repository from the snapshot Zoekt indexed, an edit's definitions
 * there soon after Zoekt serves it, a deleted file's gone.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readManifest, readRepoIndex, type RepoIndex } from '../../src/definitions-index/format.js';
import { shadowDir, type IndexerPaths } from '../../src/local/indexer.js';
import type { CodeSearchOutput } from '../../src/search/code.js';
import { call, ok } from '../support/mcp.js';
import { allIndexed, gitIn, spawnServe, supervisorGone, waitFor, type LocalClient } from '../support/local.js';
import { ROOT } from '../support/zoekt.js';

const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-defs-local-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const NAME = 'acme/defs';

function definitions(data: string): RepoIndex | undefined {
  const m = readManifest(join(data, 'definitions'));
  const entry = m?.repos[NAME];
  return m && entry ? readRepoIndex(join(data, 'definitions'), NAME, entry, m.model.dimensions) : undefined;
}

async function found(c: LocalClient, query: string): Promise<boolean> {
  return ok<CodeSearchOutput>(await call(c.client, 'search_code', { query, context_lines: 0 })).results.length > 0;
}

describe('the local supervisor\'s definitions index', () => {
  it('follows each index: an edit is there within 2 s of Zoekt serving it, a deleted file leaves', async () => {
    const repo = join(work, 'repo');
    cpSync(join(ROOT, 'test/fixtures/gosvc'), repo, { recursive: true });
    gitIn(repo, 'init', '-q', '-b', 'main');
    gitIn(repo, 'config', 'zoekt.name', NAME);
    gitIn(repo, 'add', '-A');
    gitIn(repo, 'commit', '-q', '-m', 'first');
    const data = join(work, 'data');
    const shadow = shadowDir({ shadows: join(data, 'shadow') } as IndexerPaths, { dir: repo });
    const indexed = () => execFileSync('git', [`--git-dir=${shadow}`, 'rev-parse', 'refs/heads/main'], { encoding: 'utf8' }).trim();
    const c = await spawnServe({ data, repos: repo, extra: { ZOEKT_MCP_SERVE_DEFINITIONS: '1' } });
    try {
      await allIndexed(c.client);
      const first = await waitFor('the first definitions build', async () => definitions(data), 30_000);
      expect(first.entry.generation).toBe(indexed());
      expect(first.definitions.find((d) => d.name === 'NewLegacy')).toMatchObject({ path: 'third_party/legacy/server.go', vendored: true });

      appendFileSync(join(repo, 'cmd/server/main.go'), '\n// ReverseWords turns the order of the words around.\nfunc ReverseWords(s string) string { return s }\n');
      await waitFor('Zoekt serving the edit', () => found(c, 'ReverseWords'), 60_000);
      const served = Date.now();
      const edited = await waitFor(
        'the edit in the definitions index',
        async () => {
          const idx = definitions(data);
          return idx?.definitions.some((d) => d.name === 'ReverseWords') ? idx : undefined;
        },
        30_000,
      );
      const lag = Date.now() - served;
      process.stderr.write(`definitions: the edit was in the index ${lag} ms after Zoekt served it\n`);
      expect(lag).toBeLessThan(2000);
      expect(edited.definitions.find((d) => d.name === 'ReverseWords')).toMatchObject({ kind: 'function', documentation: 'ReverseWords turns the order of the words around.' });
      expect(edited.entry.generation).toBe(indexed());

      rmSync(join(repo, 'third_party'), { recursive: true });
      await waitFor('Zoekt dropping the deleted file', async () => !(await found(c, 'NewLegacy')), 60_000);
      const gone = await waitFor('the deletion in the definitions index', async () => {
        const idx = definitions(data);
        return idx && !idx.definitions.some((d) => d.path.startsWith('third_party/')) ? idx : undefined;
      }, 10_000);
      expect(gone.definitions.some((d) => d.name === 'ReverseWords')).toBe(true);
      const m = readManifest(join(data, 'definitions'))!;
      expect(m.building ?? []).toEqual([]);
      expect(m.failed).toBeUndefined();

      // A manifest nobody can read is set aside at the next build, and the index starts again.
      writeFileSync(join(data, 'definitions/manifest.json'), '{"format": 1, "mod');
      appendFileSync(join(repo, 'cmd/server/main.go'), '\n// CountVowels counts the vowels.\nfunc CountVowels(s string) int { return 0 }\n');
      const again = await waitFor('the index started again', async () => {
        try {
          return definitions(data)?.definitions.some((d) => d.name === 'CountVowels') ? definitions(data) : undefined;
        } catch {
          return undefined;
        }
      }, 60_000);
      expect(again.definitions.some((d) => d.name === 'ReverseWords')).toBe(true);
      expect(readdirSync(join(data, 'definitions')).some((f) => f.startsWith('manifest.json.unreadable-'))).toBe(true);
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
  }, 180_000);
});
