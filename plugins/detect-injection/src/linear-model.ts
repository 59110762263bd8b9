/**
 * The statistical half of the detector: a logistic regression over hashed
 * character and word n-grams (see features.ts), trained by
 * `train/train.ts` and shipped as `model/weights.json` inside the package
 * (read by model-file.ts). This module imports nothing from @gov/core, so a
 * worker thread that scores texts does not load the SDK and its dependencies.
 */
import { collectTextFeatures, FeatureScratch } from './features.js'

/** How the model's logit and the rule weights combine into one score, per channel. */
export interface Combiner {
  /** Multiplies the model logit. */
  readonly alpha: number
  /** Multiplies the sum of rule weights. */
  readonly beta: number
  readonly bias: number
}

/** The JSON file `train/train.ts` writes. */
export interface WeightsFile {
  readonly format: 1
  readonly bits: number
  readonly bias: number
  /** A stored int16 times `scale` is the weight. */
  readonly scale: number
  /** Little-endian int16 weights, base64. */
  readonly weights: string
  readonly combine: { readonly direct: Combiner; readonly tool: Combiner }
  /** What the weights were trained on and their cross-validated quality; informational. */
  readonly trained?: Record<string, unknown>
}

/** A loaded linear model. */
export class LinearModel {
  readonly bits: number
  readonly bias: number
  readonly weights: Float32Array
  readonly combine: WeightsFile['combine']
  readonly #scratch = new FeatureScratch()

  constructor(bits: number, bias: number, weights: Float32Array, combine: WeightsFile['combine']) {
    this.bits = bits
    this.bias = bias
    this.weights = weights
    this.combine = combine
  }

  /** Encode weights for the weights file: int16 with one scale, so the file stays small. */
  static encodeWeights(weights: Float32Array): { scale: number; weights: string } {
    let max = 0
    for (const w of weights) max = Math.max(max, Math.abs(w))
    const scale = max > 0 ? max / 32767 : 1
    const bytes = Buffer.alloc(weights.length * 2)
    for (let i = 0; i < weights.length; i++) bytes.writeInt16LE(Math.round(weights[i] / scale), i * 2)
    return { scale, weights: bytes.toString('base64') }
  }

  /** The model's logit for one text (scored whole; callers window long texts). */
  logit(text: string): number {
    const n = collectTextFeatures(text, this.bits, this.#scratch)
    if (n === 0) return this.bias
    const features = this.#scratch.features
    const weights = this.weights
    let sum = 0
    for (let i = 0; i < n; i++) sum += weights[features[i]]
    return this.bias + sum / Math.sqrt(n)
  }
}
