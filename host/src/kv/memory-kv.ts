/**
 * The embedded key-value store: an LRU cache, bounded in entries, with a TTL per
 * entry. Single process, so every operation is trivially atomic. When full, the
 * least recently used entry goes first — size `maxEntries` for the number of
 * live sessions, counters and caches one gateway holds.
 */
import type { KeyValueStore } from '@gov/core'
import { LRUCache } from 'lru-cache'
import { notANumberError } from './kv-errors.js'
import { StalePurge } from './stale-purge.js'

/** Options of {@link MemoryKv}. */
export interface MemoryKvOptions {
  /** Most entries kept; default 100 000. */
  maxEntries?: number
  /** Clock for TTLs, in milliseconds; injectable so tests can move time. Default `performance`. */
  now?: () => number
}

/** A {@link KeyValueStore} in process memory. */
export class MemoryKv implements KeyValueStore {
  readonly #cache: LRUCache<string, string>
  /** Expired entries go within a bounded number of writes, not only when `maxEntries` is reached. */
  readonly #purge: StalePurge

  constructor(options: MemoryKvOptions = {}) {
    const { maxEntries = 100_000, now } = options
    this.#cache = new LRUCache<string, string>({
      max: maxEntries,
      // A TTL resolution of 0 reads the clock on every check, so expiry is exact.
      ttlResolution: 0,
      ...(now ? { perf: { now } } : {}),
    })
    this.#purge = new StalePurge(this.#cache)
  }

  /** Entries held, expired ones not swept yet included. */
  get size(): number {
    return this.#cache.size
  }

  async get(key: string): Promise<string | undefined> {
    return this.#cache.get(key)
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    // ttl 0 clears an earlier expiry, as Redis SET without PX does.
    this.#cache.set(key, value, { ttl: toTtl(ttlMs) })
    this.#purge.wrote()
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    if (this.#cache.has(key)) return false
    this.#cache.set(key, value, { ttl: toTtl(ttlMs) })
    this.#purge.wrote()
    return true
  }

  async incr(key: string, by = 1, ttlMs?: number): Promise<number> {
    const current = this.#cache.get(key)
    if (current === undefined) {
      this.#cache.set(key, String(by), { ttl: toTtl(ttlMs) })
      this.#purge.wrote()
      return by
    }
    const value = parseNumber(current)
    if (value === undefined) throw notANumberError(key)
    const next = value + by
    // The TTL applies when the key is created; an update keeps the remaining time.
    this.#cache.set(key, String(next), { noUpdateTTL: true })
    return next
  }

  async del(key: string): Promise<void> {
    this.#cache.delete(key)
  }
}

/** Milliseconds to an lru-cache TTL: 0 means none; partial milliseconds round up, as PX needs integers. */
export function toTtl(ttlMs: number | undefined): number {
  return ttlMs !== undefined && ttlMs > 0 ? Math.ceil(ttlMs) : 0
}

/** A stored value as a number, or undefined when it is not a finite decimal number. */
function parseNumber(text: string): number | undefined {
  if (!/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)) return undefined
  const value = Number(text)
  return Number.isFinite(value) ? value : undefined
}
