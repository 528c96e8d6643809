/** Types of scripts/gen-docs.mjs, for the tests that import it. */
export interface ClientFile {
  file: string;
  title: string;
  where: string;
  lang?: string;
}
export const CLIENTS: ClientFile[];
/** The default an argument's description states: a value (`10`, `false`, `auto`) or words. */
export function statedDefault(description?: string): { value?: string; text?: string } | undefined;
/** Every generated section of the README, by the name its markers carry. */
export function sections(): Map<string, string>;
/** The README with its generated sections rewritten; throws on missing or unknown markers. */
export function render(readme: string, generated?: Map<string, string>): string;
