/** The error codes of the tool contract. Every failure a tool reports carries one of these. */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'QUERY_ERROR',
  'INVALID_CURSOR',
  'NOT_FOUND',
  'FORBIDDEN',
  'TIMEOUT',
  'UNAVAILABLE',
  'OVERLOADED',
  'BACKEND_MISCONFIGURED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes where calling again unchanged may succeed. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['TIMEOUT', 'UNAVAILABLE', 'OVERLOADED']);

export function isRetryable(code: ErrorCode): boolean {
  return RETRYABLE.has(code);
}

/** What each code tells the caller; the error table of docs/errors.md is generated from it. */
export const ERROR_CODE_MEANINGS: Readonly<Record<ErrorCode, string>> = {
  INVALID_ARGUMENT: 'bad or conflicting arguments, an unknown language or kind; the hint says what is accepted',
  QUERY_ERROR: 'Zoekt rejected the query (parse error, bad regex); the hint names the RE2 rule broken and the corrected form where one can be derived',
  INVALID_CURSOR: 'a cursor that does not decode, was altered or signed with another --cursor-secret, or comes back with another tool, other arguments or another repo scope',
  NOT_FOUND: 'an unknown repository or file; the hint names the nearest ones',
  FORBIDDEN: 'a repository outside the configured scope (--allow-repos)',
  TIMEOUT: 'the call did not finish within its deadline (--timeout-ms), Zoekt requests and queueing included',
  UNAVAILABLE: 'Zoekt is unreachable, answers 5xx or is not ready; the hint names the URL tried and how to check it',
  OVERLOADED: 'the server is at its limit of calls in flight and queued (--max-in-flight, --max-queue); retry after retry_after_ms',
  BACKEND_MISCONFIGURED: 'Zoekt answers, but not as zoekt-mcp needs (e.g. zoekt-webserver runs without -rpc)',
  INTERNAL: 'a bug in zoekt-mcp, not in the arguments',
};

/**
 * A failure with everything an agent needs to act on it: a stable code, what went wrong,
 * and what to do next. Raised where the cause is seen, never reconstructed from a message.
 */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly retryable: boolean;
  /** For OVERLOADED: how long to wait before calling again. */
  readonly retryAfterMs?: number;

  constructor(code: ErrorCode, message: string, hint: string, options?: { cause?: unknown; retryable?: boolean; retryAfterMs?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
    this.code = code;
    this.hint = hint;
    this.retryable = options?.retryable ?? isRetryable(code);
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  toJSON(): { code: ErrorCode; message: string; hint: string; retryable: boolean; retry_after_ms?: number } {
    const json = { code: this.code, message: this.message, hint: this.hint, retryable: this.retryable };
    return this.retryAfterMs === undefined ? json : { ...json, retry_after_ms: this.retryAfterMs };
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
