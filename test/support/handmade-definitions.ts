/**
 * Definitions index folders written by hand, for the tests of the engines that read them: the
 * definitions of real source files read here without the extractor (Go's functions, methods and
 * types by their declaration lines and the `//` lines above them; Python's by the `ast` module),
 * embedded by the real model, and written in the on-disk format (src/definitions-index/format.ts).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { emptyManifest, quantize, writeManifest, writeRepoFiles, type Manifest, type StoredDefinition, type StoredFile } from '../../src/definitions-index/format.js';
import { definitionText } from '../../src/definitions-index/texts.js';
import type { Embedder } from '../../src/model/embedder.js';

const GO_FUNC = /^func (?:\(\w+ \*?([A-Za-z_]\w*)(?:\[[^\]]*\])?\) )?([A-Za-z_]\w*)/d;
const GO_TYPE = /^type ([A-Za-z_]\w*)(?:\[[^\]]*\])? (struct|interface)\b/d;

/** The Go files of `dirs` (each a package folder under `root`, not recursive, without tests). */
export function goFiles(root: string, dirs: readonly string[]): StoredFile[] {
  const files: StoredFile[] = [];
  for (const dir of dirs) {
    for (const name of readdirSync(join(root, dir)).sort()) {
      if (!name.endsWith('.go') || name.endsWith('_test.go') || !statSync(join(root, dir, name)).isFile()) continue;
      const path = `${dir}/${name}`;
      const lines = readFileSync(join(root, path), 'utf8').split('\n');
      const definitions: StoredDefinition[] = [];
      lines.forEach((line, i) => {
        const f = GO_FUNC.exec(line);
        const t = f ? undefined : GO_TYPE.exec(line);
        if (!f && !t) return;
        const name = f ? f[2]! : t![1]!;
        const doc: string[] = [];
        for (let j = i - 1; j >= 0 && lines[j]!.startsWith('//'); j--) doc.unshift(lines[j]!.replace(/^\/\/ ?/, ''));
        const d: StoredDefinition = {
          name,
          kind: f ? (f[1] ? 'method' : 'function') : t![2]!,
          raw_kind: f ? (f[1] ? 'method' : 'func') : t![2]!,
          line: i + 1,
          column: (f ? f.indices![2]![0] : t!.indices![1]![0]) + 1,
          signature: line.trim(),
          vendored: path.startsWith('vendor/'),
        };
        if (f?.[1]) {
          d.parent = f[1];
          d.parent_kind = 'struct';
        }
        if (doc.length && !doc[0]!.startsWith('go:')) d.documentation = doc.join('\n');
        definitions.push(d);
      });
      files.push({ path, blob: fakeBlob(path), language: 'Go', definitions });
    }
  }
  return files;
}

/** Python modules under `root`, read by Python's own `ast`: functions, classes and their methods, with docstrings. */
export function pythonFiles(root: string, names: readonly string[]): StoredFile[] {
  const script = `
import ast, json, sys
out = []
for name in sys.argv[2:]:
    src = open(sys.argv[1] + '/' + name, encoding='utf-8').read()
    lines = src.split('\\n')
    defs = []
    def visit(node, parent):
        for n in ast.iter_child_nodes(node):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kind = 'class' if isinstance(n, ast.ClassDef) else ('method' if parent else 'function')
                line = lines[n.lineno - 1]
                d = {'name': n.name, 'kind': kind, 'raw_kind': 'class' if kind == 'class' else ('member' if parent else 'function'),
                     'line': n.lineno, 'column': line.index(n.name, n.col_offset) + 1, 'signature': line.strip(), 'vendored': False}
                if parent:
                    d['parent'] = parent
                    d['parent_kind'] = 'class'
                doc = ast.get_docstring(n)
                if doc:
                    d['documentation'] = doc
                defs.append(d)
                if isinstance(n, ast.ClassDef) and not parent:
                    visit(n, n.name)
    visit(ast.parse(src), None)
    out.append({'path': name, 'definitions': defs})
print(json.dumps(out))
`;
  const parsed = JSON.parse(execFileSync('python3', ['-c', script, root, ...names], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as { path: string; definitions: StoredDefinition[] }[];
  return parsed.map((f) => ({ path: f.path, blob: fakeBlob(f.path), language: 'Python', definitions: f.definitions }));
}

/** A blob hash of the right shape: these folders are never rebuilt incrementally. */
function fakeBlob(path: string): string {
  let h = 0;
  for (const c of path) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h.toString(16).padStart(8, '0').repeat(5);
}

export interface HandmadeRepo {
  repo: string;
  generation: string;
  files: StoredFile[];
}

/** Writes `repos` into the index folder `dir` (adding to its manifest), their texts embedded by `embedder`. */
export function writeHandmadeIndex(dir: string, embedder: Embedder, repos: readonly HandmadeRepo[], manifest: Manifest = emptyManifest(embedder.info)): Manifest {
  const dims = embedder.info.dimensions;
  for (const r of repos) {
    const defs = r.files.flatMap((f) => f.definitions);
    const vectors = new Int8Array(defs.length * dims);
    const made = embedder.embed(defs.map((d) => definitionText(d)));
    made.forEach((v, i) => quantize(v, vectors, i * dims));
    const stem = writeRepoFiles(dir, { repo: r.repo, generation: r.generation, files: r.files }, vectors);
    manifest.repos[r.repo] = {
      generation: r.generation,
      stem,
      built_at: new Date().toISOString(),
      files: r.files.length,
      definitions: defs.length,
      documented: defs.filter((d) => d.documentation).length,
      extracted: defs.length,
      skipped_files: 0,
    };
  }
  writeManifest(dir, manifest);
  return manifest;
}
