import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bracketingReference, pairedRatios, quantile, ratioAt, spread } from '../src/rounds.js'

describe('rounds arithmetic', () => {
  it('takes medians, quartiles and ranges, leaving out non-finite values', () => {
    assert.deepEqual(spread([3, 1, 2]), { median: 2, q1: 1.5, q3: 2.5, min: 1, max: 3, n: 3 })
    assert.equal(spread([4, 1, 3, 2]).median, 2.5)
    assert.equal(spread([5, Number.NaN, Number.POSITIVE_INFINITY]).median, 5)
    assert.equal(spread([5, Number.NaN]).n, 1)
    assert.ok(Number.isNaN(spread([]).median))
    assert.equal(quantile([10, 20, 30, 40, 50], 0.25), 20)
    assert.equal(quantile([10, 20], 0.75), 17.5)
  })

  it('compares a run with the reference runs just before and after it', () => {
    const seq = [
      { target: 'bare', value: 100 },
      { target: 'gov', value: 60 },
      { target: 'bare', value: 200 },
      { target: 'gov', value: 30 },
      { target: 'other', value: 1 },
    ]
    assert.equal(bracketingReference(seq, 1, 'bare'), 150)
    // The last gov run has a bare run only before it.
    assert.equal(bracketingReference(seq, 3, 'bare'), 200)
    assert.deepEqual(pairedRatios(seq, 'gov', 'bare'), [0.4, 0.15])
    assert.equal(ratioAt(seq, 1, 'bare'), 0.4)
    assert.ok(Number.isNaN(bracketingReference(seq, 0, 'missing')))
  })

  it('skips reference runs without a value and gives NaN when there is no reference or it is 0', () => {
    const seq = [
      { target: 'bare', value: 100 },
      { target: 'bare', value: Number.NaN },
      { target: 'gov', value: 50 },
      { target: 'bare', value: Number.NaN },
    ]
    assert.deepEqual(pairedRatios(seq, 'gov', 'bare'), [0.5])
    assert.ok(Number.isNaN(pairedRatios([{ target: 'gov', value: 1 }], 'gov', 'bare')[0]))
    assert.ok(
      Number.isNaN(
        pairedRatios(
          [
            { target: 'bare', value: 0 },
            { target: 'gov', value: 1 },
          ],
          'gov',
          'bare',
        )[0],
      ),
    )
  })
})
