import { describe, expect, it } from 'vitest';
import { clientView, unavailableBecause } from '../../src/local/client-view.js';
import type { RepoStatus, SupervisorStatus } from '../../src/local/status.js';

const repo: RepoStatus = { name: 'acme/a', dir: '/src/a', kind: 'git', state: 'ready', has_index: true };

function status(over: Partial<SupervisorStatus> = {}): SupervisorStatus {
  return { protocol: 3, pid: 1, zoekt_url: 'http://127.0.0.1:7001', started_at: '2026-12-07T00:00:00Z', leases: 1, pass: 1, list: '--repo', list_errors: [], repos: [repo], ...over };
}

const facts = { data: '/d', asked: 'http://127.0.0.1:7001' };

describe("a serve process's view of its index", () => {
  it('answers from its own Zoekt, with its repositories', () => {
    const s = status();
    expect(unavailableBecause(s, facts)).toBeUndefined();
    expect(clientView(s, facts)).toBe(s);
  });

  it('answers nothing while the port the user chose is held by another program: BACKEND_MISCONFIGURED, the supervisor\'s words', () => {
    const zoekt_error = { message: 'ZOEKT_PORT=7001 is held by process 9 (zoekt-webserver -index /other)', hint: 'Set ZOEKT_PORT to a free port…', misconfigured: true };
    expect(clientView(status({ zoekt_error }), facts).unavailable).toEqual({ code: 'BACKEND_MISCONFIGURED', message: zoekt_error.message, hint: zoekt_error.hint, retryable: false, zoekt: true });
    // A Zoekt that did not start is a wait, not a setting.
    expect(unavailableBecause(status({ zoekt_error: { ...zoekt_error, misconfigured: false } }), facts)).toMatchObject({ code: 'UNAVAILABLE', retryable: true, zoekt: true });
  });

  it('answers nothing without a lease, or once its Zoekt serves at another URL than the one asked', () => {
    expect(unavailableBecause(status({ starting: true, repos: [] }), { ...facts, leaseError: 'the local supervisor did not start' })).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/no lease on the local supervisor of \/d: the local supervisor did not start/),
      hint: expect.stringMatching(/\/d\/supervisor\.log/),
      zoekt: true,
    });
    expect(unavailableBecause(status({ zoekt_url: 'http://127.0.0.1:7002' }), facts)).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/now serves at http:\/\/127\.0\.0\.1:7002, not at http:\/\/127\.0\.0\.1:7001/),
    });
    // Before the URL is settled, nothing is compared.
    expect(unavailableBecause(status({ zoekt_url: 'http://127.0.0.1:7002' }), { data: '/d' })).toBeUndefined();
  });

  it('answers nothing when its list names no folder there is, naming each, with how to fix it by where the list comes from', () => {
    const bad = ['--repo: /nope: no such directory (/nope)', '--repo: /etc/hosts: is a file, not a folder (/etc/hosts)'];
    expect(unavailableBecause(status({ repos: [], list_errors: bad }), facts)).toEqual({
      code: 'BACKEND_MISCONFIGURED',
      message: `nothing to search: ${bad.join('; ')}`,
      hint: expect.stringMatching(/^Fix it: each --repo of the server's command \(in the MCP client's configuration\) must name a folder/),
      retryable: false,
      zoekt: false,
    });
    expect(unavailableBecause(status({ repos: [], list: '/home/u/repos' }), facts)).toMatchObject({
      message: 'nothing to search: /home/u/repos names no folder',
      hint: expect.stringMatching(/each line of \/home\/u\/repos must name a folder; the file is read again while serving/),
    });
    // Some good entries: they are served (the bad ones make answers partial: freshness.ts).
    expect(unavailableBecause(status({ list_errors: bad }), facts)).toBeUndefined();
    // Not reported yet is not empty.
    expect(unavailableBecause(status({ repos: [], starting: true }), facts)).toBeUndefined();
  });
});
