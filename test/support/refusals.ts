/** What the product refuses: the error it throws, and the over-nested queries the query bounds refuse. */
import { expect } from 'vitest';
import { ToolError } from '../../src/errors.js';

/** The ToolError `run` throws; fails the test when it throws something else or nothing. */
export function toolErrorOf(run: () => unknown): ToolError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ToolError);
    return e as ToolError;
  }
  throw new Error('expected a ToolError');
}

/** `depth` nested groups around `inner`: `( ( a ) )` and its variants. */
export const nested = (depth: number, inner = 'a', open = '( ', close = ' )') => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
