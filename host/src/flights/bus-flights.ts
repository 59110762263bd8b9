import { randomUUID } from 'node:crypto'
import type { Flight, Flights, KeyValueStore } from '@gov/core'
import type { EventBus } from '../kv/event-bus.js'

/** The bus channel that announces finished flights (the message is the flight's key). */
const CHANNEL = 'flights'
/** A finished flight's result stays readable at least this long, for followers that join late. */
const MIN_KEEP_MS = 5_000
const ABANDONED = '\u0000abandoned'

/**
 * Single flight over the key-value store and the event bus, so it works the
 * same in one process (memory kinds) and across replicas (Redis): the leader
 * holds a lock key (`SET NX PX lease`), stores its result under a result key
 * and announces the flight's key on the bus; followers wait for the
 * announcement (no polling) and read the result. A follower checks the result
 * and the lock right after it starts listening, so a flight that ended in
 * between is never missed; a leader that crashed frees the key after its lease.
 */
export class BusFlights implements Flights {
  readonly #waiters = new Map<string, Set<() => void>>()
  #subscribed: Promise<void> | undefined

  constructor(
    private readonly kv: KeyValueStore,
    private readonly bus: EventBus,
  ) {}

  async join(key: string, leaseMs: number): Promise<Flight> {
    await this.#listen()
    const token = randomUUID()
    if (await this.kv.setIfAbsent(`flight:lock:${key}`, token, leaseMs)) {
      return {
        role: 'leader',
        complete: (value, keepMs = 0) => this.#end(key, value, Math.max(keepMs, MIN_KEEP_MS)),
        abandon: () => this.#end(key, ABANDONED, MIN_KEEP_MS),
      }
    }
    return { role: 'follower', wait: (timeoutMs) => this.#wait(key, timeoutMs) }
  }

  async #end(key: string, value: string, keepMs: number): Promise<void> {
    await this.kv.set(`flight:result:${key}`, value, keepMs)
    await this.kv.del(`flight:lock:${key}`)
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
      // The flight may have ended before this follower started listening.
      const [result, lock] = await Promise.all([
        this.kv.get(`flight:result:${key}`),
        this.kv.get(`flight:lock:${key}`),
      ])
      if (result !== undefined) return result === ABANDONED ? undefined : result
      if (lock === undefined) return undefined
      await woken
      const value = await this.kv.get(`flight:result:${key}`)
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
