/**
 * Declarations read from files by each language's own parser, for the symbol tests: Go through
 * go/parser (go-decls.go), Python through ast (py_decls.py), TypeScript and JavaScript through
 * the TypeScript compiler (ts-decls.ts). Never through tree-sitter, Universal Ctags or Zoekt.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../zoekt.js';
import { tsDeclarations } from './ts-decls.js';

export interface Declaration {
  path: string;
  /** 1-based line of the name. */
  line: number;
  name: string;
  /** function, method, class, struct, interface, type, enum, constant, variable, field, property, module, namespace. */
  kind: string;
  parent: string;
  /**
   * top: a file's own; member: of a type or namespace, reached through declarations only; nested:
   * in a function body, an object literal or another expression (definitions at every depth).
   */
  depth: 'top' | 'member' | 'nested';
  /**
   * A function value bound to a name (`const f = () => …`, `f = lambda x: …`, `f := func…`), at
   * any depth: a function (a method at a Python class's level).
   */
  bound?: true;
}

export interface Declarations {
  declarations: Declaration[];
  /** Files the language's parser rejected: left out of the comparison. */
  unparsed: string[];
}

/** Runs a program that reads relative paths on stdin and prints declarations as JSON lines, and "unparsed PATH" on stderr. */
function run(cmd: string, args: string[], files: string[]): Declarations {
  const r = spawnSync(cmd, args, { input: files.join('\n'), encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const unparsed = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('unparsed '))
    .map((l) => l.slice('unparsed '.length));
  return { declarations: r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Declaration), unparsed };
}

/**
 * What a parser read from `files`, kept in `.tools/truth/` under a key of everything the answer
 * depends on: the parser (its program's text and its toolchain's version) and each file's path
 * under `root`, size and modification time. Reading Go's tree, CPython's library and two TypeScript
 * packages again on every run took about 14 s of CPU for the same answer. Where `root` is does not
 * change the answer: a copy of the tools folder (a clone's own, linked from another) keeps it.
 */
function remembered(parser: string[], root: string, files: string[], read: () => Declarations): Declarations {
  const key = createHash('sha256');
  for (const part of parser) key.update(`${part}\0`);
  for (const f of files) {
    const st = statSync(join(root, f));
    key.update(`${f}\0${st.size}\0${st.mtimeMs}\0`);
  }
  const file = join(process.env.ZOEKT_MCP_TOOLS_DIR ?? join(ROOT, '.tools'), 'truth', `${key.digest('hex').slice(0, 32)}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Declarations;
  } catch {
    // Not read yet (or a copy cut short): read by the parser and kept; a rename makes it whole at once.
  }
  const out = read();
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(out));
  renameSync(tmp, file);
  return out;
}

const program = (name: string) => readFileSync(join(ROOT, 'test/support/truth', name), 'utf8');
const versionOf = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' }).stdout.trim();

export function goDeclarations(root: string, files: string[]): Declarations {
  return remembered(['go', program('go-decls.go'), versionOf('go', ['env', 'GOVERSION'])], root, files, () =>
    run('go', ['run', join(ROOT, 'test/support/truth/go-decls.go'), root], files),
  );
}

export function pythonDeclarations(root: string, files: string[]): Declarations {
  return remembered(['python', program('py_decls.py'), versionOf('python3', ['--version'])], root, files, () =>
    run('python3', [join(ROOT, 'test/support/truth/py_decls.py'), root], files),
  );
}

export function scriptDeclarations(root: string, files: string[]): Declarations {
  return remembered(['script', program('ts-decls.ts'), ts.version], root, files, () => ({
    declarations: files.flatMap((f) => tsDeclarations(f, readFileSync(join(root, f), 'utf8'))),
    unparsed: [],
  }));
}
