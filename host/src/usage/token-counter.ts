import type { Exchange, TokenCounter } from '@gov/core'
import { countTokens } from 'gpt-tokenizer'
import { LRUCache } from 'lru-cache'

/** Tokens a chat format adds per message (role and separators), as OpenAI documents for its models. */
const PER_MESSAGE = 4

/**
 * Token counts with gpt-tokenizer (o200k, the GPT-4o/o-series encoding; for
 * other vendors' models it is an estimate). Counts are cached per text, so a
 * long conversation costs about its newest message per turn.
 */
export class GptTokenCounter implements TokenCounter {
  readonly #cache = new LRUCache<string, number>({
    max: 20_000,
    maxSize: 32 * 1024 * 1024,
    sizeCalculation: (_v, key) => key.length * 2 + 32,
  })

  count(text: string): number {
    if (text.length === 0) return 0
    let n = this.#cache.get(text)
    if (n === undefined) {
      n = countTokens(text)
      this.#cache.set(text, n)
    }
    return n
  }

  countRequest(exchange: Exchange): number {
    let total = 3
    for (const message of exchange.messages) {
      total += PER_MESSAGE
      for (const part of message.parts) total += this.count(part.text)
    }
    for (const tool of exchange.tools) {
      total += this.count(tool.name) + this.count(tool.description ?? '')
      if (tool.parameters !== undefined) total += this.count(JSON.stringify(tool.parameters))
    }
    return total
  }
}
