/** Types of scripts/gen-docs.mjs, for the tests that import it. */
export interface ClientFile {
  file: string;
  title: string;
  where: string;
  lang?: string;
}
export const CLIENTS: ClientFile[];
/** The pages that hold generated sections, relative to the root. */
export const PAGES: string[];
/** The page a generated section lives on. */
export function homeOf(name: string): string;
/** The default an argument's description states: a value (`10`, `false`, `auto`) or words. */
export function statedDefault(description?: string): { value?: string; text?: string } | undefined;
/** Every generated section, by the name its markers carry. */
export function sections(): Map<string, string>;
/** A page (its path from the root, and its text) with its generated sections rewritten; throws on missing, unknown or misplaced markers. */
export function render(page: string, text: string, generated?: Map<string, string>): string;
