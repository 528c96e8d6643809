/**
 * The parts of undici the Zoekt client uses: a connection pool per origin (Agent), a request sent
 * through it, and undici's error classes. undici's index loads all of undici (fetch, WebSocket,
 * cookies, caches, mocks), and its fetch part loads Node's own copy of undici besides: about
 * 70 ms of a server's first call against 25 for these three files (bench/README.md, "Start-up").
 * undici has no `exports` map, so its files are reachable by path; the paths are those of the
 * version package-lock.json pins, and test/unit/undici.test.ts sends a request through them.
 */
import { setFlagsFromString } from 'node:v8';
import type { Agent, Dispatcher, errors } from 'undici';

/** A CommonJS file's exports: `default` from Node's loader and from a bundle's lazy chunk alike. */
const exportsOf = async <T>(loading: Promise<{ default: T }>): Promise<T> => (await loading).default;

export interface Undici {
  /**
   * undici's type says an Agent has request() and stream(); undici's index adds them, so they are
   * not there when it is not loaded: send with `request` below.
   */
  Agent: typeof Agent;
  /** A request through `dispatcher`; `url` gives its origin and path. */
  request(dispatcher: Dispatcher, url: URL, opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>): Promise<Dispatcher.ResponseData>;
  errors: typeof errors;
}

let loading: Promise<Undici> | undefined;

/**
 * undici parses HTTP with llhttp, compiled to WebAssembly, and V8 optimises a WebAssembly function
 * once it has run for a budget (--wasm-tiering-budget: 1.8M in Node 20's V8, 13M in Node 22's and
 * 24's). llhttp's parser spends Node 20's within a server's first few requests to Zoekt, and
 * optimising it costs CPU on V8's own threads: without it a short stdio session (start, two
 * searches) took 0.82-0.86x the server's CPU on Node 20, 22 and 24. Parsing is a small part of a
 * call (the JSON and the page are most of it): bench/protocol.sh's latency and HTTP throughput
 * came out at 0.99-1.07x (bench/README.md, "Start-up"). With this budget llhttp is optimised only
 * after far more parsing; how much more was not measured. The flag is the process's: the
 * extractor, whose grammars gain from optimising, runs in the supervisor or the indexer.
 */
const LLHTTP_TIERING_BUDGET = 1_000_000_000;

/** Loads the parts once, with the first request: starting and answering tools/list do not wait for them. */
export function loadUndici(): Promise<Undici> {
  if (loading) return loading;
  // Before undici compiles llhttp (with its first connection), so that its functions start with it.
  setFlagsFromString(`--wasm-tiering-budget=${LLHTTP_TIERING_BUDGET}`);
  return (loading = Promise.all([
    exportsOf(import('undici/lib/dispatcher/agent.js')),
    exportsOf(import('undici/lib/api/index.js')),
    exportsOf(import('undici/lib/core/errors.js')),
  ]).then(([agent, api, errs]) => ({
    Agent: agent,
    // What undici's index does for its own request(): the URL split into origin and path.
    request: (dispatcher, url, opts) => api.request.call(dispatcher, { ...opts, origin: url.origin, path: `${url.pathname}${url.search}` }),
    errors: errs,
  })));
}
