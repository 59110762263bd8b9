/**
 * The 0.5.7 training trials of train/cross-validate.ts (`TRAIN_FLAGS`: source-diversity
 * L2, sign stability across halves of the source groups, hard-row weights, group
 * bagging), on small hand-made examples whose features say where they come from.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { featureGroupCounts, stableL2Scale, TRAIN_FLAGS, trainChannel } from '../train/cross-validate.js'
import type { Row } from '../train/dataset.js'
import { DEFAULT_TRAIN_OPTIONS, type Example, trainLogistic } from '../train/logistic.js'

const BITS = 6
const ATTACK = 1
const BENIGN = 2
const ARTEFACT = 10

const ex = (features: number[], label: 0 | 1): Example => ({
  features: Int32Array.from(features),
  label,
  weight: 1,
})

/** Two attack sources and two benign ones; only `pa`'s attacks carry ARTEFACT. */
function data(): { rows: Row[]; examples: Example[][] } {
  const rows: Row[] = []
  const examples: Example[][] = []
  const add = (source: string, label: 0 | 1, features: number[], n: number) => {
    for (let i = 0; i < n; i++) {
      rows.push({ text: `${source} ${i}`, label, source, channel: 'direct' })
      examples.push([ex(features, label)])
    }
  }
  add('pa', 1, [ATTACK, ARTEFACT], 30)
  add('pb', 1, [ATTACK, 11], 30)
  add('na', 0, [BENIGN, 12], 30)
  add('nb', 0, [BENIGN, 13], 30)
  return { rows, examples }
}

const options = { ...DEFAULT_TRAIN_OPTIONS, bits: BITS, l2: 1e-3 }
const saved = { ...TRAIN_FLAGS }
afterEach(() => Object.assign(TRAIN_FLAGS, saved))

describe('training trials (TRAIN_FLAGS)', () => {
  it('counts the source groups each feature occurs in, and scales the L2 of the rare ones', () => {
    const counts = featureGroupCounts(1 << BITS, [
      { group: 'a', examples: [ex([1, 2], 1), ex([1], 1)] },
      { group: 'b', examples: [ex([1, 3], 0)] },
      { group: 'a', examples: [ex([2], 0)] },
    ])
    assert.equal(counts[1], 2)
    assert.equal(counts[2], 1, 'two rows of one group count once')
    assert.equal(counts[3], 1)
    assert.equal(counts[4], 0)
    const scale = stableL2Scale(counts, 2, 10)
    assert.deepEqual([scale[1], scale[2], scale[4]], [1, 10, 10])
  })

  it('keeps a weight at 0 when its L2 multiplier is Infinity, and trains the others', () => {
    const l2Scale = new Float32Array(1 << BITS).fill(1)
    l2Scale[ARTEFACT] = Number.POSITIVE_INFINITY
    const { examples } = data()
    const model = trainLogistic(examples.flat(), { ...options, l2Scale })
    assert.equal(model.weights[ARTEFACT], 0)
    assert.ok(model.weights[ATTACK] > 0.5)
    const plain = trainLogistic(examples.flat(), options)
    assert.ok(plain.weights[ARTEFACT] > 0.1, 'without the multiplier the artefact learns a weight')
  })

  it('sign stability: a feature of one attack source only gets no weight; the shared one keeps it', () => {
    const { rows, examples } = data()
    TRAIN_FLAGS.signStable = Number.POSITIVE_INFINITY
    const model = trainChannel(rows, 'direct', examples, () => true, options)
    assert.equal(model.weights[ARTEFACT], 0)
    assert.equal(model.weights[11], 0)
    assert.ok(model.weights[ATTACK] > 0.5)
    assert.ok(model.weights[BENIGN] < -0.5)
    TRAIN_FLAGS.signStable = 0
    const plain = trainChannel(rows, 'direct', examples, () => true, options)
    assert.ok(plain.weights[ARTEFACT] > 0.1)
  })

  it('source diversity: a feature seen in one group gets no weight with stableGroups 2 and Infinity', () => {
    const { rows, examples } = data()
    TRAIN_FLAGS.stableGroups = 2
    TRAIN_FLAGS.stableL2 = Number.POSITIVE_INFINITY
    const model = trainChannel(rows, 'direct', examples, () => true, options)
    assert.equal(model.weights[ARTEFACT], 0)
    assert.ok(model.weights[ATTACK] > 0.5)
  })

  it('hard-row weights and group bagging train, and differ from the plain model', () => {
    const { rows, examples } = data()
    const plain = trainChannel(rows, 'direct', examples, () => true, options)
    TRAIN_FLAGS.hardWeight = 2
    const hard = trainChannel(rows, 'direct', examples, () => true, options)
    assert.ok(hard.weights[ATTACK] > 0.5)
    assert.notDeepEqual([...hard.weights], [...plain.weights])
    TRAIN_FLAGS.hardWeight = 0
    TRAIN_FLAGS.groupBags = 4
    TRAIN_FLAGS.bagShare = 0.5
    const bagged = trainChannel(rows, 'direct', examples, () => true, options)
    // Each bag holds one attack source and one benign source, so ARTEFACT trains in some bags only.
    assert.ok(bagged.weights[ATTACK] > 0.5)
    assert.notDeepEqual([...bagged.weights], [...plain.weights])
  })
})
