/**
 * The warm extractor (src/extractor/service.ts) and the client zoekt-config/scip-ctags runs when
 * ZOEKT_MCP_EXTRACTOR_SOCKET names it (src/extractor/client.ts): a build's files are tagged by the
 * service, whose parse workers stay loaded between builds, with the same tags as a cold extractor;
 * a service that is gone, or goes in the middle of a build, costs the build no symbols. Last, the
 * local supervisor's own index builds through real zoekt-git-index, searched over MCP.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ExtractorService } from '../../src/extractor/service.js';
import { CtagsClient, type TagReply } from '../support/ctags-protocol.js';
import { allIndexed, gitIn, spawnServe, supervisorGone, waitFor } from '../support/local.js';
import { call, ok } from '../support/mcp.js';
import { ROOT, withoutWarmExtractor } from '../support/zoekt.js';

const EXTRACTOR = join(ROOT, 'zoekt-config/scip-ctags');
const WORKER = pathToFileURL(join(ROOT, 'dist/extractor/worker.js'));
const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-extractor-service-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const brief = (tags: TagReply[]) => tags.map((t) => `${t.line} ${t.name} ${t.kind}${t.scope ? ` ${t.scope}` : ''}`);
const env = (socket?: string) => ({ ...withoutWarmExtractor(), ZOEKT_MCP_NODE: process.execPath, ...(socket ? { ZOEKT_MCP_EXTRACTOR_SOCKET: socket } : {}) });

/** Files of three languages: two parsed here, one (Markdown) passed on to Universal Ctags. */
const FILES: [string, string][] = [
  ['store.ts', 'export class Store {\n  get(key: string): string { return key; }\n}\nexport function helper() {}\n'],
  ['plugin.js', 'export default { name: "p", transform(code) { return code; } };\n'],
  ['tool.py', 'class Tool:\n    def run(self):\n        pass\n'],
  ['README.md', '# Title\n\n## Section\n'],
];

async function tagAll(socket: string | undefined): Promise<{ tags: string[][]; stderr: string; exit: number | null }> {
  const ctags = new CtagsClient(EXTRACTOR, env(socket));
  const tags: string[][] = [];
  for (const [name, text] of FILES) tags.push(brief(await ctags.tags(name, text)));
  const exit = await ctags.close();
  return { tags, stderr: ctags.stderr, exit };
}

let cold: string[][];

describe('the warm extractor', () => {
  it('tags a build as the extractor does alone, and keeps its worker loaded for the next build', async () => {
    cold = (await tagAll(undefined)).tags;
    expect(cold[0]).toEqual(['1 Store Class', '2 get Method Store', '4 helper Function']);
    expect(cold[3]).toEqual(['1 Title chapter', '3 Section section Title']);
    const said: string[] = [];
    const service = new ExtractorService(join(work, 'a', 'run', 'extractor.sock'), WORKER, (m) => said.push(m));
    expect(await service.listen()).toBe(true);
    try {
      for (let build = 1; build <= 3; build++) {
        const { tags, stderr, exit } = await tagAll(service.path);
        expect(tags, `build ${build}`).toEqual(cold);
        expect(exit).toBe(0);
        // The client tagged nothing itself.
        expect(stderr).toBe('');
      }
      expect(service.counts).toEqual({ builds: 3, files: 3 * FILES.length, workers: 1 });
      // Builds at once parse at once: one still open holds its worker, and the next gets its own.
      const open = new CtagsClient(EXTRACTOR, env(service.path));
      try {
        expect(brief(await open.tags(...FILES[0]!))).toEqual(cold[0]);
        expect((await tagAll(service.path)).tags).toEqual(cold);
        expect(await open.close()).toBe(0);
      } finally {
        open.kill();
      }
      expect(service.counts).toEqual({ builds: 5, files: 4 * FILES.length + 1, workers: 2 });
      expect(said).toEqual([]);
    } finally {
      await service.close();
    }
    expect(service.loaded).toBe(0);
  });

  it('stops a worker left unused, and starts one again for the next build', async () => {
    const service = new ExtractorService(join(work, 'idle', 'run', 'extractor.sock'), WORKER, () => undefined, 300);
    expect(await service.listen()).toBe(true);
    try {
      expect((await tagAll(service.path)).tags).toEqual(cold);
      await waitFor('the unused worker to stop', async () => service.loaded === 0, 5_000);
      expect((await tagAll(service.path)).tags).toEqual(cold);
      // Not the first worker again: it was stopped.
      expect(service.counts).toMatchObject({ builds: 2, workers: 2 });
    } finally {
      await service.close();
    }
  });

  it('its socket is in a folder only its user can open', async () => {
    const service = new ExtractorService(join(work, 'b', 'run', 'extractor.sock'), WORKER, () => undefined);
    expect(await service.listen()).toBe(true);
    try {
      const stat = spawnSync('stat', ['-c', '%a %F', join(work, 'b', 'run'), service.path], { encoding: 'utf8' });
      expect(stat.stdout.split('\n').slice(0, 2)).toEqual(['700 directory', expect.stringMatching(/ socket$/)]);
    } finally {
      await service.close();
    }
  });

  it('a socket path too long for a socket: not started, and said why', async () => {
    const said: string[] = [];
    const service = new ExtractorService(join(work, 'x'.repeat(120), 'extractor.sock'), WORKER, (m) => said.push(m));
    expect(await service.listen()).toBe(false);
    expect(said.join('\n')).toMatch(/extractor service not started \(its path is longer than a socket's may be: .*\); each index build starts its own extractor/);
  });

  it('a socket nobody serves (its process died): the build is tagged by its own extractor', async () => {
    const stale = join(work, 'stale.sock');
    // A socket file whose process is gone, as a killed supervisor leaves it.
    const made = spawnSync('python3', ['-c', `import socket; socket.socket(socket.AF_UNIX).bind(${JSON.stringify(stale)})`]);
    expect(made.status).toBe(0);
    const { tags, stderr, exit } = await tagAll(stale);
    expect(tags).toEqual(cold);
    expect(exit).toBe(0);
    expect(stderr).toContain(`the extractor service at ${stale} is not there`);
    // No socket at all: the wrapper runs the extractor itself, and nothing is said.
    const none = await tagAll(join(work, 'never.sock'));
    expect(none.tags).toEqual(cold);
    expect(none.stderr).toBe('');
  });

  it('a service that goes in the middle of a build: the rest of the build is tagged by its own extractor', async () => {
    const service = new ExtractorService(join(work, 'c', 'run', 'extractor.sock'), WORKER, () => undefined);
    expect(await service.listen()).toBe(true);
    const ctags = new CtagsClient(EXTRACTOR, env(service.path));
    try {
      expect(brief(await ctags.tags(...FILES[0]!))).toEqual(cold[0]);
      await service.close();
      for (let i = 1; i < FILES.length; i++) expect(brief(await ctags.tags(...FILES[i]!))).toEqual(cold[i]);
      expect(await ctags.close()).toBe(0);
      expect(ctags.stderr).toContain(`the extractor service failed on ${FILES[1]![0]}`);
      expect(ctags.stderr).toContain('tagging the rest here');
    } finally {
      ctags.kill();
    }
  });
});

describe('the local supervisor', () => {
  it("tags its index builds with its warm extractor: each edit's definition is found, one worker for every build", async () => {
    const repo = join(work, 'repo');
    const data = join(work, 'data');
    gitIn(work, 'init', '-q', '-b', 'main', repo);
    writeFileSync(join(repo, 'store.ts'), 'export class Store {}\n');
    gitIn(repo, 'add', '-A');
    gitIn(repo, 'commit', '-qm', 'first');
    const c = await spawnServe({ data, repos: repo });
    try {
      await allIndexed(c.client);
      const found = async (name: string) => {
        const out = ok<{ symbols: { name: string; path: string; line: number }[] }>(await call(c.client, 'search_symbols', { name }));
        return out.symbols.map((s) => `${s.path}:${s.line} ${s.name}`);
      };
      expect(await found('Store')).toEqual(['store.ts:1 Store']);
      // Two edits, each built as the work tree changes, each definition found once built.
      for (const [i, name] of ['firstEdit', 'secondEdit'].entries()) {
        writeFileSync(join(repo, `edit${i}.ts`), `export function ${name}() {}\n`);
        expect(await waitFor(`${name} indexed`, async () => (await found(name)).length > 0 && found(name), 60_000)).toEqual([`edit${i}.ts:1 ${name}`]);
      }
    } finally {
      await c.close();
    }
    expect(await supervisorGone(data)).toBe(true);
    const log = readFileSync(join(data, 'supervisor.log'), 'utf8');
    const m = /the warm extractor tagged (\d+) files? of (\d+) index builds? with (\d+) parse workers? started/.exec(log);
    if (!m) throw new Error(`the supervisor did not say what its warm extractor did:\n${log.slice(-2000)}`);
    // The first build and one per edit at least (edits close together may share a build), each of the files it changed.
    const [files, builds, workers] = [m[1], m[2], m[3]].map(Number);
    expect(builds).toBeGreaterThanOrEqual(2);
    expect(files).toBeGreaterThanOrEqual(3);
    expect(workers).toBe(1);
  });
});
