import { randomUUID } from 'node:crypto'
import type { Flight, Flights, KeyValueStore } from '@gov/core'
import { type EventBus, MemoryEventBus } from '../kv/event-bus.js'
import { MemoryKv } from '../kv/memory-kv.js'
import { RedisKv } from '../kv/redis-kv.js'
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
    const token = randomUUID()
    const kept = `flight:kept:${key}`
    const lock = `flight:lock:${key}`
    let locked: boolean
    if (this.kv instanceof RedisKv) {
      // Redis: the kept-result check and the lock in one script, one round trip.
      const joined = await this.kv.getOrLock(kept, lock, token, leaseMs)
      if (joined.found !== undefined) return this.#kept(joined.found)
      locked = joined.locked
    } else {
      // A flight that finished within its keep time answers late joiners at once.
      const value = await this.kv.get(kept)
      if (value !== undefined) return this.#kept(value)
      locked = await this.kv.setIfAbsent(lock, token, leaseMs)
    }
    if (locked) {
      return {
        role: 'leader',
        complete: (value, keepMs = 0) => this.#end(key, token, value, keepMs),
        abandon: () => this.#end(key, token, ABANDONED, 0),
      }
    }
    return { role: 'follower', wait: (timeoutMs) => this.#wait(key, timeoutMs) }
  }

  #kept(value: string): Flight {
    return { role: 'follower', wait: async () => value }
  }

  async #end(key: string, token: string, value: string, keepMs: number): Promise<void> {
    const writes = [
      this.kv.set(`flight:result:${key}:${token}`, value, WAKE_KEEP_MS),
      keepMs > 0 ? this.kv.set(`flight:kept:${key}`, value, keepMs) : undefined,
      this.kv.del(`flight:lock:${key}`),
    ]
    // Issued together, in this order, on the store's one connection: the result exists before the
    // lock goes, so a follower that finds no lock misses no result. On Redis the announcement goes
    // on the same connection (the bus publishes on the store's client) right behind them, and Redis
    // runs commands in order: one round trip, not two. Should a write fail, woken followers find no
    // result and go upstream themselves, as after a timeout.
    if (this.kv instanceof RedisKv) {
      await Promise.all([...writes, this.bus.publish(CHANNEL, key)])
      return
    }
    await Promise.all(writes)
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
