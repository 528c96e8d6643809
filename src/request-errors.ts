/**
 * What the HTTP clients of this server (zoekt/client.ts to Zoekt, definitions-index/weaviate-client.ts
 * to Weaviate) share about a request: the system error code a failure carries, and the signal
 * that ends it at the caller's abort or at its deadline.
 */

/** undici and Node put the system error code on the error or on its cause. */
export function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      e = errors[0];
      continue;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A signal that aborts with `signal` or at `deadline` (epoch ms), whichever comes first. */
export function untilDeadline(signal: AbortSignal | undefined, deadline: number): AbortSignal {
  const timeout = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}
