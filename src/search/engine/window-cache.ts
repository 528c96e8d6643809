/**
 * A bounded, short-lived cache of ranked Zoekt windows: the files one search returned for a
 * query, with whether Zoekt had more. A later page of the same query is cut from a cached
 * window instead of asking Zoekt again. It is only a speed-up: cursors never depend on it, so a
 * miss (eviction, restart, another replica) costs one Zoekt call and gives the same page.
 */
import { LRUCache } from 'lru-cache';
import type { FileHit, SearchStatsOut } from '../../zoekt/wire.js';
import type { Metrics } from '../../metrics.js';
import { derivedBytes, fileHitBytes, stringBytes } from './heap-size.js';

export interface Window {
  /** Files as Zoekt ranked them (not yet re-sorted). */
  files: FileHit[];
  /** How many files were asked for. */
  size: number;
  /** True when Zoekt had nothing beyond these files. */
  exhausted: boolean;
  /**
   * The match cap ran out in a file of this score (SearchResult.cutAt): only files scored above
   * it are known whole and in order.
   */
  cutAt?: number;
  /** Under a match cap: how many of its first files are held in their final places (Searcher.cappedWindow). */
  held?: number;
  /**
   * Files the order leaves out: under a match cap, those a later round met above the cut; and
   * any outside the scope that Zoekt sent all the same. Later rounds exclude them by name.
   */
  dropped?: FileHit[];
  /** The first round of a crowded query (crowded.ts), kept whole as the decision to walk it by path. */
  crowded?: true;
  stats: SearchStatsOut;
}

export interface WindowCacheOptions {
  /** Memory bound in heap bytes (see heap-size.ts); 0 turns the cache off. */
  maxBytes: number;
  /** How long a window is served; an index update shows up after at most this long. */
  ttlMs: number;
}

export const WINDOW_CACHE_DEFAULTS: WindowCacheOptions = { maxBytes: 64 * 1024 * 1024, ttlMs: 120_000 };

/** A window and the values worked out from it: what its cache entry holds in the heap. */
export function windowBytes(window: Window): number {
  let bytes = 24 + 8 * 4 + 24 + 8 * 4 + 48 + 8 * window.files.length;
  for (const f of window.files) bytes += fileHitBytes(f);
  return bytes + (derivedValues.get(window)?.bytes ?? 0);
}

/** The cache's own bookkeeping per entry (lru-cache's slots and key map, the key string). */
const entryBytes = (key: string) => 160 + stringBytes(key);

export class WindowCache {
  private readonly lru: LRUCache<string, Window> | undefined;

  /** `metrics` counts the lookups (get_health, /metrics). */
  constructor(
    opts: WindowCacheOptions = WINDOW_CACHE_DEFAULTS,
    private readonly metrics?: Pick<Metrics, 'cacheLookup' | 'watchCache'>,
  ) {
    metrics?.watchCache(() => ({ bytes: this.bytes, max_bytes: opts.maxBytes }));
    this.lru =
      opts.maxBytes > 0
        ? new LRUCache<string, Window>({ maxSize: opts.maxBytes, ttl: opts.ttlMs })
        : undefined;
  }

  /** A cached window that holds at least `size` ranked files, or all there are. */
  get(key: string, size: number): Window | undefined {
    if (!this.lru) return undefined;
    const w = this.lru.get(key);
    const hit = w !== undefined && (w.exhausted || w.size >= size);
    this.metrics?.cacheLookup(hit);
    return hit ? w : undefined;
  }

  /** A page cut from a window found without get() (Searcher.filePage peeks first). */
  countHit(): void {
    this.metrics?.cacheLookup(true);
  }

  /** Whatever window is cached for the key, however large. */
  peek(key: string): Window | undefined {
    return this.lru?.get(key);
  }

  set(key: string, window: Window): void {
    if (!this.lru) return;
    const old = this.lru.peek(key);
    // Keep the larger window: it answers every request the smaller one could.
    if (old && !window.exhausted && (old.exhausted || old.size >= window.size)) return;
    const size = windowBytes(window) + entryBytes(key);
    if (size > (this.lru.maxSize ?? 0)) return;
    this.lru.set(key, window, { size });
    // A value worked out from the window later makes the entry larger: count it, which may evict others.
    resized.set(window, () => {
      if (this.lru?.peek(key) !== window) return;
      // lru-cache sizes an entry when it is set with a new value only: take it out and put it back.
      this.lru.delete(key);
      const size = windowBytes(window) + entryBytes(key);
      if (size <= (this.lru.maxSize ?? 0)) this.lru.set(key, window, { size });
    });
  }

  /** Forgets every window. */
  clear(): void {
    this.lru?.clear();
  }

  /** Heap bytes of the cached windows, as counted against the budget. */
  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  get enabled(): boolean {
    return this.lru !== undefined;
  }
}

const derivedValues = new WeakMap<object, { values: Map<string, unknown>; bytes: number }>();
const resized = new WeakMap<object, () => void>();

/**
 * A value worked out from a window (its walk order, ranked symbols, usage counts), kept as long
 * as the window is: later pages served from the same cached window do not work it out again.
 * Its heap bytes count towards the window's cache entry.
 */
export function derived<T>(window: object, key: string, compute: () => T): T {
  let memo = derivedValues.get(window);
  if (!memo) derivedValues.set(window, (memo = { values: new Map(), bytes: 0 }));
  if (!memo.values.has(key)) {
    const value = compute();
    memo.values.set(key, value);
    memo.bytes += 64 + stringBytes(key) + derivedBytes(value);
    resized.get(window)?.();
  }
  return memo.values.get(key) as T;
}

let nextWindowId = 0;
const windowIds = new WeakMap<object, number>();

/** A short name for a window object, for keys of values that depend on two windows. */
export function windowId(window: object): number {
  let id = windowIds.get(window);
  if (id === undefined) windowIds.set(window, (id = ++nextWindowId));
  return id;
}
