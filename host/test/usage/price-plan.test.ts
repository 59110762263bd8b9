import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { calcPrice, findProvider, type ModelPrice, type Provider } from '@pydantic/genai-prices'
import { type PlanUsage, PricePlan, usageOf, ZERO_PRICE_KEYS } from '../../src/usage/price-plan.js'
import { ALL_PROVIDER_IDS, random, randomUsage } from './price-fixtures.js'

/** Usages at and around every tier start of an entry (where the price changes with the input tokens). */
function tierUsages(prices: ModelPrice): PlanUsage[] {
  const out: PlanUsage[] = []
  for (const value of Object.values(prices)) {
    if (typeof value !== 'object' || value === null) continue
    for (const tier of value.tiers) {
      for (const input of [tier.start - 1, tier.start, tier.start + 1]) {
        if (input < 0) continue
        out.push({ input, output: 1_000, cached: 0 }, { input, output: 3, cached: Math.floor(input / 2) })
      }
    }
  }
  return out
}

function oneModel(prices: ModelPrice): Provider {
  return {
    id: 'test-provider',
    name: 'test provider',
    api_pattern: 'test',
    models: [{ id: 'm', match: { equals: 'm' }, prices }],
  } as Provider
}

/** calcPrice's total for an entry, undefined where it throws. */
function calcTotal(prices: ModelPrice, usage: PlanUsage): number | undefined {
  try {
    const result = calcPrice(usageOf(usage), 'm', { provider: oneModel(prices) })
    return result ? Number(result.total_price) : undefined
  } catch {
    return undefined
  }
}

function everyEntry(): { where: string; prices: ModelPrice }[] {
  const out: { where: string; prices: ModelPrice }[] = []
  for (const providerId of ALL_PROVIDER_IDS) {
    const provider = findProvider({ providerId })
    assert.ok(provider, providerId)
    for (const model of provider.models) {
      const entries = Array.isArray(model.prices) ? model.prices.map((p) => p.prices) : [model.prices]
      for (const [i, prices] of entries.entries())
        out.push({ where: `${providerId} ${model.id} #${i}`, prices })
    }
  }
  return out
}

describe('PricePlan', () => {
  it('prices every entry of every bundled provider as calcPrice does, to the last bit (random usages, tier edges, cached above input)', () => {
    const next = random(9)
    const counts = {
      planned: 0,
      calcPrice: 0,
      refused: 0,
      tiered: 0,
      cached: 0,
      other: 0,
      compared: 0,
      undefinedAnswers: 0,
    }
    for (const { where, prices } of everyEntry()) {
      const plan = PricePlan.of(prices)
      if (plan === null) {
        counts.calcPrice++
        continue
      }
      if (plan === 'refused') {
        counts.refused++
        assert.equal(calcTotal(prices, { input: 0, output: 0, cached: 0 }), undefined, where)
        continue
      }
      counts.planned++
      const values = Object.values(prices)
      if (values.some((v) => typeof v === 'object')) counts.tiered++
      if (prices.cache_read_mtok !== undefined) counts.cached++
      if (Object.keys(prices).some((k) => !['input_mtok', 'output_mtok', 'cache_read_mtok'].includes(k)))
        counts.other++
      const usages = [...tierUsages(prices), ...Array.from({ length: 40 }, () => randomUsage(next))]
      for (const usage of usages) {
        assert.ok(PricePlan.covers(usage.input, usage.output, usage.cached))
        const want = calcTotal(prices, usage)
        const got = plan.total(usage)
        assert.ok(Object.is(got, want), `${where} ${JSON.stringify(usage)}: ${got} != ${want}`)
        counts.compared++
        if (want === undefined) counts.undefinedAnswers++
      }
    }
    // The plan is the common case, and the data exercises every kind of term.
    assert.ok(counts.planned > 1_600, JSON.stringify(counts))
    assert.ok(counts.tiered > 10 && counts.cached > 400 && counts.other > 100, JSON.stringify(counts))
    assert.ok(counts.undefinedAnswers > 100, `cached above input refused: ${JSON.stringify(counts)}`)
  })

  it('knows every zero-usage price key: calcPrice neither warns about it nor charges gov usage for it', () => {
    // Every key at once: every ancestor and join is priced, so calcPrice accepts the entry.
    const all: ModelPrice = {
      input_mtok: 1.25,
      cache_read_mtok: 0.125,
      output_mtok: 10,
      requests_kcount: 0.5,
    }
    for (const key of ZERO_PRICE_KEYS) all[key] = 7.5
    const warned: unknown[] = []
    const warn = console.warn
    console.warn = (...args: unknown[]) => {
      warned.push(args)
    }
    try {
      const plan = PricePlan.of(all)
      assert.ok(plan instanceof PricePlan, 'a plan for the entry with every key')
      const next = random(3)
      for (let i = 0; i < 200; i++) {
        const usage = randomUsage(next)
        assert.ok(Object.is(plan.total(usage), calcTotal(all, usage)), JSON.stringify(usage))
      }
      // Without the zero keys the price is the same: they add nothing for gov's usage.
      const usage = { input: 12_345, output: 678, cached: 9_000 }
      assert.equal(
        calcTotal(all, usage),
        calcTotal({ input_mtok: 1.25, cache_read_mtok: 0.125, output_mtok: 10, requests_kcount: 0.5 }, usage),
      )
    } finally {
      console.warn = warn
    }
    assert.deepEqual(warned, [])
  })

  it('leaves unknown keys, bad values and inconsistent entries to calcPrice', () => {
    const warn = console.warn
    console.warn = () => {}
    try {
      // A key genai-prices does not know (it warns and ignores it): no plan.
      assert.equal(PricePlan.of({ input_mtok: 1, output_mtok: 2, input_smell_mtok: 3 }), null)
      assert.equal(PricePlan.of({ input_mtok: Number.NaN, output_mtok: 2 }), null)
      assert.equal(PricePlan.of({ input_mtok: { base: 1, tiers: [{ start: -1, price: 2 }] } } as never), null)
    } finally {
      console.warn = warn
    }
    // An ancestor missing (cache reads priced, input not) or a join missing: calcPrice refuses every usage.
    assert.equal(PricePlan.of({ cache_read_mtok: 1, output_mtok: 2 }), 'refused')
    assert.equal(PricePlan.of({ input_mtok: 1, input_audio_mtok: 2, cache_read_mtok: 0.5 }), 'refused')
    assert.equal(
      calcTotal(
        { input_mtok: 1, input_audio_mtok: 2, cache_read_mtok: 0.5 },
        { input: 1, output: 1, cached: 0 },
      ),
      undefined,
    )
  })

  it('covers only non-negative integer counts up to 2^40', () => {
    assert.ok(PricePlan.covers(0, 0, 0))
    assert.ok(PricePlan.covers(2 ** 40, 1, 2 ** 40))
    assert.ok(!PricePlan.covers(2 ** 40 + 1, 1, 0))
    assert.ok(!PricePlan.covers(1.5, 1, 0))
    assert.ok(!PricePlan.covers(1, -1, 0))
    assert.ok(!PricePlan.covers(1, 1, Number.NaN))
    assert.ok(!PricePlan.covers(1, Number.POSITIVE_INFINITY, 0))
  })
})
