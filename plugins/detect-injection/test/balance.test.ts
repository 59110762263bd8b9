/**
 * Row weights of training (train/cross-validate.ts `balanceWeights`): a
 * source's rows of one label count as at most `cap` rows; the trial options
 * of 0.5.5 (`--source-cap`, `--balance-up`) change only what they name.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { balanceWeights } from '../train/cross-validate.js'
import type { Row } from '../train/dataset.js'

const rows = (source: string, label: 0 | 1, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({ text: `${source} ${i}`, label, source, channel: 'direct' as const }))

describe('balanceWeights', () => {
  const data = [...rows('big', 0, 40), ...rows('big', 1, 10), ...rows('small', 0, 5)]

  it('caps each source and label at `cap` rows, and never weighs a row more than once by default', () => {
    const w = balanceWeights(data, 20)
    assert.equal(w[0], 0.5, '40 rows count as 20')
    assert.equal(w[40], 1, '10 rows stay 10')
    assert.equal(w[50], 1, '5 rows stay 5')
    assert.deepEqual([...balanceWeights(data, 0)], new Array(data.length).fill(1), 'cap 0: every row 1')
  })

  it('takes another cap for the sources named, and lets small sources count up to maxUp times', () => {
    const named = balanceWeights(data, 20, new Map([['big', 40]]))
    assert.equal(named[0], 1, 'big benign now counts all 40')
    assert.equal(named[50], 1, 'small unchanged')
    const up = balanceWeights(data, 20, new Map(), 3)
    assert.equal(up[0], 0.5)
    assert.equal(up[40], 2, '10 rows count as 20')
    assert.equal(up[50], 3, '5 rows count as 15: at most 3 times each')
  })
})
