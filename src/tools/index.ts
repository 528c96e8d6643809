/** Every tool the server offers, in the order agents see them. */
import type { AnyTool } from './define.js';
import { findReferencesTool } from './find_references.js';
import { getFileTool } from './get_file.js';
import { getFileOutlineTool } from './get_file_outline.js';
import { getHealthTool } from './get_health.js';
import { listReposTool } from './list_repos.js';
import { searchCodeTool } from './search_code.js';
import { searchFilesTool } from './search_files.js';
import { searchSymbolsTool } from './search_symbols.js';

export const TOOLS: readonly AnyTool[] = [
  searchCodeTool,
  searchSymbolsTool,
  searchFilesTool,
  findReferencesTool,
  getFileTool,
  getFileOutlineTool,
  listReposTool,
  getHealthTool,
];
