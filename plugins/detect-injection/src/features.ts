/**
 * Hashed features for the linear model: character 3- to 5-grams of the
 * lower-cased text (with spaces collapsed and padded, so word edges count)
 * plus word unigrams and bigrams. The same code runs in training and at
 * request time, so the two cannot drift apart.
 */

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193
const WORD_SEED = 0x9747b28c
const BIGRAM_SEED = 0x5bd1e995

/** Lower-case and collapse whitespace; pads with one space on each side. */
export function prepareFeatureText(text: string): string {
  return ` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `
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

/**
 * Append the feature indices of `prepared` (from {@link prepareFeatureText})
 * to `out`, one per occurrence, each below `2 ** bits`. Returns how many were added.
 */
export function collectFeatures(prepared: string, bits: number, out: number[]): number {
  const mask = (1 << bits) - 1
  const before = out.length
  const n = prepared.length
  for (let i = 0; i + 3 <= n; i++) {
    let h = FNV_OFFSET
    for (let k = 0; k < 5 && i + k < n; k++) {
      h ^= prepared.charCodeAt(i + k)
      h = Math.imul(h, FNV_PRIME)
      if (k >= 2) out.push((h ^ (h >>> 15)) & mask)
    }
  }
  let previous = 0
  let h = WORD_SEED
  let inWord = false
  for (let i = 0; i <= n; i++) {
    const c = i < n ? prepared.charCodeAt(i) : 32
    // An apostrophe between two word characters stays inside the word ("don't").
    const word =
      isWordChar(c) ||
      ((c === 39 || c === 0x2019) && inWord && i + 1 < n && isWordChar(prepared.charCodeAt(i + 1)))
    if (word) {
      h ^= c
      h = Math.imul(h, FNV_PRIME)
      inWord = true
      continue
    }
    if (!inWord) continue
    out.push((h ^ (h >>> 13)) & mask)
    if (previous !== 0) {
      const b = Math.imul(previous ^ BIGRAM_SEED, FNV_PRIME) ^ h
      out.push((b ^ (b >>> 16)) & mask)
    }
    previous = h
    h = WORD_SEED
    inWord = false
  }
  return out.length - before
}
