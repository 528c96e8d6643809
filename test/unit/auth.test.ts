import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { bearerChecker } from '../../src/server/http/auth.js';

const TOKEN = 'correct-horse-battery-staple';
const req = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

describe('bearerChecker', () => {
  const check = bearerChecker(TOKEN);

  it('accepts the token, with the scheme in any case', () => {
    expect(check(req(`Bearer ${TOKEN}`))).toEqual({ ok: true });
    expect(check(req(`bearer ${TOKEN}`))).toEqual({ ok: true });
    expect(check(req(`BEARER  ${TOKEN} `))).toEqual({ ok: true });
  });

  it('tells a missing header from a wrong one', () => {
    expect(check(req())).toEqual({ ok: false, reason: 'missing' });
    for (const header of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', `Basic ${TOKEN}`, TOKEN, `Bearer ${TOKEN} extra`, `Bearer ${TOKEN.toUpperCase()}`]) {
      expect(check(req(header)), header).toEqual({ ok: false, reason: 'invalid' });
    }
  });
});
