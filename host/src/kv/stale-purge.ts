/** Fewest writes between two sweeps. */
const MIN_WRITES = 1_024

/**
 * Drops expired entries of an lru-cache now and then. lru-cache removes an
 * expired entry only when it is read or pushed out by the entry bound, so
 * short-lived keys written once and never read again (a single flight's
 * result, a hold) would otherwise stay until `max` entries exist — hundreds of
 * MB of dead answers. A sweep runs after `max(1 024, size / 4)` writes: O(1)
 * amortised per write, no timer, and dead entries never exceed about a quarter
 * of the live ones (plus 1 024).
 */
export class StalePurge {
  #writes = 0

  constructor(private readonly cache: { readonly size: number; purgeStale(): boolean }) {}

  /** Count one write; sweep when enough have happened since the last sweep. */
  wrote(): void {
    if (++this.#writes < MIN_WRITES || this.#writes < this.cache.size / 4) return
    this.#writes = 0
    this.cache.purgeStale()
  }
}
