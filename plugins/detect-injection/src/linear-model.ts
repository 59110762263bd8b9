/**
 * The statistical half of the detector: one logistic regression per channel
 * over hashed character and word n-grams (see features.ts), trained by
 * `train/train.ts` and shipped in `model/` inside the package (read by
 * model-file.ts). Prompts and tool output get separate weights: an
 * instruction is the normal content of a prompt but the anomaly in an e-mail
 * or a web page. This module imports nothing from @gov/core, so a worker
 * thread that scores texts does not load the SDK and its dependencies.
 */
import { CUE_NAMES, cueFeaturesOfCounts, hashFeaturesAndCues, MAX_CUE_FEATURES, useCueSet } from './cues.js'
import {
  FeatureBitSet,
  FeatureScratch,
  hashFeatures,
  prepareFeatureCodes,
  sumDistinctStoredWeights,
  sumDistinctWeights,
  sumInt8WeightsOfDistinct,
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
 * them), or integers as stored in the model file (`stored`, a weight is
 * `values[i] * scale`): int16 (0.5.4, 512 KB at 18 bits) or int8 (0.5.5,
 * 256 KB). The shipped model is loaded as stored: a table a half or a quarter
 * of float32's size that misses the cache less, whose integer sum is exact
 * (so independent of the order of the reads) and multiplied by the scale once.
 */
export type ChannelWeights = {
  readonly bias: number
  /** The model also scores the text's cue features (cues.ts), added without length normalisation. */
  readonly cues?: boolean
  /** How many cues of `CUE_NAMES` it scores (cues.ts `CUE_SETS`); absent: the 14 of 0.5.0. */
  readonly cueCount?: number
} & (
  | { readonly weights: Float32Array; readonly stored?: undefined }
  | {
      readonly stored: { readonly values: Int16Array | Int8Array; readonly scale: number }
      readonly weights?: undefined
    }
)

/** Weight `i` of a channel, as a number, whichever way it is held (tests, tools). */
export function weightAt(channel: ChannelWeights, i: number): number {
  return channel.stored ? channel.stored.values[i] * channel.stored.scale : channel.weights[i]
}

/** How the weight files store one weight. */
export type WeightEncoding = 'int8' | 'int16'

/** One channel's entry in `model/model.json`; the weights are in a file next to it. */
export interface ChannelFileEntry {
  readonly bias: number
  /** A stored integer times `scale` is the weight. */
  readonly scale: number
  /** File name of the weights (little-endian int16, or int8 with `encoding: 'int8'`), relative to `model.json`. */
  readonly weights: string
  /** How each weight is stored: `int8` (one byte, 0.5.5) or `int16` (two bytes; also when absent). */
  readonly encoding?: WeightEncoding
  /** Whether the model scores cue features (cues.ts) besides the n-grams; absent: no. */
  readonly cues?: boolean
  /** How many cues of `CUE_NAMES` it scores (the harmful-goal cues of 0.5.8 come after the 14 of 0.5.0); absent: 14. */
  readonly cueCount?: number
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
    for (const ch of [channels.direct, channels.tool]) if (ch.cueCount !== undefined) useCueSet(ch.cueCount)
  }

  /**
   * Encode weights as int16 (or int8) with one scale, so the files stay small:
   * each weight rounded to the nearest multiple of `max |w| / 32767` (`/ 127`).
   */
  static encodeWeights(
    weights: Float32Array,
    encoding: WeightEncoding = 'int16',
  ): { scale: number; bytes: Buffer } {
    let max = 0
    for (const w of weights) max = Math.max(max, Math.abs(w))
    const top = encoding === 'int8' ? 127 : 32767
    const scale = max > 0 ? max / top : 1
    const bytes = Buffer.alloc(weights.length * (encoding === 'int8' ? 1 : 2))
    for (let i = 0; i < weights.length; i++) {
      const q = Math.round(weights[i] / scale)
      if (encoding === 'int8') bytes.writeInt8(q, i)
      else bytes.writeInt16LE(q, i * 2)
    }
    return { scale, bytes }
  }

  /** `weights` as the model holds them once encoded ({@link encodeWeights}) and decoded: what the shipped model sums. */
  static quantized(weights: Float32Array, encoding: WeightEncoding): Float32Array {
    const { scale, bytes } = LinearModel.encodeWeights(weights, encoding)
    return Float32Array.from({ length: weights.length }, (_, i) =>
      encoding === 'int8' ? bytes.readInt8(i) * scale : bytes.readInt16LE(i * 2) * scale,
    )
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
    // With cues, one pass over the words finds both the word n-grams and the cues. With int8
    // weights (the shipped model), the hashing keeps only first occurrences as it goes, marking
    // them in the bit set; the other encodings de-duplicate in their sum.
    const int8 = ch.stored?.values instanceof Int8Array
    const seen = int8 ? this.#seen : undefined
    const count = cues
      ? hashFeaturesAndCues(scratch.codes, length, this.bits, scratch.features, this.#cueCounts, seen)
      : hashFeatures(scratch.codes, length, this.bits, scratch.features, seen)
    if (cues) {
      const c = this.#cueFeatures
      const m = cueFeaturesOfCounts(this.#cueCounts, this.bits, c, ch.cueCount)
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
    // Deduplicating and summing in one pass over a bit set (features.ts): the same sum, in the same order.
    const out = this.#sum
    if (ch.stored) {
      const values = ch.stored.values
      if (values instanceof Int8Array)
        sumInt8WeightsOfDistinct(scratch.features, count, values, this.#seen, out)
      else sumDistinctStoredWeights(scratch.features, count, values, this.#seen, out)
      out[0] *= ch.stored.scale
    } else sumDistinctWeights(scratch.features, count, ch.weights, this.#seen, out)
    const sum = out[0]
    const n = out[1]
    if (n === 0) return logit
    return logit + sum / Math.sqrt(n)
  }
}
