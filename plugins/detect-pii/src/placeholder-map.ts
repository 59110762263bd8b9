import { createHash } from 'node:crypto'
import type { KeyValueStore } from '@gov/core'
import type { PiiType } from './pii-types.js'

/** A placeholder as it appears in text: `<PERSON_1>`, `<EMAIL_ADDRESS_2>`. */
export const PLACEHOLDER = /<([A-Z][A-Z_]*[A-Z])_(\d{1,6})>/g

/** Cache of assignments already read from the store: (session, type, value) → placeholder. */
export type AssignmentCache = {
  get(key: string): string | undefined
  set(key: string, value: string): unknown
}

function digest(type: string, value: string): string {
  return createHash('sha256').update(`${type}\u0000${value}`).digest('base64url').slice(0, 32)
}

/**
 * The value ↔ placeholder mapping of one call. With a session id it lives in
 * the shared key-value store, so `Jane Doe` is `<PERSON_1>` on every turn of
 * the session and on every replica; without one it lives in this object only.
 *
 * Assignment is race-free across concurrent calls of one session: a number is
 * taken with an atomic `incr`, and the value is bound with `setIfAbsent`; the
 * loser of a race adopts the winner's placeholder (its number stays unused).
 * Store keys name the value by a hash; the stored placeholder → value entry
 * holds the value itself, because restoring needs it.
 */
export class PlaceholderMap {
  readonly #byValue = new Map<string, string>()
  readonly #byPlaceholder = new Map<string, string>()
  readonly #counters = new Map<string, number>()

  constructor(
    private readonly kv: KeyValueStore,
    private readonly sessionId: string | undefined,
    private readonly ttlMs: number,
    private readonly cache?: AssignmentCache,
  ) {}

  /** The placeholder for `value`, assigning the next free number of its type if it has none yet. */
  async placeholderFor(type: PiiType, value: string): Promise<string> {
    const local = `${type}\u0000${value}`
    const known = this.#byValue.get(local)
    if (known) return known
    const placeholder = this.sessionId
      ? await this.#sessionPlaceholder(type, value)
      : this.#callPlaceholder(type)
    this.#byValue.set(local, placeholder)
    this.#byPlaceholder.set(placeholder, value)
    return placeholder
  }

  /** The original value behind a placeholder: this call's first, then the session's. */
  async valueOf(placeholder: string): Promise<string | undefined> {
    const local = this.#byPlaceholder.get(placeholder)
    if (local !== undefined || !this.sessionId) return local
    const stored = await this.kv.get(`pii:p:${this.sessionId}:${placeholder}`)
    if (stored !== undefined) this.#byPlaceholder.set(placeholder, stored)
    return stored
  }

  /** True when the value was masked in this call (the agent sent it). */
  hasValue(value: string): boolean {
    for (const v of this.#byPlaceholder.values()) if (v === value) return true
    return false
  }

  /** Number of values mapped in this call. */
  get size(): number {
    return this.#byPlaceholder.size
  }

  #callPlaceholder(type: PiiType): string {
    const next = (this.#counters.get(type) ?? 0) + 1
    this.#counters.set(type, next)
    return `<${type}_${next}>`
  }

  async #sessionPlaceholder(type: PiiType, value: string): Promise<string> {
    const session = this.sessionId as string
    const valueKey = `pii:v:${session}:${digest(type, value)}`
    const cached = this.cache?.get(valueKey)
    if (cached) return cached
    let placeholder = await this.kv.get(valueKey)
    if (!placeholder) {
      const n = await this.kv.incr(`pii:n:${session}:${type}`, 1, this.ttlMs)
      const candidate = `<${type}_${n}>`
      // Bind the reverse entry first, so whoever reads the value binding can always restore it.
      await this.kv.set(`pii:p:${session}:${candidate}`, value, this.ttlMs)
      placeholder = (await this.kv.setIfAbsent(valueKey, candidate, this.ttlMs))
        ? candidate
        : ((await this.kv.get(valueKey)) ?? candidate)
    }
    this.cache?.set(valueKey, placeholder)
    return placeholder
  }
}
