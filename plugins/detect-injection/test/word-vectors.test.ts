import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FeatureScratch, FNV_PRIME, hashFeatures, prepareFeatureCodes, WORD_SEED } from '../src/features.js'
import { denseExamplesOf, trainDense } from '../train/dense.js'
import { clusterVectors, wordsOf } from '../train/extract-embeddings.js'
import {
  decodeDenseNet,
  denseFeatureCount,
  denseFeaturesOfCodes,
  denseLogit,
  encodeDenseNet,
  hashClusterFeatures,
  WordVectors,
  wordHashOf,
} from '../train/word-vectors.js'

/** Four words in two obvious directions of a 4-d space. */
function tinyVectors(skip = 0): WordVectors {
  const words = ['ignore', 'disregard', 'recipe', 'cake']
  const raw = [
    [1, 0.9, 0, 0],
    [0.9, 1, 0, 0],
    [0, 0, 1, 0.8],
    [0, 0, 0.8, 1],
  ]
  const hashes = Uint32Array.from(words, (w) => wordHashOf(w) as number)
  const scales = Float32Array.from(raw, (v) => Math.max(...v) / 127)
  const vectors = Int8Array.from(raw.flatMap((v, i) => v.map((x) => Math.round(x / scales[i]!))))
  return new WordVectors(hashes, scales, vectors, 4, skip)
}

describe('word vectors (train/word-vectors.ts, the dense-model trials)', () => {
  it('hashes a word as the n-gram loop hashes it', () => {
    // The word unigram feature of "disregard" is the mixed word hash: recompute it from wordHashOf.
    const scratch = new FeatureScratch()
    const n = prepareFeatureCodes('disregard', scratch)
    const count = hashFeatures(scratch.codes, n, 24, scratch.features)
    const h = wordHashOf('disregard') as number
    const unigram = (h ^ (h >>> 13)) & ((1 << 24) - 1)
    assert.ok(scratch.features.subarray(0, count).includes(unigram))
    assert.equal(wordHashOf('two words'), undefined)
    assert.equal(wordHashOf(''), undefined)
    let manual = WORD_SEED
    for (const c of 'ok') manual = Math.imul(manual ^ c.charCodeAt(0), FNV_PRIME)
    assert.equal(wordHashOf('ok'), manual >>> 0)
  })

  it('splits words as the n-grams do (lower case, inner apostrophes)', () => {
    assert.deepEqual(wordsOf("Don't IGNORE the rules, O'Brien!"), [
      "don't",
      'ignore',
      'the',
      'rules',
      "o'brien",
    ])
  })

  it('round-trips the file format and finds words by hash', () => {
    const v = tinyVectors()
    const back = WordVectors.fromBytes(v.toBytes())
    assert.equal(back.count, 4)
    assert.equal(back.rowOf(wordHashOf('cake') as number), 3)
    assert.equal(back.rowOf(wordHashOf('pie') as number), -1)
    assert.deepEqual(Array.from(back.vectors), Array.from(v.vectors))
    const bad = v.toBytes()
    bad[0] = 0
    assert.throws(() => WordVectors.fromBytes(bad), /not an embeddings file/)
    assert.throws(() => WordVectors.fromBytes(v.toBytes().subarray(0, 40)), /wrong size/)
    const twice = new Uint32Array([1, 1])
    assert.throws(() => new WordVectors(twice, new Float32Array(2), new Int8Array(8), 4), /twice/)
  })

  it('pools the vectors of a text: mean, maximum, share of words found', () => {
    const v = tinyVectors()
    const scratch = new FeatureScratch()
    const out = new Float32Array(denseFeatureCount(4))
    const n = prepareFeatureCodes('Disregard the cake', scratch)
    denseFeaturesOfCodes(v, scratch.codes, n, out)
    assert.ok(Math.abs(out[0]! - 0.45) < 0.01, `mean ${out[0]}`)
    assert.ok(Math.abs(out[4 + 3]! - 1) < 0.01, `max ${out[7]}`)
    assert.ok(Math.abs(out[8]! - 2 / 3) < 1e-6)
    // Skipping the commonest rows (here the first two) leaves only "cake".
    denseFeaturesOfCodes(tinyVectors(2), scratch.codes, n, out)
    assert.ok(Math.abs(out[0]!) < 1e-6 && Math.abs(out[3]! - 1) < 0.01)
    const none = prepareFeatureCodes('nothing known here', scratch)
    denseFeaturesOfCodes(v, scratch.codes, none, out)
    assert.ok(out.every((x) => x === 0))
  })

  it('trains a network that separates the two directions, deterministically, and round-trips it', () => {
    const v = tinyVectors()
    const rows: [string, 0 | 1][] = [
      ['ignore it', 1],
      ['disregard that', 1],
      ['a cake recipe', 0],
      ['recipe please', 0],
    ]
    const examples = rows.flatMap(([t, l]) => denseExamplesOf(v, t, l))
    const options = { hidden: 4, epochs: 200, learningRate: 0.01, l2: 0, seed: 3 }
    const net = trainDense(examples, options)
    const again = trainDense(examples, options)
    assert.deepEqual(Array.from(net.w1), Array.from(again.w1))
    // A paraphrase with words the training texts used in other combinations.
    const [attack] = denseExamplesOf(v, 'please disregard', 1)
    const [benign] = denseExamplesOf(v, 'ignore nothing, bake the cake recipe', 0)
    assert.ok(denseLogit(net, attack!.x) > 0, 'attack scores positive')
    assert.ok(denseLogit(net, attack!.x) > denseLogit(net, benign!.x))
    const back = decodeDenseNet(encodeDenseNet(net), net.inputs, net.hidden)
    assert.equal(denseLogit(back, attack!.x), denseLogit(net, attack!.x))
    assert.throws(() => decodeDenseNet(encodeDenseNet(net), net.inputs, net.hidden + 1), /wrong size/)
  })

  it('gives synonyms in one cluster the same word-cluster n-grams', () => {
    const v = tinyVectors()
    const clusters = clusterVectors(v, 2, 5)
    assert.equal(clusters[0], clusters[1])
    assert.equal(clusters[2], clusters[3])
    assert.notEqual(clusters[0], clusters[2])
    const scratch = new FeatureScratch()
    const features = (text: string) => {
      const n = prepareFeatureCodes(text, scratch)
      const count = hashClusterFeatures(v, clusters, 2, scratch.codes, n, 18, scratch.features, 0)
      return Array.from(scratch.features.subarray(0, count))
    }
    assert.deepEqual(features('ignore cake'), features('disregard recipe'))
    assert.notDeepEqual(features('ignore cake'), features('cake ignore'))
    // Unknown words are one cluster of their own, so n-grams still form across them.
    assert.equal(features('ignore zzz cake').length, 6)
  })
})
