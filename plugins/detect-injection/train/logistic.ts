/**
 * Logistic regression over hashed features, trained with AdaGrad and L2
 * regularisation, plus a small dense logistic fit used to combine the
 * model's logit with the rule weights.
 */
import { seededRandom } from '@gov/core/testing'
import { BASE_CUE_COUNT, cueFeatures, MAX_CUE_FEATURES } from '../src/cues.js'
import {
  distinctFeaturesOf,
  FeatureDeduper,
  FeatureScratch,
  hashFeatures,
  prepareFeatureCodes,
} from '../src/features.js'
import { normalizeText } from '../src/normalize.js'
import { splitWindows } from '../src/segment.js'
import { hashClusterFeatures, type WordVectors } from './word-vectors.js'

/** One training example: the feature indices of one window of a row. */
export interface Example {
  readonly features: Int32Array
  /** Cue feature indices of the window (src/cues.ts); used when the options say `cues`. */
  readonly cues?: Int32Array
  readonly label: 0 | 1
  /** Rows with many windows share one unit of weight among them. */
  readonly weight: number
}

/** Training settings. */
export interface TrainOptions {
  readonly bits: number
  readonly epochs: number
  readonly learningRate: number
  readonly l2: number
  /** Weight of positive examples relative to negatives. */
  readonly positiveWeight: number
  readonly seed: number
  /** Also learn weights for the examples' cue features (not length-normalised). */
  readonly cues?: boolean
  /** L2 of the cue features' weights (train.ts `--l2-cues`, a trial); absent: `l2`. */
  readonly l2Cues?: number
  /**
   * A multiplier of `l2` per n-gram feature (train.ts `--stable-groups`, a trial): more
   * L2 for features that occur in few source groups; `Infinity` keeps a weight at 0.
   * Absent: 1 for every feature. Cue features keep `l2Cues`.
   */
  readonly l2Scale?: Float32Array
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  bits: 18,
  epochs: 6,
  learningRate: 0.2,
  l2: 1e-4,
  positiveWeight: 1,
  seed: 13,
}

const dedupers = new Map<number, FeatureDeduper>()
const scratch = new FeatureScratch()
const cueScratch = new Int32Array(MAX_CUE_FEATURES)

/**
 * How many cues (src/cues.ts `CUE_SETS`) the examples' cue features cover; set by train.ts
 * `--harm-cues` (a trial, 0.5.8), the 14 of 0.5.0 by default.
 */
export const CUE_SET: { count: number } = { count: BASE_CUE_COUNT }

/**
 * Word clusters whose n-grams join the hashed features (src/embeddings.ts
 * `hashClusterFeatures`); set by train.ts `--clusters`, off by default.
 */
export const CLUSTER_FEATURES: {
  current?: { vectors: WordVectors; clusters: Uint16Array; k: number }
} = {}

/** The distinct features of one window: n-grams, then word-cluster n-grams when {@link CLUSTER_FEATURES} has clusters. */
function windowFeatures(text: string, bits: number, deduper: FeatureDeduper): Int32Array {
  const cl = CLUSTER_FEATURES.current
  if (!cl) return distinctFeaturesOf(text, bits, deduper, scratch)
  const n = prepareFeatureCodes(text, scratch)
  scratch.reserveFeatures(5 * (n + 2) + 4 + 2 * n)
  let count = hashFeatures(scratch.codes, n, bits, scratch.features)
  count = hashClusterFeatures(cl.vectors, cl.clusters, cl.k, scratch.codes, n, bits, scratch.features, count)
  return scratch.features.slice(0, deduper.dedupe(scratch.features, count))
}

/** Examples of one text, window by window, the way the detector scores it (distinct features, as the model sees them). */
export function examplesOf(text: string, label: 0 | 1, bits: number): Example[] {
  const windows = splitWindows(normalizeText(text).text)
  let deduper = dedupers.get(bits)
  if (!deduper) {
    deduper = new FeatureDeduper(bits)
    dedupers.set(bits, deduper)
  }
  const d = deduper
  return windows.map((w) => ({
    features: windowFeatures(w.text, bits, d),
    cues: cueScratch.slice(0, cueFeatures(w.text, bits, cueScratch, undefined, CUE_SET.count)),
    label,
    weight: 1 / windows.length,
  }))
}

/** Train weights and bias. */
export function trainLogistic(
  examples: readonly Example[],
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): { weights: Float32Array; bias: number } {
  const size = 1 << options.bits
  const weights = new Float32Array(size)
  const squared = new Float32Array(size)
  let bias = 0
  let biasSquared = 0
  const random = seededRandom(options.seed)
  const order = examples.map((_, i) => i)
  const l2Cues = options.l2Cues ?? options.l2
  const l2Scale = options.l2Scale
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[order[i], order[j]] = [order[j], order[i]]
    }
    for (const index of order) {
      const ex = examples[index]
      const n = ex.features.length
      if (n === 0) continue
      const norm = 1 / Math.sqrt(n)
      const cues = options.cues && ex.cues ? ex.cues : EMPTY
      let z = bias
      for (let k = 0; k < n; k++) z += weights[ex.features[k]] * norm
      for (let k = 0; k < cues.length; k++) z += weights[cues[k]]
      const p = 1 / (1 + Math.exp(-z))
      const g = (p - ex.label) * ex.weight * (ex.label === 1 ? options.positiveWeight : 1)
      for (let k = 0; k < n; k++) {
        const f = ex.features[k]
        const scale = l2Scale ? l2Scale[f] : 1
        if (scale === Number.POSITIVE_INFINITY) continue
        const grad = g * norm + options.l2 * scale * weights[f]
        squared[f] += grad * grad
        weights[f] -= (options.learningRate * grad) / (Math.sqrt(squared[f]) + 1e-8)
      }
      for (let k = 0; k < cues.length; k++) {
        const f = cues[k]
        const grad = g + l2Cues * weights[f]
        squared[f] += grad * grad
        weights[f] -= (options.learningRate * grad) / (Math.sqrt(squared[f]) + 1e-8)
      }
      biasSquared += g * g
      bias -= (options.learningRate * g) / (Math.sqrt(biasSquared) + 1e-8)
    }
  }
  return { weights, bias }
}

const EMPTY = new Int32Array(0)

/** Logit of a trained model for the examples of one row: the highest over its windows. */
export function rowLogit(
  weights: Float32Array,
  bias: number,
  examples: readonly Example[],
  cues = false,
): number {
  let best = Number.NEGATIVE_INFINITY
  for (const ex of examples) {
    const n = ex.features.length
    let sum = 0
    for (let k = 0; k < n; k++) sum += weights[ex.features[k]]
    let logit = n ? bias + sum / Math.sqrt(n) : bias
    if (cues && ex.cues) for (let k = 0; k < ex.cues.length; k++) logit += weights[ex.cues[k]]
    best = Math.max(best, logit)
  }
  return best
}

/**
 * Fit `sigmoid(offset + bias + Σ coef·x)` to labelled points by Newton's
 * method with a little L2 (not on the bias). Returns `[bias, ...coefficients]`.
 */
export function fitDenseLogistic(
  points: readonly number[][],
  labels: readonly number[],
  l2 = 0.01,
  offsets?: readonly number[],
): number[] {
  const d = points[0].length + 1
  const beta = new Array<number>(d).fill(0)
  for (let iter = 0; iter < 50; iter++) {
    const grad = new Array<number>(d).fill(0)
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0))
    points.forEach((p, i) => {
      const x = [1, ...p]
      let z = offsets ? offsets[i] : 0
      for (let a = 0; a < d; a++) z += beta[a] * x[a]
      const mu = 1 / (1 + Math.exp(-z))
      const w = Math.max(mu * (1 - mu), 1e-9)
      for (let a = 0; a < d; a++) {
        grad[a] += (mu - labels[i]) * x[a]
        for (let b = 0; b < d; b++) hess[a][b] += w * x[a] * x[b]
      }
    })
    for (let a = 1; a < d; a++) {
      grad[a] += l2 * beta[a]
      hess[a][a] += l2
    }
    const step = solve(hess, grad)
    let moved = 0
    for (let a = 0; a < d; a++) {
      beta[a] -= step[a]
      moved = Math.max(moved, Math.abs(step[a]))
    }
    if (moved < 1e-8) break
  }
  return beta
}

function solve(matrix: number[][], vector: number[]): number[] {
  const n = vector.length
  const a = matrix.map((row, i) => [...row, vector[i]])
  for (let col = 0; col < n; col++) {
    let pivot = col
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r
    ;[a[col], a[pivot]] = [a[pivot], a[col]]
    const p = a[col][col] || 1e-12
    for (let r = 0; r < n; r++) {
      if (r === col) continue
      const f = a[r][col] / p
      for (let c = col; c <= n; c++) a[r][c] -= f * a[col][c]
    }
  }
  return a.map((row, i) => row[n] / (row[i] || 1e-12))
}
