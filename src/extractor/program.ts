/** How the extractor names itself in the ctags protocol and in its messages. */
import { protocolLine } from './protocol.js';
import { VERSION } from '../version.js';

export const NAME = 'zoekt-mcp-scip-ctags';

/** The line a ctags program starts with. */
export const PROGRAM_LINE = protocolLine({ _type: 'program', name: NAME, version: VERSION })!;

export function log(msg: string): void {
  process.stderr.write(`${NAME}: ${msg}\n`);
}

/** Universal Ctags behind the extractor: ZOEKT_MCP_UNIVERSAL_CTAGS, else universal-ctags on PATH. */
export function ctagsBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.ZOEKT_MCP_UNIVERSAL_CTAGS || 'universal-ctags';
}
