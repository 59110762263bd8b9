import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  FeatureBitSet,
  FeatureDeduper,
  FeatureScratch,
  featuresOf,
  hashFeatures,
  prepareFeatureCodes,
  prepareFeatureText,
  sumDistinctWeights,
} from '../src/features.js'
import { BENIGN_LOOKALIKES, DIRECT_ATTACKS } from './fixtures.js'

const TEXTS = [
  '',
  '   ',
  'Hello',
  '  Leading and trailing  ',
  'Tabs\tand\nnew\r\nlines\u000b\u000cand   runs',
  "Don't stop — it's “quoted” café",
  'İstanbul ΣΊΣΥΦΟΣ straße',
  ...Object.values(DIRECT_ATTACKS),
  ...BENIGN_LOOKALIKES,
]

/** The n-gram hashing as first written: one loop per position, features pushed to an array. */
function referenceFeatures(prepared: string, bits: number): number[] {
  const isWordChar = (c: number): boolean => {
    if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a)
    if (c < 0xc0) return false
    if (c >= 0x2000 && c <= 0x2bff) return false
    if (c >= 0x3000 && c <= 0x303f) return false
    if (c >= 0xff00 && c <= 0xff20) return false
    if (c >= 0xd800 && c <= 0xdfff) return false
    return c !== 0xd7 && c !== 0xf7
  }
  const mask = (1 << bits) - 1
  const out: number[] = []
  const n = prepared.length
  for (let i = 0; i + 3 <= n; i++) {
    let h = 0x811c9dc5
    for (let k = 0; k < 5 && i + k < n; k++) {
      h ^= prepared.charCodeAt(i + k)
      h = Math.imul(h, 0x01000193)
      if (k >= 2) out.push((h ^ (h >>> 15)) & mask)
    }
  }
  let previous = 0
  let beforePrevious = 0
  let h = 0x9747b28c
  let inWord = false
  for (let i = 0; i <= n; i++) {
    const c = i < n ? prepared.charCodeAt(i) : 32
    const word =
      isWordChar(c) ||
      ((c === 39 || c === 0x2019) && inWord && i + 1 < n && isWordChar(prepared.charCodeAt(i + 1)))
    if (word) {
      h ^= c
      h = Math.imul(h, 0x01000193)
      inWord = true
      continue
    }
    if (!inWord) continue
    out.push((h ^ (h >>> 13)) & mask)
    if (previous !== 0) {
      const b = Math.imul(previous ^ 0x5bd1e995, 0x01000193) ^ h
      out.push((b ^ (b >>> 16)) & mask)
      if (beforePrevious !== 0) {
        const t = Math.imul(Math.imul(beforePrevious ^ 0x2c1b3c6d, 0x01000193) ^ previous, 0x01000193) ^ h
        out.push((t ^ (t >>> 16)) & mask)
      }
    }
    beforePrevious = previous
    previous = h
    h = 0x9747b28c
    inWord = false
  }
  return out
}

describe('features', () => {
  it('prepares the same characters as the string reference, ASCII or not', () => {
    const scratch = new FeatureScratch()
    for (const text of TEXTS) {
      const n = prepareFeatureCodes(text, scratch)
      assert.equal(String.fromCharCode(...scratch.codes.subarray(0, n)), prepareFeatureText(text), text)
    }
  })

  it('prepares ASCII whitespace at either end, in runs and alone as the string reference does', () => {
    const scratch = new FeatureScratch()
    const alphabet = ['a', 'Z', '0', '.', ' ', '\t', '\n', '\r', '\u000b', '\u000c', '  ']
    let seed = 11
    for (let k = 0; k < 5000; k++) {
      let text = ''
      for (let i = 0, length = k % 12; i < length; i++) {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
        text += alphabet[seed % alphabet.length]
      }
      const n = prepareFeatureCodes(text, scratch)
      assert.equal(
        String.fromCharCode(...scratch.codes.subarray(0, n)),
        prepareFeatureText(text),
        JSON.stringify(text),
      )
    }
  })

  it('hashes the same features as the straightforward loop, in the same order', () => {
    for (const text of TEXTS) {
      assert.deepEqual([...featuresOf(text, 16)], referenceFeatures(prepareFeatureText(text), 16), text)
    }
  })

  it('grows its buffers for long texts and reuses them', () => {
    const scratch = new FeatureScratch()
    const long = 'word '.repeat(10_000)
    // Prepare first: preparing may replace the buffers.
    const n = prepareFeatureCodes(long, scratch)
    const count = hashFeatures(scratch.codes, n, 16, scratch.features)
    assert.deepEqual(
      [...scratch.features.subarray(0, count)],
      referenceFeatures(prepareFeatureText(long), 16),
    )
    const codes = scratch.codes
    prepareFeatureCodes('short text', scratch)
    assert.equal(scratch.codes, codes, 'the grown buffer is kept')
  })

  it('sums the distinct features in one pass exactly as deduplicating then summing do', () => {
    let seed = 7
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed / 2 ** 32
    }
    const alphabet = [
      'a',
      'e',
      't',
      ' ',
      ' ',
      '\n',
      "'",
      '’',
      'X',
      '0',
      '9',
      '.',
      '!',
      '#',
      'é',
      'ß',
      'Σ',
      '漢',
      '\u2003',
    ]
    const texts = [...TEXTS, 'word '.repeat(3000), 'ok ok ok', 'a']
    for (let i = 0; i < 400; i++) {
      let text = ''
      const length = Math.floor(random() * 600)
      for (let k = 0; k < length; k++) text += alphabet[Math.floor(random() * alphabet.length)]
      texts.push(text)
    }
    for (const bits of [12, 18]) {
      // Weights of every sign and magnitude, as the int16-scaled model file gives them.
      const weights = new Float32Array(1 << bits)
      for (let i = 0; i < weights.length; i++) weights[i] = Math.round((random() - 0.5) * 65534) * 0.0000797
      const scratch = new FeatureScratch()
      const deduper = new FeatureDeduper(bits)
      const seen = new FeatureBitSet(bits)
      const out = new Float64Array(2)
      for (const text of texts) {
        const n = prepareFeatureCodes(text, scratch)
        const count = deduper.dedupe(scratch.features, hashFeatures(scratch.codes, n, bits, scratch.features))
        let sum = 0
        for (let k = 0; k < count; k++) sum += weights[scratch.features[k]]
        // Hashed again: dedupe compacted the buffer in place.
        sumDistinctWeights(
          scratch.features,
          hashFeatures(scratch.codes, n, bits, scratch.features),
          weights,
          seen,
          out,
        )
        assert.ok(Object.is(out[0], sum), `sum of ${JSON.stringify(text.slice(0, 40))}`)
        assert.equal(out[1], count)
        assert.ok(
          seen.words.every((w) => w === 0),
          'the bit set is clear for the next text',
        )
      }
    }
  })
})
