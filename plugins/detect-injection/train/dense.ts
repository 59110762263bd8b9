/**
 * The dense model over word vectors (src/embeddings.ts): its examples (one per
 * window of a row, the way the detector scores it), and a small network
 * (one tanh hidden layer) trained with Adam on the weighted log loss,
 * deterministic for a seed.
 */
import { seededRandom } from '@gov/core/testing'
import { FeatureScratch, prepareFeatureCodes } from '../src/features.js'
import type { Channel } from '../src/match-rules.js'
import { normalizeText } from '../src/normalize.js'
import { splitWindows } from '../src/segment.js'
import { type AugmentedExamples, sourceGroup, TRAIN_FLAGS, trainsChannel } from './cross-validate.js'
import type { Row } from './dataset.js'
import {
  type DenseNet,
  denseFeatureCount,
  denseFeaturesOfCodes,
  denseLogit,
  type WordVectors,
} from './word-vectors.js'

/** One window's dense features, label and weight. */
export interface DenseExample {
  readonly x: Float32Array
  readonly label: 0 | 1
  readonly weight: number
}

export interface DenseOptions {
  readonly hidden: number
  readonly epochs: number
  readonly learningRate: number
  readonly l2: number
  readonly seed: number
}

export const DEFAULT_DENSE_OPTIONS: DenseOptions = {
  hidden: 32,
  epochs: 8,
  learningRate: 1e-3,
  l2: 1e-5,
  seed: 29,
}

const scratch = new FeatureScratch()

/** Dense examples of one text, window by window. */
export function denseExamplesOf(vectors: WordVectors, text: string, label: 0 | 1): DenseExample[] {
  const windows = splitWindows(normalizeText(text).text)
  return windows.map((w) => {
    const x = new Float32Array(denseFeatureCount(vectors.dims))
    const n = prepareFeatureCodes(w.text, scratch)
    denseFeaturesOfCodes(vectors, scratch.codes, n, x)
    return { x, label, weight: 1 / windows.length }
  })
}

/**
 * Train the network on weighted examples. Inputs are standardised with the
 * examples' weighted mean and deviation while training, and the scaling is
 * folded into the first layer of the result, so the detector feeds the raw
 * features.
 */
export function trainDense(
  examples: readonly DenseExample[],
  options: DenseOptions = DEFAULT_DENSE_OPTIONS,
): DenseNet {
  const inputs = examples[0]?.x.length ?? 0
  const hidden = options.hidden
  const mean = new Float64Array(inputs)
  const sq = new Float64Array(inputs)
  let total = 0
  for (const ex of examples) {
    total += ex.weight
    for (let k = 0; k < inputs; k++) {
      mean[k] += ex.weight * ex.x[k]!
      sq[k] += ex.weight * ex.x[k]! * ex.x[k]!
    }
  }
  const std = new Float64Array(inputs)
  for (let k = 0; k < inputs; k++) {
    mean[k] /= Math.max(total, 1e-12)
    std[k] = Math.sqrt(Math.max(sq[k] / Math.max(total, 1e-12) - mean[k] * mean[k], 0)) || 1
  }
  const random = seededRandom(options.seed)
  const limit = Math.sqrt(6 / (inputs + hidden))
  // Parameters: w1 (hidden × inputs), b1, w2, b2, in one array for Adam.
  const size = hidden * inputs + 2 * hidden + 1
  const p = new Float64Array(size)
  for (let i = 0; i < hidden * inputs; i++) p[i] = (2 * random() - 1) * limit
  for (let j = 0; j < hidden; j++)
    p[hidden * inputs + hidden + j] = (2 * random() - 1) * Math.sqrt(6 / (hidden + 1))
  const m = new Float64Array(size)
  const v = new Float64Array(size)
  const grad = new Float64Array(size)
  const x = new Float64Array(inputs)
  const h = new Float64Array(hidden)
  const o1 = hidden * inputs
  const o2 = o1 + hidden
  const o3 = o2 + hidden
  const beta1 = 0.9
  const beta2 = 0.999
  let step = 0
  const order = examples.map((_, i) => i)
  const batch = 16
  // Weights average 1 per batch: the learning rate means the same whatever the balance.
  const meanWeight = total / Math.max(1, examples.length)
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[order[i], order[j]] = [order[j]!, order[i]!]
    }
    for (let start = 0; start < order.length; start += batch) {
      grad.fill(0)
      const end = Math.min(order.length, start + batch)
      for (let b = start; b < end; b++) {
        const ex = examples[order[b]!]!
        for (let k = 0; k < inputs; k++) x[k] = (ex.x[k]! - mean[k]!) / std[k]!
        let z = p[o3]!
        for (let j = 0; j < hidden; j++) {
          let a = p[o1 + j]!
          const base = j * inputs
          for (let k = 0; k < inputs; k++) a += p[base + k]! * x[k]!
          h[j] = Math.tanh(a)
          z += p[o2 + j]! * h[j]!
        }
        const g = ((1 / (1 + Math.exp(-z)) - ex.label) * ex.weight) / meanWeight / (end - start)
        grad[o3] += g
        for (let j = 0; j < hidden; j++) {
          grad[o2 + j] += g * h[j]!
          const gh = g * p[o2 + j]! * (1 - h[j]! * h[j]!)
          grad[o1 + j] += gh
          const base = j * inputs
          for (let k = 0; k < inputs; k++) grad[base + k] += gh * x[k]!
        }
      }
      step++
      const c1 = 1 - beta1 ** step
      const c2 = 1 - beta2 ** step
      for (let i = 0; i < size; i++) {
        const gi = grad[i]! + (i < o1 || (i >= o2 && i < o3) ? options.l2 * p[i]! : 0)
        m[i] = beta1 * m[i]! + (1 - beta1) * gi
        v[i] = beta2 * v[i]! + (1 - beta2) * gi * gi
        p[i] -= (options.learningRate * (m[i]! / c1)) / (Math.sqrt(v[i]! / c2) + 1e-8)
      }
    }
  }
  // Fold the standardisation into the first layer: w·(x − μ)/σ + b = (w/σ)·x + (b − Σ w μ/σ).
  const w1 = new Float32Array(hidden * inputs)
  const b1 = new Float32Array(hidden)
  for (let j = 0; j < hidden; j++) {
    let bias = p[o1 + j]!
    for (let k = 0; k < inputs; k++) {
      const w = p[j * inputs + k]! / std[k]!
      w1[j * inputs + k] = w
      bias -= w * mean[k]!
    }
    b1[j] = bias
  }
  return {
    inputs,
    hidden,
    w1,
    b1,
    w2: Float32Array.from(p.subarray(o2, o3)),
    b2: Math.fround(p[o3]!),
  }
}

/** Dense examples of every row, plus the hand-written and augmented rows, computed once. */
export interface DenseData {
  readonly rows: readonly DenseExample[][]
  readonly extra: readonly DenseExample[][]
  readonly augmented: readonly DenseExample[][]
}

/**
 * Train one channel's dense model on the same rows, weights, hand-written
 * rows and augmented rows as its n-gram model (cross-validate.ts
 * `trainChannel`), leaving out the group `leftOut` and what was built from it.
 */
export function trainDenseChannel(
  rows: readonly Row[],
  channel: Channel,
  data: DenseData,
  include: (i: number) => boolean,
  options: DenseOptions,
  rowWeights?: Float64Array,
  augmented?: AugmentedExamples,
  leftOut?: string,
): DenseNet {
  const train: DenseExample[] = []
  for (const e of data.extra) train.push(...e)
  if (augmented && channel === 'tool') {
    data.augmented.forEach((exs, i) => {
      if (leftOut !== undefined && augmented.groups[i]!.includes(leftOut)) return
      const w = augmented.weights[i]!
      for (const ex of exs) train.push(w === 1 ? ex : { ...ex, weight: ex.weight * w })
    })
  }
  rows.forEach((row, i) => {
    if (!include(i) || !trainsChannel(row, channel, TRAIN_FLAGS.directLearnsToolAttacks)) return
    const w = rowWeights ? rowWeights[i]! : 1
    for (const ex of data.rows[i]!) train.push(w === 1 ? ex : { ...ex, weight: ex.weight * w })
  })
  return trainDense(train, options)
}

/** The dense logit of a row: the highest over its windows. */
export function denseRowLogit(net: DenseNet, examples: readonly DenseExample[]): number {
  let best = Number.NEGATIVE_INFINITY
  for (const ex of examples) best = Math.max(best, denseLogit(net, ex.x))
  return best
}

/** Like cross-validate.ts `outOfGroupLogits`, for the dense model. */
export function outOfGroupDenseLogits(
  rows: readonly Row[],
  channel: Channel,
  data: DenseData,
  options: DenseOptions,
  rowWeights?: Float64Array,
  augmented?: AugmentedExamples,
  log: (group: string) => void = () => {},
): Float64Array {
  const groups = rows.map((row) => sourceGroup(row.source))
  const logits = new Float64Array(rows.length).fill(Number.NaN)
  const names = [...new Set(groups.filter((_, i) => rows[i]!.channel === channel))].sort()
  for (const name of names) {
    const net = trainDenseChannel(
      rows,
      channel,
      data,
      (i) => groups[i] !== name,
      options,
      rowWeights,
      augmented,
      name,
    )
    rows.forEach((row, i) => {
      if (groups[i] === name && row.channel === channel) logits[i] = denseRowLogit(net, data.rows[i]!)
    })
    log(name)
  }
  return logits
}
