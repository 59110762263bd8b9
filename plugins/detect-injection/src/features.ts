/**
 * Hashed features for the linear model: character 3- to 5-grams of the
 * lower-cased text (with spaces collapsed and padded, so word edges count)
 * plus word unigrams, bigrams and trigrams. The same code runs in training and at
 * request time, so the two cannot drift apart.
 *
 * On the hot path the prepared text is never built as a string: its character
 * codes go to a reused typed array (for ASCII in the same loop that lower-cases
 * and collapses spaces), and the feature indices to another, so scoring a text
 * allocates nothing.
 */

const FNV_OFFSET = 0x811c9dc5
// The loops read module-local constants: V8 folds those into the code, but reads an exported
// binding through its cell, with a check that it is initialised, at every use (an imported one
// too), which made up most of the instructions of the hashing loops.
const PRIME = 0x01000193
const SEED_WORD = 0x9747b28c
const SEED_BIGRAM = 0x5bd1e995
const SEED_TRIGRAM = 0x2c1b3c6d
/** A word's hash before its first character, as an int32: a loop variable that starts as this
 * number above 2 ** 31 would be kept as a double and converted at every character. `h ^ c` of
 * either is the same. */
const WORD_START = SEED_WORD | 0
/** Hash constants shared with the cue lexicon (cues.ts), which must hash words as the n-grams do. */
export const FNV_PRIME = PRIME
export const WORD_SEED = SEED_WORD
export const BIGRAM_SEED = SEED_BIGRAM
export const TRIGRAM_SEED = SEED_TRIGRAM

/** Lower-case and collapse whitespace; pads with one space on each side. The reference for {@link prepareFeatureCodes}. */
export function prepareFeatureText(text: string): string {
  return ` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `
}

/** Reused buffers of one scorer; grown on demand, never shared between threads. */
export class FeatureScratch {
  /** Character codes of the prepared text. */
  codes = new Uint16Array(4096)
  /** Feature indices. */
  features = new Int32Array(16384)

  /** Make room for a text of `length` characters (prepared length ≤ length + 2). */
  reserve(length: number): void {
    if (this.codes.length < length + 2) this.codes = new Uint16Array(length + 2 + (length >> 2))
    // Each position starts at most three character n-grams; each word (two positions with
    // its separator) adds at most three word n-grams.
    const features = 5 * (length + 2) + 4
    if (this.features.length < features) this.features = new Int32Array(features + (features >> 2))
  }

  /** Make room for `count` feature indices (the word-cluster n-grams add up to three per word); keeps the codes. */
  reserveFeatures(count: number): void {
    if (this.features.length < count) this.features = new Int32Array(count + (count >> 2))
  }
}

// ASCII whitespace as `\s` and `trim()` see it: tab, line feed, vertical tab, form feed, carriage return, space.
const ASCII_SPACE = new Uint8Array(128)
for (const c of [9, 10, 11, 12, 13, 32]) ASCII_SPACE[c] = 1
/** What an ASCII character becomes in the prepared text: a space for whitespace, else its lower case. */
const PREPARED = new Uint16Array(128)
for (let c = 0; c < 128; c++) PREPARED[c] = ASCII_SPACE[c] === 1 ? 32 : c >= 0x41 && c <= 0x5a ? c + 0x20 : c

/**
 * Write the character codes of `prepareFeatureText(text)` to `scratch.codes`
 * and return how many there are. Pure ASCII is prepared in one loop; any other
 * text goes through {@link prepareFeatureText}, whose Unicode lower-casing and
 * whitespace rules the loop does not try to copy.
 *
 * The loop has no branch on the characters (spaces and letters alternate too
 * irregularly to predict): every character is written, and the position moves
 * on unless a space follows a space. The padding space counts as a space, so
 * leading whitespace is dropped; trailing whitespace leaves the one closing space.
 */
export function prepareFeatureCodes(text: string, scratch: FeatureScratch): number {
  scratch.reserve(text.length)
  const codes = scratch.codes
  codes[0] = 32
  let n = 1
  let space = 1
  for (let i = 0; i < text.length; i = (i + 1) | 0) {
    const c = text.charCodeAt(i)
    if (c >= 0x80) return copyCodes(prepareFeatureText(text), scratch)
    const s = ASCII_SPACE[c]
    codes[n] = PREPARED[c]
    n = (n + 1 - (s & space)) | 0
    space = s
  }
  // Text that was only whitespace (or nothing) still gets both padding spaces.
  if (space === 0 || n === 1) codes[n++] = 32
  return n
}

function copyCodes(prepared: string, scratch: FeatureScratch): number {
  scratch.reserve(prepared.length)
  const codes = scratch.codes
  for (let i = 0; i < prepared.length; i++) codes[i] = prepared.charCodeAt(i)
  return prepared.length
}

/**
 * Letters and digits. Outside ASCII every character counts except the
 * punctuation and symbol blocks, which is close enough to `\p{L}\p{N}` for
 * hashing and much cheaper than a Unicode regex.
 */
function isWordChar(c: number): boolean {
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a)
  if (c < 0xc0) return false
  if (c >= 0x2000 && c <= 0x2bff) return false
  if (c >= 0x3000 && c <= 0x303f) return false
  if (c >= 0xff00 && c <= 0xff20) return false
  if (c >= 0xd800 && c <= 0xdfff) return false
  return c !== 0xd7 && c !== 0xf7
}

/** {@link isWordChar} for every UTF-16 code unit, looked up instead of computed. */
const WORD_CHARS = new Uint8Array(0x10000)
for (let c = 0; c < WORD_CHARS.length; c++) WORD_CHARS[c] = isWordChar(c) ? 1 : 0
export const WORD_CHAR: Uint8Array = WORD_CHARS

/**
 * Whether code unit `c` at `j` continues or starts a word: a word character,
 * or an apostrophe between two word characters ("don't"). Shared with the cue
 * scan (cues.ts), which must split words exactly as the n-grams do.
 */
export function isWordAt(codes: Uint16Array, j: number, n: number, c: number, inWord: boolean): boolean {
  return (
    WORD_CHARS[c] === 1 ||
    ((c === 39 || c === 0x2019) && inWord && j + 1 < n && WORD_CHARS[codes[j + 1]!] === 1)
  )
}

/**
 * Write the feature indices of the prepared codes `codes[0..n)` to `out`, one
 * per occurrence, each below `2 ** bits`: every character n-gram first (the
 * 3-, 4- and 5-gram starting at each position), then every word unigram and
 * bigram and trigram. Returns how many were written; `out` must hold `5 * n + 4` (see
 * {@link FeatureScratch.reserve}). With `seen` (all clear on entry), only
 * first occurrences are written, in order, with their bits left set in `seen`
 * (the de-duplication of {@link sumDistinctWeights}, done while hashing).
 */
export function hashFeatures(
  codes: Uint16Array,
  n: number,
  bits: number,
  out: Int32Array,
  seen?: FeatureBitSet,
): number {
  const mask = (1 << bits) - 1
  const set = seen?.words
  let count = set ? hashDistinctCharGrams(codes, n, mask, out, set) : hashCharGrams(codes, n, mask, out)
  let previous = 0
  let beforePrevious = 0
  let h = WORD_START
  let inWord = false
  for (let j = 0; j <= n; j = (j + 1) | 0) {
    const c = j < n ? codes[j] : 32
    if (isWordAt(codes, j, n, c, inWord)) {
      h = Math.imul(h ^ c, PRIME)
      inWord = true
      continue
    }
    if (!inWord) continue
    count = pushFeature(out, count, (h ^ (h >>> 13)) & mask, set)
    if (previous !== 0) {
      const b = Math.imul(previous ^ SEED_BIGRAM, PRIME) ^ h
      count = pushFeature(out, count, (b ^ (b >>> 16)) & mask, set)
      if (beforePrevious !== 0) {
        const t = Math.imul(Math.imul(beforePrevious ^ SEED_TRIGRAM, PRIME) ^ previous, PRIME) ^ h
        count = pushFeature(out, count, (t ^ (t >>> 16)) & mask, set)
      }
    }
    beforePrevious = previous
    previous = h
    h = WORD_START
    inWord = false
  }
  return count
}

/**
 * Write feature `f` to `out[count]` and return the new count. With `set`, a
 * feature whose bit is already set is written but not counted (the next one
 * overwrites it), and its bit is set: first occurrences only, in order, as
 * {@link keepDistinct} keeps them, without a second pass over the word n-grams.
 */
export function pushFeature(out: Int32Array, count: number, f: number, set: Int32Array | undefined): number {
  out[count] = f
  if (set === undefined) return (count + 1) | 0
  const old = set[f >>> 5]
  set[f >>> 5] = old | (1 << (f & 31))
  return (count + (((old >>> (f & 31)) & 1) ^ 1)) | 0
}

/**
 * The character n-grams of {@link hashFeatures}: the 3-, 4- and 5-gram
 * starting at each position of `codes[0..n)`, in that order, each masked by
 * `mask`, written to `out` from 0; returns how many. Shared with the cue scan
 * (cues.ts), which hashes the word n-grams in its own pass.
 */
export function hashCharGrams(codes: Uint16Array, n: number, mask: number, out: Int32Array): number {
  let count = 0
  // FNV-1a over up to five characters from each position; unrolled where all five exist.
  // The five characters slide along in variables: one typed-array read per position, not five.
  let i = 0
  if (n >= 5) {
    let c1 = codes[0]
    let c2 = codes[1]
    let c3 = codes[2]
    let c4 = codes[3]
    for (; i + 5 <= n; i++) {
      const c5 = codes[i + 4]
      let h = Math.imul(FNV_OFFSET ^ c1, PRIME)
      h = Math.imul(h ^ c2, PRIME)
      h = Math.imul(h ^ c3, PRIME)
      out[count] = (h ^ (h >>> 15)) & mask
      h = Math.imul(h ^ c4, PRIME)
      out[count + 1] = (h ^ (h >>> 15)) & mask
      h = Math.imul(h ^ c5, PRIME)
      out[count + 2] = (h ^ (h >>> 15)) & mask
      count += 3
      c1 = c2
      c2 = c3
      c3 = c4
      c4 = c5
    }
  }
  return hashCharGramsFrom(codes, n, mask, out, count, i)
}

/**
 * {@link hashCharGrams} keeping only first occurrences: each n-gram's bit is
 * set in `set` (all clear on entry) as it is hashed, and `out` gets the
 * distinct ones in order of first occurrence, as {@link sumDistinctWeights}
 * compacts them. One pass instead of writing every occurrence and reading it
 * back; the branch-free compaction of {@link sumDistinctInt8Weights}.
 */
export function hashDistinctCharGrams(
  codes: Uint16Array,
  n: number,
  mask: number,
  out: Int32Array,
  set: Int32Array,
): number {
  let count = 0
  let i = 0
  // `| 0` on the counters: int32 arithmetic without overflow checks.
  for (const last = (n - 5) | 0; i <= last; i = (i + 1) | 0) {
    let h = Math.imul(FNV_OFFSET ^ codes[i], PRIME)
    h = Math.imul(h ^ codes[(i + 1) | 0], PRIME)
    h = Math.imul(h ^ codes[(i + 2) | 0], PRIME)
    let f = (h ^ (h >>> 15)) & mask
    let old = set[f >>> 5]
    set[f >>> 5] = old | (1 << (f & 31))
    out[count] = f
    count = (count + (((old >>> (f & 31)) & 1) ^ 1)) | 0
    h = Math.imul(h ^ codes[(i + 3) | 0], PRIME)
    f = (h ^ (h >>> 15)) & mask
    old = set[f >>> 5]
    set[f >>> 5] = old | (1 << (f & 31))
    out[count] = f
    count = (count + (((old >>> (f & 31)) & 1) ^ 1)) | 0
    h = Math.imul(h ^ codes[(i + 4) | 0], PRIME)
    f = (h ^ (h >>> 15)) & mask
    old = set[f >>> 5]
    set[f >>> 5] = old | (1 << (f & 31))
    out[count] = f
    count = (count + (((old >>> (f & 31)) & 1) ^ 1)) | 0
  }
  // The last positions, with fewer than five characters left: as in hashCharGrams, each
  // kept as it is hashed. Written out here rather than by calling keepDistinct: a small
  // function that only ever runs inlined here got no type feedback of its own, and the
  // optimised code of this one bailed out on it and was rebuilt again and again (about
  // one call in 25 on the direct channel, the rest then ran unoptimised).
  for (; i + 3 <= n; i++) {
    let h = FNV_OFFSET
    for (let k = 0; i + k < n; k++) {
      h = Math.imul(h ^ codes[i + k], PRIME)
      if (k < 2) continue
      const f = (h ^ (h >>> 15)) & mask
      const old = set[f >>> 5]
      set[f >>> 5] = old | (1 << (f & 31))
      out[count] = f
      count += ((old >>> (f & 31)) & 1) ^ 1
    }
  }
  return count
}

/** The tail loop of {@link hashCharGrams}: n-grams of positions `i..n-3`, written from `count`; returns the new count. */
function hashCharGramsFrom(
  codes: Uint16Array,
  n: number,
  mask: number,
  out: Int32Array,
  count: number,
  i: number,
): number {
  for (; i + 3 <= n; i++) {
    let h = FNV_OFFSET
    for (let k = 0; i + k < n; k++) {
      h = Math.imul(h ^ codes[i + k], PRIME)
      if (k >= 2) out[count++] = (h ^ (h >>> 15)) & mask
    }
  }
  return count
}

/**
 * Compact `features[from..to)` in place to those whose bit in `set` is not
 * set yet, setting it, after `features[0..from)` (already distinct, bits set);
 * returns the new end. Used where the word n-grams follow distinct character n-grams.
 */
export function keepDistinct(features: Int32Array, from: number, to: number, set: Int32Array): number {
  let count = from
  for (let i = from; i < to; i++) {
    const f = features[i]
    const old = set[f >>> 5]
    set[f >>> 5] = old | (1 << (f & 31))
    features[count] = f
    count += ((old >>> (f & 31)) & 1) ^ 1
  }
  return count
}

/**
 * The int8 sum of {@link sumDistinctInt8Weights} over features already
 * distinct, whose bits are set in `seen` ({@link hashFeatures} with `seen`):
 * sums them into `out[0]`, their count into `out[1]`, and clears the bits.
 */
export function sumInt8WeightsOfDistinct(
  features: Int32Array,
  count: number,
  values: Int8Array,
  seen: FeatureBitSet,
  out: Float64Array,
): void {
  let sum = 0
  for (let i = 0; i < count; i++) sum += values[features[i]]
  clearSeen(seen.words, features, count)
  out[0] = sum
  out[1] = count
}

/** Hash the features of `text` into `scratch.features`; returns how many there are. */
export function collectTextFeatures(text: string, bits: number, scratch: FeatureScratch): number {
  const n = prepareFeatureCodes(text, scratch)
  return hashFeatures(scratch.codes, n, bits, scratch.features)
}

/** The feature indices of `text`, as a new array (training). */
export function featuresOf(text: string, bits: number, scratch = new FeatureScratch()): Int32Array {
  const count = collectTextFeatures(text, bits, scratch)
  return scratch.features.slice(0, count)
}

/**
 * Keeps the first occurrence of each feature: the model scores which n-grams
 * a text has, not how often. Counted features let a text that repeats one
 * word ("ok ok ok …", "aaaa…") add the same weight hundreds of times and
 * reach any score; binary features bound what repetition can do. A stamp per
 * slot avoids clearing the table between texts.
 */
export class FeatureDeduper {
  readonly #seen: Uint32Array
  #stamp = 0

  constructor(bits: number) {
    this.#seen = new Uint32Array(1 << bits)
  }

  /** Compact `features[0..n)` in place to its distinct values, first occurrences in order; returns their count. */
  dedupe(features: Int32Array, n: number): number {
    if (++this.#stamp === 0xffffffff) {
      this.#seen.fill(0)
      this.#stamp = 1
    }
    const seen = this.#seen
    const stamp = this.#stamp
    let out = 0
    for (let i = 0; i < n; i++) {
      const f = features[i]
      if (seen[f] === stamp) continue
      seen[f] = stamp
      features[out++] = f
    }
    return out
  }
}

/** The distinct feature indices of `text`, as a new array (training). */
export function distinctFeaturesOf(
  text: string,
  bits: number,
  deduper: FeatureDeduper,
  scratch = new FeatureScratch(),
): Int32Array {
  const count = deduper.dedupe(scratch.features, collectTextFeatures(text, bits, scratch))
  return scratch.features.slice(0, count)
}

/** A bit per feature index: the set {@link sumDistinctWeights} marks, 32 KB at 18 bits (the deduper's table is 1 MB). */
export class FeatureBitSet {
  readonly words: Int32Array

  constructor(bits: number) {
    this.words = new Int32Array(Math.max(1, 2 ** bits / 32))
  }
}

/**
 * Clear the bits of the distinct features `features[0..count)` in `set`. On a
 * short text, only the words that were set: filling all 32 KB cost more than
 * the whole sum. From one word in eight on (about 1 KB of text at 18 bits),
 * the whole set at once: a sequential fill costs fewer instructions than that
 * many scattered stores.
 */
function clearSeen(set: Int32Array, features: Int32Array, count: number): void {
  if (count > set.length >> 3) set.fill(0)
  else for (let i = 0; i < count; i = (i + 1) | 0) set[features[i] >>> 5] = 0
}

/**
 * The weights of the distinct features `features[0..n)`, summed in the order
 * of their first occurrence, and how many there are, in `out[0]` and `out[1]`:
 * the same sum, added in the same order, as {@link FeatureDeduper.dedupe} then
 * a loop over `weights`, in one pass. Like dedupe, it compacts `features` in
 * place to the distinct ones. `seen` must be all clear; it is cleared again
 * before returning. The loop body is kept
 * small: its weight reads miss the cache, and the processor overlaps more of
 * them the more iterations it holds in flight.
 */
export function sumDistinctWeights(
  features: Int32Array,
  n: number,
  weights: Float32Array,
  seen: FeatureBitSet,
  out: Float64Array,
): void {
  const set = seen.words
  let sum = 0
  let count = 0
  for (let i = 0; i < n; i++) {
    const f = features[i]
    const word = f >>> 5
    const bit = 1 << (f & 31)
    const old = set[word]
    if ((old & bit) !== 0) continue
    set[word] = old | bit
    sum += weights[f]
    // Distinct features are compacted in place (as dedupe does), to clear their bits below.
    features[count++] = f
  }
  clearSeen(set, features, count)
  out[0] = sum
  out[1] = count
}

/**
 * {@link sumDistinctWeights} over int16 weights as stored in the model file:
 * the integer sum (exact in a double) in `out[0]`, for the caller to multiply
 * by the scale once, and the count in `out[1]`. Half the bytes per weight, so
 * the table the scattered reads hit is half the size. A separate function, not
 * a union type, so each call site stays monomorphic.
 */
export function sumDistinctStoredWeights(
  features: Int32Array,
  n: number,
  values: Int16Array,
  seen: FeatureBitSet,
  out: Float64Array,
): void {
  const set = seen.words
  let sum = 0
  let count = 0
  for (let i = 0; i < n; i++) {
    const f = features[i]
    const word = f >>> 5
    const bit = 1 << (f & 31)
    const old = set[word]
    if ((old & bit) !== 0) continue
    set[word] = old | bit
    sum += values[f]
    features[count++] = f
  }
  clearSeen(set, features, count)
  out[0] = sum
  out[1] = count
}

/**
 * {@link sumDistinctStoredWeights} over int8 weights (0.5.5): a quarter of
 * float32's bytes, 256 KB at 18 bits, so the scattered reads miss the cache
 * less again. Kept separate so each call site stays monomorphic, and done in
 * two loops: the first compacts the distinct features without a branch (a
 * repeated feature is written and not counted), the second only reads and
 * adds, so the processor can keep many of its cache misses in flight. The sum
 * is an exact integer, so its order does not matter.
 */
export function sumDistinctInt8Weights(
  features: Int32Array,
  n: number,
  values: Int8Array,
  seen: FeatureBitSet,
  out: Float64Array,
): void {
  const set = seen.words
  let count = 0
  for (let i = 0; i < n; i++) {
    const f = features[i]
    const word = f >>> 5
    const old = set[word]
    set[word] = old | (1 << (f & 31))
    features[count] = f
    // 1 when the bit was clear (a first occurrence), else 0.
    count += ((old >>> (f & 31)) & 1) ^ 1
  }
  let sum = 0
  for (let i = 0; i < count; i++) sum += values[features[i]]
  clearSeen(set, features, count)
  out[0] = sum
  out[1] = count
}
