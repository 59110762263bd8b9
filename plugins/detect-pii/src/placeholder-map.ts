import { createHash } from 'node:crypto'
import type { SessionState } from '@gov/core'
import type { PiiType } from './pii-types.js'

/** A placeholder as it appears in text: `<PERSON_1>`, `<EMAIL_ADDRESS_2>`. */
export const PLACEHOLDER = /<([A-Z][A-Z_]*[A-Z])_(\d{1,6})>/g

/** A field name for a value: its hash, so field names never carry the value. */
function digest(type: string, value: string): string {
  return createHash('sha256').update(`${type}\u0000${value}`).digest('base64url').slice(0, 32)
}

/**
 * The value ↔ placeholder mapping of one call. With a session it lives in the
 * host's session state — keyed by (agent, session), so another agent sending
 * the same session id sees none of it — and `Jane Doe` is `<PERSON_1>` on every
 * turn of the session and on every replica; without one it lives in this
 * object only. Nothing is cached across calls in process: the counters and
 * the bindings live in one session namespace that expires as a whole (sliding
 * TTL), so no replica can hold an assignment the store has forgotten.
 *
 * Assignment is race-free across concurrent calls of one session: a number is
 * taken with an atomic `incr`, and the value is bound with `setIfAbsent`; the
 * loser of a race adopts the winner's placeholder (its number stays unused).
 * Fields name the value by a hash; the placeholder → value field holds the
 * value itself, because restoring needs it.
 */
export class PlaceholderMap {
  readonly #byValue = new Map<string, string>()
  readonly #byPlaceholder = new Map<string, string>()
  readonly #counters = new Map<string, number>()

  /** @param session the call's session state, or undefined when the caller sent no session id */
  constructor(private readonly session: SessionState | undefined) {}

  /** The placeholder for `value`, assigning the next free number of its type if it has none yet. */
  async placeholderFor(type: PiiType, value: string): Promise<string> {
    const local = `${type}\u0000${value}`
    const known = this.#byValue.get(local)
    if (known) return known
    const placeholder = this.session
      ? await this.#sessionPlaceholder(this.session, type, value)
      : this.#callPlaceholder(type)
    this.#byValue.set(local, placeholder)
    this.#byPlaceholder.set(placeholder, value)
    return placeholder
  }

  /** The original value behind a placeholder: this call's first, then the session's. */
  async valueOf(placeholder: string): Promise<string | undefined> {
    const local = this.#byPlaceholder.get(placeholder)
    if (local !== undefined || !this.session) return local
    const stored = await this.session.get(`p:${placeholder}`)
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

  async #sessionPlaceholder(session: SessionState, type: PiiType, value: string): Promise<string> {
    const valueField = `v:${digest(type, value)}`
    const known = await session.get(valueField)
    if (known) return known
    const n = await session.incr(`n:${type}`)
    const candidate = `<${type}_${n}>`
    // Bind the reverse entry first, so whoever reads the value binding can always restore it.
    await session.set(`p:${candidate}`, value)
    if (await session.setIfAbsent(valueField, candidate)) return candidate
    return (await session.get(valueField)) ?? candidate
  }
}
