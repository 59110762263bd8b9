/**
 * The statistical half of the detector: one logistic regression per channel
 * over hashed character and word n-grams (see features.ts), trained by
 * `train/train.ts` and shipped in `model/` inside the package (read by
 * model-file.ts). Prompts and tool output get separate weights: an
 * instruction is the normal content of a prompt but the anomaly in an e-mail
 * or a web page. This module imports nothing from @gov/core, so a worker
 * thread that scores texts does not load the SDK and its dependencies.
 */
import { CUE_NAMES, cueCountsOfCodes, cueFeaturesOfCounts, MAX_CUE_FEATURES } from './cues.js'
import {
  FeatureBitSet,
  FeatureScratch,
  hashFeatures,
  prepareFeatureCodes,
  sumDistinctStoredWeights,
  sumDistinctWeights,
} from './features.js'
import type { Channel } from './match-rules.js'

/** How the model's logit and the rule weights combine into one score, per channel. */
export interface Combiner {
  /** Multiplies the model logit. */
  readonly alpha: number
  /** Multiplies the sum of rule weights. */
  readonly beta: number
  readonly bias: number
}

/**
 * The weights of one channel's model: float32 (`weights`, as training makes
 * them), or int16 as stored in the model file (`stored`, a weight is
 * `values[i] * scale`). The shipped model is loaded as stored: a table of half
 * the size (512 KB at 18 bits, against 1 MB of float32) that misses the cache
 * less, whose integer sum is multiplied by the scale once (0.5.4).
 */
export type ChannelWeights = {
  readonly bias: number
  /** The model also scores the text's cue features (cues.ts), added without length normalisation. */
  readonly cues?: boolean
} & (
  | { readonly weights: Float32Array; readonly stored?: undefined }
  | { readonly stored: { readonly values: Int16Array; readonly scale: number }; readonly weights?: undefined }
)

/** Weight `i` of a channel, as a number, whichever way it is held (tests, tools). */
export function weightAt(channel: ChannelWeights, i: number): number {
  return channel.stored ? channel.stored.values[i] * channel.stored.scale : channel.weights[i]
}

/** One channel's entry in `model/model.json`; the weights are in a file next to it. */
export interface ChannelFileEntry {
  readonly bias: number
  /** A stored int16 times `scale` is the weight. */
  readonly scale: number
  /** File name of the little-endian int16 weights, relative to `model.json`. */
  readonly weights: string
  /** Whether the model scores cue features (cues.ts) besides the n-grams; absent: no. */
  readonly cues?: boolean
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
  readonly #seen: FeatureBitSet
  /** Sum and count of the last text's distinct feature weights. */
  readonly #sum = new Float64Array(2)
  readonly #cueFeatures = new Int32Array(MAX_CUE_FEATURES)
  readonly #cueCounts = new Uint8Array(CUE_NAMES.length)

  constructor(bits: number, channels: LinearModel['channels'], combine: ModelFile['combine']) {
    this.bits = bits
    this.channels = channels
    this.combine = combine
    this.#seen = new FeatureBitSet(bits)
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
   * the square root of their number, plus (when the channel has them) the
   * weights of its cue features, not normalised.
   */
  logit(text: string, channel: Channel = 'direct'): number {
    const ch = this.channels[channel]
    const { bias, cues } = ch
    const scratch = this.#scratch
    const length = prepareFeatureCodes(text, scratch)
    let logit = bias
    if (cues) {
      const c = this.#cueFeatures
      const m = cueFeaturesOfCounts(cueCountsOfCodes(scratch.codes, length, this.#cueCounts), this.bits, c)
      if (ch.stored) {
        const values = ch.stored.values
        let q = 0
        for (let i = 0; i < m; i++) q += values[c[i]]
        logit += q * ch.stored.scale
      } else {
        const weights = ch.weights
        for (let i = 0; i < m; i++) logit += weights[c[i]]
      }
    }
    const count = hashFeatures(scratch.codes, length, this.bits, scratch.features)
    // Deduplicating and summing in one pass over a bit set (features.ts): the same sum, in the same order.
    const out = this.#sum
    if (ch.stored) {
      sumDistinctStoredWeights(scratch.features, count, ch.stored.values, this.#seen, out)
      out[0] *= ch.stored.scale
    } else sumDistinctWeights(scratch.features, count, ch.weights, this.#seen, out)
    const sum = out[0]
    const n = out[1]
    if (n === 0) return logit
    return logit + sum / Math.sqrt(n)
  }
}
