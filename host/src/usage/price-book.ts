import type { PriceBook, PricedUsage } from '@gov/core'
import { calcPrice } from '@pydantic/genai-prices'

/** Provider ids of @pydantic/genai-prices per gov provider name. */
const PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  'anthropic-openai': 'anthropic',
}

/**
 * Model prices from @pydantic/genai-prices' bundled data (never updated over
 * the network: gov makes no call to a hosted service). Unknown models cost
 * `undefined`, and steps decide what that means.
 */
export class GenAiPriceBook implements PriceBook {
  cost(model: string, usage: PricedUsage, provider?: string): number | undefined {
    const providerId = provider
      ? (PROVIDERS[provider] ?? provider)
      : /^claude/i.test(model)
        ? 'anthropic'
        : 'openai'
    try {
      const result = calcPrice(
        {
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          ...(usage.cachedInputTokens ? { cache_read_tokens: usage.cachedInputTokens } : {}),
        },
        model,
        { providerId },
      )
      return result ? Number(result.total_price) : undefined
    } catch {
      return undefined
    }
  }
}
