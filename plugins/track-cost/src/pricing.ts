import type { PriceBook, PricedUsage } from '@gov/core'
import type { TrackCostSettings } from './settings.js'

/**
 * A call's usage to price: `inputTokens` is the total input count, the cache
 * counts (read and written) are parts of it (core's `Usage`).
 */
export type CallUsage = { -readonly [K in keyof PricedUsage]: PricedUsage[K] }

/** Most model names whose known-ness is kept. */
const KNOWN_MAX = 1_024

/**
 * Prices of a pipeline: its own `prices` table first (exact model name, USD per
 * million tokens), then the host's price book (bundled genai-prices data).
 */
export class Pricing {
  readonly #table: TrackCostSettings['prices']
  readonly #book: PriceBook
  /** Models the book knows, by provider: whether a model has a price does not change with usage or time. */
  readonly #known = new Map<string, boolean>()

  constructor(table: TrackCostSettings['prices'], book: PriceBook) {
    this.#table = table
    this.#book = book
  }

  /** USD of `usage` on `model`, or undefined when no price is known. */
  cost(model: string, usage: PricedUsage | CallUsage, provider?: string): number | undefined {
    // The own table has one input price: cached tokens are priced as other input tokens.
    const own = Object.hasOwn(this.#table, model) ? this.#table[model] : undefined
    if (own) return (usage.inputTokens * own.input + usage.outputTokens * own.output) / 1_000_000
    const cost = this.#book.cost(model, usage, provider)
    return cost === undefined || !Number.isFinite(cost) ? undefined : cost
  }

  /** True when some price is known for `model`. */
  knows(model: string, provider?: string): boolean {
    const key = `${provider ?? ''}\n${model}`
    let known = this.#known.get(key)
    if (known === undefined) {
      known = this.cost(model, { inputTokens: 1, outputTokens: 1 }, provider) !== undefined
      // Model names come from callers: a bounded memo, started afresh when full.
      if (this.#known.size >= KNOWN_MAX) this.#known.clear()
      this.#known.set(key, known)
    }
    return known
  }
}
