/**
 * The definitions index builder against the real extractor, real git and the real embedding model:
 * what it stores is checked against the languages' own parsers (Go's go/parser and go/ast doc
 * comments, Python's ast and ast.get_docstring), run here on the same files.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildRepo, markBuilding, openTagger, type BuildReport, type Embedder } from '../../src/definitions-index/build.js';
import { definitionsMain } from '../../src/definitions-index/command.js';
import { DefinitionsIndexError, readManifest, readRepoIndex, type RepoIndex } from '../../src/definitions-index/format.js';
import { folderSource, gitSource, type Source } from '../../src/definitions-index/sources.js';
import { nameFromOrigin } from '../../src/local/repos.js';
import { loadEmbedder } from '../../src/model/embedder.js';
import { symbolsOf } from '../../src/search/definitions/symbol.js';
import { ZoektClient } from '../../src/zoekt/client.js';
import { escapeRegex } from '../../src/zoekt/query.js';
import { ROOT } from '../support/zoekt.js';

const WORKER = pathToFileURL(join(ROOT, 'dist/extractor/worker.js'));
const CTAGS = join(ROOT, 'zoekt-config/universal-ctags');
const GOROOT_SRC = join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src');

interface Truth {
  path: string;
  name: string;
  line: number;
  parent: string;
  doc: string;
  kind: string;
}

/** Go's own view: every func, method and type of the .go files under `root`, with go/ast's doc text. */
const GO_TRUTH = `package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

type def struct {
	Path, Name string
	Line       int
	Parent     string
	Doc        string
	Kind       string
}

func recv(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recv(t.X)
	case *ast.IndexExpr:
		return recv(t.X)
	case *ast.IndexListExpr:
		return recv(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

func main() {
	root := os.Args[1]
	out := []def{}
	fset := token.NewFileSet()
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				parent := ""
				if d.Recv != nil && len(d.Recv.List) > 0 {
					parent = recv(d.Recv.List[0].Type)
				}
				out = append(out, def{rel, d.Name.Name, fset.Position(d.Name.Pos()).Line, parent, d.Doc.Text(), "func"})
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						doc := ts.Doc
						if doc == nil && !d.Lparen.IsValid() {
							doc = d.Doc
						}
						out = append(out, def{rel, ts.Name.Name, fset.Position(ts.Name.Pos()).Line, "", doc.Text(), "type"})
					}
				}
			}
		}
		return nil
	})
	json.NewEncoder(os.Stdout).Encode(out)
}
`;

/** Python's own view: every def and class (at any depth) of the .py files under `root`, with ast.get_docstring. */
const PY_TRUTH = `
import ast, json, os, sys
root = sys.argv[1]
out = []
def visit(node, rel, parent):
    for ch in ast.iter_child_nodes(node):
        if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(dict(path=rel, name=ch.name, line=ch.lineno, parent=parent, doc=ast.get_docstring(ch) or '', kind='class' if isinstance(ch, ast.ClassDef) else 'def'))
            visit(ch, rel, ch.name)
        else:
            visit(ch, rel, parent)
for d, _, files in os.walk(root):
    for f in files:
        if f.endswith('.py'):
            p = os.path.join(d, f)
            visit(ast.parse(open(p, encoding='utf-8').read()), os.path.relpath(p, root), '')
json.dump(out, sys.stdout)
`;

function goTruth(root: string, work: string): Truth[] {
  const dir = join(work, 'go-truth');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.go'), GO_TRUTH);
  writeFileSync(join(dir, 'go.mod'), 'module truth\n\ngo 1.21\n');
  const out = execFileSync('go', ['run', '.', root], { cwd: dir, encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod' }, maxBuffer: 1 << 28 });
  return (JSON.parse(out) as { Path: string; Name: string; Line: number; Parent: string; Doc: string; Kind: string }[]).map((d) => ({
    path: d.Path,
    name: d.Name,
    line: d.Line,
    parent: d.Parent,
    doc: d.Doc,
    kind: d.Kind,
  }));
}

function pyTruth(root: string): Truth[] {
  return JSON.parse(execFileSync('python3', ['-c', PY_TRUTH, root], { encoding: 'utf8', maxBuffer: 1 << 28 })) as Truth[];
}

/** A doc comment as the index keeps it: lines trimmed, blank runs one blank line. */
function cleaned(doc: string): string {
  return doc
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .replace(/\n{2,}/g, '\n\n')
    .trim();
}

/** Each truth definition is in the index at its line, with its parent and its doc comment (a cut one as a prefix). */
function expectAllFound(index: RepoIndex, truth: Truth[], prefix = ''): { checked: number; documented: number } {
  const at = new Map(index.definitions.map((d) => [`${d.path}\0${d.line}\0${d.name}`, d]));
  let documented = 0;
  const problems: string[] = [];
  for (const t of truth) {
    if (t.name === '_') continue;
    const path = prefix + t.path;
    const d = at.get(`${path}\0${t.line}\0${t.name}`);
    if (!d) {
      problems.push(`missing ${path}:${t.line} ${t.name}`);
      continue;
    }
    if (t.parent && t.kind === 'func' && d.parent !== t.parent) problems.push(`${path}:${t.line} ${t.name}: parent ${d.parent}, want ${t.parent}`);
    if (t.kind === 'func') {
      const kind = t.parent ? 'method' : 'function';
      if (d.kind !== kind) problems.push(`${path}:${t.line} ${t.name}: kind ${d.kind}, want ${kind}`);
    }
    const want = cleaned(t.doc);
    if (!want) {
      if (d.documentation !== undefined) problems.push(`${path}:${t.line} ${t.name}: documentation ${JSON.stringify(d.documentation)}, want none`);
      continue;
    }
    documented++;
    const got = d.documentation ?? '';
    const ok = got.endsWith('…') ? want.startsWith(got.slice(0, -1)) : got === want;
    if (!ok) problems.push(`${path}:${t.line} ${t.name}: documentation ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
  expect(problems).toEqual([]);
  return { checked: truth.length, documented };
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
}

let work: string;
let embedder: Embedder;
let tagger: ReturnType<typeof openTagger>;
/** Files the extractor was asked for, by path, across the builds. */
const asked: string[] = [];

async function build(out: string, repo: string, source: Source): Promise<BuildReport> {
  try {
    return await buildRepo({ out, repo, source, embedder, tagger: { answer: (r) => (asked.push(r.filename), tagger.answer(r)) } });
  } finally {
    source.close();
  }
}

function index(out: string, repo: string): RepoIndex {
  const m = readManifest(out)!;
  return readRepoIndex(out, repo, m.repos[repo]!, m.model.dimensions);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'defs-build-'));
  embedder = await loadEmbedder();
  tagger = openTagger(WORKER, CTAGS);
});

afterAll(async () => {
  await tagger?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('definitions build from a git repository', () => {
  let repoDir: string;
  let out: string;

  beforeAll(() => {
    repoDir = join(work, 'fixtures');
    out = join(work, 'index-fixtures');
    mkdirSync(repoDir);
    cpSync(join(ROOT, 'test/fixtures/gosvc'), join(repoDir, 'gosvc'), { recursive: true });
    cpSync(join(ROOT, 'test/fixtures/pytools'), join(repoDir, 'pytools'), { recursive: true });
    git(repoDir, 'init', '-q', '-b', 'main');
    git(repoDir, 'add', '-A');
    git(repoDir, 'commit', '-q', '-m', 'fixtures');
  });

  it('holds every definition go/parser and ast find, at their lines, with their doc comments', async () => {
    const report = await build(out, 'fixtures', await gitSource(repoDir, 'HEAD'));
    expect(report.entry.generation).toBe(git(repoDir, 'rev-parse', 'HEAD'));
    const idx = index(out, 'fixtures');
    const go = expectAllFound(idx, goTruth(join(repoDir, 'gosvc'), work), 'gosvc/');
    const py = expectAllFound(idx, pyTruth(join(repoDir, 'pytools')), 'pytools/');
    expect(go.checked).toBeGreaterThan(10);
    expect(py.checked).toBeGreaterThan(10);
    expect(go.documented + py.documented).toBeGreaterThan(10);
    // The counts the manifest gives are those of the files.
    expect(idx.definitions.length).toBe(report.entry.definitions);
    expect(report.entry.documented).toBe(idx.definitions.filter((d) => d.documentation).length);
    expect(report.entry.files).toBe(git(repoDir, 'ls-files').split('\n').length);
    expect(report.entry.extracted).toBeGreaterThanOrEqual(report.entry.definitions);
    // Vendored by the shared rule; vectors are unit length × 127.
    expect(idx.definitions.filter((d) => d.path.startsWith('gosvc/third_party/')).every((d) => d.vendored)).toBe(true);
    expect(idx.definitions.filter((d) => !d.path.includes('third_party/')).some((d) => d.vendored)).toBe(false);
    for (let i = 0; i < idx.definitions.length; i++) {
      let sum = 0;
      for (let k = 0; k < idx.dimensions; k++) sum += idx.vectors[i * idx.dimensions + k]! ** 2;
      expect(Math.sqrt(sum) / 127).toBeGreaterThan(0.95);
    }
  }, 120_000);

  it('after an edit reads only that file again; a deleted file\'s definitions are gone', async () => {
    const before = index(out, 'fixtures');
    const users = 'pytools/acme_tools/users.py';
    appendFileSync(join(repoDir, users), '\n\ndef forget_user(name):\n    """Removes every trace of a user from the directory."""\n    return None\n');
    git(repoDir, 'commit', '-q', '-am', 'edit');
    asked.length = 0;
    const edited = await build(out, 'fixtures', await gitSource(repoDir, 'HEAD'));
    expect(asked).toEqual([users]);
    expect(edited.extractedFiles).toBe(1);
    expect(edited.reusedFiles).toBe(edited.entry.files - 1);
    const after = index(out, 'fixtures');
    const added = after.definitions.find((d) => d.name === 'forget_user');
    expect(added).toMatchObject({ path: users, kind: 'function', documentation: 'Removes every trace of a user from the directory.' });
    expect(after.definitions.length).toBe(before.definitions.length + 1);
    // An unchanged file keeps its definitions and the very same vectors.
    const rowsOf = (idx: RepoIndex, path: string) => {
      const rows: number[] = [];
      idx.definitions.forEach((d, i) => d.path === path && rows.push(i));
      return rows.map((i) => [...idx.vectors.subarray(i * idx.dimensions, (i + 1) * idx.dimensions)]);
    };
    expect(rowsOf(after, 'gosvc/internal/server/server.go')).toEqual(rowsOf(before, 'gosvc/internal/server/server.go'));
    expect(expectAllFound(after, pyTruth(join(repoDir, 'pytools')), 'pytools/').checked).toBeGreaterThan(10);

    const gone = 'gosvc/internal/server/server.go';
    git(repoDir, 'rm', '-q', gone);
    git(repoDir, 'commit', '-q', '-m', 'delete');
    asked.length = 0;
    const deleted = await build(out, 'fixtures', await gitSource(repoDir, 'HEAD'));
    expect(asked).toEqual([]);
    expect(deleted.entry.files).toBe(edited.entry.files - 1);
    const last = index(out, 'fixtures');
    expect(last.definitions.filter((d) => d.path === gone)).toEqual([]);
    expect(last.definitions.length).toBe(after.definitions.length - after.definitions.filter((d) => d.path === gone).length);
    // The old generations' files are removed; the manifest names the last.
    const manifest = readManifest(out)!;
    expect(manifest.repos.fixtures!.generation).toBe(git(repoDir, 'rev-parse', 'HEAD'));
    const stems = new Set(execFileSync('ls', [out], { encoding: 'utf8' }).split('\n').filter((f) => /\.(json|vec)$/.test(f) && f !== 'manifest.json').map((f) => f.replace(/\.(json|vec)$/, '')));
    expect([...stems]).toEqual([manifest.repos.fixtures!.stem]);
    // Built again at the same commit: nothing is read.
    asked.length = 0;
    const again = await build(out, 'fixtures', await gitSource(repoDir, 'HEAD'));
    expect(again.unchanged).toBe(true);
    expect(asked).toEqual([]);
  }, 120_000);
});

describe('definitions build against Zoekt\'s own index of the same commits', () => {
  // The test Zoekt indexed each fixture with zoekt-git-index and the extractor (branches main and
  // dev): every symbol Zoekt serves on main, read as search/ reads it, is a definition of the index
  // at the same place, with the same kind, parent and language, and the index holds no other.
  it('holds exactly the definitions Zoekt serves, for every fixture repository', async () => {
    const client = new ZoektClient({ url: inject('zoektUrl'), timeoutMs: 30_000 });
    const out = join(work, 'index-zoekt');
    const problems: string[] = [];
    let compared = 0;
    try {
      for (const repo of inject('repos')) {
        const dir = join(dirname(inject('indexDir')), 'repos', repo.slice(repo.lastIndexOf('/') + 1));
        await build(out, repo, await gitSource(dir, 'main'));
        const ours = new Set(index(out, repo).definitions.map((d) => `${d.path}:${d.line}:${d.column} ${d.name} ${d.kind} ${d.parent ?? ''} ${d.language}`));
        const answer = await client.search({ query: `sym:. r:^${escapeRegex(repo)}$ branch:main`, maxDocs: 10_000, maxMatches: 1_000_000, contextLines: 0 });
        const theirs = new Set(answer.files.flatMap((f) => symbolsOf(f).map(({ symbol: s }) => `${s.path}:${s.line}:${s.column} ${s.name} ${s.kind} ${s.parent ?? ''} ${s.language}`)));
        for (const k of theirs) if (!ours.has(k)) problems.push(`${repo}: Zoekt has, the index lacks: ${k}`);
        for (const k of ours) if (!theirs.has(k)) problems.push(`${repo}: the index has, Zoekt lacks: ${k}`);
        compared += theirs.size;
      }
    } finally {
      await client.close();
    }
    expect(problems).toEqual([]);
    expect(compared).toBeGreaterThan(300);
  }, 180_000);
});

describe('definitions build of a slice of Go\'s tree, as a folder', () => {
  it('holds every func, method and type go/parser finds, with go/ast\'s doc comments, and exactly Zoekt\'s symbols', async () => {
    const slice = join(work, 'goslice');
    for (const pkg of ['strings', 'bufio', 'sort', 'container/list']) cpSync(join(GOROOT_SRC, pkg), join(slice, pkg), { recursive: true });
    const out = join(work, 'index-go');
    const report = await build(out, 'goslice', folderSource(slice));
    const idx = index(out, 'goslice');
    const truth = goTruth(slice, work);
    const { checked, documented } = expectAllFound(idx, truth);
    expect(checked).toBeGreaterThan(500);
    expect(documented).toBeGreaterThan(200);
    expect(report.entry.definitions).toBeGreaterThanOrEqual(checked);
    // And exactly the symbols the test Zoekt's index of the whole tree (zoekt-index, the extractor) serves there.
    const client = new ZoektClient({ url: inject('goZoektUrl'), timeoutMs: 60_000 });
    try {
      const answer = await client.search({ query: `sym:. r:^${escapeRegex(inject('goRepo'))}$ f:^(?:strings|bufio|sort|container/list)/`, maxDocs: 10_000, maxMatches: 1_000_000, contextLines: 0 });
      const key = (s: { path: string; line: number; column: number; name: string; kind: string; parent?: string | undefined; language: string }) =>
        `${s.path}:${s.line}:${s.column} ${s.name} ${s.kind} ${s.parent ?? ''} ${s.language}`;
      const theirs = new Set(answer.files.flatMap((f) => symbolsOf(f).map(({ symbol }) => key(symbol))));
      const ours = new Set(idx.definitions.map(key));
      expect([...theirs].filter((k) => !ours.has(k))).toEqual([]);
      expect([...ours].filter((k) => !theirs.has(k))).toEqual([]);
      expect(theirs.size).toBeGreaterThan(1000);
    } finally {
      await client.close();
    }
  }, 180_000);
});

describe('the index folder', () => {
  it('a corrupt manifest or vector file is a clear error, for readers and builders', async () => {
    const dir = join(work, 'corrupt');
    mkdirSync(dir, { recursive: true });
    const src = join(work, 'small');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'a.py'), 'def greet(name):\n    """Says hello."""\n    return name\n');
    await build(dir, 'small', folderSource(src));
    const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8');

    writeFileSync(join(dir, 'manifest.json'), manifest.slice(0, 40));
    expect(() => readManifest(dir)).toThrow(DefinitionsIndexError);
    expect(() => readManifest(dir)).toThrow(/manifest .*manifest\.json is not JSON/);
    await expect(build(dir, 'small', folderSource(src))).rejects.toThrow(DefinitionsIndexError);

    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ format: 1, model: { dimensions: 256 }, repos: {} }));
    expect(() => readManifest(dir)).toThrow(/model\.name/);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ format: 7, model: {}, repos: {} }));
    expect(() => readManifest(dir)).toThrow(/format 7; this version reads format 1/);

    writeFileSync(join(dir, 'manifest.json'), manifest);
    const m = readManifest(dir)!;
    const entry = m.repos.small!;
    truncateSync(join(dir, `${entry.stem}.vec`), 10);
    expect(() => readRepoIndex(dir, 'small', entry, m.model.dimensions)).toThrow(/holds? 10 bytes, not 1 definitions × 256 dimensions/);
    writeFileSync(join(dir, `${entry.stem}.json`), '{"repo":"small"}');
    try {
      readRepoIndex(dir, 'small', entry, m.model.dimensions);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DefinitionsIndexError);
      expect((e as DefinitionsIndexError).hint).toMatch(/definitions build/);
    }
    // A builder reuses nothing of a broken generation and writes a whole one.
    const rebuilt = await build(dir, 'small', folderSource(src));
    expect(rebuilt.entry.definitions).toBe(1);
    expect(index(dir, 'small').definitions[0]).toMatchObject({ name: 'greet', line: 1, column: 5, documentation: 'Says hello.', language: 'Python' });
  }, 60_000);

  it('two builders of two repositories into one folder both land; building and failed are recorded', async () => {
    const dir = join(work, 'shared');
    const a = join(work, 'repo-a');
    const b = join(work, 'repo-b');
    mkdirSync(a, { recursive: true });
    mkdirSync(b, { recursive: true });
    writeFileSync(join(a, 'a.go'), 'package a\n\n// Sum adds the numbers.\nfunc Sum(xs []int) int { return 0 }\n');
    writeFileSync(join(b, 'b.ts'), '/** Parses a date. */\nexport function parseDate(s: string): Date { return new Date(s); }\n');
    await markBuilding(dir, 'b', embedder.info);
    expect(readManifest(dir)!.building).toEqual(['b']);
    const [ra, rb] = await Promise.all([build(dir, 'a', folderSource(a)), build(dir, 'b', folderSource(b))]);
    const m = readManifest(dir)!;
    expect(Object.keys(m.repos).sort()).toEqual(['a', 'b']);
    expect(m.building).toBeUndefined();
    expect(index(dir, 'a').definitions.map((d) => [d.name, d.documentation])).toEqual([['a', undefined], ['Sum', 'Sum adds the numbers.']]);
    expect(index(dir, 'b').definitions.map((d) => [d.name, d.kind, d.documentation])).toEqual([['parseDate', 'function', 'Parses a date.']]);
    expect(ra.entry.stem).not.toBe(rb.entry.stem);
  }, 60_000);
});

describe('zoekt-mcp definitions build', () => {
  const run = async (argv: string[]) => {
    let out = '';
    let err = '';
    const code = await definitionsMain(argv, { nameFromOrigin, loadEmbedder: () => Promise.resolve(embedder), out: (t) => (out += t), err: (t) => (err += t) });
    return { code, out, err };
  };

  it('refuses wrong arguments with a hint and status 2', async () => {
    expect(await run(['build', '--repo', work])).toMatchObject({ code: 2, err: expect.stringMatching(/--out DIR is required\nhint: /) });
    expect(await run(['build', '--repo', work, '--out', join(work, 'x'), '--frobnicate'])).toMatchObject({ code: 2, err: expect.stringMatching(/frobnicate/) });
    expect(await run(['rebuild'])).toMatchObject({ code: 2, err: expect.stringMatching(/unknown command 'rebuild'/) });
    expect(await run(['build', '--repo', join(work, 'nope'), '--out', join(work, 'x')])).toMatchObject({ code: 2, err: expect.stringMatching(/no such folder/) });
    expect((await run(['build', '--help'])).out).toMatch(/--repo PATH/);
  });

  it('builds a git repository under the name Zoekt gives it, then finds it current', async () => {
    const dir = join(work, 'named');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'm.py'), 'class Cache:\n    """Keeps recent answers."""\n\n    def get(self, key):\n        """Returns the answer kept for key."""\n        return None\n');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'remote', 'add', 'origin', 'https://github.com/acme/named.git');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'one');
    const out = join(work, 'index-named');
    const first = await run(['build', '--repo', dir, '--out', out, '--quiet']);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toMatch(/^github\.com\/acme\/named@[0-9a-f]{12}: 2 definitions \(2 documented\)/);
    const idx = index(out, 'github.com/acme/named');
    expect(idx.definitions.map((d) => [d.name, d.kind, d.parent, d.line])).toEqual([['Cache', 'class', undefined, 1], ['get', 'method', 'Cache', 4]]);
    expect((await run(['build', '--repo', dir, '--out', out, '--quiet'])).out).toMatch(/already current/);
    const bad = await run(['build', '--repo', dir, '--out', out, '--commit', 'no-such-branch']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/no-such-branch is not a commit[^]*hint: /);
  }, 60_000);
});
