import type { Flight, Flights } from '@gov/core'

/** Fewest flights and kept results held before the first sweep of expired ones. */
const SWEEP_MIN = 1_024

/** One flight: its leader's lease, until when no other call may lead. */
interface Running {
  readonly until: number
}

/** A follower waiting for the flight it found running. */
interface Waiter {
  readonly flight: Running
  readonly wake: (value: string | undefined) => void
}

/**
 * Single flight inside one process: what {@link BusFlights} does over the
 * in-process key-value store and bus, without going through them. With the
 * in-process kinds nothing is shared beyond this process, so the lock, the
 * result and the announcement need not be store entries and bus messages: a
 * map of running flights and the waiting followers' callbacks do the same,
 * at a fraction of the cost (no lock key, no result key, no bus delivery on
 * every call). Same rules as BusFlights:
 *
 * - a call leads when no flight of its key runs, or when the running flight's
 *   leader let its lease pass (a leader that never ends frees the key then);
 * - a follower's `wait` attaches to the flight running when it is called (none
 *   running: `undefined` at once, the caller goes upstream itself), and gets
 *   that flight's result, `undefined` when its leader abandoned, or on timeout;
 * - a leader that ends frees the key (even after its lease passed and another
 *   call leads: as the lock key's delete does) and wakes every follower of the
 *   key; followers of another flight of the key get `undefined`;
 * - `complete(value, keepMs)` keeps the result for late joiners for `keepMs`.
 *
 * Expired flights and kept results are swept now and then (after the held
 * entries double), so a leader that never ends does not stay in memory.
 */
export class LocalFlights implements Flights {
  readonly #running = new Map<string, Running>()
  readonly #waiters = new Map<string, Set<Waiter>>()
  readonly #kept = new Map<string, { readonly value: string; readonly until: number }>()
  readonly #now: () => number
  #sweepAt = SWEEP_MIN

  /** `now` in milliseconds (tests move it); default `performance.now`, the in-process store's clock. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now
  }

  async join(key: string, leaseMs: number): Promise<Flight> {
    const now = this.#now()
    const kept = this.#kept.get(key)
    if (kept !== undefined) {
      if (kept.until > now) {
        const value = kept.value
        return { role: 'follower', wait: async () => value }
      }
      this.#kept.delete(key)
    }
    const running = this.#running.get(key)
    if (running !== undefined && running.until > now) {
      return { role: 'follower', wait: (timeoutMs) => this.#wait(key, timeoutMs) }
    }
    // As the lock key's TTL: whole milliseconds, rounded up.
    const flight: Running = { until: now + Math.max(0, Math.ceil(leaseMs)) }
    this.#running.set(key, flight)
    if (this.#running.size + this.#kept.size >= this.#sweepAt) this.#sweep(now)
    return {
      role: 'leader',
      complete: async (value, keepMs = 0) => this.#end(key, flight, value, keepMs),
      abandon: async () => this.#end(key, flight, undefined, 0),
      hasFollowers: () => this.#hasFollowers(key, flight),
    }
  }

  /** True when a follower waits for `flight` (followers of an earlier flight of the key do not count). */
  #hasFollowers(key: string, flight: Running): boolean {
    const waiters = this.#waiters.get(key)
    if (waiters === undefined) return false
    for (const waiter of waiters) if (waiter.flight === flight) return true
    return false
  }

  /** Flights and kept results held, expired ones not swept yet included (tests). */
  get size(): number {
    return this.#running.size + this.#kept.size
  }

  #end(key: string, flight: Running, value: string | undefined, keepMs: number): void {
    this.#running.delete(key)
    if (value !== undefined && keepMs > 0)
      this.#kept.set(key, { value, until: this.#now() + Math.ceil(keepMs) })
    const waiters = this.#waiters.get(key)
    if (!waiters) return
    for (const waiter of [...waiters]) waiter.wake(waiter.flight === flight ? value : undefined)
  }

  #wait(key: string, timeoutMs: number): Promise<string | undefined> {
    const flight = this.#running.get(key)
    // No leader any more (it just finished, gave up or let its lease pass): the caller does the work itself.
    if (flight === undefined || flight.until <= this.#now()) return Promise.resolve(undefined)
    let set = this.#waiters.get(key)
    if (!set) {
      set = new Set()
      this.#waiters.set(key, set)
    }
    const waiters = set
    return new Promise<string | undefined>((resolve) => {
      const waiter: Waiter = {
        flight,
        wake: (value) => {
          clearTimeout(timer)
          waiters.delete(waiter)
          if (waiters.size === 0 && this.#waiters.get(key) === waiters) this.#waiters.delete(key)
          resolve(value)
        },
      }
      const timer = setTimeout(() => waiter.wake(undefined), timeoutMs)
      waiters.add(waiter)
    })
  }

  #sweep(now: number): void {
    for (const [key, flight] of this.#running) if (flight.until <= now) this.#running.delete(key)
    for (const [key, kept] of this.#kept) if (kept.until <= now) this.#kept.delete(key)
    this.#sweepAt = Math.max(SWEEP_MIN, 2 * (this.#running.size + this.#kept.size))
  }
}
