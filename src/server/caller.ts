/**
 * Who a call is made for, as far as the tools care: the repositories a signed-in caller may read.
 * The HTTP layer learns it from the request's access token and runs the request's handler within
 * it; every tool call that request carries, through whichever transport code answers it (the
 * SDK's handler, the JSON answers of 2025 requests, a legacy SSE session), runs in that
 * asynchronous context, and the dispatcher confines the call's searcher to it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RepoScope } from '../search/engine/scope.js';

export interface Caller {
  /** The repositories this caller may read, within the server's own scope; absent: the server's. */
  scope?: RepoScope;
  /** Who the caller is (issuer and subject of its access token), when a token said: what a legacy SSE session is bound to. */
  id?: string;
}

const current = new AsyncLocalStorage<Caller>();

/** Runs `fn` for `caller`: the tool calls it makes see only the caller's repositories. */
export function asCaller<T>(caller: Caller | undefined, fn: () => T): T {
  return caller ? current.run(caller, fn) : fn();
}

/** The caller of the work running now, if the transport said. */
export function currentCaller(): Caller | undefined {
  return current.getStore();
}
