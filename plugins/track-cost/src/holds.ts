import type { KeyValueStore } from '@gov/core'

/** What a call holds against its budgets until its outcome arrives. */
export interface Hold {
  /** The time bucket the estimate was added to. */
  readonly bucket: number
  readonly usd: number
  readonly scopes: readonly string[]
}

/**
 * Estimates held against budgets while their calls are in flight, so that
 * concurrent calls see each other: a call adds its estimate to a held counter
 * (atomic `incr`, which returns the total with every other call's hold in it)
 * before it decides, and takes it back when its outcome arrives. A call whose
 * outcome never comes (a later step refused it, the caller left) cannot take its
 * hold back, so holds live in time buckets of `holdMs`: a hold counts while its
 * bucket is the current or the previous one, then expires with its key, between
 * `holdMs` and twice that after it was taken.
 */
export class Holds {
  readonly #kv: KeyValueStore
  readonly #holdMs: number

  constructor(kv: KeyValueStore, holdMs: number) {
    this.#kv = kv
    this.#holdMs = holdMs
  }

  /** Add `usd` to each scope's hold; returns the hold and each scope's total held now, this one included. */
  async take(scopes: readonly string[], now: number, usd: number): Promise<{ hold: Hold; totals: number[] }> {
    const bucket = Math.floor(now / this.#holdMs)
    const totals = await Promise.all(
      scopes.map(async (scope) => {
        const [current, previous] = await Promise.all([
          this.#kv.incr(this.#key(scope, bucket), usd, 3 * this.#holdMs),
          this.#kv.get(this.#key(scope, bucket - 1)),
        ])
        return Math.max(0, current) + Math.max(0, Number(previous ?? 0) || 0)
      }),
    )
    return { hold: { bucket, usd, scopes }, totals }
  }

  /** Take a hold back (its call was refused, or its outcome arrived). */
  async release(hold: Hold): Promise<void> {
    if (hold.usd === 0) return
    await Promise.all(
      hold.scopes.map((scope) => this.#kv.incr(this.#key(scope, hold.bucket), -hold.usd, 3 * this.#holdMs)),
    )
  }

  /** What is held for one scope now. */
  async held(scope: string, now: number): Promise<number> {
    const bucket = Math.floor(now / this.#holdMs)
    const values = await Promise.all([
      this.#kv.get(this.#key(scope, bucket)),
      this.#kv.get(this.#key(scope, bucket - 1)),
    ])
    return values.reduce((sum, v) => sum + Math.max(0, Number(v ?? 0) || 0), 0)
  }

  #key(scope: string, bucket: number): string {
    return `h:${scope}:${bucket}`
  }
}
