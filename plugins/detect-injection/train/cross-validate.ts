/**
 * Grouped k-fold cross-validation of the whole detector: the linear model is
 * trained on k−1 folds and scores the held-out fold; the rules need no
 * training. The out-of-fold logits also fit the combiner (how model and rules
 * add up), so the shipped combiner never saw in-sample model scores.
 */
import { InjectionDetector } from '../src/detector.js'
import type { Combiner } from '../src/linear-model.js'
import { LinearModel } from '../src/linear-model.js'
import { loadExtraRows, type Row } from './dataset.js'
import { foldsOf, groupRows } from './group-rows.js'
import {
  DEFAULT_TRAIN_OPTIONS,
  type Example,
  examplesOf,
  fitDenseLogistic,
  rowLogit,
  type TrainOptions,
  trainLogistic,
} from './logistic.js'

/** Out-of-fold results, one entry per row. */
export interface CrossValidation {
  readonly folds: Int32Array
  /** Model logit of each row from the model that did not train on its fold. */
  readonly modelLogit: Float64Array
  /** Rule weight of each row (rules are not trained). */
  readonly ruleWeight: Float64Array
  /** Combiners fitted on the out-of-fold logits. */
  readonly combine: { direct: Combiner; tool: Combiner }
  /** Combined out-of-fold score of each row, 0..1. */
  readonly score: Float64Array
}

/** A model with all-zero weights: lets the detector report rule weights alone. */
export function rulesOnlyDetector(bits: number): InjectionDetector {
  const combine = { alpha: 0, beta: 1, bias: 0 }
  return new InjectionDetector(
    new LinearModel(bits, 0, new Float32Array(1 << bits), { direct: combine, tool: combine }),
  )
}

/** Examples of every row, computed once. */
export function examplesOfRows(rows: readonly Row[], bits: number): Example[][] {
  return rows.map((row) => examplesOf(row.text, row.label, bits))
}

/** Examples of the hand-written rows, which train every fold and are never tested. */
export function extraExamples(bits: number): Example[] {
  return examplesOfRows(loadExtraRows(), bits).flat()
}

/** Which rows the linear model trains on. Tool rows are left to the rules by default; see README. */
export function trainsModel(row: Row): boolean {
  return row.channel === 'direct'
}

/**
 * Fit how the model counts next to the rules, on the direct rows' out-of-fold
 * logits. Rule weights enter with coefficient 1: they are written on the logit
 * scale, and the dev set has too few benign texts with weak rule hits to
 * re-estimate them (a free coefficient inflates weak rules).
 *
 * Tool results are not fitted: the dev set's tool rows are one source (emails)
 * whose injections the tool rules were written against, so a fit there would
 * only learn that source. The tool combiner is set from the direct one: the
 * model, trained on prompts, is out of its domain on documents and counts
 * half ({@link TOOL_MODEL_SHARE}), and the offset is lowered by
 * {@link TOOL_PRIOR_SHIFT} because documents rarely carry instructions, so
 * tool text is scored mostly by its rules.
 */
export function fitCombiners(
  rows: readonly Row[],
  modelLogit: ArrayLike<number>,
  ruleWeight: ArrayLike<number>,
): { direct: Combiner; tool: Combiner } {
  const points: number[][] = []
  const labels: number[] = []
  const offsets: number[] = []
  rows.forEach((row, i) => {
    if (row.channel !== 'direct') return
    points.push([modelLogit[i]])
    labels.push(row.label)
    offsets.push(ruleWeight[i])
  })
  const [bias, alpha] = fitDenseLogistic(points, labels, 0.01, offsets)
  return {
    direct: { alpha, beta: 1, bias },
    tool: { alpha: alpha * TOOL_MODEL_SHARE, beta: 1, bias: bias - TOOL_PRIOR_SHIFT },
  }
}

/** Share of the model's weight kept for tool results. */
export const TOOL_MODEL_SHARE = 0.5
/** How much lower the tool channel's offset is than the direct one (logit units). */
export const TOOL_PRIOR_SHIFT = 1

/** Run grouped k-fold cross-validation. */
export function crossValidate(
  rows: readonly Row[],
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
  k = 5,
  examples = examplesOfRows(rows, options.bits),
  extra: readonly Example[] = extraExamples(options.bits),
): CrossValidation {
  const folds = foldsOf(groupRows(rows), k)
  const modelLogit = new Float64Array(rows.length)
  for (let fold = 0; fold < k; fold++) {
    const train: Example[] = [...extra]
    rows.forEach((row, i) => {
      if (folds[i] !== fold && trainsModel(row)) train.push(...examples[i])
    })
    const { weights, bias } = trainLogistic(train, options)
    rows.forEach((_, i) => {
      if (folds[i] === fold) modelLogit[i] = rowLogit(weights, bias, examples[i])
    })
  }
  const rules = rulesOnlyDetector(options.bits)
  const ruleWeight = Float64Array.from(rows, (row) => rules.analyze(row.text, row.channel).ruleWeight)
  const combine = fitCombiners(rows, modelLogit, ruleWeight)
  const score = Float64Array.from(rows, (row, i) => {
    const c = combine[row.channel]
    return 1 / (1 + Math.exp(-(c.bias + c.alpha * modelLogit[i] + c.beta * ruleWeight[i])))
  })
  return { folds, modelLogit, ruleWeight, combine, score }
}
