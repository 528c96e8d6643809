/**
 * The bearer token check. Both sides are hashed before the constant-time comparison, so neither
 * the time taken nor an early length mismatch tells a caller how much of a guess was right.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type AuthOutcome = { ok: true } | { ok: false; reason: 'missing' | 'invalid' };

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export function bearerChecker(token: string): (req: IncomingMessage) => AuthOutcome {
  const expected = digest(token);
  return (req) => {
    const header = req.headers.authorization;
    if (header === undefined) return { ok: false, reason: 'missing' };
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!m) return { ok: false, reason: 'invalid' };
    return timingSafeEqual(digest(m[1]!), expected) ? { ok: true } : { ok: false, reason: 'invalid' };
  };
}
