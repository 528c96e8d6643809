/**
 * Stateless pagination cursors. A cursor is base64url text carrying a format version, the
 * tool, a hash of every other argument, the offset and the page size, plus a checksum so an
 * altered cursor is refused rather than silently read. No server-side state: any replica, or
 * this one after a restart, can resume from it.
 */
import { createHash } from 'node:crypto';
import { ToolError } from '../errors.js';

const VERSION = 1;

export interface CursorPosition {
  offset: number;
  pageSize: number;
}

/** JSON with sorted keys, so the same arguments always hash the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function digest(text: string, length: number): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, length);
}

/** The hash of a call's arguments, the cursor left out. */
export function argumentsHash(args: Record<string, unknown>): string {
  const { cursor: _cursor, ...rest } = args;
  return digest(canonical(rest), 16);
}

export function encodeCursor(tool: string, args: Record<string, unknown>, position: CursorPosition): string {
  const body = [VERSION, tool, argumentsHash(args), position.offset, position.pageSize];
  const payload = JSON.stringify(body);
  return Buffer.from(JSON.stringify([...body, digest(payload, 8)])).toString('base64url');
}

function invalid(message: string, hint: string): ToolError {
  return new ToolError('INVALID_CURSOR', message, hint);
}

const SAME_ARGS_HINT =
  'Send the cursor back with exactly the arguments of the call that returned it (same query, filters and limit), or drop the cursor to start from the first page.';

/** Reads a cursor for `tool` called with `args`; any mismatch is INVALID_CURSOR. */
export function decodeCursor(tool: string, args: Record<string, unknown>, cursor: string): CursorPosition {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw invalid('the cursor is not base64url text', `Pass next_cursor exactly as a previous ${tool} call returned it. ${SAME_ARGS_HINT}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('the cursor does not decode (truncated or altered?)', `Pass next_cursor exactly as a previous ${tool} call returned it. ${SAME_ARGS_HINT}`);
  }
  if (!Array.isArray(parsed) || parsed.length !== 6) {
    throw invalid('the cursor does not decode (truncated or altered?)', `Pass next_cursor exactly as a previous ${tool} call returned it.`);
  }
  const [version, cursorTool, hash, offset, pageSize, check] = parsed as unknown[];
  if (digest(JSON.stringify(parsed.slice(0, 5)), 8) !== check) {
    throw invalid('the cursor was altered (its checksum does not match)', `Pass next_cursor exactly as a previous ${tool} call returned it.`);
  }
  if (version !== VERSION) {
    throw invalid(`the cursor has format version ${String(version)}, this server reads version ${VERSION}`, 'Start again from the first page (call without cursor).');
  }
  if (cursorTool !== tool) {
    throw invalid(`the cursor belongs to ${String(cursorTool)}, not ${tool}`, `Use it with ${String(cursorTool)}, or call ${tool} without a cursor.`);
  }
  if (hash !== argumentsHash(args)) {
    throw invalid('the cursor was issued for other arguments', SAME_ARGS_HINT);
  }
  if (!Number.isSafeInteger(offset) || (offset as number) < 0 || !Number.isSafeInteger(pageSize) || (pageSize as number) < 1) {
    throw invalid('the cursor holds an impossible position', 'Start again from the first page (call without cursor).');
  }
  return { offset: offset as number, pageSize: pageSize as number };
}
