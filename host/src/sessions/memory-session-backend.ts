import { LRUCache } from 'lru-cache'
import { StalePurge } from '../kv/stale-purge.js'
import type { SessionBackend } from './session-backend.js'

/** Per-session state in process: an LRU of maps, each entry's TTL renewed by every operation. */
export class MemorySessionBackend implements SessionBackend {
  readonly #hashes: LRUCache<string, Map<string, string>>
  /** Sessions that expired go within a bounded number of new sessions, not only at `maxSessions`. */
  readonly #purge: StalePurge

  constructor(options: { maxSessions?: number; now?: () => number } = {}) {
    this.#hashes = new LRUCache<string, Map<string, string>>({
      max: options.maxSessions ?? 100_000,
      ttlResolution: 0,
      ...(options.now ? { perf: { now: options.now } } : {}),
    })
    this.#purge = new StalePurge(this.#hashes)
  }

  /** The hash, created when absent, with its TTL renewed; without a TTL (an admin's peek) as it is. */
  #open(key: string, ttlMs: number | undefined): Map<string, string> {
    let hash = this.#hashes.get(key)
    if (ttlMs === undefined) return hash ?? new Map()
    if (!hash) {
      hash = new Map()
      this.#purge.wrote()
    }
    this.#hashes.set(key, hash, { ttl: ttlMs })
    return hash
  }

  async get(key: string, field: string, ttlMs: number | undefined) {
    return this.#open(key, ttlMs).get(field)
  }

  async getMany(key: string, fields: readonly string[], ttlMs: number | undefined) {
    const hash = this.#open(key, ttlMs)
    return fields.map((f) => hash.get(f))
  }

  async set(key: string, field: string, value: string, ttlMs: number | undefined) {
    this.#open(key, ttlMs).set(field, value)
  }

  async setIfAbsent(key: string, field: string, value: string, ttlMs: number | undefined) {
    const hash = this.#open(key, ttlMs)
    if (hash.has(field)) return false
    hash.set(field, value)
    return true
  }

  async incr(key: string, field: string, by: number, ttlMs: number | undefined) {
    const hash = this.#open(key, ttlMs)
    const next = Number(hash.get(field) ?? 0) + by
    hash.set(field, String(next))
    return next
  }

  async entries(key: string, ttlMs: number | undefined) {
    return Object.fromEntries(this.#open(key, ttlMs))
  }

  async del(key: string, field: string, ttlMs: number | undefined) {
    this.#open(key, ttlMs).delete(field)
  }

  async clear(key: string) {
    this.#hashes.delete(key)
  }
}
