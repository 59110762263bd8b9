/**
 * The statistical half of the detector: a logistic regression over hashed
 * character and word n-grams (see features.ts), trained by
 * `train/train.ts` and shipped as `model/weights.json` inside the package.
 */
import { readFileSync } from 'node:fs'
import { GovError } from '@gov/core'
import { collectFeatures, prepareFeatureText } from './features.js'

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

/** Error code when the shipped weights are missing or malformed. */
export const MODEL_INVALID = 'GOV_ERR_INJECTION_MODEL_INVALID'

/** A loaded linear model. */
export class LinearModel {
  readonly bits: number
  readonly bias: number
  readonly weights: Float32Array
  readonly combine: WeightsFile['combine']
  readonly #scratch: number[] = []

  constructor(bits: number, bias: number, weights: Float32Array, combine: WeightsFile['combine']) {
    this.bits = bits
    this.bias = bias
    this.weights = weights
    this.combine = combine
  }

  /** Build from the parsed weights file; throws {@link MODEL_INVALID} when it does not fit. */
  static fromFile(file: WeightsFile): LinearModel {
    if (file?.format !== 1 || !Number.isInteger(file.bits) || file.bits < 8 || file.bits > 24) {
      throw new GovError(MODEL_INVALID, 'injection model weights have an unknown format', 500)
    }
    const bytes = Buffer.from(file.weights, 'base64')
    if (bytes.length !== 2 << file.bits) {
      throw new GovError(MODEL_INVALID, 'injection model weights have the wrong size', 500, {
        expected: 2 << file.bits,
        actual: bytes.length,
      })
    }
    const weights = new Float32Array(1 << file.bits)
    for (let i = 0; i < weights.length; i++) weights[i] = bytes.readInt16LE(i * 2) * file.scale
    return new LinearModel(file.bits, file.bias, weights, file.combine)
  }

  /** Read and parse a weights file. */
  static load(url: URL): LinearModel {
    let parsed: WeightsFile
    try {
      parsed = JSON.parse(readFileSync(url, 'utf8')) as WeightsFile
    } catch (error) {
      throw new GovError(MODEL_INVALID, 'injection model weights cannot be read', 500, {
        cause: (error as Error).message,
      })
    }
    return LinearModel.fromFile(parsed)
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
    const features = this.#scratch
    features.length = 0
    const n = collectFeatures(prepareFeatureText(text), this.bits, features)
    if (n === 0) return this.bias
    let sum = 0
    for (let i = 0; i < n; i++) sum += this.weights[features[i]]
    return this.bias + sum / Math.sqrt(n)
  }
}
