/**
 * The page protocol every list tool follows, in one place: read the cursor, fetch the page,
 * say whether the answer is whole, mint the next cursor, and explain an empty page.
 */
import { z } from 'zod';
import type { CursorSigner } from './cursor.js';
import type { Partial } from './completeness.js';
import { AnswerTooLarge } from '../../zoekt/client.js';

/** The fields every paged output ends with. */
export const pagingFields = {
  /** Present when paging cannot reach every result: why, and the narrowing call to make. */
  partial: z.object({ reason: z.string(), hint: z.string() }).optional(),
  next_cursor: z.string().optional(),
  hint: z.string().optional(),
};

/** `complete` in every paged output's stats: true, the counts are exact; false, lower bounds. */
export const completeField = z.boolean();

export interface Fetched<T> {
  items: T[];
  /** Another page follows this one. */
  more: boolean;
  /** Counts are exact: Zoekt evaluated every candidate. False: they are lower bounds. */
  complete: boolean;
  /** Why a walk over every page cannot reach every result, when it cannot. */
  partial?: Partial | undefined;
  /** Where the next page starts, when it is not `limit` items further (a tool's own positions). */
  nextOffset?: number;
}

export interface PageSpec<T, F extends Fetched<T>> {
  tool: string;
  /** Signs the next cursor and reads the given one, bound to the server's secret and repo scope. */
  cursors: CursorSigner;
  /** The call's arguments, cursor included: a cursor binds all the others. */
  args: Record<string, unknown>;
  limit: number;
  fetch: (offset: number) => Promise<F>;
  /** Why the first page is empty and what to call instead. */
  emptyHint: (fetched: F) => string | Promise<string>;
  /** How to ask this tool for less, naming its own arguments: the hint of a call too broad to answer. */
  narrowHint: string;
}

export type Paged<F> = F & {
  offset: number;
  next_cursor?: string;
  hint?: string;
  /** A cursor for the same call going on at `offset` (a page the output budget cut short ends there). */
  resume: (offset: number) => string;
};

export async function paginate<T, F extends Fetched<T>>(spec: PageSpec<T, F>): Promise<Paged<F>> {
  const cursor = spec.args.cursor;
  const offset = typeof cursor === 'string' ? spec.cursors.decode(spec.tool, spec.args, cursor).offset : 0;
  const fetched = await spec.fetch(offset).catch((err: unknown) => {
    throw err instanceof AnswerTooLarge ? err.narrowed(spec.narrowHint) : err;
  });
  const resume = (at: number) => spec.cursors.encode(spec.tool, spec.args, { offset: at, pageSize: spec.limit });
  const out: Paged<F> = { ...fetched, offset, resume };
  if (fetched.more) out.next_cursor = resume(fetched.nextOffset ?? offset + spec.limit);
  if (fetched.items.length === 0 && !fetched.more) {
    if (offset > 0) {
      out.hint = 'This page is past the last result; the results ended on an earlier page.';
    } else {
      const hint = await spec.emptyHint(fetched);
      // An empty answer from a search that did not finish says nothing about the corpus.
      out.hint = fetched.partial ? `The search did not complete (${fetched.partial.reason}), so matches may exist. ${fetched.partial.hint} ${hint}` : hint;
    }
  }
  return out;
}

/** The paging fields of a tool's output, taken from a page. */
export function pagingOutput(page: Paged<Fetched<unknown>>): { partial?: Partial; next_cursor?: string; hint?: string } {
  return {
    ...(page.partial ? { partial: page.partial } : {}),
    ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}),
    ...(page.hint ? { hint: page.hint } : {}),
  };
}
