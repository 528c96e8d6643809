/**
 * The definitions index in Weaviate, the engine replicas share in the Helm deployment: a real
 * weaviate-server on loopback (scripts/setup.sh weaviate builds it once per machine), the real
 * embedding model, an on-disk index written by hand from real source files (Go's by their
 * declarations, Python's by its `ast`) and put into the server by `definitions push`. What the
 * answers must hold is computed here from those files, never from the engine's answers: filters
 * apply before ranking, a generation switch never shows a mix, a recreated adapter answers from
 * the same server. Prints a search's p50/p95, the import time and the server's memory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredFile } from '../../src/definitions-index/format.js';
import { pushMain } from '../../src/definitions-index/push-command.js';
import { pushDefinitions } from '../../src/definitions-index/weaviate-push.js';
import { WeaviateDefinitionsIndex } from '../../src/definitions-index/weaviate.js';
import { loadEmbedder, type Embedder } from '../../src/model/embedder.js';
import type { DefinitionsQuery } from '../../src/search/definitions/definitions-index.js';
import { ToolError } from '../../src/errors.js';
import { goFiles, pythonFiles, writeHandmadeIndex, type HandmadeRepo } from '../support/handmade-definitions.js';
import { installWeaviate, startWeaviate, type RunningWeaviate } from '../support/weaviate.js';
import { call, CLI, connectStdio, ok, type Connected } from '../support/mcp.js';
import { freePort, git, ROOT, runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';
import { execFileSync, spawnSync } from 'node:child_process';

const GOROOT_SRC = join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src');
const PY_LIB = execFileSync('python3', ['-c', 'import os; print(os.path.dirname(os.__file__))'], { encoding: 'utf8' }).trim();

const TEXT = 'go.test/text';
const ENCODING = 'go.test/encoding';
const PYLIB = 'py.test/lib';

const defsOf = (files: readonly StoredFile[]) => files.flatMap((f) => f.definitions.map((d) => ({ ...d, path: f.path, language: f.language })));

describe('the definitions index in a Weaviate server', { timeout: 120_000 }, () => {
  let work: string;
  let server: RunningWeaviate;
  let embedder: Embedder;
  let index: WeaviateDefinitionsIndex;
  const repos: Record<string, HandmadeRepo> = {};
  let importMs = 0;

  const query = (q: Partial<DefinitionsQuery> & { text: string }): DefinitionsQuery => ({ includeVendored: false, limit: 10, ...q });

  beforeAll(async () => {
    installWeaviate();
    work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-weaviate-'));
    [server, embedder] = await Promise.all([startWeaviate(join(work, 'data')), loadEmbedder()]);
    repos[TEXT] = { repo: TEXT, generation: 'a'.repeat(40), files: goFiles(GOROOT_SRC, ['strings', 'bytes', 'unicode/utf8', 'bufio', 'regexp', 'regexp/syntax', 'text/template', 'text/template/parse', 'time', 'os', 'vendor/golang.org/x/text/unicode/norm']) };
    repos[ENCODING] = { repo: ENCODING, generation: 'b'.repeat(40), files: goFiles(GOROOT_SRC, ['encoding/json', 'encoding/base64', 'encoding/csv', 'sort', 'strconv']) };
    repos[PYLIB] = { repo: PYLIB, generation: 'c'.repeat(40), files: pythonFiles(PY_LIB, ['textwrap.py', 'shlex.py', 'fnmatch.py', 'glob.py', 'string.py', 'difflib.py', 'csv.py', 'base64.py', 'argparse.py']) };
    writeHandmadeIndex(join(work, 'index'), embedder, Object.values(repos));
    const started = Date.now();
    const report = await pushDefinitions(join(work, 'index'), { url: server.url, graceMs: 0 });
    importMs = Date.now() - started;
    expect(report.failed).toEqual([]);
    expect(report.pushed.map((p) => p.repo).sort()).toEqual([ENCODING, TEXT, PYLIB]);
    index = new WeaviateDefinitionsIndex({ url: server.url, timeoutMs: 10_000, embedder });
  }, 1_200_000);

  afterAll(async () => {
    await index?.close();
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds every definition pushed, and says so in status()', async () => {
    const total = Object.values(repos).reduce((n, r) => n + defsOf(r.files).length, 0);
    console.log(`weaviate: imported ${total} definitions of 3 repositories in ${importMs} ms (${Math.round(total / (importMs / 1000))}/s); server RSS ${server.rssMiB()} MiB`);
    expect(total).toBeGreaterThan(2000);
    const status = await index.status();
    expect(status.state).toBe('current');
    expect(status.model).toMatchObject({ name: embedder.info.name, dimensions: embedder.info.dimensions });
    for (const r of Object.values(repos)) {
      const defs = defsOf(r.files);
      expect(status.repos.find((s) => s.repo === r.repo)).toMatchObject({ generation: r.generation, definitions: defs.length, documented: defs.filter((d) => d.documentation).length });
    }
  });

  it('applies a kinds filter before ranking: a full page, of those kinds only', async () => {
    const text = 'split a string into parts around a separator';
    const all = await index.search(query({ text, limit: 20 }));
    expect(all.hits.length).toBe(20);
    for (const kinds of [['struct'], ['interface'], ['method', 'class']]) {
      const expected = Object.values(repos).flatMap((r) => defsOf(r.files)).filter((d) => kinds.includes(d.kind) && !d.vendored).length;
      const answer = await index.search(query({ text, kinds: new Set(kinds), limit: 20 }));
      expect(answer.hits.length).toBe(Math.min(20, expected));
      expect(answer.hits.every((h) => kinds.includes(h.definition.kind))).toBe(true);
      expect(answer.considered).toBe(expected);
      // The fused order: every definition either list ranks (at most 200 each), in its files.
      expect(answer.ranked).toBeGreaterThanOrEqual(answer.hits.length);
      expect(answer.ranked).toBeLessThanOrEqual(Math.min(expected, 400));
      expect(answer.rankedFiles).toBeGreaterThan(0);
      expect(answer.rankedFiles).toBeLessThanOrEqual(answer.ranked);
    }
  });

  it('applies repository, language, path and vendored filters inside the search', async () => {
    const text = 'read a line of text';
    const encodingDefs = defsOf(repos[ENCODING]!.files).filter((d) => !d.vendored);
    const onlyEncoding = await index.search(query({ text, repo: (r) => r === ENCODING, limit: 15 }));
    expect(onlyEncoding.hits.length).toBe(15);
    expect(onlyEncoding.hits.every((h) => h.definition.repo === ENCODING)).toBe(true);
    expect(onlyEncoding.considered).toBe(encodingDefs.length);
    expect([...onlyEncoding.generations]).toEqual([[ENCODING, repos[ENCODING]!.generation]]);

    const python = await index.search(query({ text, languages: new Set(['python']), limit: 15 }));
    expect(python.hits.length).toBe(15);
    expect(python.hits.every((h) => h.definition.language === 'Python' && h.definition.repo === PYLIB)).toBe(true);
    const notGo = await index.search(query({ text, excludeLanguages: new Set(['go']), limit: 15 }));
    expect(notGo.hits.map((h) => h.definition.name)).toEqual(python.hits.map((h) => h.definition.name));

    const inBufio = (p: string) => p.startsWith('bufio/');
    const bufio = await index.search(query({ text, path: inBufio, limit: 10 }));
    const bufioDefs = defsOf(repos[TEXT]!.files).filter((d) => inBufio(d.path));
    expect(bufio.hits.length).toBe(10);
    expect(bufio.hits.every((h) => inBufio(h.definition.path))).toBe(true);
    expect(bufio.considered).toBe(bufioDefs.length);

    const vendoredDefs = defsOf(repos[TEXT]!.files).filter((d) => d.vendored);
    expect(vendoredDefs.length).toBeGreaterThan(10);
    const norm = 'normalize unicode text to a normal form';
    const without = await index.search(query({ text: norm, limit: 30 }));
    expect(without.hits.some((h) => h.definition.vendored)).toBe(false);
    const withVendored = await index.search(query({ text: norm, limit: 30, includeVendored: true }));
    expect(withVendored.hits.some((h) => h.definition.vendored)).toBe(true);
  });

  it('ranks by words and by meaning, with a score and related names from the same file', async () => {
    const answer = await index.search(query({ text: 'ToUpper returns s with all Unicode letters mapped to their upper case', limit: 5 }));
    const first = answer.hits[0]!;
    expect(first.definition).toMatchObject({ name: 'ToUpper' });
    expect(first.score).toBeGreaterThan(0);
    expect(first.score).toBeLessThanOrEqual(1);
    expect(first.vectorRank ?? first.textRank).toBeDefined();
    // The truth of related: the same file's other top-level definitions (ToUpper has no parent).
    const file = repos[TEXT]!.files.find((f) => f.path === first.definition.path)!;
    const siblings = new Set(file.definitions.filter((d) => !d.parent && d.name !== 'ToUpper').map((d) => d.name));
    expect(first.related.length).toBeGreaterThan(0);
    expect(first.related.every((n) => siblings.has(n))).toBe(true);
    for (let i = 1; i < answer.hits.length; i++) expect(answer.hits[i]!.score).toBeLessThanOrEqual(answer.hits[i - 1]!.score);
  });

  it('answers from one generation per repository while a new one is pushed and switched to', async () => {
    const g2: HandmadeRepo = {
      repo: ENCODING,
      generation: 'd'.repeat(40),
      // The new generation's names are told apart by a suffix; a file is gone.
      files: repos[ENCODING]!.files.filter((f) => f.path !== 'encoding/csv/reader.go').map((f) => ({ ...f, definitions: f.definitions.map((d) => ({ ...d, name: `${d.name}V2` })) })),
    };
    writeHandmadeIndex(join(work, 'index2'), embedder, [g2]);
    const seen = new Set<string>();
    let searching = true;
    let answers = 0;
    const watch = (async () => {
      while (searching) {
        const answer = await index.search(query({ text: 'decode a value', repo: (r) => r === ENCODING, limit: 20 }));
        const generation = answer.generations.get(ENCODING)!;
        const v2 = answer.hits.filter((h) => h.definition.name.endsWith('V2')).length;
        // All of one generation: the old one's names, or the new one's.
        expect(v2, `generation ${generation}`).toBe(generation === g2.generation ? answer.hits.length : 0);
        expect(answer.hits.length).toBe(20);
        seen.add(generation);
        answers++;
      }
    })();
    const report = await pushDefinitions(join(work, 'index2'), { url: server.url, graceMs: 300, batchSize: 100 });
    await new Promise((r) => setTimeout(r, 300));
    searching = false;
    await watch;
    console.log(`generation switch: ${answers} searches during the push, generations seen: ${[...seen].map((g) => g.slice(0, 4)).join(', ')}; ${report.deleted} old objects deleted`);
    expect(report.pushed.map((p) => p.repo)).toEqual([ENCODING]);
    expect(seen.has(g2.generation)).toBe(true);
    expect(report.deleted).toBe(defsOf(repos[ENCODING]!.files).length);
    const after = await index.search(query({ text: 'decode a value', repo: (r) => r === ENCODING, limit: 20 }));
    expect(after.considered).toBe(defsOf(g2.files).length);
    repos[ENCODING] = g2;
    // Pushing the same generation again sends nothing.
    const again = await pushDefinitions(join(work, 'index2'), { url: server.url, graceMs: 0 });
    expect(again.unchanged).toEqual([ENCODING]);
    expect(again.pushed).toEqual([]);
  });

  it('keeps answering from the same server when the adapter is recreated', async () => {
    const q = query({ text: 'parse a comma separated record', limit: 8 });
    const before = await index.search(q);
    await index.close();
    index = new WeaviateDefinitionsIndex({ url: server.url, timeoutMs: 10_000, embedder });
    const after = await index.search(q);
    expect(after.hits.map((h) => `${h.definition.repo}/${h.definition.path}:${h.definition.name}`)).toEqual(before.hits.map((h) => `${h.definition.repo}/${h.definition.path}:${h.definition.name}`));
    expect(after.hits.length).toBe(8);
  });

  it('answers as before from a server restarted on its data (a pod rescheduled)', async () => {
    const q = query({ text: 'parse a comma separated record', limit: 8 });
    const before = await index.search(q);
    await server.stop();
    const down = await index.search(q).catch((e: unknown) => e);
    expect(down).toMatchObject({ code: 'UNAVAILABLE' });
    server = await startWeaviate(join(work, 'data'), { ports: server.ports });
    const after = await index.search(q);
    expect(after.hits.map((h) => `${h.definition.repo}/${h.definition.path}:${h.definition.name}`)).toEqual(before.hits.map((h) => `${h.definition.repo}/${h.definition.path}:${h.definition.name}`));
    expect(after.considered).toBe(before.considered);
    expect((await index.status()).state).toBe('current');
  });

  it('says the server is unreachable, and status() says unavailable', async () => {
    const gone = new WeaviateDefinitionsIndex({ url: `http://127.0.0.1:${await freePort()}`, timeoutMs: 2_000, embedder });
    try {
      const err = await gone.search(query({ text: 'anything' })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolError);
      expect(err).toMatchObject({ code: 'UNAVAILABLE' });
      expect((err as ToolError).hint).toMatch(/--definitions-url/);
      const status = await gone.status();
      expect(status.state).toBe('unavailable');
      expect(status.error).toMatch(/unreachable/);
    } finally {
      await gone.close();
    }
  });

  it('definitions push: its arguments checked, a second push of the same index changes nothing', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) };
    expect(await pushMain(['--from', join(work, 'index')], {}, io)).toBe(2);
    expect(err.join('')).toMatch(/--weaviate URL/);
    expect(await pushMain(['--from', join(work, 'nothing-here'), '--weaviate', server.url], {}, io)).toBe(1);
    expect(err.join('')).toMatch(/no definitions index/);
    out.length = 0;
    expect(await pushMain(['--from', join(work, 'index2'), '--quiet'], { ZOEKT_MCP_DEFINITIONS_URL: server.url }, io)).toBe(0);
    expect(out.join('')).toMatch(/^0 repositories pushed \(0 definitions\), 1 unchanged, 0 failed/);
    // The command as shipped (the bundle in dist/, which the test set-up builds).
    const shipped = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), 'definitions', 'push', '--from', join(work, 'index2'), '--weaviate', server.url, '--quiet'], { encoding: 'utf8', timeout: 60_000 });
    expect(shipped.stderr).toBe('');
    expect(shipped.status).toBe(0);
    expect(shipped.stdout).toMatch(/^0 repositories pushed \(0 definitions\), 1 unchanged, 0 failed/);
  });

  it('measures: a search p50/p95 and the server\'s memory', async () => {
    const descriptions = ['convert a number to a string', 'compare two strings ignoring case', 'buffered reader of lines', 'encode bytes as base64', 'sort a slice in place', 'wrap text to a width', 'quote a shell argument', 'match a file name against a pattern', 'decode a json value', 'count the runes in a string'];
    const times: number[] = [];
    for (let round = 0; round < 4; round++) {
      for (const text of descriptions) {
        const started = performance.now();
        const answer = await index.search(query({ text: round % 2 ? text : `${text} ${round}`, limit: 10, ...(round === 3 ? { kinds: new Set(['function', 'method']) } : {}) }));
        times.push(performance.now() - started);
        expect(answer.hits.length).toBe(10);
      }
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!.toFixed(1);
    console.log(`weaviate search: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms over ${times.length} searches; server RSS ${server.rssMiB()} MiB`);
  });
});

/** A small repository whose names share no word with the descriptions: only the doc comments do. */
const SHOP: Record<string, string> = {
  'billing/ledger.go': `package billing

// Ledger keeps what each customer owes.
type Ledger struct{ owed map[string]int }

// Settle pays off the debt of a customer and drops the entry.
func (l *Ledger) Settle(customer string) { delete(l.owed, customer) }

// Charge adds an amount to the debt of a customer.
func (l *Ledger) Charge(customer string, amount int) { l.owed[customer] += amount }
`,
  'net/pacing.py': `def backoff(attempt):
    """Wait a little longer after each failed try before sending the request again."""
    return 2 ** attempt
`,
};

describe('search_symbols by description from adapters that share one Weaviate server', { timeout: 180_000 }, () => {
  let work: string;
  let server: RunningWeaviate;
  let zoekt: RunningZoekt;
  const adapters: Connected[] = [];

  beforeAll(async () => {
    installWeaviate();
    work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-weaviate-shop-'));
    const repo = join(work, 'shop');
    for (const [path, text] of Object.entries(SHOP)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'shop');
    mkdirSync(join(work, 'index'));
    runIndexer('git', ['-index', join(work, 'index'), '-branches', 'main', repo]);
    [server, zoekt] = await Promise.all([startWeaviate(join(work, 'data')), startWebserver({ indexDir: join(work, 'index'), expectRepos: 1 })]);
    const plain = await connectStdio({ ZOEKT_URL: zoekt.url });
    const name = ok<{ repos: { name: string }[] }>(await call(plain.client, 'list_repos', {})).repos[0]!.name;
    await plain.close();
    // As the indexer does: build beside Zoekt's index, then push.
    const cli = (...args: string[]) => execFileSync(process.execPath, [CLI, 'definitions', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    cli('build', '--repo', repo, '--name', name, '--out', join(work, 'definitions'), '--quiet');
    expect(cli('push', '--from', join(work, 'definitions'), '--weaviate', server.url, '--grace-ms', '0', '--quiet')).toMatch(/^1 repositories pushed/);
  }, 1_200_000);

  afterAll(async () => {
    for (const a of adapters) await a.close();
    await zoekt?.stop();
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const adapter = async () => {
    const a = await connectStdio({ ZOEKT_URL: zoekt.url, ZOEKT_MCP_DEFINITIONS_URL: server.url });
    adapters.push(a);
    return a;
  };
  const first = async (a: Connected, description: string) => ok<{ symbols: { name: string; path: string; score?: number; related?: { siblings: string[] } }[] }>(await call(a.client, 'search_symbols', { description, limit: 3 })).symbols[0];

  it('two replicas answer alike, and one started again answers as before', async () => {
    const [one, two] = [await adapter(), await adapter()];
    const cases: [string, string][] = [
      ['pay off what a customer owes', 'Settle'],
      ['wait longer after each failed try before sending again', 'backoff'],
    ];
    for (const [description, wanted] of cases) {
      const a = await first(one, description);
      expect(a?.name, description).toBe(wanted);
      expect(a!.score).toBeGreaterThan(0);
      expect(await first(two, description)).toEqual(a);
    }
    expect((await first(one, 'pay off what a customer owes'))!.related?.siblings).toContain('Charge');
    await one.close();
    adapters.splice(adapters.indexOf(one), 1);
    const again = await adapter();
    expect((await first(again, 'pay off what a customer owes'))?.name).toBe('Settle');
  });
});
