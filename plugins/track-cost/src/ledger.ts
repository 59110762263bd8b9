import type { KeyValueStore, SessionState } from '@gov/core'

/** Field of a session's spend in its state. */
export const SESSION_USD = 'usd'

/** The UTC day and month of a time, as keys and for the spend view. */
export function periodsOf(now: number): { day: string; month: string } {
  const iso = new Date(now).toISOString()
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) }
}

/** Seconds from `now` to the next UTC midnight, and to the first of next month (when daily and monthly budgets renew). */
export function secondsToRenewal(now: number): { day: number; month: number } {
  const d = new Date(now)
  const nextDay = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
  const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return { day: Math.ceil((nextDay - now) / 1000), month: Math.ceil((nextMonth - now) / 1000) }
}

/** A day's key lives two days, a month's two months: long enough to be read for the whole period. */
const DAY_TTL_MS = 2 * 86_400_000
const MONTH_TTL_MS = 62 * 86_400_000

const DAY_MS = 86_400_000
/** Most agent ids whose encoded form is kept. */
const AGENTS_MAX = 4_096

/** Spend read for one agent (and session). */
export interface Spend {
  readonly day: number
  readonly month: number
  /** Undefined without a session. */
  readonly session: number | undefined
}

/**
 * Spend per agent per UTC day and month in the key-value store (the agent id,
 * encoded, is in every key), and per session in the session's state. Adding is
 * one atomic float increment per counter, so concurrent calls on any replica
 * never lose an addition.
 */
export class Ledger {
  readonly #kv: KeyValueStore
  /** The UTC day `now` fell in last time, and its day and month: a new Date and ISO text only when the day changes. */
  #period: { readonly from: number; readonly to: number; readonly day: string; readonly month: string } = {
    from: 0,
    to: 0,
    day: '',
    month: '',
  }
  /** Encoded agent ids (a bounded memo, started afresh when full). */
  readonly #agents = new Map<string, string>()

  constructor(kv: KeyValueStore) {
    this.#kv = kv
  }

  async read(agentId: string, now: number, session: SessionState | undefined): Promise<Spend> {
    const keys = this.#keys(agentId, now)
    const [day, month, sessionUsd] = await Promise.all([
      this.#kv.get(keys.day),
      this.#kv.get(keys.month),
      session?.get(SESSION_USD),
    ])
    return {
      day: toUsd(day),
      month: toUsd(month),
      session: session === undefined ? undefined : toUsd(sessionUsd),
    }
  }

  async add(agentId: string, now: number, session: SessionState | undefined, usd: number): Promise<void> {
    const keys = this.#keys(agentId, now)
    await Promise.all([
      this.#kv.incr(keys.day, usd, DAY_TTL_MS),
      this.#kv.incr(keys.month, usd, MONTH_TTL_MS),
      session?.incr(SESSION_USD, usd),
    ])
  }

  #keys(agentId: string, now: number): { day: string; month: string } {
    let agent = this.#agents.get(agentId)
    if (agent === undefined) {
      agent = encodeURIComponent(agentId)
      if (this.#agents.size >= AGENTS_MAX) this.#agents.clear()
      this.#agents.set(agentId, agent)
    }
    let period = this.#period
    if (!(now >= period.from && now < period.to)) {
      const from = now - (((now % DAY_MS) + DAY_MS) % DAY_MS)
      period = { from, to: from + DAY_MS, ...periodsOf(now) }
      this.#period = period
    }
    return { day: `d:${agent}:${period.day}`, month: `m:${agent}:${period.month}` }
  }
}

/** A stored amount; anything unreadable counts as nothing spent rather than failing every call. */
export function toUsd(raw: string | undefined): number {
  const n = raw === undefined ? 0 : Number(raw)
  return Number.isFinite(n) && n > 0 ? n : 0
}

/** USD rounded to a billionth, to keep float noise out of views and messages. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e9) / 1e9
}
