import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { calcPrice } from '@pydantic/genai-prices'
import { GenAiPriceBook } from '../../src/usage/price-book.js'

const AT = new Date('2026-11-24T12:00:00Z')

function calc(model: string, usage: Record<string, number>, providerId: string): number | undefined {
  try {
    const result = calcPrice(usage, model, { providerId, timestamp: AT })
    return result ? Number(result.total_price) : undefined
  } catch {
    return undefined
  }
}

describe('GenAiPriceBook: cache writes', () => {
  // Anthropic: input 21 + cache read 3,000 + cache creation 188 = 3,209 total input tokens.
  const usage = {
    inputTokens: 3_209,
    outputTokens: 393,
    cachedInputTokens: 3_000,
    cacheWriteInputTokens: 188,
  }
  const want = { input_tokens: 3_209, output_tokens: 393, cache_read_tokens: 3_000, cache_write_tokens: 188 }

  it('prices cache writes as calcPrice does (cache_write_tokens), before and after the model is cached', () => {
    const book = new GenAiPriceBook(() => AT)
    const expected = calc('claude-sonnet-4-5', want, 'anthropic')
    assert.ok(expected !== undefined && expected > 0)
    for (let round = 0; round < 3; round++)
      assert.equal(book.cost('claude-sonnet-4-5', usage, 'anthropic'), expected)
  })

  it('188 cache-write tokens add (3.75 - 3) USD per million over pricing them as input', () => {
    const book = new GenAiPriceBook(() => AT)
    book.cost('claude-sonnet-4-5', { inputTokens: 1, outputTokens: 1 }, 'anthropic')
    const written = book.cost('claude-sonnet-4-5', usage, 'anthropic') as number
    const withoutWrite = book.cost(
      'claude-sonnet-4-5',
      { inputTokens: 3_209, outputTokens: 393, cachedInputTokens: 3_000 },
      'anthropic',
    ) as number
    // 188 tokens at the write price ($3.75/M) instead of the input price ($3/M).
    assert.ok(written > withoutWrite, `${written} > ${withoutWrite}`)
    assert.ok(
      Math.abs(written - withoutWrite - (188 * (3.75 - 3)) / 1e6) < 1e-12,
      `${written - withoutWrite}`,
    )
  })

  it('one-hour cache writes are priced at cache_write_1h_mtok, as calcPrice does with cache_write_1h_tokens', () => {
    const book = new GenAiPriceBook(() => AT)
    const oneHour = { ...usage, cacheWrite1hInputTokens: 188 }
    const expected = calc('claude-sonnet-4-5', { ...want, cache_write_1h_tokens: 188 }, 'anthropic')
    assert.ok(expected !== undefined)
    for (let round = 0; round < 2; round++)
      assert.equal(book.cost('claude-sonnet-4-5', oneHour, 'anthropic'), expected)
    const fiveMinutes = book.cost('claude-sonnet-4-5', usage, 'anthropic') as number
    // 188 tokens at the one-hour write price ($6/M) instead of the five-minute one ($3.75/M).
    assert.ok(Math.abs((expected as number) - fiveMinutes - (188 * (6 - 3.75)) / 1e6) < 1e-12)
    // Part of the writes for one hour, the rest for five minutes.
    const mixed = book.cost(
      'claude-sonnet-4-5',
      { ...usage, cacheWrite1hInputTokens: 88 },
      'anthropic',
    ) as number
    assert.ok(Math.abs(mixed - fiveMinutes - (88 * (6 - 3.75)) / 1e6) < 1e-12)
    // Zero one-hour writes: the five-minute price.
    assert.equal(
      book.cost('claude-sonnet-4-5', { ...usage, cacheWrite1hInputTokens: 0 }, 'anthropic'),
      fiveMinutes,
    )
  })

  it('zero cache writes are priced like none (the prepared plan)', () => {
    const book = new GenAiPriceBook(() => AT)
    const a = book.cost('claude-sonnet-4-5', { ...usage, cacheWriteInputTokens: 0 }, 'anthropic')
    const b = book.cost(
      'claude-sonnet-4-5',
      { inputTokens: 3_209, outputTokens: 393, cachedInputTokens: 3_000 },
      'anthropic',
    )
    assert.equal(a, b)
    assert.equal(
      a,
      calc(
        'claude-sonnet-4-5',
        { input_tokens: 3_209, output_tokens: 393, cache_read_tokens: 3_000 },
        'anthropic',
      ),
    )
  })

  it('a cache hit on OpenAI costs less than the same input uncached, exactly as calcPrice says', () => {
    const book = new GenAiPriceBook(() => AT)
    const hit = book.cost(
      'gpt-4o',
      { inputTokens: 2_006, outputTokens: 300, cachedInputTokens: 1_920 },
      'openai',
    )
    const miss = book.cost('gpt-4o', { inputTokens: 2_006, outputTokens: 300 }, 'openai')
    assert.equal(
      hit,
      calc('gpt-4o', { input_tokens: 2_006, output_tokens: 300, cache_read_tokens: 1_920 }, 'openai'),
    )
    assert.ok(hit !== undefined && miss !== undefined && hit < miss)
  })
})
