import type { PriceBook, PricedUsage } from '@gov/core'
import { calcPrice, type Provider, type Usage } from '@pydantic/genai-prices'
import { LRUCache } from 'lru-cache'

/** Provider ids of @pydantic/genai-prices per gov provider name. */
const PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  'anthropic-openai': 'anthropic',
}

/** Cached answer for a model no provider data knows. */
const UNKNOWN = Symbol('unknown model')

/** Most (provider, model) names whose resolution is kept; model names come from callers. */
const RESOLUTIONS_MAX = 4_096

/**
 * Model prices from @pydantic/genai-prices' bundled data (never updated over
 * the network: gov makes no call to a hosted service, and never calls
 * `updatePrices`). Unknown models cost `undefined`, and steps decide what that
 * means.
 *
 * Most of a `calcPrice` call is finding the model: matching the name against
 * every model rule of the provider (and its fallback providers) in turn. That
 * part depends only on (provider, model name), so it is done once and kept (in
 * a bounded LRU): the model found is kept as a one-model provider, and later
 * calls hand that to `calcPrice` (`options.provider`). `calcPrice` still
 * chooses the price that applies at the call's time (start dates, time-of-day
 * windows) and prices the usage itself, tiers included, so the answer is the
 * one an uncached call gives, exactly (tested over every model of several
 * providers, many usages and times).
 */
export class GenAiPriceBook implements PriceBook {
  readonly #now: () => Date
  readonly #resolved = new LRUCache<string, Provider | typeof UNKNOWN>({ max: RESOLUTIONS_MAX })

  /** `now` gives the time prices are chosen for (tests move it). */
  constructor(now: () => Date = () => new Date()) {
    this.#now = now
  }

  cost(model: string, usage: PricedUsage, provider?: string): number | undefined {
    const providerId = provider
      ? (PROVIDERS[provider] ?? provider)
      : /^claude/i.test(model)
        ? 'anthropic'
        : 'openai'
    const priced: Usage = {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      ...(usage.cachedInputTokens ? { cache_read_tokens: usage.cachedInputTokens } : {}),
    }
    const timestamp = this.#now()
    // genai-prices rewrites `litellm` model names ("provider/model"); keep its own path for those.
    if (providerId.toLowerCase() === 'litellm')
      return total(() => calcPrice(priced, model, { providerId, timestamp }))
    const key = `${providerId}\n${model}`
    const known = this.#resolved.get(key)
    if (known === UNKNOWN) return undefined
    if (known) return total(() => calcPrice(priced, model, { provider: known, timestamp }))
    try {
      const result = calcPrice(priced, model, { providerId, timestamp })
      if (!result) {
        this.#resolved.set(key, UNKNOWN)
        return undefined
      }
      // The model found, alone: calcPrice finds it again at once (same name, same match rule).
      this.#resolved.set(key, {
        ...result.provider,
        models: [result.model],
        fallback_model_providers: undefined,
      })
      return Number(result.total_price)
    } catch {
      // Bad usage numbers or price data: nothing is learnt about the model.
      return undefined
    }
  }
}

function total(price: () => ReturnType<typeof calcPrice>): number | undefined {
  try {
    const result = price()
    return result ? Number(result.total_price) : undefined
  } catch {
    return undefined
  }
}
