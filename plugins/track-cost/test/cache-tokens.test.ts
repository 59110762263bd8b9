import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Finding, PriceBook, PricedUsage, UpstreamOutcome, Usage } from '@gov/core'
import {
  MemoryKeyValueStore,
  MemorySessions,
  makeAnswer,
  makeExchange,
  makeOutcomeContext,
  makeServices,
} from '@gov/core/testing'
import { MODEL_PRICE_UNKNOWN, resolveSettings, TrackCostStep } from '../src/index.js'

const NOON = Date.UTC(2026, 2, 15, 12)

/**
 * A book that prices like genai-prices for a model with $2.50 input, $1.25
 * cached input, $3.125 cache write and $10 output per million tokens (input is
 * the total: the cached and written parts are taken out of it), and keeps what
 * it was asked.
 */
function recordingBook() {
  const asked: (PricedUsage & { cacheWriteInputTokens?: number })[] = []
  const book: PriceBook = {
    cost(model, usage: PricedUsage & { cacheWriteInputTokens?: number }) {
      asked.push({ ...usage })
      if (model !== 'cache-model') return undefined
      const cached = usage.cachedInputTokens ?? 0
      const written = usage.cacheWriteInputTokens ?? 0
      return (
        ((usage.inputTokens - cached - written) * 2.5 +
          cached * 1.25 +
          written * 3.125 +
          usage.outputTokens * 10) /
        1e6
      )
    },
  }
  return { book, asked }
}

function makeStep(prices: Record<string, { input: number; output: number }> = {}) {
  const now = () => NOON
  const { book, asked } = recordingBook()
  const services = makeServices('track_cost', {
    kv: new MemoryKeyValueStore(now),
    memorySessions: new MemorySessions(now),
    now,
    prices: book,
  })
  const step = new TrackCostStep(resolveSettings({ prices }), services)
  return { step, services, asked }
}

async function answered(
  step: TrackCostStep,
  usage: Usage | undefined,
  model: string,
  findings: Finding[] = [],
) {
  const exchange = makeExchange([{ source: 'user', text: 'hello there' }], { model })
  const outcome: UpstreamOutcome = {
    kind: 'success',
    status: 200,
    answer: makeAnswer('the answer text', [], { model, ...(usage ? { usage } : {}) }),
    usage,
    durationMs: 3,
  }
  await step.onUpstreamOutcome(
    makeOutcomeContext(exchange, outcome, { call: { agentId: 'agent-a' }, findings }),
  )
}

const tokens = (services: ReturnType<typeof makeServices>, model: string, direction: string) =>
  services.counts.get(`gov_tokens_total{"agent":"agent-a","model":"${model}","direction":"${direction}"}`)

describe('track_cost: prompt-cache tokens', () => {
  it('hands the cached and cache-write counts to the price book; a cache hit costs less', async () => {
    const { step, services, asked } = makeStep()
    await answered(step, { inputTokens: 2_006, outputTokens: 300, cachedInputTokens: 1_920 }, 'cache-model')
    assert.deepEqual(asked.at(-1), { inputTokens: 2_006, outputTokens: 300, cachedInputTokens: 1_920 })
    const hit = services.counts.get('gov_cost_usd_total{"agent":"agent-a","model":"cache-model"}') as number
    assert.ok(Math.abs(hit - (86 * 2.5 + 1_920 * 1.25 + 300 * 10) / 1e6) < 1e-15, `${hit}`)
    await answered(step, { inputTokens: 2_006, outputTokens: 300 }, 'cache-model')
    const both = services.counts.get('gov_cost_usd_total{"agent":"agent-a","model":"cache-model"}') as number
    assert.ok(both - hit > hit, 'the same call without a cache hit costs more')
    await answered(
      step,
      { inputTokens: 3_209, outputTokens: 393, cachedInputTokens: 3_000, cacheWriteInputTokens: 188 },
      'cache-model',
    )
    assert.deepEqual(asked.at(-1), {
      inputTokens: 3_209,
      outputTokens: 393,
      cachedInputTokens: 3_000,
      cacheWriteInputTokens: 188,
    })
  })

  it('hands the one-hour part of the cache writes to the price book and names it in the finding', async () => {
    const { step, asked } = makeStep()
    const usage = {
      inputTokens: 3_209,
      outputTokens: 393,
      cachedInputTokens: 3_000,
      cacheWriteInputTokens: 188,
      cacheWrite1hInputTokens: 88,
    }
    await answered(step, usage, 'cache-model')
    assert.deepEqual(asked.at(-1), usage)
    const findings: Finding[] = []
    await answered(step, usage, 'mystery', findings)
    assert.deepEqual(findings[0]?.detail, {
      model: 'mystery',
      input_tokens: 3_209,
      output_tokens: 393,
      cached_input_tokens: 3_000,
      cache_write_input_tokens: 188,
      cache_write_1h_input_tokens: 88,
    })
  })

  it('counts gov_tokens_total input as the total input, cached tokens included', async () => {
    const { step, services } = makeStep()
    await answered(step, { inputTokens: 2_006, outputTokens: 300, cachedInputTokens: 1_920 }, 'cache-model')
    assert.equal(tokens(services, 'cache-model', 'input'), 2_006)
    assert.equal(tokens(services, 'cache-model', 'output'), 300)
  })

  it('puts the cache counts in the model_price_unknown finding when reported, and none otherwise', async () => {
    const { step } = makeStep()
    const findings: Finding[] = []
    await answered(
      step,
      { inputTokens: 3_209, outputTokens: 393, cachedInputTokens: 3_000, cacheWriteInputTokens: 188 },
      'mystery',
      findings,
    )
    assert.equal(findings[0]?.type, MODEL_PRICE_UNKNOWN)
    assert.deepEqual(findings[0]?.detail, {
      model: 'mystery',
      input_tokens: 3_209,
      output_tokens: 393,
      cached_input_tokens: 3_000,
      cache_write_input_tokens: 188,
    })
    const plain: Finding[] = []
    await answered(step, { inputTokens: 5, outputTokens: 5 }, 'mystery', plain)
    assert.deepEqual(plain[0]?.detail, { model: 'mystery', input_tokens: 5, output_tokens: 5 })
  })

  it('drops cache counts when the input count was not reported (gov counted it)', async () => {
    const { step, asked } = makeStep()
    await answered(step, { outputTokens: 7, cachedInputTokens: 100 }, 'cache-model')
    const usage = asked.at(-1)
    assert.ok(usage && !('cachedInputTokens' in usage), JSON.stringify(usage))
    assert.equal(usage?.outputTokens, 7)
  })

  it('the own prices table has one input price: cached tokens are priced as input there', async () => {
    const { step, services, asked } = makeStep({ 'own-model': { input: 1, output: 2 } })
    await answered(step, { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 900_000 }, 'own-model')
    assert.equal(services.counts.get('gov_cost_usd_total{"agent":"agent-a","model":"own-model"}'), 1)
    assert.equal(asked.length, 0, 'the book is not asked for a model of the table')
  })
})
