/**
 * Fitting the two channel models and calibrating how each combines with the
 * rules, on the training part of the split only. The combiner of a channel is
 * fitted on out-of-group logits (each source group scored by a model trained
 * without it), so it trusts the model only as far as the model transfers to
 * kinds of text it has not seen; its offset is then moved so that the default
 * threshold keeps the false-positive rate on those rows under a target.
 */

import { seededRandom } from '@gov/core/testing'
import { InjectionDetector } from '../src/detector.js'
import type { Combiner, WeightEncoding } from '../src/linear-model.js'
import { LinearModel } from '../src/linear-model.js'
import type { Channel } from '../src/match-rules.js'
import { loadExtraRows, type Row, sourceFamily } from './dataset.js'
import {
  DEFAULT_TRAIN_OPTIONS,
  type Example,
  examplesOf,
  fitDenseLogistic,
  rowLogit,
  type TrainOptions,
  trainLogistic,
} from './logistic.js'

/** A model with all-zero weights: lets the detector report rule weights alone. */
export function rulesOnlyDetector(): InjectionDetector {
  const combine = { alpha: 0, beta: 1, bias: 0 }
  const zero = { bias: 0, weights: new Float32Array(1 << 8) }
  return new InjectionDetector(
    new LinearModel(8, { direct: zero, tool: zero }, { direct: combine, tool: combine }),
  )
}

/** Rule weight of every row on its channel (rules are not trained). */
export function ruleWeightsOf(rows: readonly Row[]): Float64Array {
  const rules = rulesOnlyDetector()
  return Float64Array.from(rows, (row) => rules.analyze(row.text, row.channel).ruleWeight)
}

/** Examples of every row, computed once. */
export function examplesOfRows(rows: readonly Row[], bits: number): Example[][] {
  return rows.map((row) => examplesOf(row.text, row.label, bits))
}

/**
 * Which rows train a channel's model. Prompts train the direct model. Tool
 * output trains the tool model, together with the direct positives: an
 * instruction aimed at the assistant is what both look for, and the tool
 * rows alone hold few kinds of attack wording.
 */
export function trainsChannel(row: Row, channel: Channel, directLearnsToolAttacks = false): boolean {
  if (channel === 'direct')
    return (
      row.channel === 'direct' ||
      (directLearnsToolAttacks && row.label === 1 && !row.source.startsWith('constructed:'))
    )
  return row.channel === 'tool' || row.label === 1
}

/**
 * `directLearnsToolAttacks` (train.ts: on unless `--direct-only`): the direct
 * model also trains on the tool positives of the benchmark sources
 * (AgentDojo, InjecAgent, XInjectAgent, Spikee), not on the `constructed:*`
 * ones, which reuse the direct sources' trigger phrases and would leak them
 * into a leave-one-source-out fold. Leave-one-source-out direct F1 rose from
 * 0.449 to 0.493 with it (2026-11-24).
 */
export const TRAIN_FLAGS: {
  directLearnsToolAttacks: boolean
  /**
   * Trial (train.ts `--stable-groups K --stable-l2 M`): an n-gram feature that occurs in
   * fewer than K source groups of a model's training rows gets M times the L2 (M =
   * Infinity: its weight stays 0). Source-specific wording (a dataset's template, its
   * boilerplate) is what an unseen source lacks. 0: off. Like the other trials here, it
   * applies to the direct model only.
   */
  stableGroups: number
  stableL2: number
  /**
   * Trial (train.ts `--group-bags K --bag-share X`): a model is the average of K models,
   * each trained on a random share X of the source groups with positives and the same
   * share of the others (the hand-written rows always train). 1: off.
   */
  groupBags: number
  bagShare: number
  /**
   * Trial (train.ts `--hard-weight C --hard-mode both|neg|pos`): before a model trains,
   * its training groups are split in two halves (each with about half of the groups
   * that hold positives); a model trained on each half scores the other half, and a
   * row then weighs `1 + C·p` (benign: p the probability it is an attack; attack: 1 − p).
   * So rows that a model without their source gets wrong count more, chosen without
   * the left-out group. 0: off.
   */
  hardWeight: number
  hardMode: 'both' | 'neg' | 'pos'
  /**
   * Trial (train.ts `--sign-stable M`): the training groups are split in two halves as
   * for `hardWeight`; a model is trained on each, and an n-gram feature whose weight
   * has not the same sign in both (or is 0 in one) gets M times the L2 in the model
   * trained on all of them (M = Infinity: its weight stays 0). 0: off.
   */
  signStable: number
  /** Trial (train.ts `--sign-splits R`): R splits in halves (2R models); a stable feature has one sign in all. */
  signSplits: number
} = {
  signStable: 0,
  signSplits: 1,
  directLearnsToolAttacks: false,
  stableGroups: 0,
  stableL2: 10,
  groupBags: 1,
  bagShare: 0.5,
  hardWeight: 0,
  hardMode: 'both',
}

/** Shuffle `names` in place with `random` (Fisher–Yates) and return them. */
function shuffled(names: string[], random: () => number): string[] {
  for (let i = names.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[names[i], names[j]] = [names[j], names[i]]
  }
  return names
}

/** A model fitted on the rows `keep` accepts (the trials' other inputs fixed). */
type Fit = (keep: (i: number) => boolean) => { weights: Float32Array; bias: number }

/** The trials' view of the training rows: which train this channel, their source groups, and the groups' kinds. */
interface TrainingGroups {
  /** The rows the model is trained on (the trials fit on subsets of these). */
  readonly include: (i: number) => boolean
  readonly trains: (i: number) => boolean
  readonly groupsOf: readonly string[]
  readonly all: ReadonlySet<string>
  readonly withPositives: ReadonlySet<string>
}

/** Every row's source group, and the groups (all, and those with attacks) of the rows of `include` that train `channel`. */
function trainingGroups(
  rows: readonly Row[],
  include: (i: number) => boolean,
  channel: Channel,
): TrainingGroups {
  const trains = (i: number) =>
    include(i) && trainsChannel(rows[i], channel, TRAIN_FLAGS.directLearnsToolAttacks)
  const groupsOf = rows.map((row) => sourceGroup(row.source))
  const withPositives = new Set<string>()
  const all = new Set<string>()
  rows.forEach((row, i) => {
    if (!trains(i)) return
    all.add(groupsOf[i])
    if (row.label === 1) withPositives.add(groupsOf[i])
  })
  return { include, trains, groupsOf, all, withPositives }
}

/** Each group's half (0 or 1): the groups with positives alternate, and so do the others, in a seeded order. */
function groupHalves(all: ReadonlySet<string>, withPositives: ReadonlySet<string>, seed: number) {
  const random = seededRandom(seed * 7919 + 17)
  const half = new Map<string, number>()
  const positives = shuffled([...withPositives].sort(), random)
  const others = shuffled([...all].filter((g) => !withPositives.has(g)).sort(), random)
  for (const list of [positives, others]) for (let k = 0; k < list.length; k++) half.set(list[k], k % 2)
  return half
}

/** {@link TRAIN_FLAGS}' `signStable`: the L2 multiplier per feature from two models on complementary halves of the groups. */
function signStableScale(
  { include, groupsOf, all, withPositives }: TrainingGroups,
  fit: Fit,
  options: TrainOptions,
): Float32Array {
  const size = 1 << options.bits
  const positive = new Uint8Array(size)
  const negative = new Uint8Array(size)
  const splits = Math.max(1, TRAIN_FLAGS.signSplits)
  for (let r = 0; r < splits; r++) {
    const half = groupHalves(all, withPositives, options.seed + 1000 * r)
    for (const side of [0, 1]) {
      const { weights } = fit((i) => include(i) && half.get(groupsOf[i]) === side)
      for (let f = 0; f < size; f++) {
        if (weights[f] > 0) positive[f]++
        else if (weights[f] < 0) negative[f]++
      }
    }
  }
  const M = TRAIN_FLAGS.signStable
  const scale = Float32Array.from(positive, (p, f) =>
    p === 2 * splits || negative[f] === 2 * splits ? 1 : M,
  )
  let trained = 0
  let stable = 0
  for (let f = 0; f < size; f++)
    if (positive[f] + negative[f] > 0) {
      trained++
      if (scale[f] === 1) stable++
    }
  console.error(
    `sign-stable: ${stable} of ${trained} trained features keep one sign in all ${2 * splits} half models`,
  )
  return scale
}

/** {@link TRAIN_FLAGS}' `hardWeight`: row weights raised where models without the row's group err. */
function hardRowWeights(
  rows: readonly Row[],
  examples: readonly Example[][],
  { include, trains, groupsOf, all, withPositives }: TrainingGroups,
  fit: Fit,
  options: TrainOptions,
  rowWeights: Float64Array | undefined,
): Float64Array {
  const half = groupHalves(all, withPositives, options.seed)
  const weights = Float64Array.from(rows, (_, i) => (rowWeights ? rowWeights[i] : 1))
  const C = TRAIN_FLAGS.hardWeight
  for (const side of [0, 1]) {
    const model = fit((i) => include(i) && half.get(groupsOf[i]) !== side)
    rows.forEach((row, i) => {
      if (!trains(i) || half.get(groupsOf[i]) !== side) return
      const p = 1 / (1 + Math.exp(-rowLogit(model.weights, model.bias, examples[i], options.cues === true)))
      if (row.label === 0 && TRAIN_FLAGS.hardMode !== 'pos') weights[i] *= 1 + C * p
      if (row.label === 1 && TRAIN_FLAGS.hardMode !== 'neg') weights[i] *= 1 + C * (1 - p)
    })
  }
  return weights
}

/**
 * How many source groups of the training rows each feature occurs in (capped at 255).
 * `groupOf` gives a row's group, or undefined when the row does not train.
 */
export function featureGroupCounts(
  size: number,
  parts: readonly { readonly group: string; readonly examples: readonly Example[] }[],
): Uint8Array {
  const byGroup = new Map<string, Example[][]>()
  for (const p of parts) {
    const list = byGroup.get(p.group)
    if (list) list.push(p.examples as Example[])
    else byGroup.set(p.group, [p.examples as Example[]])
  }
  const counts = new Uint8Array(size)
  const stamp = new Int32Array(size).fill(-1)
  let id = 0
  for (const lists of byGroup.values()) {
    for (const exs of lists)
      for (const ex of exs)
        for (const f of ex.features) {
          if (stamp[f] === id) continue
          stamp[f] = id
          if (counts[f] < 255) counts[f]++
        }
    id++
  }
  return counts
}

/** The L2 multiplier per feature of {@link TRAIN_FLAGS}' `stableGroups` from group counts. */
export function stableL2Scale(counts: Uint8Array, minGroups: number, multiplier: number): Float32Array {
  return Float32Array.from(counts, (c) => (c < minGroups ? multiplier : 1))
}

/**
 * The unit left out when calibrating and in the leave-one-source-out report:
 * the source family (`jbb-artifacts:PAIR` → `jbb-artifacts`), except for the
 * build script's `constructed:*` sources, each of which wraps a different
 * kind of document and is its own unit.
 */
export function sourceGroup(source: string): string {
  return source.startsWith('constructed:') ? source : sourceFamily(source)
}

/**
 * Weight of each row in training: a source's rows of one label count as at
 * most `cap` rows together. Large single-label sources (1,900 role-play
 * prompts, 1,800 XQuAD questions) otherwise teach the model what those
 * sources look like instead of what an injection looks like. 0: every row 1.
 */
export function balanceWeights(
  rows: readonly Row[],
  cap: number,
  /** Another cap for the rows of some sources (train.ts `--source-cap SOURCE=N`, a trial). */
  sourceCaps: ReadonlyMap<string, number> = new Map(),
  /**
   * Up to how many times a row of a small source counts, so that every source's rows of
   * one label weigh `cap` together (train.ts `--balance-up N`, a trial); 1: never more than once.
   */
  maxUp = 1,
): Float64Array {
  if (cap <= 0) return new Float64Array(rows.length).fill(1)
  const cells = new Map<string, number>()
  for (const row of rows) {
    const key = `${row.source}\u0000${row.label}`
    cells.set(key, (cells.get(key) ?? 0) + 1)
  }
  return Float64Array.from(rows, (row) =>
    Math.min(
      maxUp,
      (sourceCaps.get(row.source) ?? cap) / (cells.get(`${row.source}\u0000${row.label}`) ?? 1),
    ),
  )
}

/**
 * Augmented tool rows ready to train (train/augment.ts): their examples, the
 * source groups each was built from, and their weights.
 */
export interface AugmentedExamples {
  readonly examples: readonly Example[][]
  readonly groups: readonly (readonly string[])[]
  readonly weights: Float64Array
}

/**
 * Train one channel's model on `rows` (indices into `examples`) plus the
 * hand-written rows and, for the tool channel, the augmented rows not built
 * from the group `leftOut`.
 */
export function trainChannel(
  rows: readonly Row[],
  channel: Channel,
  examples: readonly Example[][],
  include: (i: number) => boolean,
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
  extra: readonly Example[][] = [],
  rowWeights?: Float64Array,
  augmented?: AugmentedExamples,
  leftOut?: string,
): { weights: Float32Array; bias: number } {
  // The trials below were measured on the direct channel only; the tool model trains as before.
  const trial = channel === 'direct'
  const bags = trial ? TRAIN_FLAGS.groupBags : 1
  if (!trial || (TRAIN_FLAGS.signStable <= 0 && TRAIN_FLAGS.hardWeight <= 0 && bags <= 1))
    return trainOne(rows, channel, examples, include, options, extra, rowWeights, augmented, leftOut)
  // The trials' models see the options and row weights as they stand when each is fitted.
  const fit: Fit = (keep) =>
    trainOne(rows, channel, examples, keep, options, extra, rowWeights, augmented, leftOut)
  const groups = trainingGroups(rows, include, channel)
  if (TRAIN_FLAGS.signStable > 0) options = { ...options, l2Scale: signStableScale(groups, fit, options) }
  if (TRAIN_FLAGS.hardWeight > 0)
    rowWeights = hardRowWeights(rows, examples, groups, fit, options, rowWeights)
  if (bags > 1) {
    // Trial: the average of models trained on random shares of the groups (group bagging).
    const { groupsOf, all, withPositives } = groups
    const pick = (names: string[], random: () => number) =>
      shuffled(names, random).slice(0, Math.max(1, Math.round(names.length * TRAIN_FLAGS.bagShare)))
    const weights = new Float32Array(1 << options.bits)
    let bias = 0
    for (let b = 0; b < bags; b++) {
      const random = seededRandom(options.seed * 1000 + b + 1)
      const chosen = new Set([
        ...pick([...withPositives].sort(), random),
        ...pick([...all].filter((g) => !withPositives.has(g)).sort(), random),
      ])
      const model = fit((i) => include(i) && chosen.has(groupsOf[i]))
      for (let f = 0; f < weights.length; f++) weights[f] += model.weights[f] / bags
      bias += model.bias / bags
    }
    return { weights, bias }
  }
  return trainOne(rows, channel, examples, include, options, extra, rowWeights, augmented, leftOut)
}

function trainOne(
  rows: readonly Row[],
  channel: Channel,
  examples: readonly Example[][],
  include: (i: number) => boolean,
  options: TrainOptions,
  extra: readonly Example[][],
  rowWeights: Float64Array | undefined,
  augmented: AugmentedExamples | undefined,
  leftOut: string | undefined,
): { weights: Float32Array; bias: number } {
  const train: Example[] = []
  const parts: { group: string; examples: readonly Example[] }[] = []
  for (const e of extra) {
    train.push(...e)
    parts.push({ group: 'extra-rows', examples: e })
  }
  if (augmented && channel === 'tool') {
    augmented.examples.forEach((exs, i) => {
      if (leftOut !== undefined && augmented.groups[i].includes(leftOut)) return
      const w = augmented.weights[i]
      for (const ex of exs) train.push(w === 1 ? ex : { ...ex, weight: ex.weight * w })
      parts.push({ group: 'augmented', examples: exs })
    })
  }
  rows.forEach((row, i) => {
    if (!include(i) || !trainsChannel(row, channel, TRAIN_FLAGS.directLearnsToolAttacks)) return
    const w = rowWeights ? rowWeights[i] : 1
    for (const ex of examples[i]) train.push(w === 1 ? ex : { ...ex, weight: ex.weight * w })
    parts.push({ group: sourceGroup(row.source), examples: examples[i] })
  })
  if (channel === 'direct' && TRAIN_FLAGS.stableGroups > 0) {
    const counts = featureGroupCounts(1 << options.bits, parts)
    options = { ...options, l2Scale: stableL2Scale(counts, TRAIN_FLAGS.stableGroups, TRAIN_FLAGS.stableL2) }
  }
  return trainLogistic(train, options)
}

/**
 * Logits of `channel`'s model for every row of that channel, each from a
 * model trained without the row's whole source group (NaN for other rows).
 * What the model says about a kind of text it has never seen: the combiner is
 * fitted on these, so it trusts the model only as far as it transfers.
 * With `encoding`, each fold model's weights are first rounded as the model
 * file stores them (`int8` since 0.5.5), so the logits are those of the model
 * as it ships; the logits of the unrounded weights then go to `unrounded`,
 * when given, for comparison.
 */
export function outOfGroupLogits(
  rows: readonly Row[],
  channel: Channel,
  examples: readonly Example[][],
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
  extra: readonly Example[][] = [],
  rowWeights?: Float64Array,
  log: (group: string) => void = () => {},
  augmented?: AugmentedExamples,
  encoding?: WeightEncoding,
  unrounded?: Float64Array,
): Float64Array {
  const groups = rows.map((row) => sourceGroup(row.source))
  const logits = new Float64Array(rows.length).fill(Number.NaN)
  const names = [...new Set(groups.filter((_, i) => rows[i].channel === channel))].sort()
  for (const name of names) {
    const { weights, bias } = trainChannel(
      rows,
      channel,
      examples,
      (i) => groups[i] !== name,
      options,
      extra,
      rowWeights,
      augmented,
      name,
    )
    const shipped = encoding ? LinearModel.quantized(weights, encoding) : weights
    rows.forEach((row, i) => {
      if (groups[i] !== name || row.channel !== channel) return
      logits[i] = rowLogit(shipped, bias, examples[i], options.cues === true)
      if (unrounded) unrounded[i] = rowLogit(weights, bias, examples[i], options.cues === true)
    })
    log(name)
  }
  return logits
}

/** Examples of the hand-written rows (prompts), which train the direct model and are never scored. */
export function extraExamples(bits: number): Example[][] {
  return loadExtraRows().map((row) => examplesOf(row.text, row.label, bits))
}

/** Precision, recall, F1 and FPR of `score ≥ threshold` over the rows `idx`. */
function rates(
  idx: readonly number[],
  labels: ArrayLike<number>,
  score: (i: number) => number,
  threshold: number,
  hard?: Uint8Array,
) {
  let tp = 0
  let fp = 0
  let fn = 0
  let tn = 0
  let ordinaryFp = 0
  let ordinary = 0
  for (const i of idx) {
    const hit = score(i) >= threshold
    if (labels[i] === 1) hit ? tp++ : fn++
    else {
      hit ? fp++ : tn++
      if (!hard?.[i]) {
        ordinary++
        if (hit) ordinaryFp++
      }
    }
  }
  const precision = tp / Math.max(1, tp + fp)
  const recall = tp / Math.max(1, tp + fn)
  return {
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    fpr: fp / Math.max(1, fp + tn),
    ordinaryFpr: ordinaryFp / Math.max(1, ordinary),
    recall,
  }
}

/**
 * Source groups of deliberately hard benign prompts: NotInject's prompts full
 * of trigger words and WildGuard's benign adversarial role-play. Unseen, they
 * are blocked 25–35 % of the time whatever the offset, so one cap over all
 * benign rows spends the whole budget on them; the calibration caps them
 * together with the rest and the ordinary benign prompts on their own.
 */
export const HARD_BENIGN_GROUPS: ReadonlySet<string> = new Set(['injecguard'])

/**
 * Fit `sigmoid(bias + alpha·logit + rules)` on out-of-group logits of one
 * channel, then move the offset so that at `threshold` the out-of-fold
 * false-positive rate stays at or under `maxFpr` over all benign rows and at
 * or under `maxOrdinaryFpr` over the benign rows outside
 * {@link HARD_BENIGN_GROUPS}, taking the offset with the best F1 among those
 * that do.
 */
export function fitCombiner(
  rows: readonly Row[],
  channel: Channel,
  logits: Float64Array,
  ruleWeights: Float64Array,
  threshold: number,
  maxFpr: number,
  maxOrdinaryFpr = 1,
  dense?: Float64Array,
): {
  combiner: Combiner
  /** Coefficient of the dense logits, when given (a trial: the shipped combiner has none). */
  gamma?: number
  fpr: number
  ordinaryFpr: number
  f1: number
  recall: number
  curve: string
} {
  const idx = rows
    .map((_, i) => i)
    .filter(
      (i) => rows[i].channel === channel && !Number.isNaN(logits[i]) && !(dense && Number.isNaN(dense[i])),
    )
  const labels = Int8Array.from(rows, (r) => r.label)
  // Rules enter with coefficient 1: their weights are written on the logit scale, and a
  // free coefficient is fitted to the hard negatives of one source (benign text full of
  // trigger words), which mutes every strong rule everywhere else.
  // With a dense model (word vectors, train/dense.ts) its logit is a second input: gamma.
  const [bias, alpha, gamma = 0] = fitDenseLogistic(
    idx.map((i) => (dense ? [logits[i], dense[i]] : [logits[i]])),
    idx.map((i) => labels[i]),
    0.01,
    idx.map((i) => ruleWeights[i]),
  )
  const b = 1
  const z0 = (i: number) => bias + alpha * logits[i] + (dense ? gamma * dense[i] : 0) + b * ruleWeights[i]
  const target = Math.log(threshold / (1 - threshold))
  const hard = Uint8Array.from(rows, (r) => (HARD_BENIGN_GROUPS.has(sourceGroup(r.source)) ? 1 : 0))
  let best = { shift: 0, f1: -1, fpr: 1, ordinaryFpr: 1, recall: 0 }
  // The best F1 under each false-positive cap, to show what a stricter or looser cap would cost.
  const caps = [0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.08]
  const byCap = caps.map(() => ({ f1: 0, recall: 0, fpr: 0, ordinaryFpr: 0 }))
  for (let shift = -6; shift <= 6; shift += 0.05) {
    const r = rates(idx, labels, (i) => z0(i) + shift, target, hard)
    if (r.fpr <= maxFpr && r.ordinaryFpr <= maxOrdinaryFpr && r.f1 > best.f1) best = { shift, ...r }
    caps.forEach((cap, k) => {
      if (r.fpr <= cap && r.f1 > byCap[k].f1) byCap[k] = r
    })
  }
  const curve = caps
    .map(
      (cap, k) =>
        `FPR ≤ ${cap}: F1 ${byCap[k].f1.toFixed(3)} recall ${byCap[k].recall.toFixed(3)} (ordinary benign ${byCap[k].ordinaryFpr.toFixed(4)})`,
    )
    .join('; ')
  return {
    curve,
    combiner: { alpha, beta: b, bias: bias + best.shift },
    ...(dense ? { gamma } : {}),
    fpr: best.fpr,
    ordinaryFpr: best.ordinaryFpr,
    f1: best.f1,
    recall: best.recall,
  }
}
