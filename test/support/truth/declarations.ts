/**
 * Declarations read from files by each language's own parser, for the symbol tests: Go through
 * go/parser (go-decls.go), Python through ast (py_decls.py), TypeScript and JavaScript through
 * the TypeScript compiler (ts-decls.ts). Never through tree-sitter, Universal Ctags or Zoekt.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

export function goDeclarations(root: string, files: string[]): Declarations {
  return run('go', ['run', join(ROOT, 'test/support/truth/go-decls.go'), root], files);
}

export function pythonDeclarations(root: string, files: string[]): Declarations {
  return run('python3', [join(ROOT, 'test/support/truth/py_decls.py'), root], files);
}

export function scriptDeclarations(root: string, files: string[]): Declarations {
  return { declarations: files.flatMap((f) => tsDeclarations(f, readFileSync(join(root, f), 'utf8'))), unparsed: [] };
}
