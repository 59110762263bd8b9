import { randomUUID } from 'node:crypto'
import type { Flight, Flights, KeyValueStore } from '@gov/core'
import { type EventBus, MemoryEventBus } from '../kv/event-bus.js'
import { MemoryKv } from '../kv/memory-kv.js'
import { LocalFlights } from './local-flights.js'

/** The bus channel that announces finished flights (the message is the flight's key). */
const CHANNEL = 'flights'
/** A finished flight's result stays readable this long for the followers that were waiting. */
const WAKE_KEEP_MS = 5_000
const ABANDONED = '\u0000abandoned'

/**
 * Single flight over the key-value store and the event bus, so it works the
 * same in one process (memory kinds) and across replicas (Redis): the leader
 * holds a lock key (`SET NX PX lease`) whose value is its token, stores its
 * result under a key named by that token and announces the flight's key on the
 * bus; followers read the token, wait for the announcement (no polling) and
 * read the result. A follower checks the result right after it starts
 * listening, so a flight that ended in between is never missed; a leader that
 * crashed frees the key after its lease. `keepMs` keeps a result for callers
 * that join after the flight ended.
 *
 * Over the in-process store and bus (no Redis) nothing is shared beyond this
 * process, and the same rules run in {@link LocalFlights}, which keeps the
 * flights in a map instead of writing a lock key, a result key and a bus
 * message on every call.
 */
export class BusFlights implements Flights {
  readonly #waiters = new Map<string, Set<() => void>>()
  #subscribed: Promise<void> | undefined
  /** Set when the store and bus are the in-process kinds. */
  readonly #local: LocalFlights | undefined

  constructor(
    private readonly kv: KeyValueStore,
    private readonly bus: EventBus,
  ) {
    this.#local = kv instanceof MemoryKv && bus instanceof MemoryEventBus ? new LocalFlights() : undefined
  }

  async join(key: string, leaseMs: number): Promise<Flight> {
    if (this.#local) return this.#local.join(key, leaseMs)
    await this.#listen()
    // A flight that finished within its keep time answers late joiners at once.
    const kept = await this.kv.get(`flight:kept:${key}`)
    if (kept !== undefined) return { role: 'follower', wait: async () => kept }
    const token = randomUUID()
    if (await this.kv.setIfAbsent(`flight:lock:${key}`, token, leaseMs)) {
      return {
        role: 'leader',
        complete: (value, keepMs = 0) => this.#end(key, token, value, keepMs),
        abandon: () => this.#end(key, token, ABANDONED, 0),
      }
    }
    return { role: 'follower', wait: (timeoutMs) => this.#wait(key, timeoutMs) }
  }

  async #end(key: string, token: string, value: string, keepMs: number): Promise<void> {
    // Issued together, in this order, on the store's one connection (one round trip, not three):
    // the result exists before the lock goes, so a follower that finds no lock misses no result.
    await Promise.all([
      this.kv.set(`flight:result:${key}:${token}`, value, WAKE_KEEP_MS),
      keepMs > 0 ? this.kv.set(`flight:kept:${key}`, value, keepMs) : undefined,
      this.kv.del(`flight:lock:${key}`),
    ])
    await this.bus.publish(CHANNEL, key)
  }

  async #wait(key: string, timeoutMs: number): Promise<string | undefined> {
    let wake: () => void = () => {}
    const woken = new Promise<void>((resolve) => {
      wake = resolve
    })
    let set = this.#waiters.get(key)
    if (!set) {
      set = new Set()
      this.#waiters.set(key, set)
    }
    set.add(wake)
    const timer = setTimeout(wake, timeoutMs)
    try {
      // The leader's token names its result, so a follower never reads an earlier flight's.
      const token = await this.kv.get(`flight:lock:${key}`)
      // No leader any more (it just finished or gave up): the caller does the work itself.
      if (token === undefined) return undefined
      const result = `flight:result:${key}:${token}`
      const early = await this.kv.get(result)
      if (early === undefined) await woken
      const value = early ?? (await this.kv.get(result))
      return value === undefined || value === ABANDONED ? undefined : value
    } finally {
      clearTimeout(timer)
      set.delete(wake)
      if (set.size === 0) this.#waiters.delete(key)
    }
  }

  #listen(): Promise<void> {
    this.#subscribed ??= this.bus
      .subscribe(CHANNEL, (key) => {
        for (const wake of this.#waiters.get(key) ?? []) wake()
      })
      .catch((error) => {
        this.#subscribed = undefined
        throw error
      })
    return this.#subscribed
  }
}
