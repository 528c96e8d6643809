/**
 * Files other processes read while this one runs (pid files, the port, state): written to a
 * temporary name and renamed, so a reader sees the old content or the new one, never an empty
 * file caught between truncation and write.
 */
import { renameSync, writeFileSync } from 'node:fs';

export function writeFileAtomically(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}
