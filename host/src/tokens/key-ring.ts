import type { SigningKey } from './signing-key.js'

interface RetiredKey {
  readonly key: SigningKey
  /** Epoch ms after which no token signed with it can still be valid. */
  readonly until: number
}

/**
 * The signing key in use, the keys it replaced and, optionally, the key that
 * comes next. A replaced key stays published and verifiable until every token
 * it signed has expired, so a rotation never invalidates a token already
 * handed out. The next key is published before it signs anything: verifiers
 * that cache the JWKS (jose refetches an unknown kid at most every 30 s)
 * already know it when a rotation makes it current.
 */
export class KeyRing {
  #current: SigningKey
  #next: SigningKey | undefined
  #retired: RetiredKey[] = []

  constructor(initial: SigningKey, next?: SigningKey) {
    this.#current = initial
    this.#next = next
  }

  /** The key new tokens are signed with. */
  get current(): SigningKey {
    return this.#current
  }

  /** The published key the next rotation switches to, if one was prepared. */
  get next(): SigningKey | undefined {
    return this.#next
  }

  /**
   * Make `key` the signing key and `upcoming` the next one; the previous
   * signing key stays verifiable until `keepUntil` (epoch ms). Returns it.
   */
  replace(key: SigningKey, keepUntil: number, upcoming?: SigningKey): SigningKey {
    const previous = this.#current
    // A key rolled back to an earlier one is current again, not also retired.
    this.#retired = this.#retired.filter((r) => r.key.kid !== key.kid && r.key.kid !== previous.kid)
    if (previous.kid !== key.kid) this.#retired.push({ key: previous, until: keepUntil })
    this.#current = key
    this.#next = upcoming
    return previous
  }

  /** The published key with this `kid` at `now`. */
  find(kid: string | undefined, now: number): SigningKey | undefined {
    if (kid === undefined) return undefined
    if (kid === this.#current.kid) return this.#current
    if (kid === this.#next?.kid) return this.#next
    return this.#retired.find((r) => r.key.kid === kid && r.until >= now)?.key
  }

  /** Every key that can verify tokens at `now`: current, next, then retired; forgets retired ones past their time. */
  published(now: number): SigningKey[] {
    this.#retired = this.#retired.filter((r) => r.until >= now)
    return [this.#current, ...(this.#next ? [this.#next] : []), ...this.#retired.map((r) => r.key)]
  }
}
