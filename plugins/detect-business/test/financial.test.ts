import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FindingTypes } from '../src/detection.js'
import { findFinancialFigures } from '../src/find-financial-figures.js'
import { detectorWith } from './settings-helper.js'

const detector = detectorWith({ markings: false })

function figures(text: string): string[] {
  return detector
    .analyze(text)
    .filter((d) => d.type === FindingTypes.FINANCIAL)
    .map((d) => text.slice(d.start, d.end))
}

describe('financial figures', () => {
  it('finds amounts in every common form when the context is financial', () => {
    assert.deepEqual(figures('Q3 revenue came in at $4.2M, above guidance.'), ['$4.2M'])
    assert.deepEqual(figures('The acquisition price is EUR 1,200,000.'), ['EUR 1,200,000'])
    assert.deepEqual(figures('Her salary is 3.5 million dollars.'), ['3.5 million dollars'])
    assert.deepEqual(figures('Umsatz im Quartal: 14,2 Mio. EUR'), ['14,2 Mio. EUR'])
    assert.deepEqual(figures('Projected bookings: ¥480 million.'), ['¥480 million'])
    assert.deepEqual(figures('Pre-money valuation of US$120m'), ['US$120m'])
    assert.deepEqual(figures('{"revenue_q3": "18400000 USD"}'), ['18400000 USD'])
  })

  it('reports the configured level, a score and the cue words, never the amount', () => {
    const custom = detectorWith({ markings: false, financial_level: 'restricted' })
    const [hit] = custom.analyze('Unreleased: EBITDA of $12M before earnings.')
    assert.equal(hit.level, 'restricted')
    assert.ok(hit.score >= 0.8)
    assert.deepEqual(hit.detail, { cues: ['ebitda', 'earnings'] })
    assert.equal(hit.maskAs, 'FINANCIAL_FIGURE')
  })

  it('does not flag prices in shopping and household questions, or numbers without currency', () => {
    for (const text of [
      'How much is a $1,200 laptop with shipping?',
      'Is $35 a fair price for running shoes?',
      'Set a gift budget of $50 per person.',
      'Netflix subscription went up to $15.49 per month.',
      'I have a budget of $100 and want a new dress.',
      'We sold 4.2M units in Q3.',
      'You currently have $0.00 in your earnings balance.',
      'The tower is 330 m tall.',
      'Convert 100 USD to EUR please.',
    ]) {
      assert.deepEqual(figures(text), [], text)
    }
  })

  it('scores the same amount by its context', () => {
    const score = (text: string) => findFinancialFigures(text)[0].score
    const bare = score('It was $4.2M.')
    const business = score('Q3 revenue was $4.2M.')
    const unreleased = score('Unreleased Q3 revenue was $4.2M, before earnings.')
    const shopping = score('Is $4.2M too much to buy a house with a garden?')
    assert.ok(
      unreleased > business && business > bare && bare > shopping,
      `${unreleased} ${business} ${bare} ${shopping}`,
    )
  })

  it('honours financial_min_score and financial: false', () => {
    const text = 'Q3 revenue was $4.2M.'
    assert.equal(detectorWith({ markings: false, financial_min_score: 0.99 }).analyze(text).length, 0)
    assert.equal(detectorWith({ markings: false, financial: false }).analyze(text).length, 0)
  })

  it('keeps paragraphs apart: context in another paragraph does not count', () => {
    assert.deepEqual(figures('Revenue review: the offsite cost $4,500.'), ['$4,500'])
    assert.deepEqual(figures('Revenue review\n\nThe offsite cost $4,500.'), [])
  })
})
