/**
 * The files of what Zoekt indexed: a git commit (zoekt-git-index: the commit's tree, its blobs
 * read by one `git cat-file --batch`), or a plain folder (zoekt-index: walked, without .git, .hg
 * and .svn, regular files only). Each file comes with git's blob hash of its content, what a later
 * build reuses its definitions by; a folder's are computed.
 */
import { spawn, execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DefinitionsIndexError } from './format.js';

const run = promisify(execFile);

/** One file of the tree; `size` in bytes. */
export interface SourceFile {
  path: string;
  blob: string;
  size: number;
}

export interface Source {
  /** The commit (git) or the hash over the (path, blob) pairs (folder). */
  generation: string;
  files: SourceFile[];
  /** The contents of some of the files, in the order asked, one at a time. */
  read(files: readonly SourceFile[]): AsyncGenerator<{ file: SourceFile; content: Buffer }>;
  close(): void;
}

/** What zoekt-index leaves out of a folder by default (its -ignore_dirs). */
export const IGNORED_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn']);

/** Git's name for content: sha1 of `blob <size>\0<content>`. */
export function blobHash(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

async function git(dir: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('git', ['-C', dir, ...args], { maxBuffer: 1 << 30, encoding: 'utf8' });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string; code?: unknown };
    if (err.code === 'ENOENT') throw new DefinitionsIndexError('git is not installed', 'install git, or build from a plain folder', undefined);
    throw new DefinitionsIndexError(`git ${args.join(' ')} failed in ${dir}: ${(err.stderr || err.message).trim().split('\n').pop()}`, 'check that the folder is a git repository and the revision exists (git rev-parse REV)');
  }
}

/** The commit `rev` names in the repository at `dir`. */
export async function resolveCommit(dir: string, rev: string): Promise<string> {
  return (await git(dir, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]).catch(() => {
    throw new DefinitionsIndexError(`${rev} is not a commit of ${dir}`, 'give --commit a branch, tag or commit of that repository (git log --oneline)');
  })).trim();
}

/** The files of a commit: blobs only (no submodules), no symbolic links, as zoekt-git-index reads a tree. */
export async function gitSource(dir: string, rev: string): Promise<Source> {
  const commit = await resolveCommit(dir, rev);
  const out = await git(dir, ['ls-tree', '-r', '-z', '-l', '--full-tree', commit]);
  const files: SourceFile[] = [];
  for (const row of out.split('\0')) {
    // <mode> SP <type> SP <object> SP+ <size> TAB <path>
    const m = /^(\d+) (\w+) ([0-9a-f]+) +(\d+|-)\t(.*)$/s.exec(row);
    if (!m || m[2] !== 'blob' || m[1] === '120000') continue;
    files.push({ path: m[5]!, blob: m[3]!, size: Number(m[4]) });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let batch: BlobReader | undefined;
  return {
    generation: commit,
    files,
    async *read(wanted) {
      batch ??= new BlobReader(dir);
      for (const file of wanted) yield { file, content: await batch.read(file.blob, file.size) };
    },
    close: () => batch?.close(),
  };
}

/** Blob contents from one `git cat-file --batch` process, one request at a time. */
class BlobReader {
  private readonly child;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private wake: (() => void) | undefined;
  private failure: Error | undefined;

  constructor(dir: string) {
    this.child = spawn('git', ['-C', dir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    this.child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    this.child.stdout.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.buffered += d.length;
      this.wake?.();
    });
    const fail = (why: string) => {
      this.failure ??= new DefinitionsIndexError(`git cat-file failed in ${dir}: ${why}`, 'check the repository (git fsck)');
      this.wake?.();
    };
    this.child.on('error', (e) => fail(e.message));
    this.child.on('exit', (code) => fail(`exited with ${code}${stderr ? `: ${stderr.trim()}` : ''}`));
    this.child.stdin.on('error', (e) => fail(e.message));
  }

  private async take(n: number): Promise<Buffer> {
    while (this.buffered < n) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }

  private async line(): Promise<string> {
    for (;;) {
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
      this.chunks = all.length ? [all] : [];
      const nl = all.indexOf(0x0a);
      if (nl >= 0) return (await this.take(nl + 1)).subarray(0, nl).toString('utf8');
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  async read(blob: string, size: number): Promise<Buffer> {
    this.child.stdin.write(`${blob}\n`);
    const header = await this.line();
    const m = /^([0-9a-f]+) blob (\d+)$/.exec(header);
    if (!m) throw new DefinitionsIndexError(`git cat-file answered "${header}" for blob ${blob}`, 'check the repository (git fsck)');
    const length = Number(m[2]);
    if (length !== size) throw new DefinitionsIndexError(`blob ${blob} has ${length} bytes, its tree said ${size}`, 'check the repository (git fsck)');
    // The content, then a line feed.
    const content = Buffer.from(await this.take(length + 1)).subarray(0, length);
    return content;
  }

  close(): void {
    this.child.stdin.end();
    if (this.child.exitCode === null) this.child.kill();
  }
}

/** The files of a plain folder as zoekt-index walks it; blob hashes computed from their contents. */
export function folderSource(dir: string): Source {
  const files: SourceFile[] = [];
  const walk = (rel: string) => {
    const abs = rel ? join(dir, rel) : dir;
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      if (!rel) throw new DefinitionsIndexError(`${dir} cannot be read: ${(e as Error).message}`, 'give --repo a folder you can read');
      return;
    }
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!IGNORED_DIRS.has(e.name)) walk(path);
      } else if (e.isFile()) {
        let content: Buffer;
        try {
          content = readFileSync(join(dir, path));
        } catch {
          continue;
        }
        files.push({ path, blob: blobHash(content), size: content.length });
      }
    }
  };
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new DefinitionsIndexError(`${dir} is not a folder`, 'give --repo a folder or a git repository');
  walk('');
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const generation = createHash('sha256');
  for (const f of files) generation.update(`${f.path}\0${f.blob}\n`);
  // Contents are read again when wanted, not kept: a large tree's would not fit (the system's
  // cache makes the second read cheap). A file changed in between is what the next build sees.
  return {
    generation: generation.digest('hex'),
    files,
    async *read(wanted) {
      for (const file of wanted) yield { file, content: readFileSync(join(dir, file.path)) };
    },
    close: () => undefined,
  };
}
