/**
 * Trials of the dense model (word vectors) on leave-one-source-out logits,
 * without retraining the n-gram model: reads the n-gram logits that
 * `train.js --logits-cache FILE` keeps, computes the dense model's
 * out-of-group logits for the options given, and prints the direct F1 at the
 * false-positive caps without and with it (and the dense model alone).
 *
 *   node --max-old-space-size=8000 plugins/detect-injection/dist/train/dense-experiment.js FILE [--channel direct|tool] [--dense-hidden N] [--dense-epochs N] [--dense-lr X] [--dense-l2 X] [--skip N]
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Channel } from '../src/match-rules.js'
import { augmentToolRows } from './augment.js'
import { balanceWeights, fitCombiner, ruleWeightsOf, sourceGroup, TRAIN_FLAGS } from './cross-validate.js'
import { loadExtraRows, loadPersonaRows, loadRows, TRAIN_FILE } from './dataset.js'
import { DEFAULT_DENSE_OPTIONS, type DenseData, denseExamplesOf, outOfGroupDenseLogits } from './dense.js'
import { EMBEDDINGS_URL } from './extract-embeddings.js'
import { isHeldOut } from './split.js'
import { WordVectors } from './word-vectors.js'

function main(): void {
  const argv = process.argv.slice(2)
  const get = (name: string) => {
    const i = argv.indexOf(name)
    return i >= 0 ? Number(argv[i + 1]) : undefined
  }
  const channel = (argv.includes('--channel') ? argv[argv.indexOf('--channel') + 1] : 'direct') as Channel
  const cache = argv[0]!
  TRAIN_FLAGS.directLearnsToolAttacks = true
  const rows = (loadRows(TRAIN_FILE) ?? []).filter((r) => !isHeldOut(r)).concat(loadPersonaRows())
  const logits = Float64Array.from(
    JSON.parse(readFileSync(`${cache}.${channel}.json`, 'utf8')) as (number | null)[],
    (x) => x ?? Number.NaN,
  )
  const vectors = WordVectors.fromBytes(readFileSync(EMBEDDINGS_URL), get('--skip') ?? 0)
  const augmentedRows = channel === 'tool' ? augmentToolRows(rows, (r) => sourceGroup(r.source), 300) : []
  const data: DenseData = {
    rows: rows.map((r) =>
      r.channel === channel || r.label === 1 ? denseExamplesOf(vectors, r.text, r.label) : [],
    ),
    extra: loadExtraRows().map((r) => denseExamplesOf(vectors, r.text, r.label)),
    augmented: augmentedRows.map((r) => denseExamplesOf(vectors, r.text, r.label)),
  }
  const options = {
    hidden: get('--dense-hidden') ?? DEFAULT_DENSE_OPTIONS.hidden,
    epochs: get('--dense-epochs') ?? DEFAULT_DENSE_OPTIONS.epochs,
    learningRate: get('--dense-lr') ?? DEFAULT_DENSE_OPTIONS.learningRate,
    l2: get('--dense-l2') ?? DEFAULT_DENSE_OPTIONS.l2,
    seed: DEFAULT_DENSE_OPTIONS.seed,
  }
  const weights = balanceWeights(rows, 400)
  const augmented = {
    examples: [],
    groups: augmentedRows.map((r) => r.groups),
    weights: balanceWeights(augmentedRows, 400),
  }
  const dense = outOfGroupDenseLogits(rows, channel, data, options, weights, augmented)
  const rules = ruleWeightsOf(rows)
  const maxFpr = channel === 'direct' ? 0.03 : 0.05
  const ordinary = channel === 'direct' ? 0.01 : 1
  const zero = new Float64Array(rows.length)
  const base = fitCombiner(rows, channel, logits, rules, 0.7, maxFpr, ordinary)
  const alone = fitCombiner(rows, channel, zero, rules, 0.7, maxFpr, ordinary, dense)
  const both = fitCombiner(rows, channel, logits, rules, 0.7, maxFpr, ordinary, dense)
  console.log(`${channel} ${JSON.stringify(options)} skip ${vectors.skip}`)
  console.log(
    `  n-grams + rules: F1 ${base.f1.toFixed(3)} recall ${base.recall.toFixed(3)} FPR ${base.fpr.toFixed(4)}`,
  )
  console.log(
    `  dense + rules:   F1 ${alone.f1.toFixed(3)} recall ${alone.recall.toFixed(3)} FPR ${alone.fpr.toFixed(4)}`,
  )
  console.log(
    `  all three:       F1 ${both.f1.toFixed(3)} recall ${both.recall.toFixed(3)} FPR ${both.fpr.toFixed(4)} ${JSON.stringify({ ...both.combiner, gamma: both.gamma })}\n  ${both.curve}`,
  )
  // Whatever weight the dense logit gets (not only the log-loss fit): n-gram logit + r·dense, calibrated again.
  const grid = [0, 0.05, 0.1, 0.2, 0.3, 0.5, 1]
    .map((r) => {
      const mixed = Float64Array.from(logits, (x, i) => x + r * dense[i]!)
      const fit = fitCombiner(rows, channel, mixed, rules, 0.7, maxFpr, ordinary)
      return `r ${r}: F1 ${fit.f1.toFixed(3)}`
    })
    .join('; ')
  console.log(`  n-gram logit + r × dense logit: ${grid}`)
  // Per group: recall or FPR of the combination.
  const c = both.combiner
  const groups = new Map<string, { n: number; hit: number; pos: number }>()
  rows.forEach((r, i) => {
    if (r.channel !== channel || Number.isNaN(dense[i]!)) return
    const z = c.bias + c.alpha * logits[i]! + (both.gamma ?? 0) * dense[i]! + rules[i]!
    const b = base.combiner
    const z0 = b.bias + b.alpha * logits[i]! + rules[i]!
    const key = `${sourceGroup(r.source)}:${r.label}`
    const g = groups.get(key) ?? { n: 0, hit: 0, pos: 0 }
    g.n++
    if (z >= Math.log(7 / 3)) g.hit++
    if (z0 >= Math.log(7 / 3)) g.pos++
    groups.set(key, g)
  })
  for (const [k, g] of [...groups].sort())
    console.log(
      `  ${k.padEnd(28)} ${String(g.n).padStart(5)}  before ${(g.pos / g.n).toFixed(3)}  after ${(g.hit / g.n).toFixed(3)}`,
    )
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
