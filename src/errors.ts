/** The error codes of the tool contract. Every failure a tool reports carries one of these. */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'QUERY_ERROR',
  'INVALID_CURSOR',
  'NOT_FOUND',
  'FORBIDDEN',
  'TIMEOUT',
  'UNAVAILABLE',
  'BACKEND_MISCONFIGURED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes where calling again unchanged may succeed. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['TIMEOUT', 'UNAVAILABLE']);

/**
 * A failure with everything an agent needs to act on it: a stable code, what went wrong,
 * and what to do next. Raised where the cause is seen, never reconstructed from a message.
 */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, hint: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
    this.code = code;
    this.hint = hint;
    this.retryable = options?.retryable ?? RETRYABLE.has(code);
  }

  toJSON(): { code: ErrorCode; message: string; hint: string; retryable: boolean } {
    return { code: this.code, message: this.message, hint: this.hint, retryable: this.retryable };
  }
}

export function invalidArgument(message: string, hint: string): ToolError {
  return new ToolError('INVALID_ARGUMENT', message, hint);
}

/** Anything that is not a ToolError is a bug of ours: report it without leaking a stack trace. */
export function asToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ToolError(
    'INTERNAL',
    `internal error: ${message}`,
    'This is a bug in zoekt-mcp, not in your arguments. Retry once; if it persists, report it with the arguments used.',
    { cause: err, retryable: false },
  );
}
