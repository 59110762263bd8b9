/**
 * Trains the named-entity model shipped in `model/ner.bin` on
 * ../shared/datasets/pii-train.jsonl, offline:
 *
 *   npx tsc -b plugins/detect-pii && node plugins/detect-pii/dist/train/train-ner.js [--epochs 4] [--rate 0.1] [--bits 18]   (the defaults made model/ner.bin; the run is deterministic)
 *
 * A greedy left-to-right tagger (tags O, B/I-PER, B/I-ORG, B/I-LOC) learnt
 * by multinomial logistic regression (AdaGrad) over hashed token features (`src/entities/ner-features.ts`):
 * the word, its shape, prefixes and suffixes, neighbouring words and shapes,
 * the two previous tags, gazetteer flags of the word and its neighbours,
 * position in the sentence, punctuation around it. Documents are split by
 * `train/split.ts`: held-out ones are never read here; a calibration part of
 * the rest fits the softmax temperature and reports progress. Weights are
 * stored as half-precision floats.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { codeUnits } from '../src/code-units.js'
import { loadGazetteer } from '../src/entities/gazetteer.js'
import { flagsOfWord, lexiconOf } from '../src/entities/lexicon.js'
import {
  MAX_FEATURES,
  OUTSIDE,
  TAG_COUNT,
  type TokenView,
  tokenFeatures,
} from '../src/entities/ner-features.js'
import {
  dequantise,
  encodeModel,
  MODEL_URL,
  mayContinue,
  quantise,
  tokenView,
} from '../src/entities/ner-model.js'
import { tokenize } from '../src/entities/tokenize.js'
import { readTextFacts } from '../src/text-facts.js'
import { DATASETS, isCalibration, isHeldOut } from './split.js'

interface Row {
  id: string
  text: string
  source: string
  spans: { type: string; start: number; end: number }[]
  annotated_types?: string[]
}
interface Doc {
  view: TokenView
  /** Gold tag per token; 255 = not learnt from (inside a span of another kind, e.g. an address). */
  gold: Uint8Array
}

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`)
  return at > 0 ? Number(process.argv[at + 1]) : fallback
}
const EPOCHS = arg('epochs', 4)
const BITS = arg('bits', 18)
const IGNORE = 255
const TYPE_TAG: Record<string, number> = { PERSON: 1, ORGANIZATION: 3, LOCATION: 5 }

const gazetteer = await loadGazetteer({ model: false })
const lexicon = lexiconOf(gazetteer)

function toDoc(row: Row): Doc | undefined {
  const units = codeUnits(row.text)
  if (readTextFacts(units).caseMode !== 'normal') return undefined
  const tokens = tokenize(row.text, units)
  if (tokens.length === 0) return undefined
  const view = tokenView(tokens, units)
  const flags = view.flags as Int32Array
  for (let i = 0; i < tokens.length; i++) flags[i] = flagsOfWord(lexicon, tokens[i].key)
  const gold = new Uint8Array(tokens.length)
  for (const span of row.spans) {
    const base = TYPE_TAG[span.type]
    let first = true
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]
      if (t.end <= span.start || t.start >= span.end) continue
      if (base === undefined) {
        // Other kinds (MISC) are ordinary words to the tagger; addresses and IDs belong to other detectors.
        if (span.type !== 'MISC') gold[i] = IGNORE
        continue
      }
      gold[i] = first ? base : base + 1
      first = false
    }
  }
  return { view, gold }
}

const rows: Row[] = readFileSync(new URL('pii-train.jsonl', DATASETS), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l))
const train: Doc[] = []
const calibration: Doc[] = []
for (const row of rows) {
  if (isHeldOut(row.id) || !row.annotated_types?.includes('PERSON')) continue
  const doc = toDoc(row)
  if (!doc) continue
  ;(isCalibration(row.id) ? calibration : train).push(doc)
}
console.log(`training documents ${train.length}, calibration ${calibration.length}`)

const size = (1 << BITS) * TAG_COUNT
const mask = (1 << BITS) - 1
const weights = new Float64Array(size)
const features = new Uint32Array(MAX_FEATURES)
const scores = new Float64Array(TAG_COUNT)

function allowed(prev: number, tag: number): boolean {
  if (tag === OUTSIDE || (tag & 1) === 1) return true
  return prev === tag || prev === tag - 1
}

function score(w: ArrayLike<number>, count: number): void {
  scores.fill(0)
  for (let k = 0; k < count; k++) {
    const base = (features[k] & mask) * TAG_COUNT
    for (let c = 0; c < TAG_COUNT; c++) scores[c] += w[base + c]
  }
}

function best(prev: number): number {
  let tag = OUTSIDE
  for (let c = 1; c < TAG_COUNT; c++) if (allowed(prev, c) && scores[c] > scores[tag]) tag = c
  return tag
}

/** Runs the tagger over a document as the runtime does; `visit` sees each scored token. */
function walk(
  doc: Doc,
  w: ArrayLike<number>,
  visit: (i: number, count: number, predicted: number, prev: number) => void,
): void {
  const { tokens } = doc.view
  let prev = OUTSIDE
  let prev2 = OUTSIDE
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]
    if (t.codeLike || (!t.cap && (prev === OUTSIDE || !mayContinue(t, doc.view.flags[i])))) {
      prev2 = prev
      prev = OUTSIDE
      continue
    }
    const count = tokenFeatures(doc.view, i, prev, prev2, features)
    score(w, count)
    const predicted = best(prev)
    visit(i, count, predicted, prev)
    prev2 = prev
    prev = predicted
  }
}

function shuffle<T>(items: T[], seed: number): void {
  let s = seed
  for (let i = items.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    const j = s % (i + 1)
    ;[items[i], items[j]] = [items[j], items[i]]
  }
}

/** Entity-level precision and recall (exact span and type) on documents, for progress reports. */
function measure(docs: Doc[], w: ArrayLike<number>): string {
  let gold = 0
  let predicted = 0
  let correct = 0
  for (const doc of docs) {
    const tags = new Uint8Array(doc.gold.length)
    walk(doc, w, (i, _count, p) => {
      tags[i] = p
    })
    const g = spans(doc.gold)
    const p = spans(tags)
    gold += g.size
    predicted += p.size
    for (const key of p) if (g.has(key)) correct++
  }
  const precision = correct / Math.max(predicted, 1)
  const recall = correct / Math.max(gold, 1)
  return `P ${precision.toFixed(3)} R ${recall.toFixed(3)} F1 ${((2 * precision * recall) / Math.max(precision + recall, 1e-9)).toFixed(3)}`
}

function spans(tags: Uint8Array): Set<string> {
  const out = new Set<string>()
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i]
    if (tag === IGNORE || tag === OUTSIDE || (tag & 1) === 0) continue
    let j = i
    while (j + 1 < tags.length && tags[j + 1] === tag + 1) j++
    out.add(`${i}:${j}:${tag}`)
  }
  return out
}

// Multinomial logistic regression by AdaGrad, on the tokens the runtime scores, with the tags the runtime
// would have predicted before them (so training sees its own mistakes, as the greedy tagger will).
const squares = new Float64Array(size).fill(1e-8)
const RATE = arg('rate', 0.1)
const probs = new Float64Array(TAG_COUNT)
for (let epoch = 0; epoch < EPOCHS; epoch++) {
  shuffle(train, epoch + 1)
  let loss = 0
  let tokens = 0
  for (const doc of train) {
    walk(doc, weights, (i, count, _predicted, prev) => {
      const truth = doc.gold[i]
      if (truth === IGNORE || !allowed(prev, truth)) return
      let max = Number.NEGATIVE_INFINITY
      for (let c = 0; c < TAG_COUNT; c++) if (allowed(prev, c) && scores[c] > max) max = scores[c]
      let sum = 0
      for (let c = 0; c < TAG_COUNT; c++) {
        probs[c] = allowed(prev, c) ? Math.exp(scores[c] - max) : 0
        sum += probs[c]
      }
      for (let c = 0; c < TAG_COUNT; c++) probs[c] /= sum
      loss -= Math.log(Math.max(probs[truth], 1e-12))
      tokens++
      for (let c = 0; c < TAG_COUNT; c++) {
        const g = probs[c] - (c === truth ? 1 : 0)
        if (g === 0) continue
        for (let k = 0; k < count; k++) {
          const at = (features[k] & mask) * TAG_COUNT + c
          squares[at] += g * g
          weights[at] -= (RATE * g) / Math.sqrt(squares[at])
        }
      }
    })
  }
  console.log(
    `epoch ${epoch + 1}: mean loss ${(loss / tokens).toFixed(4)} over ${tokens} tokens; calibration ${measure(calibration, weights)}`,
  )
}

const averaged = Float32Array.from(weights)
console.log(`calibration, float weights: ${measure(calibration, averaged)}`)

const codes = quantise(averaged)
const quantised = dequantise(codes)
console.log(`calibration, half-precision weights: ${measure(calibration, quantised)}`)

// Temperature: the one that minimises the negative log-likelihood of the gold tag on calibration tokens.
const samples: { logits: number[]; gold: number }[] = []
for (const doc of calibration) {
  walk(doc, quantised, (i, _count, _predicted, prev) => {
    const gold = doc.gold[i]
    if (gold === IGNORE || !allowed(prev, gold)) return
    const logits: number[] = []
    for (let c = 0; c < TAG_COUNT; c++) logits.push(allowed(prev, c) ? scores[c] : Number.NEGATIVE_INFINITY)
    samples.push({ logits, gold })
  })
}
let temperature = 1
let bestLoss = Number.POSITIVE_INFINITY
for (let t = 0.05; t <= 500; t *= 1.1) {
  let loss = 0
  for (const { logits, gold } of samples) {
    const max = Math.max(...logits)
    let sum = 0
    for (const l of logits) sum += Math.exp((l - max) / t)
    loss -= (logits[gold] - max) / t - Math.log(sum)
  }
  if (loss < bestLoss) {
    bestLoss = loss
    temperature = t
  }
}
console.log(
  `temperature ${temperature.toFixed(3)} (NLL ${(bestLoss / samples.length).toFixed(4)} over ${samples.length} tokens)`,
)

const out = process.argv.includes('--out')
  ? new URL(`file://${process.argv[process.argv.indexOf('--out') + 1]}`)
  : MODEL_URL
mkdirSync(new URL('.', out), { recursive: true })
writeFileSync(out, encodeModel({ bits: BITS, temperature, codes }))
console.log(`wrote ${fileURLToPath(out)}`)
