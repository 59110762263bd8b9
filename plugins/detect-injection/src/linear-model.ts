/**
 * The statistical half of the detector: one logistic regression per channel
 * over hashed character and word n-grams (see features.ts), trained by
 * `train/train.ts` and shipped in `model/` inside the package (read by
 * model-file.ts). Prompts and tool output get separate weights: an
 * instruction is the normal content of a prompt but the anomaly in an e-mail
 * or a web page. This module imports nothing from @gov/core, so a worker
 * thread that scores texts does not load the SDK and its dependencies.
 */
import { collectTextFeatures, FeatureDeduper, FeatureScratch } from './features.js'
import type { Channel } from './match-rules.js'

/** How the model's logit and the rule weights combine into one score, per channel. */
export interface Combiner {
  /** Multiplies the model logit. */
  readonly alpha: number
  /** Multiplies the sum of rule weights. */
  readonly beta: number
  readonly bias: number
}

/** The weights of one channel's model. */
export interface ChannelWeights {
  readonly bias: number
  readonly weights: Float32Array
}

/** One channel's entry in `model/model.json`; the weights are in a file next to it. */
export interface ChannelFileEntry {
  readonly bias: number
  /** A stored int16 times `scale` is the weight. */
  readonly scale: number
  /** File name of the little-endian int16 weights, relative to `model.json`. */
  readonly weights: string
}

/** `model/model.json`, as `train/train.ts` writes it. */
export interface ModelFile {
  readonly format: 2
  readonly bits: number
  readonly channels: { readonly direct: ChannelFileEntry; readonly tool: ChannelFileEntry }
  readonly combine: { readonly direct: Combiner; readonly tool: Combiner }
  /** What the weights were trained on and how they were calibrated; informational. */
  readonly trained?: Record<string, unknown>
}

/** A loaded model: weights per channel and how each combines with the rules. */
export class LinearModel {
  readonly bits: number
  readonly channels: { readonly direct: ChannelWeights; readonly tool: ChannelWeights }
  readonly combine: ModelFile['combine']
  readonly #scratch = new FeatureScratch()
  readonly #deduper: FeatureDeduper

  constructor(bits: number, channels: LinearModel['channels'], combine: ModelFile['combine']) {
    this.bits = bits
    this.channels = channels
    this.combine = combine
    this.#deduper = new FeatureDeduper(bits)
  }

  /** Encode weights as int16 with one scale, so the files stay small. */
  static encodeWeights(weights: Float32Array): { scale: number; bytes: Buffer } {
    let max = 0
    for (const w of weights) max = Math.max(max, Math.abs(w))
    const scale = max > 0 ? max / 32767 : 1
    const bytes = Buffer.alloc(weights.length * 2)
    for (let i = 0; i < weights.length; i++) bytes.writeInt16LE(Math.round(weights[i] / scale), i * 2)
    return { scale, bytes }
  }

  /**
   * The logit of `channel`'s model for one text (scored whole; callers window
   * long texts): bias plus the weights of the text's distinct features over
   * the square root of their number.
   */
  logit(text: string, channel: Channel = 'direct'): number {
    const { bias, weights } = this.channels[channel]
    const count = collectTextFeatures(text, this.bits, this.#scratch)
    // Read the buffer after collecting: collecting may have grown it.
    const f = this.#scratch.features
    const n = this.#deduper.dedupe(f, count)
    if (n === 0) return bias
    let sum = 0
    for (let i = 0; i < n; i++) sum += weights[f[i]]
    return bias + sum / Math.sqrt(n)
  }
}
