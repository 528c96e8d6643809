/**
 * The cursor key kept for one user, in a file made once: a client that spawns a server per call
 * (the MCP Inspector's CLI, local mode's clients) pages on with a cursor an earlier spawn signed.
 * Whoever can read the key can forge cursors, which carry positions and the repo scope, never
 * data: the file is the user's alone (0600 in a 0700 folder), and one anybody else could have
 * written or may read is not used.
 */
import { closeSync, constants, fstatSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Keys shorter than this are refused, as --cursor-secret refuses them. */
const MIN_LENGTH = 32;

/** Where a stdio server keeps its key when none is given: the user's state folder (XDG_STATE_HOME). */
export function userCursorKeyFile(env: NodeJS.ProcessEnv): string {
  if (process.platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'zoekt-mcp', 'cursor-secret');
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'zoekt-mcp', 'cursor-secret');
}

/**
 * The key in `file`, made first if there is none. Made whole or not at all: written to a name of
 * this process and linked into place, so a server spawned beside this one reads this key or its
 * own, never half of one. An existing key is read without writing anything (the folder may be
 * read-only). Throws, saying why, when the file cannot be made or is not safe to use.
 */
export function keptCursorSecret(file: string): string {
  try {
    return readPrivate(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const dir = join(file, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = `${randomBytes(32).toString('base64url')}\n`;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, key, { flag: 'wx', mode: 0o600 });
  try {
    linkSync(tmp, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // EEXIST: made by a spawn starting beside this one, and theirs is the key. A file system
    // without hard links (EPERM, ENOTSUP) gets the file made in place, exclusively.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') writeExclusively(file, key);
    else if (code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
  return readPrivate(file);
}

/**
 * The kept key, or why there is none to be had (no home folder, a read-only one, a key file others
 * may read): a server then signs with a key of its own process, and says why.
 */
export function keptCursorSecretOrWhy(file: string): { secret: string } | { why: string } {
  try {
    return { secret: keptCursorSecret(file) };
  } catch (err) {
    return { why: err instanceof Error ? err.message : String(err) };
  }
}

function writeExclusively(file: string, key: string): void {
  try {
    writeFileSync(file, key, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** The file's text, if it is a regular file of this user that no one else may read or write (not followed if a link). */
function readPrivate(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (process.platform !== 'win32') {
      if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`${file} belongs to another user`);
      if (st.mode & 0o077) throw new Error(`${file} may be read or written by other users (mode ${(st.mode & 0o777).toString(8)}); make it private (chmod 600) or remove it`);
    }
    const key = readFileSync(fd, 'utf8').trim();
    if (key.length < MIN_LENGTH) throw new Error(`${file} holds a key shorter than ${MIN_LENGTH} characters; remove it and a new one is made`);
    return key;
  } finally {
    closeSync(fd);
  }
}
