/**
 * The repo list of the local serve command: which directories to index and under which names.
 *
 * Each entry indexes exactly the directory it names. A git work tree's root is indexed as a git
 * repository (HEAD, incrementally, by zoekt-git-index); any other directory, including a
 * subdirectory of a work tree (…/node_modules/typescript), is a plain directory. Names are stable
 * and readable: `git config zoekt.name` of a git root, else its origin URL (host/path), else the
 * path relative to the list's base folder (or to the home folder), so the `src` folders of two
 * trees never collide.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';

export interface RepoEntry {
  /** The directory, absolute and with symlinks resolved. */
  dir: string;
  /** Zoekt's repository name. */
  name: string;
  kind: 'git' | 'dir';
  /** Where the entry came from, for messages: `zoekt-config/repos:5` or `--repo`. */
  source: string;
  /** The entry as written. */
  text: string;
}

export interface RepoList {
  entries: RepoEntry[];
  /** One message per bad entry, each naming its line. */
  errors: string[];
  /** The list file itself could not be read: nothing is known about what to index. */
  unreadable?: boolean;
}

/** The lines of a list file: comments (#…) and blank lines left out, line numbers kept. */
export function listLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const t = raw.replace(/#.*$/, '').trim();
    if (t) out.push({ line: i + 1, text: t });
  });
  return out;
}

function git(dir: string, ...args: string[]): string | undefined {
  try {
    return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** The settings of `dir` whose names match `pattern`, in one git process: the last value of each, as `git config --get` gives it. */
function gitConfig(dir: string, pattern: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const row of (git(dir, 'config', '--get-regexp', pattern) ?? '').split('\n')) {
    const m = /^(\S+) (.*)$/.exec(row);
    if (m) settings.set(m[1]!, m[2]!);
  }
  return settings;
}

/** The name Zoekt gives a repository from its origin URL (gitindex.SetTemplatesFromOrigin). */
export function nameFromOrigin(remote: string): string | undefined {
  const ssh = /^([^@/]+)@([^:/]+):(.*)$/.exec(remote);
  const text = ssh ? `ssh://${ssh[1]}@${ssh[2]}/${ssh[3]}` : remote;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined; // a local path: not a name anyone would recognize
  }
  if (!url.host) return undefined;
  const path = url.pathname.replace(/\.git\/?$/, '').replace(/\/+$/, '');
  const name = `${url.host}${path}`.replace(/^\/+/, '');
  return name || undefined;
}

/** A plain directory's name: its path relative to `base` (or home) when under it, else absolute. */
export function plainName(dir: string, base: string): string {
  for (const root of [base, homedir()]) {
    const rel = relative(root, dir);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
    if (rel === '') return basename(dir);
  }
  return dir.replace(/^\/+/, '');
}

/** Resolves one entry; throws with the reason when it is not a directory. */
export function resolveEntry(text: string, base: string, source: string): RepoEntry {
  const given = isAbsolute(text) ? text : resolve(base, text);
  let dir: string;
  try {
    dir = realpathSync(given);
  } catch {
    throw new Error(`${source}: ${text}: no such directory (${given})`);
  }
  if (!statSync(dir).isDirectory()) throw new Error(`${source}: ${text}: is a file, not a folder (${given})`);
  // Only a folder holding .git can be a work tree's root: any other is a plain directory, with no
  // git process started to learn so.
  const top = existsSync(join(dir, '.git')) ? git(dir, 'rev-parse', '--show-toplevel') : undefined;
  if (top && realpathSync(top) === dir) {
    const config = gitConfig(dir, '^(zoekt\\.name|remote\\.origin\\.url)$');
    const name = config.get('zoekt.name') || nameFromOrigin(config.get('remote.origin.url') ?? '') || plainName(dir, realBase(base));
    return { dir, name, kind: 'git', source, text };
  }
  return { dir, name: plainName(dir, realBase(base)), kind: 'dir', source, text };
}

function realBase(base: string): string {
  try {
    return realpathSync(base);
  } catch {
    return base;
  }
}

/**
 * Reads the list: a file of paths (relative to `base`), or a directory standing for itself.
 * `label` names the file in messages.
 */
export function readRepoList(spec: { file?: string; dirs?: string[]; base: string; label?: string }): RepoList {
  const entries: RepoEntry[] = [];
  const errors: string[] = [];
  const items: { text: string; source: string }[] = [];
  if (spec.dirs) for (const d of spec.dirs) items.push({ text: d, source: spec.label ?? '--repo' });
  if (spec.file) {
    let text: string;
    try {
      text = readFileSync(spec.file, 'utf8');
    } catch (err) {
      return { entries, errors: [`${spec.label ?? spec.file}: cannot read the repo list (${(err as NodeJS.ErrnoException).code ?? String(err)})`], unreadable: true };
    }
    for (const l of listLines(text)) items.push({ text: l.text, source: `${spec.label ?? spec.file}:${l.line}` });
  }
  const byName = new Map<string, RepoEntry>();
  const byDir = new Map<string, RepoEntry>();
  for (const item of items) {
    let e: RepoEntry;
    try {
      e = resolveEntry(item.text, spec.base, item.source);
    } catch (err) {
      errors.push((err as Error).message);
      continue;
    }
    const sameDir = byDir.get(e.dir);
    if (sameDir) continue; // listed twice: once is enough
    const clash = byName.get(e.name);
    if (clash) {
      errors.push(`${item.source}: ${item.text}: its name "${e.name}" is already taken by ${clash.source} (${clash.text}); set git config zoekt.name in one of them`);
      continue;
    }
    byName.set(e.name, e);
    byDir.set(e.dir, e);
    entries.push(e);
  }
  return { entries, errors };
}
