// track_cost's outcome hook (and onRequest with a budget) per call, with the
// host's price book as it is (model resolution cached) and as it was (one
// uncached genai-prices calcPrice per price), and with a constant price (what
// the hook costs besides pricing). In-memory key-value store. Run after building
// host and plugins/track-cost: node plugins/track-cost/bench/outcome-hook.mjs [calls]
import {
  makeAnswer,
  makeExchange,
  makeOutcomeContext,
  makeRequestContext,
  makeServices,
} from '@gov/core/testing'
import { calcPrice } from '@pydantic/genai-prices'
import { GenAiPriceBook } from '../../../host/dist/src/usage/price-book.js'
import { resolveSettings, TrackCostStep } from '../dist/src/index.js'

const calls = Number(process.argv[2] ?? 4000)

/** The price book before the cache: host/src/usage/price-book.ts at 532ee2f. */
const uncachedBook = {
  cost(model, usage, provider) {
    const providerId = provider
      ? ({ openai: 'openai', anthropic: 'anthropic', 'anthropic-openai': 'anthropic' }[provider] ?? provider)
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
  },
}

async function run(label, prices, model, provider) {
  const step = new TrackCostStep(
    resolveSettings({ budgets: { agent_daily_usd: 1e9 } }),
    makeServices('track_cost', { prices }),
  )
  const timed = { request: 0, outcome: 0 }
  for (let i = 0; i < calls + 500; i++) {
    const exchange = makeExchange([{ source: 'user', text: `hello ${i}` }], { model })
    const call = { agentId: `bench-${i % 64}`, sessionId: undefined }
    const state = new Map()
    let t = performance.now()
    await step.onRequest(makeRequestContext(exchange, { call, state }))
    const request = performance.now() - t
    const usage = { inputTokens: 900 + (i % 300), outputTokens: 100 + (i % 50) }
    const outcome = makeOutcomeContext(
      exchange,
      { kind: 'success', status: 200, answer: makeAnswer('ok', [], { model, usage }), usage, durationMs: 1 },
      { call, state, provider },
    )
    t = performance.now()
    await step.onUpstreamOutcome(outcome)
    if (i >= 500) {
      timed.request += request
      timed.outcome += performance.now() - t
    }
  }
  const us = (ms) => ((ms / calls) * 1000).toFixed(1)
  console.log(`| ${label} | ${model} | ${us(timed.request)} | ${us(timed.outcome)} |`)
}

console.log(`track_cost, ${calls} calls after 500 warm-up, daily budget set; µs per call (wall, mean)\n`)
console.log('| price book | model | onRequest µs | onUpstreamOutcome µs |\n|---|---|---:|---:|')
for (const [model, provider] of [
  ['gpt-4o-mini', 'openai'],
  ['claude-sonnet-4-5', 'anthropic'],
]) {
  await run('uncached (before)', uncachedBook, model, provider)
  await run('GenAiPriceBook (after)', new GenAiPriceBook(), model, provider)
  await run('constant price (the hook without pricing)', { cost: () => 0.001 }, model, provider)
}
