import type { KeyValueStore } from '@gov/core'

/**
 * Circuit states, numbered as cockatiel numbers its `CircuitState` (Closed 0,
 * Open 1, HalfOpen 2), which is also the value of the `gov_circuit_state` gauge.
 */
export const CircuitState = { Closed: 0, Open: 1, HalfOpen: 2 } as const

/** What the board says about a call about to go upstream. */
export type Admission =
  | { readonly state: 'closed' }
  /** Open: refuse, and tell the caller when to come back. */
  | { readonly state: 'open'; readonly retryAfterS: number; readonly provider: string }
  /** Half-open: `probe` is true for the one call that may go upstream; the others are refused. */
  | { readonly state: 'half_open'; readonly probe: boolean; readonly provider: string }

/** A change of a circuit's state caused by an outcome. */
export type Transition = 'opened' | 'closed' | 'reopened'

/** The record of an open circuit: until when it refuses calls, and which provider it is about. */
interface OpenRecord {
  readonly until: number
  readonly provider: string
  readonly openedAt: number
}

/** Options of {@link CircuitBoard}. */
export interface CircuitBoardOptions {
  readonly failureThreshold: number
  readonly windowMs: number
  readonly openMs: number
  readonly probeTimeoutMs: number
}

/**
 * Circuit breakers over the shared key-value store, with the semantics of
 * cockatiel's `ConsecutiveBreaker` and `halfOpenAfter` (closed → open after N
 * consecutive failures, a success resets the count; open → half-open after the
 * open time; half-open lets one call through, whose success closes the circuit
 * and whose failure opens it again). cockatiel keeps that state in process and
 * wraps the call itself; here the host makes the call and several replicas
 * share one circuit, so each transition is one atomic store operation instead:
 *
 * - `f:<id>` consecutive failures: `incr` with a TTL of the window, deleted on a success;
 * - `o:<id>` the open record, written with `setIfAbsent` (one replica opens the circuit, and reports it);
 * - `p:<id>` the half-open probe lock, `setIfAbsent` with a lease, so one call probes across all replicas.
 */
export class CircuitBoard {
  readonly #kv: KeyValueStore
  readonly #options: CircuitBoardOptions

  constructor(kv: KeyValueStore, options: CircuitBoardOptions) {
    this.#kv = kv
    this.#options = options
  }

  /** May a call to circuit `id` go upstream now? One read while closed; the probe lock only when half-open. */
  async admit(id: string, now: number, callId: string): Promise<Admission> {
    const raw = await this.#kv.get(`o:${id}`)
    if (raw === undefined) return { state: 'closed' }
    const open = parseOpen(raw)
    if (open === undefined) {
      // Not written by this step (or corrupted): forget it rather than refuse calls forever.
      await this.#kv.del(`o:${id}`)
      return { state: 'closed' }
    }
    if (now < open.until) {
      return {
        state: 'open',
        retryAfterS: Math.max(1, Math.ceil((open.until - now) / 1000)),
        provider: open.provider,
      }
    }
    const probe = await this.#kv.setIfAbsent(`p:${id}`, callId, this.#options.probeTimeoutMs)
    return { state: 'half_open', probe, provider: open.provider }
  }

  /** A call that was not the probe succeeded (or got a 4xx, which is no fault of the provider): reset the count. */
  async success(id: string): Promise<void> {
    await this.#kv.del(`f:${id}`)
  }

  /** A call that was not the probe failed: count it; at the threshold, open the circuit (once, across replicas). */
  async failure(id: string, provider: string, now: number): Promise<Transition | undefined> {
    const failures = await this.#kv.incr(`f:${id}`, 1, this.#options.windowMs)
    if (failures < this.#options.failureThreshold) return undefined
    const opened = await this.#kv.setIfAbsent(`o:${id}`, this.#record(provider, now), this.#recordTtl())
    if (!opened) return undefined
    await this.#kv.del(`f:${id}`)
    return 'opened'
  }

  /** The half-open probe's result: success closes the circuit, failure opens it for another `open` period. */
  async probeResult(id: string, provider: string, now: number, failed: boolean): Promise<Transition> {
    if (failed) {
      await this.#kv.set(`o:${id}`, this.#record(provider, now), this.#recordTtl())
      await this.#kv.del(`p:${id}`)
      return 'reopened'
    }
    await this.#kv.del(`o:${id}`)
    await Promise.all([this.#kv.del(`p:${id}`), this.#kv.del(`f:${id}`)])
    return 'closed'
  }

  #record(provider: string, now: number): string {
    const record: OpenRecord = { until: now + this.#options.openMs, provider, openedAt: now }
    return JSON.stringify(record)
  }

  /** An open record outlives its open time so the next call finds the circuit half-open; a day later, unused, it goes. */
  #recordTtl(): number {
    return this.#options.openMs + 86_400_000
  }
}

function parseOpen(raw: string): OpenRecord | undefined {
  try {
    const value = JSON.parse(raw) as Partial<OpenRecord>
    if (typeof value.until === 'number' && typeof value.provider === 'string') {
      return { until: value.until, provider: value.provider, openedAt: Number(value.openedAt ?? 0) }
    }
  } catch {}
  return undefined
}
