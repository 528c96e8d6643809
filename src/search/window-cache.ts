/**
 * A bounded, short-lived cache of ranked Zoekt windows: the files one search returned for a
 * query, with whether Zoekt had more. A later page of the same query is cut from a cached
 * window instead of asking Zoekt again. It is only a speed-up: cursors never depend on it, so a
 * miss (eviction, restart, another replica) costs one Zoekt call and gives the same page.
 */
import { LRUCache } from 'lru-cache';
import type { FileHit, SearchStatsOut } from '../zoekt/wire.js';

export interface Window {
  /** Files as Zoekt ranked them (not yet re-sorted). */
  files: FileHit[];
  /** How many files were asked for. */
  size: number;
  /** True when Zoekt had nothing beyond these files. */
  exhausted: boolean;
  stats: SearchStatsOut;
}

export interface WindowCacheOptions {
  /** Memory bound in bytes (estimated); 0 turns the cache off. */
  maxBytes: number;
  /** How long a window is served; an index update shows up after at most this long. */
  ttlMs: number;
}

export const WINDOW_CACHE_DEFAULTS: WindowCacheOptions = { maxBytes: 64 * 1024 * 1024, ttlMs: 120_000 };

/** JavaScript strings take two bytes a character; objects and arrays add their overhead. */
function estimateBytes(window: Window): number {
  let bytes = 256;
  for (const f of window.files) {
    bytes += 200 + 2 * (f.repo.length + f.path.length + f.language.length + (f.version?.length ?? 0));
    for (const c of f.chunks) {
      bytes += 100 + 80 * c.ranges.length;
      for (const l of c.lines) bytes += 40 + 2 * l.length;
    }
  }
  return bytes;
}

export class WindowCache {
  private readonly lru: LRUCache<string, Window> | undefined;

  constructor(opts: WindowCacheOptions = WINDOW_CACHE_DEFAULTS) {
    this.lru =
      opts.maxBytes > 0
        ? new LRUCache<string, Window>({ maxSize: opts.maxBytes, ttl: opts.ttlMs, sizeCalculation: (w) => Math.max(1, estimateBytes(w)) })
        : undefined;
  }

  /** A cached window that holds at least `size` ranked files, or all there are. */
  get(key: string, size: number): Window | undefined {
    const w = this.lru?.get(key);
    if (w && (w.exhausted || w.size >= size)) return w;
    return undefined;
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
    if (estimateBytes(window) > (this.lru.maxSize ?? 0)) return;
    this.lru.set(key, window);
  }

  get enabled(): boolean {
    return this.lru !== undefined;
  }
}

const derivedValues = new WeakMap<object, Map<string, unknown>>();

/**
 * A value worked out from a window (its walk order, ranked symbols, usage counts), kept as long
 * as the window is: later pages served from the same cached window do not work it out again.
 */
export function derived<T>(window: object, key: string, compute: () => T): T {
  let values = derivedValues.get(window);
  if (!values) derivedValues.set(window, (values = new Map()));
  if (!values.has(key)) values.set(key, compute());
  return values.get(key) as T;
}
