import { readFileSync } from 'node:fs'
import { GovError } from '@gov/core'
import { ARTICLE, PARTICLE } from './lexicon.js'
import {
  hashLower,
  MAX_FEATURES,
  OUTSIDE,
  shapeHash,
  shapesAround,
  TAG_COUNT,
  type TokenView,
  tokenFeatures,
} from './ner-features.js'
import { isNameGap, type Token } from './tokenize.js'

/**
 * The trained named-entity model: hashed feature weights of a greedy
 * left-to-right tagger (averaged perceptron, see `train/train-ner.ts`).
 * Shipped as half-precision floats (int8 scales lost accuracy: scores are
 * sums of large weights that differ by little) and expanded to floats on load.
 */
export interface NerModel {
  /** log2 of the number of feature buckets. */
  readonly bits: number
  /** Multiplier of the weights in the softmax (1 / temperature). */
  readonly scale: number
  /**
   * The weights, bucket-major, one row of {@link ROW} floats per bucket (the {@link TAG_COUNT} weights, then
   * zeros): a 32-byte row never straddles two cache lines, and scoring reads one row per feature.
   */
  readonly weights: Float32Array
}

/** Floats per bucket row of {@link NerModel.weights}. */
export const ROW = 8
// The scoring loop of tagTokens sums the seven tags' weights in named locals.
if (TAG_COUNT !== 7) throw new Error('tagTokens sums exactly 7 tags')

/** The model as stored: half-precision weights and the fitted temperature. */
export interface StoredModel {
  readonly bits: number
  readonly temperature: number
  readonly codes: Uint16Array
}

const MAGIC = 'GOVNER2\0'
const HEADER_BYTES = 20

/** Where the package keeps the shipped weights (from `dist/src/entities/`). */
export const MODEL_URL = new URL('../../../model/ner.bin', import.meta.url)

const scratch = new DataView(new ArrayBuffer(4))

/** IEEE half-precision bits of each weight (round to nearest; the weights are far inside its range). */
export function quantise(weights: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(weights.length)
  for (let k = 0; k < weights.length; k++) {
    scratch.setFloat32(0, weights[k])
    const x = scratch.getUint32(0)
    const sign = (x >>> 16) & 0x8000
    const exponent = ((x >>> 23) & 0xff) - 127 + 15
    if (exponent <= 0) {
      out[k] = sign
      continue
    }
    if (exponent >= 31) {
      out[k] = sign | 0x7bff
      continue
    }
    const mantissa = x & 0x7fffff
    let half = sign | (exponent << 10) | (mantissa >>> 13)
    if (mantissa & 0x1000 && (half & 0x7fff) < 0x7bff) half++
    out[k] = half
  }
  return out
}

/** Weights back from half-precision bits. */
export function dequantise(codes: Uint16Array): Float32Array {
  const table = new Float32Array(65_536)
  for (let h = 0; h < 65_536; h++) {
    const exponent = (h >>> 10) & 0x1f
    const mantissa = h & 0x3ff
    const magnitude = exponent === 0 ? mantissa * 2 ** -24 : (1 + mantissa / 1024) * 2 ** (exponent - 15)
    table[h] = h & 0x8000 ? -magnitude : magnitude
  }
  const out = new Float32Array(codes.length)
  for (let k = 0; k < codes.length; k++) out[k] = table[codes[k]]
  return out
}

/** Serialises a stored model. */
export function encodeModel(model: StoredModel): Buffer {
  const header = Buffer.alloc(HEADER_BYTES)
  header.write(MAGIC, 0, 'latin1')
  header.writeUInt8(model.bits, 8)
  header.writeFloatLE(model.temperature, 16)
  const body = Buffer.alloc(model.codes.length * 2)
  for (let k = 0; k < model.codes.length; k++) body.writeUInt16LE(model.codes[k], k * 2)
  return Buffer.concat([header, body])
}

/** Code of the error thrown when the shipped model file is missing or damaged. */
export const PII_MODEL_INVALID = 'GOV_ERR_PII_MODEL_INVALID'

/** Reads a model written by {@link encodeModel}; throws {@link PII_MODEL_INVALID} on a file that is not one. */
export function decodeModel(bytes: Buffer): NerModel {
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 8) !== MAGIC)
    throw new GovError(PII_MODEL_INVALID, 'not a gov NER model file', 500)
  const bits = bytes.readUInt8(8)
  const size = (1 << bits) * TAG_COUNT
  if (bytes.length !== HEADER_BYTES + size * 2)
    throw new GovError(PII_MODEL_INVALID, 'NER model file has the wrong length', 500, { bytes: bytes.length })
  const codes = new Uint16Array(size)
  for (let k = 0; k < size; k++) codes[k] = bytes.readUInt16LE(HEADER_BYTES + k * 2)
  return { bits, scale: 1 / bytes.readFloatLE(16), weights: padRows(dequantise(codes)) }
}

/** Weights in rows of {@link TAG_COUNT} spread to rows of {@link ROW}. */
function padRows(weights: Float32Array): Float32Array {
  const rows = weights.length / TAG_COUNT
  const out = new Float32Array(rows * ROW)
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < TAG_COUNT; c++) out[r * ROW + c] = weights[r * TAG_COUNT + c]
  return out
}

/** Loads the weights shipped with the package (2 bytes per weight on disk, 4 in memory). */
export function loadModel(url: URL = MODEL_URL): NerModel {
  return decodeModel(readFileSync(url))
}

/** Largest store (bytes) kept for reuse by {@link reusedStore}; a larger text gets its own. */
const MAX_REUSED = 1 << 20
const stores: ArrayBuffer[] = [new ArrayBuffer(0), new ArrayBuffer(0), new ArrayBuffer(0)]

/**
 * A zeroed store of at least `bytes`, the same one each time for the same `slot` (0: the tagger's view,
 * 1: tagTokens' marks, 2: tagTokens' result for a tagger view): allocating a fresh ArrayBuffer per text cost more than all the view's hashing.
 */
function reusedStore(slot: number, bytes: number): ArrayBuffer {
  if (bytes > MAX_REUSED) return new ArrayBuffer(bytes)
  let store = stores[slot]
  if (store.byteLength < bytes) {
    store = new ArrayBuffer(Math.max(bytes, 4096))
    stores[slot] = store
  } else new Uint8Array(store, 0, bytes).fill(0)
  return store
}

/**
 * The per-token arrays the features read, for the tokens of one text. With `forTagger` the shapes are
 * left to {@link shapesAround} (the tagger scores few tokens) and the arrays are views of a store reused by
 * the next such view, so the view is valid until then (the tagger reads it within one call); training
 * (the default) reads every token's shape and keeps its views.
 */
export function tokenView(tokens: readonly Token[], units: Uint16Array, forTagger = false): TokenView {
  const lazyShapes = forTagger
  const n = tokens.length
  // One backing store for the view's arrays.
  const buffer = forTagger ? reusedStore(0, n * 16) : new ArrayBuffer(n * 16)
  const word = new Uint32Array(buffer, 0, n)
  const shape = new Uint32Array(buffer, n * 4, n)
  const flags = new Int32Array(buffer, n * 8, n)
  const capRun = new Uint8Array(buffer, n * 12, n)
  const docCase = new Uint8Array(buffer, n * 13, n)
  const shapeReady = new Uint8Array(buffer, n * 14, n)
  for (let i = 0; i < n; i++) {
    const t = tokens[i]
    word[i] = hashLower(units, t.start, t.end)
    if (!lazyShapes) shape[i] = shapeHash(units, t.start, t.end)
  }
  let runStart = 0
  for (let i = 0; i <= n; i++) {
    const joined = i < n && i > runStart && tokens[i].cap && isNameGap(units, tokens[i - 1], tokens[i])
    if (joined) continue
    if (i > 0) {
      const length = Math.min(i - runStart, 255)
      for (let k = runStart; k < i; k++) capRun[k] = tokens[k].cap ? length : 0
    }
    runStart = i
  }
  documentCase(tokens, word, docCase)
  if (lazyShapes) return { tokens, units, word, shape, shapeReady, flags, capRun, docCase }
  return { tokens, units, word, shape, flags, capRun, docCase }
}

/** Largest word table {@link documentCase} keeps between calls (slots; texts of up to ~32k words). */
const MAX_SCRATCH = 1 << 16
let caseTable = {
  keys: new Uint32Array(0),
  used: new Uint8Array(0),
  bits: new Uint8Array(0),
  slots: new Int32Array(0),
}

/**
 * {@link TokenView.docCase} of every token: one open-addressing table of the text's word hashes holds, per
 * word, whether it occurs in lower case and how often (up to 3) it is capitalised away from a sentence start.
 */
function documentCase(tokens: readonly Token[], word: Uint32Array, out: Uint8Array): void {
  const n = tokens.length
  let size = 16
  while (size < n * 2) size *= 2
  // A prompt's table fits the kept caseTable arrays (cleared here); a larger text gets its own.
  const kept = size <= MAX_SCRATCH
  if (kept && caseTable.keys.length < size)
    caseTable = {
      keys: new Uint32Array(size),
      used: new Uint8Array(size),
      bits: new Uint8Array(size),
      slots: new Int32Array(size / 2),
    }
  const keys = kept ? caseTable.keys : new Uint32Array(size)
  const used = kept ? caseTable.used.fill(0, 0, size) : new Uint8Array(size)
  const bits = kept ? caseTable.bits.fill(0, 0, size) : new Uint8Array(size)
  const slots = kept ? caseTable.slots : new Int32Array(n)
  const mask = size - 1
  for (let i = 0; i < n; i++) {
    const h = word[i]
    let at = (Math.imul(h, 0x9e3779b1) >>> 0) & mask
    while (used[at] && keys[at] !== h) at = (at + 1) & mask
    used[at] = 1
    keys[at] = h
    slots[i] = at
    const t = tokens[i]
    if (!t.cap) bits[at] |= 1
    else if (!t.sentenceStart && bits[at] >> 1 < 3) bits[at] += 2
  }
  for (let i = 0; i < n; i++) {
    const t = tokens[i]
    if (!t.cap) continue
    const b = bits[slots[i]]
    const capitalisedElsewhere = (b >> 1) - (t.sentenceStart ? 0 : 1) > 0
    out[i] = (b & 1) | (capitalisedElsewhere ? 2 : 0)
  }
}

/** Fills the lexicon flags of the tokens the model will score and their neighbours. */
function fillFlags(view: TokenView, flagsOf: (t: Token) => number, scored: Uint8Array): void {
  const flags = view.flags as Int32Array
  const n = view.tokens.length
  for (let i = 0; i < n; i++) {
    if (scored[i] || (i > 0 && scored[i - 1]) || (i + 1 < n && scored[i + 1]))
      flags[i] = flagsOf(view.tokens[i])
  }
}

// Lower-case words that may sit inside a name or organisation ("Bank of England", "Johnson and Johnson").
const CONNECTORS = new Set([
  'of',
  'and',
  'for',
  'the',
  'on',
  'upon',
  'at',
  'y',
  'e',
  'et',
  'und',
  'für',
  'og',
  'och',
  'i',
  'na',
  'do',
  'da',
])

/**
 * True when a word that is not capitalised may continue the name before it:
 * a surname particle, an article or a connector. Any other lower-case word
 * ends the name ("Jerry lanza un dado").
 */
export function mayContinue(t: Token, flags: number): boolean {
  return (flags & (PARTICLE | ARTICLE)) !== 0 || CONNECTORS.has(t.key)
}

/**
 * Log-odds taken off the O tag before decoding. Chosen on the calibration split (`train/tune.ts`, model
 * 0.4.0): PERSON P/R 0.813/0.811 at 0.5, 0.806/0.819 at 0.75, 0.794/0.828 at 1.0 (F1 0.812, 0.812,
 * 0.810); 0.75 takes the recall at no cost in F1, for 0.7 points more benign tuning prompts with a finding.
 */
const OUTSIDE_MARGIN = 0.75

/** Which tag may follow which: I-X only after B-X or I-X. */
function allowed(prev: number, tag: number): boolean {
  if (tag === OUTSIDE || (tag & 1) === 1) return true
  return prev === tag || prev === tag - 1
}

// Scratch of tagTokens, filled and read within one token's scoring.
const FEATURES = new Uint32Array(MAX_FEATURES)
const SCORES = new Float64Array(TAG_COUNT)

/** Per-token result of {@link tagTokens}: tag index and the probability that the token is part of a name. */
export interface TagResult {
  readonly tags: Uint8Array
  readonly probs: Float32Array
}

/**
 * Tags every token greedily, left to right. A token is scored only when it is
 * capitalised or continues a name; every other token is O without work, so
 * ordinary lower-case prose costs one branch per word. `skip[i]` marks tokens
 * in code, which are never names. For a view made with `forTagger`, the
 * result is valid until the next such call (its arrays are reused).
 */
export function tagTokens(
  model: NerModel,
  view: TokenView,
  flagsOf: (t: Token) => number,
  skip: Uint8Array | undefined,
): TagResult {
  const { tokens } = view
  const n = tokens.length
  // One backing store for the result's two arrays; for a tagger view (tokenView's forTagger) the reused one,
  // so that result, like the view, is valid until the next tagger call.
  const buffer = view.shapeReady ? reusedStore(2, n * 5) : new ArrayBuffer(n * 5)
  const probs = new Float32Array(buffer, 0, n).fill(1)
  const tags = new Uint8Array(buffer, n * 4, n)
  // Flags are needed only around capitalised words; mark those first.
  const maybe = new Uint8Array(reusedStore(1, n), 0, n)
  for (let i = 0; i < n; i++) if (tokens[i].cap && !tokens[i].codeLike && !skip?.[i]) maybe[i] = 1
  fillFlags(view, flagsOf, maybe)
  const features = FEATURES
  const scores = SCORES
  const mask = (1 << model.bits) - 1
  const w = model.weights
  const factor = model.scale
  let prev = OUTSIDE
  let prev2 = OUTSIDE
  for (let i = 0; i < n; i++) {
    const t = tokens[i]
    if (!maybe[i] && prev !== OUTSIDE && !t.codeLike && !skip?.[i]) {
      // A lower-case word after a name ("University of Oslo", "van der Voet"): its flags were not read yet.
      ;(view.flags as Int32Array)[i] = flagsOf(t)
      if (i + 1 < n) (view.flags as Int32Array)[i + 1] = flagsOf(tokens[i + 1])
    }
    if (!maybe[i] && (prev === OUTSIDE || t.codeLike || skip?.[i] || !mayContinue(t, view.flags[i]))) {
      prev2 = prev
      prev = OUTSIDE
      continue
    }
    shapesAround(view, i)
    const count = tokenFeatures(view, i, prev, prev2, features)
    // The seven tag sums in locals (the same additions in the same order as a loop over a scores array).
    let s0 = 0
    let s1 = 0
    let s2 = 0
    let s3 = 0
    let s4 = 0
    let s5 = 0
    let s6 = 0
    for (let k = 0; k < count; k++) {
      const base = (features[k] & mask) * ROW
      s0 += w[base]
      s1 += w[base + 1]
      s2 += w[base + 2]
      s3 += w[base + 3]
      s4 += w[base + 4]
      s5 += w[base + 5]
      s6 += w[base + 6]
    }
    scores[0] = s0
    scores[1] = s1
    scores[2] = s2
    scores[3] = s3
    scores[4] = s4
    scores[5] = s5
    scores[6] = s6
    // A word is more likely inside some name than outside when the name tags together outweigh O,
    // even if no single name tag beats O: lower O's score by the log-odds margin that makes that so.
    scores[OUTSIDE] -= OUTSIDE_MARGIN / factor
    let best = OUTSIDE
    let max = Number.NEGATIVE_INFINITY
    for (let c = 0; c < TAG_COUNT; c++) {
      if (!allowed(prev, c)) continue
      if (scores[c] > max) {
        max = scores[c]
        best = c
      }
    }
    let sum = 0
    for (let c = 0; c < TAG_COUNT; c++) if (allowed(prev, c)) sum += Math.exp((scores[c] - max) * factor)
    tags[i] = best
    // The probability that the word belongs to some name: which kind is a second question.
    probs[i] = 1 - Math.exp((scores[OUTSIDE] - max) * factor) / sum
    prev2 = prev
    prev = best
  }
  return { tags, probs }
}

/** Type of a tag index: PERSON for 1–2, ORGANIZATION 3–4, LOCATION 5–6. */
export function tagType(tag: number): 'PERSON' | 'ORGANIZATION' | 'LOCATION' | undefined {
  if (tag === 1 || tag === 2) return 'PERSON'
  if (tag === 3 || tag === 4) return 'ORGANIZATION'
  if (tag === 5 || tag === 6) return 'LOCATION'
  return undefined
}

/** A run of tokens with one entity tag, and the mean probability that its tokens are part of a name. */
export interface TaggedSpan {
  readonly type: 'PERSON' | 'ORGANIZATION' | 'LOCATION'
  readonly from: number
  readonly to: number
  readonly score: number
}

/** The entity spans of a tag sequence (B-X I-X…). */
export function spansOf(result: TagResult): TaggedSpan[] {
  const { tags, probs } = result
  const out: TaggedSpan[] = []
  let i = 0
  while (i < tags.length) {
    const type = tagType(tags[i])
    if (!type) {
      i++
      continue
    }
    let j = i
    let sum = probs[i]
    while (j + 1 < tags.length && tags[j + 1] === tags[i] + ((tags[i] & 1) === 1 ? 1 : 0)) {
      j++
      sum += probs[j]
    }
    out.push({ type, from: i, to: j, score: sum / (j - i + 1) })
    i = j + 1
  }
  return out
}
