/**
 * Stateless pagination cursors. A cursor is base64url text carrying a format version, the tool,
 * a hash of every other argument, the offset and the page size, and a tag of the repo scope it
 * was issued in, signed with HMAC-SHA256 under the deployment's cursor secret: a cursor cannot be
 * made or edited without the secret, and one issued outside a repo scope is refused inside it.
 * No server-side state: any replica given the same secret, or this one after a restart with it,
 * resumes from it.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ToolError } from '../../errors.js';

// 3: find_references offsets start usages at 1 and carry definitions cut by the output budget.
const VERSION = 3;
/** Bytes of the HMAC kept in a cursor: 128 bits, past any guessing. */
const MAC_BYTES = 16;

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

/**
 * The hash of a call's arguments, the cursor and the output budget left out: pages end where
 * they end whatever the budget, so a call may go on with a larger max_output_chars.
 */
export function argumentsHash(args: Record<string, unknown>): string {
  const { cursor: _cursor, max_output_chars: _budget, ...rest } = args;
  return digest(canonical(rest), 16);
}


function invalid(message: string, hint: string): ToolError {
  return new ToolError('INVALID_CURSOR', message, hint);
}

const SAME_ARGS_HINT =
  'Send the cursor back with exactly the arguments of the call that returned it (same query, filters and limit), or drop the cursor to start from the first page.';

/** Signs and reads the cursors of one server: its secret, and the repo scope it is confined to. */
export class CursorSigner {
  private readonly key: Buffer;
  private readonly scopeGlobs: () => readonly string[];
  private tagged?: { globs: readonly string[]; tag: string };

  /** `scopeGlobs`: fixed, or read at each use (a scope that may change). */
  constructor(secret: string | Buffer, scopeGlobs: readonly string[] | (() => readonly string[]) = []) {
    this.key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
    this.scopeGlobs = typeof scopeGlobs === 'function' ? scopeGlobs : () => scopeGlobs;
  }

  /** Which repositories the server may read, as a short tag: the same globs give the same tag. */
  private get scopeTag(): string {
    const globs = this.scopeGlobs();
    if (this.tagged?.globs !== globs) this.tagged = { globs, tag: globs.length ? digest(canonical([...new Set(globs)].sort()), 8) : '*' };
    return this.tagged.tag;
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }

  encode(tool: string, args: Record<string, unknown>, position: CursorPosition): string {
    const body = [VERSION, tool, argumentsHash(args), position.offset, position.pageSize, this.scopeTag];
    const mac = this.mac(JSON.stringify(body)).toString('base64url');
    return Buffer.from(JSON.stringify([...body, mac])).toString('base64url');
  }

  /** Reads a cursor for `tool` called with `args`; any mismatch is INVALID_CURSOR with a hint. */
  decode(tool: string, args: Record<string, unknown>, cursor: string): CursorPosition {
    const exactly = `Pass next_cursor exactly as a previous ${tool} call returned it.`;
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid('the cursor is not base64url text', `${exactly} ${SAME_ARGS_HINT}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      throw invalid('the cursor does not decode (truncated or altered?)', `${exactly} ${SAME_ARGS_HINT}`);
    }
    if (!Array.isArray(parsed) || parsed.length < 2) throw invalid('the cursor does not decode (truncated or altered?)', exactly);
    // Read before the signature only to say why an old cursor is refused.
    if (parsed[0] !== VERSION) {
      throw invalid(`the cursor has format version ${String(parsed[0])}, this server reads version ${VERSION}`, 'Start again from the first page (call without cursor).');
    }
    if (parsed.length !== 7 || typeof parsed[6] !== 'string') throw invalid('the cursor does not decode (truncated or altered?)', exactly);
    const given = Buffer.from(parsed[6], 'base64url');
    const expected = this.mac(JSON.stringify(parsed.slice(0, 6)));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalid(
        "the cursor's signature does not match: it was altered, or, most likely, issued by another server process, with another cursor secret",
        `${exactly} A cursor pages only on a server with the key that signed it. Servers that share the work (replicas behind a load balancer) need the same --cursor-secret (ZOEKT_MCP_CURSOR_SECRET); without one, a stdio server signs with its user's key, kept in a file (~/.local/state/zoekt-mcp/cursor-secret: another user's or another machine's server has another), and an HTTP server with a key of its own, lost when it restarts. Or drop the cursor to start from the first page.`,
      );
    }
    const [, cursorTool, hash, offset, pageSize, scopeTag] = parsed as unknown[];
    if (scopeTag !== this.scopeTag) {
      throw invalid(
        'the cursor was issued by a server confined to other repositories (another --allow-repos, or a repository list changed since)',
        `A cursor only pages within the repositories of the server that issued it. Call ${tool} again without cursor to start from the first page here.`,
      );
    }
    if (cursorTool !== tool) {
      throw invalid(`the cursor belongs to ${String(cursorTool)}, not ${tool}`, `Use it with ${String(cursorTool)}, or call ${tool} without a cursor.`);
    }
    if (hash !== argumentsHash(args)) throw invalid('the cursor was issued for other arguments', SAME_ARGS_HINT);
    if (!Number.isSafeInteger(offset) || (offset as number) < 0 || !Number.isSafeInteger(pageSize) || (pageSize as number) < 1) {
      throw invalid('the cursor holds an impossible position', 'Start again from the first page (call without cursor).');
    }
    return { offset: offset as number, pageSize: pageSize as number };
  }
}
