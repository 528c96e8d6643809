/**
 * The output budget: an answer's text may have at most `maxChars` characters (max_output_chars,
 * or the server's --max-output-chars), and its structuredContent, the same page as data, at most
 * twice that. A page that would pass it is made smaller one setting at a time, in a fixed order
 * (context lines, then matched lines per file, then results on the page, then line length): each
 * step of the order is turned down to its floor before the next is touched, and the page is
 * rebuilt and measured again after every turn. A setting may come twice in the order, with a
 * higher floor the first time (search_code keeps one context line until fewer files are shown). What was turned down is reported (`truncated`), and a page with
 * fewer results ends where the next cursor goes on, so walking every page still reaches every
 * result once.
 */
import { z } from 'zod';

export interface Budget<O> {
  maxChars: number;
  /** The text a model reads for an output (the tool's rendering). */
  render: (out: O) => string;
  /**
   * The structuredContent that goes out for an output, when the server completes it after the
   * tool (the local serve command adds index ages); `render` then measures the completed text too.
   */
  structured?: (out: O) => unknown;
}

/** structuredContent carries the same page as data: field names and quotes cost it about twice the text. */
export const STRUCTURED_FACTOR = 2;

/** A setting of a page that can be turned down to make the page smaller. */
export interface Dial {
  /** Its name in `truncated` (`context_lines`, `matches_per_file`, `results`, `line_chars`). */
  name: string;
  /** The next smaller value, or undefined at the floor. */
  down: (value: number) => number | undefined;
}

export const Truncated = z.object({
  /** Why the page was cut. */
  reason: z.string(),
  /** The bound it was cut to fit (max_output_chars). */
  max_output_chars: z.number().int(),
  /** Each setting that was turned down, from what to what. */
  cut: z.array(z.object({ setting: z.string(), from: z.number().int(), to: z.number().int() })),
});
export type Truncated = z.infer<typeof Truncated>;

export const truncatedField = { truncated: Truncated.optional() };

/** Halves a value, down to `floor`. */
export const halve =
  (floor: number) =>
  (v: number): number | undefined =>
    v > floor ? Math.max(floor, Math.floor(v / 2)) : undefined;

/** One less, down to `floor`. */
export const lessOne =
  (floor: number) =>
  (v: number): number | undefined =>
    v > floor ? v - 1 : undefined;

/** Three quarters, down to `floor`. */
export const fewer =
  (floor: number) =>
  (v: number): number | undefined =>
    v > floor ? Math.max(floor, Math.min(v - 1, Math.floor((v * 3) / 4))) : undefined;

/** The longest line a page shows before any budget binds (minified code and data have longer ones). */
export const MAX_LINE_CHARS = 400;

/** A line cut to `max` characters around `column` (minified code, data), with `…` where it was cut. */
export function clip(text: string, column: number, max: number = MAX_LINE_CHARS): string {
  if (text.length <= max) return text;
  const chars = [...text];
  if (chars.length <= max) return text;
  const start = Math.max(0, Math.min(column - 1 - Math.floor(max / 4), chars.length - max));
  const body = chars.slice(start, start + max).join('');
  return `${start > 0 ? '…' : ''}${body}${start + max < chars.length ? '…' : ''}`;
}

/** Text that is not text: a NUL byte, or several bytes that were not UTF-8 (decoded as U+FFFD). */
export function looksBinary(line: string): boolean {
  if (line.includes('\u0000')) return true;
  let bad = 0;
  for (let i = line.indexOf('\uFFFD'); i !== -1; i = line.indexOf('\uFFFD', i + 1)) if (++bad >= 3) return true;
  return false;
}

/** Line lengths a page steps down through. */
const LINE_STEPS = [400, 200, 120, 80];
export const shorterLines = (v: number): number | undefined => LINE_STEPS.find((s) => s < v);

/** The dial of a list whose items are short: fewer of them on the page. */
export const RESULTS_DIAL = [{ name: 'results' as const, down: fewer(1) }];

/** The dials of a list of lines: fewer items on the page, then shorter lines. */
export const LIST_DIALS = [...RESULTS_DIAL, { name: 'line_chars' as const, down: shorterLines }];

export function fits<O>(out: O, budget: Budget<O>): boolean {
  const structured = budget.structured ? budget.structured(out) : out;
  return budget.render(out).length <= budget.maxChars && JSON.stringify(structured).length <= STRUCTURED_FACTOR * budget.maxChars;
}

/**
 * The page `make` builds from `start`, made to fit `budget` by turning the `dials` down in order.
 * `make` receives the settings and whether they were cut (it adds `truncated` then).
 */
export function fitToBudget<O, K extends string>(
  make: (settings: Record<K, number>, truncated: Truncated | undefined) => O,
  start: Record<K, number>,
  dials: (Dial & { name: K })[],
  budget: Budget<O>,
): O {
  const settings = { ...start };
  let out = make(settings, undefined);
  if (fits(out, budget)) return out;
  for (;;) {
    const dial = dials.find((d) => d.down(settings[d.name]) !== undefined);
    if (!dial) break;
    settings[dial.name] = dial.down(settings[dial.name])!;
    out = make(settings, truncation(start, settings, dials, budget.maxChars));
    if (fits(out, budget)) break;
  }
  return out;
}

/**
 * fitToBudget for a page of a list: its `results` setting (how many of the fetched items are shown)
 * is one of the dials, and a page showing fewer items than it fetched gets a next cursor that
 * resumes at the first one left out, at `positionOf(shown)` (the item's offset in the walk).
 */
export function fitPage<O extends { next_cursor?: string | undefined }, K extends string>(
  page: { items: readonly unknown[]; offset: number; resume: (offset: number) => string },
  make: (settings: Record<K | 'results', number>, truncated: Truncated | undefined) => O,
  start: Omit<Record<K, number>, 'results'>,
  dials: (Dial & { name: K | 'results' })[],
  budget: Budget<O>,
  positionOf: (shown: number) => number = (shown) => page.offset + shown,
): O {
  const all = page.items.length;
  const settings = { ...start, results: all } as Record<K | 'results', number>;
  return fitToBudget(
    (s, truncated) => {
      const out = make(s, truncated);
      if (s.results < all) out.next_cursor = page.resume(positionOf(s.results));
      return out;
    },
    settings,
    dials,
    budget,
  );
}

function truncation<K extends string>(start: Record<K, number>, now: Record<K, number>, dials: { name: K }[], maxChars: number): Truncated {
  // A setting that comes twice in the order is named once, where it was first turned down.
  const names = [...new Set(dials.map((d) => d.name))];
  const cut = names.filter((name) => now[name] < start[name]).map((name) => ({ setting: name, from: start[name], to: now[name] }));
  return { reason: `cut to fit max_output_chars (${maxChars} characters of text)`, max_output_chars: maxChars, cut };
}

/** The text line that says what was cut, for a tool's rendering. */
export function truncatedLine(t: Truncated | undefined): string[] {
  if (!t) return [];
  const what = t.cut.map((c) => `${c.setting.replace(/_/g, ' ')} ${c.from} → ${c.to}`).join(', ');
  return [`truncated: ${t.reason}: ${what || 'nothing more could be cut'}. Ask for less (filters, limit) or pass a larger max_output_chars to see more.`];
}
