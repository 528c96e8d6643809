/** Every tool the server offers, in the order agents see them. */
import type { AnyTool } from './define.js';
import { searchCodeTool } from './search_code.js';

export const TOOLS: readonly AnyTool[] = [searchCodeTool];
