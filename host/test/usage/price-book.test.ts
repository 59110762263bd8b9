import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { calcPrice, findProvider } from '@pydantic/genai-prices'
import { GenAiPriceBook } from '../../src/usage/price-book.js'
import { ALL_PROVIDER_IDS, random, randomUsage } from './price-fixtures.js'

/** Providers of the bundled data, with start-date, time-of-day and tiered prices among their models. */
const PROVIDER_IDS = ['openai', 'anthropic', 'google', 'deepseek', 'mistral', 'x-ai', 'groq']

/** Times across dates the data changes prices on and across a day (time-of-day windows). */
const TIMES = [
  '2024-06-01T12:00:00Z',
  '2025-06-01T00:10:00Z',
  '2025-12-18T16:29:59Z',
  '2026-03-13T16:30:00Z',
  '2026-08-17T01:30:00Z',
  '2026-08-17T05:00:00Z',
  '2026-08-21T07:15:00Z',
  '2026-11-24T23:59:59Z',
  '2027-01-02T09:59:00Z',
].map((t) => new Date(t))

/** Small, large (past tier starts such as 200k) and cached-input usages. */
const USAGES = [
  { inputTokens: 0, outputTokens: 0 },
  { inputTokens: 1, outputTokens: 1 },
  { inputTokens: 1_234, outputTokens: 567 },
  { inputTokens: 150_000, outputTokens: 8_000, cachedInputTokens: 100_000 },
  { inputTokens: 200_000, outputTokens: 1 },
  { inputTokens: 200_001, outputTokens: 33_333, cachedInputTokens: 7 },
  { inputTokens: 1_000_000, outputTokens: 1_000_000, cachedInputTokens: 999_999 },
  { inputTokens: 37, outputTokens: 2_048, cachedInputTokens: 37 },
]

interface BookUsage {
  inputTokens: number
  outputTokens: number
  cachedInputTokens?: number
}

function uncached(model: string, usage: BookUsage, providerId: string, timestamp: Date): number | undefined {
  try {
    const result = calcPrice(
      {
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        ...(usage.cachedInputTokens ? { cache_read_tokens: usage.cachedInputTokens } : {}),
      },
      model,
      { providerId, timestamp },
    )
    return result ? Number(result.total_price) : undefined
  } catch {
    return undefined
  }
}

describe('GenAiPriceBook', () => {
  it('answers exactly what an uncached calcPrice answers, over every model of several providers, usages and times', () => {
    let time = TIMES[0] as Date
    const book = new GenAiPriceBook(() => time)
    let compared = 0
    let priced = 0
    const kinds = { tiered: 0, conditional: 0 }
    for (const providerId of PROVIDER_IDS) {
      const provider = findProvider({ providerId })
      assert.ok(provider, providerId)
      for (const model of provider.models) {
        if (Array.isArray(model.prices)) kinds.conditional++
        const flat = Array.isArray(model.prices) ? model.prices.map((p) => p.prices) : [model.prices]
        if (flat.some((p) => Object.values(p).some((v) => typeof v === 'object'))) kinds.tiered++
        // The model's id and a dated variant (genai-prices normalises -YYYYMMDD suffixes).
        for (const name of [model.id, `${model.id}-20250101`]) {
          // Each time twice: the first call resolves the model, the second answers from the cache.
          for (const at of TIMES) {
            time = at
            for (const usage of USAGES) {
              for (let round = 0; round < 2; round++) {
                const want = uncached(name, usage, providerId, at)
                assert.equal(
                  book.cost(name, usage, providerId),
                  want,
                  `${providerId} ${name} ${at.toISOString()}`,
                )
                compared++
                if (want !== undefined) priced++
              }
            }
          }
        }
      }
    }
    assert.ok(compared > 10_000, `compared ${compared}`)
    assert.ok(priced > compared / 3, `priced ${priced} of ${compared}`)
    assert.ok(kinds.tiered > 5 && kinds.conditional > 5, JSON.stringify(kinds))
  })

  it('answers exactly what an uncached calcPrice answers over every model of every bundled provider, random usages (also ones only calcPrice prices) and times', () => {
    const next = random(41)
    let time = TIMES[0] as Date
    const book = new GenAiPriceBook(() => time)
    const warn = console.warn
    console.warn = () => {}
    let compared = 0
    let priced = 0
    try {
      for (const providerId of ALL_PROVIDER_IDS) {
        const provider = findProvider({ providerId })
        assert.ok(provider, providerId)
        for (const model of provider.models) {
          for (let i = 0; i < 6; i++) {
            time = TIMES[Math.floor(next() * TIMES.length)] as Date
            const plan = randomUsage(next)
            const roll = next()
            // Mostly what providers report; some fractional, huge, negative or NaN counts (calcPrice's own path).
            const usage: BookUsage =
              roll < 0.8
                ? { inputTokens: plan.input, outputTokens: plan.output, cachedInputTokens: plan.cached }
                : roll < 0.85
                  ? { inputTokens: plan.input + 0.5, outputTokens: plan.output }
                  : roll < 0.9
                    ? {
                        inputTokens: 2 ** 41 + plan.input,
                        outputTokens: plan.output,
                        cachedInputTokens: plan.cached,
                      }
                    : roll < 0.95
                      ? {
                          inputTokens: plan.input,
                          outputTokens: plan.output,
                          cachedInputTokens: -plan.cached - 1,
                        }
                      : { inputTokens: plan.input, outputTokens: plan.output, cachedInputTokens: Number.NaN }
            for (let round = 0; round < 2; round++) {
              const want = uncached(model.id, usage, providerId, time)
              const got = book.cost(model.id, usage, providerId)
              assert.ok(
                Object.is(got, want),
                `${providerId} ${model.id} ${time.toISOString()} ${JSON.stringify(usage)}: ${got} != ${want}`,
              )
              compared++
              if (want !== undefined) priced++
            }
          }
        }
      }
    } finally {
      console.warn = warn
    }
    assert.ok(compared > 15_000, `compared ${compared}`)
    assert.ok(priced > compared / 2, `priced ${priced} of ${compared}`)
  })

  it('keeps time-of-day prices correct after the model is cached', () => {
    let time = new Date('2026-11-24T02:00:00Z')
    const book = new GenAiPriceBook(() => time)
    const usage = { inputTokens: 10_000, outputTokens: 10_000 }
    const deepseek = findProvider({ providerId: 'deepseek' })
    const model = deepseek?.models.find(
      (m) => Array.isArray(m.prices) && m.prices.some((p) => p.constraint?.type === 'time_of_date'),
    )
    assert.ok(model, 'a model with a time-of-day price')
    const night = book.cost(model.id, usage, 'deepseek')
    time = new Date('2026-11-24T20:00:00Z')
    const evening = book.cost(model.id, usage, 'deepseek')
    assert.notEqual(night, evening)
    assert.equal(evening, uncached(model.id, usage, 'deepseek', time))
  })

  it('maps gov provider names and guesses the provider from the model name', () => {
    const at = new Date('2026-11-24T12:00:00Z')
    const book = new GenAiPriceBook(() => at)
    const usage = { inputTokens: 1_000, outputTokens: 100 }
    const sonnet = uncached('claude-sonnet-4-5', usage, 'anthropic', at)
    assert.ok(sonnet !== undefined && sonnet > 0)
    for (let round = 0; round < 2; round++) {
      assert.equal(book.cost('claude-sonnet-4-5', usage), sonnet)
      assert.equal(book.cost('claude-sonnet-4-5', usage, 'anthropic-openai'), sonnet)
      assert.equal(book.cost('gpt-4o-mini', usage), uncached('gpt-4o-mini', usage, 'openai', at))
    }
  })

  it('answers undefined for unknown models and bad usage, before and after caching', () => {
    const book = new GenAiPriceBook()
    for (let round = 0; round < 2; round++) {
      assert.equal(
        book.cost(`no-such-model-${round}`, { inputTokens: 1, outputTokens: 1 }, 'openai'),
        undefined,
      )
      assert.equal(book.cost('no-such-model-0', { inputTokens: 1, outputTokens: 1 }, 'openai'), undefined)
      assert.equal(book.cost('gpt-4o', { inputTokens: 1, outputTokens: 1 }, 'no-such-provider'), undefined)
      assert.equal(book.cost('gpt-4o', { inputTokens: -1, outputTokens: 1 }, 'openai'), undefined)
      assert.equal(book.cost('gpt-4o', { inputTokens: Number.NaN, outputTokens: 1 }, 'openai'), undefined)
    }
    assert.ok((book.cost('gpt-4o', { inputTokens: 1, outputTokens: 1 }, 'openai') ?? 0) > 0)
  })
})
