/** One entry of a {@link DeadlineMap}: its key, its value and the deadline it is trusted until. */
export class DeadlineEntry<K, V> {
  constructor(
    readonly key: K,
    readonly value: V,
    /** `performance.now()` from which the entry is no longer answered. */
    readonly expires: number,
  ) {}
}

export interface DeadlineMapOptions<K, V> {
  /** How long an entry is trusted after it is set (`Infinity`: no deadline). */
  ttlMs: number
  /** Most entries kept; setting a new key past it drops the oldest entry first. */
  max: number
  /**
   * When set, {@link DeadlineMap.sweepDue} drops the expired entries at most
   * this often (an entry is otherwise dropped when it is next read).
   */
  sweepIntervalMs?: number
  /** Told of every entry the map drops (deleted, replaced, expired, evicted, swept or cleared). */
  onDrop?: (entry: DeadlineEntry<K, V>) => void
}

/**
 * A `Map` with a deadline per entry, for the hot path's caches in place of
 * lru-cache (whose `get` with a TTL cost ~4 k instructions per call): a read
 * is one `Map` lookup and one comparison. All entries share one TTL and are
 * kept in the order they were set, so the oldest entry (the first) is the
 * one dropped past the bound, and the expired entries are the first ones.
 * Reads do not refresh an entry's place or deadline.
 */
export class DeadlineMap<K, V> {
  readonly #entries = new Map<K, DeadlineEntry<K, V>>()
  readonly #ttlMs: number
  readonly #max: number
  readonly #sweepIntervalMs: number
  readonly #onDrop: ((entry: DeadlineEntry<K, V>) => void) | undefined
  /** `performance.now()` from which {@link sweepDue} sweeps again. */
  #nextSweep: number

  constructor(options: DeadlineMapOptions<K, V>) {
    this.#ttlMs = options.ttlMs
    this.#max = Math.max(1, options.max)
    this.#sweepIntervalMs = options.sweepIntervalMs ?? Number.POSITIVE_INFINITY
    this.#onDrop = options.onDrop
    this.#nextSweep = options.sweepIntervalMs === undefined ? Number.POSITIVE_INFINITY : 0
  }

  get size(): number {
    return this.#entries.size
  }

  /** The entry of `key` if it is still trusted at `now`; an expired one is dropped. */
  entry(key: K, now: number = performance.now()): DeadlineEntry<K, V> | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (now < entry.expires) return entry
    this.#remove(entry)
    return undefined
  }

  /** The value of `key` if it is still trusted at `now`; an expired entry is dropped. */
  get(key: K, now: number = performance.now()): V | undefined {
    return this.entry(key, now)?.value
  }

  /**
   * Keep `value` under `key` until `now` + the TTL, as the newest entry (an
   * entry already under `key` is dropped first; past the bound, the oldest).
   */
  set(key: K, value: V, now: number = performance.now()): DeadlineEntry<K, V> {
    const earlier = this.#entries.get(key)
    if (earlier !== undefined) this.#remove(earlier)
    else if (this.#entries.size >= this.#max)
      this.#remove(this.#entries.values().next().value as DeadlineEntry<K, V>)
    const entry = new DeadlineEntry(key, value, now + this.#ttlMs)
    this.#entries.set(key, entry)
    return entry
  }

  /** Drop the entry of `key`; whether there was one. */
  delete(key: K): boolean {
    const entry = this.#entries.get(key)
    if (entry === undefined) return false
    this.#remove(entry)
    return true
  }

  /** Drop `entry` if it is still the one kept under its key (not one that replaced it). */
  drop(entry: DeadlineEntry<K, V>): void {
    if (this.#entries.get(entry.key) === entry) this.#remove(entry)
  }

  clear(): void {
    const entries = [...this.#entries.values()]
    this.#entries.clear()
    if (this.#onDrop !== undefined) for (const entry of entries) this.#onDrop(entry)
  }

  /** Drop every entry expired at `now` (the first ones, in the order they were set). */
  sweep(now: number = performance.now()): void {
    for (const entry of this.#entries.values()) {
      if (now < entry.expires) break
      this.#remove(entry)
    }
  }

  /** {@link sweep} if the sweep interval has passed since the last one (never without `sweepIntervalMs`). */
  sweepDue(now: number): void {
    if (now < this.#nextSweep) return
    this.#nextSweep = now + this.#sweepIntervalMs
    this.sweep(now)
  }

  #remove(entry: DeadlineEntry<K, V>): void {
    this.#entries.delete(entry.key)
    this.#onDrop?.(entry)
  }
}
