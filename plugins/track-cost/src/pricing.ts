import type { PriceBook, PricedUsage } from '@gov/core'
import type { TrackCostSettings } from './settings.js'

/**
 * Prices of a pipeline: its own `prices` table first (exact model name, USD per
 * million tokens), then the host's price book (bundled genai-prices data).
 */
export class Pricing {
  readonly #table: TrackCostSettings['prices']
  readonly #book: PriceBook

  constructor(table: TrackCostSettings['prices'], book: PriceBook) {
    this.#table = table
    this.#book = book
  }

  /** USD of `usage` on `model`, or undefined when no price is known. */
  cost(model: string, usage: PricedUsage, provider?: string): number | undefined {
    const own = Object.hasOwn(this.#table, model) ? this.#table[model] : undefined
    if (own) return (usage.inputTokens * own.input + usage.outputTokens * own.output) / 1_000_000
    const cost = this.#book.cost(model, usage, provider)
    return cost === undefined || !Number.isFinite(cost) ? undefined : cost
  }

  /** True when some price is known for `model`. */
  knows(model: string, provider?: string): boolean {
    return this.cost(model, { inputTokens: 1, outputTokens: 1 }, provider) !== undefined
  }
}
