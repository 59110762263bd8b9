import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { PriceBook, PricedUsage } from '@gov/core'
import { Pricing } from '../src/pricing.js'

/** A book that knows models named `known-*` and counts what it is asked. */
function countingBook(): PriceBook & { asked: number } {
  return {
    asked: 0,
    cost(model: string, usage: PricedUsage) {
      this.asked++
      return model.startsWith('known-') ? (usage.inputTokens + usage.outputTokens) / 1e6 : undefined
    },
  }
}

describe('track_cost pricing', () => {
  it('asks the book whether it knows a model once, and answers the same after', () => {
    const book = countingBook()
    const pricing = new Pricing({ own: { input: 1, output: 2 } }, book)
    for (let round = 0; round < 3; round++) {
      assert.equal(pricing.knows('known-a'), true)
      assert.equal(pricing.knows('other'), false)
      assert.equal(pricing.knows('known-a', 'anthropic'), true)
      assert.equal(pricing.knows('own'), true)
    }
    assert.equal(book.asked, 3)
    // Costs are never memoised: they depend on usage (and, in the host's book, on time).
    assert.equal(pricing.cost('known-a', { inputTokens: 1, outputTokens: 2 }), 3e-6)
    assert.equal(pricing.cost('known-a', { inputTokens: 5, outputTokens: 2 }), 7e-6)
    assert.equal(book.asked, 5)
  })

  it('stays right past its bound on model names', () => {
    const book = countingBook()
    const pricing = new Pricing({}, book)
    for (let i = 0; i < 3_000; i++) {
      assert.equal(pricing.knows(`known-${i}`), true)
      assert.equal(pricing.knows(`unknown-${i}`), false)
    }
    assert.equal(pricing.knows('known-0'), true)
    assert.equal(pricing.knows('unknown-0'), false)
  })
})
