/**
 * Train the two channel models on the training part of
 * `../shared/datasets/injection-train.jsonl` (the held-out part and the dev
 * file are never read here), calibrate how each combines with the rules on
 * out-of-fold logits, and write `model/`.
 *
 *   npx tsc -b plugins/detect-injection && node plugins/detect-injection/dist/train/train.js [--dry-run]
 *
 * Options: --bits N --epochs N --lr X --l2 X --l2-direct X --positive-weight X; --dry-run
 * reports without writing; --balance N caps each source's rows of one label
 * at N rows of weight; --augment N sets the augmented tool rows per kind and
 * label (train/augment.ts; 0 turns them off); --direct-only trains the direct
 * model on prompts alone (by default it also learns the benchmark sources'
 * tool-output attacks); --cues direct|tool|both|none says which channels'
 * models learn the cue features of src/cues.ts (direct by default: on the
 * tool model they cost leave-one-source-out F1 0.915 → 0.790);
 * --max-fpr-direct / --max-fpr-tool cap the false-positive rate over all
 * benign rows, --max-ordinary-fpr-direct over the benign rows outside the
 * hard groups; the hand-written benign persona prompts of
 * train/persona-rows.jsonl join as a source group of their own (the default
 * since 0.5.1; --no-persona-rows leaves them out); --dev prints a glance at
 * the dev file.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BASE_CUE_COUNT, CUE_SETS } from '../src/cues.js'
import type { Combiner, ModelFile, WeightEncoding } from '../src/linear-model.js'
import { LinearModel } from '../src/linear-model.js'
import type { Channel } from '../src/match-rules.js'
import { augmentToolRows } from './augment.js'
import {
  type AugmentedExamples,
  balanceWeights,
  examplesOfRows,
  extraExamples,
  fitCombiner,
  outOfGroupLogits,
  ruleWeightsOf,
  sourceGroup,
  TRAIN_FLAGS,
  trainChannel,
} from './cross-validate.js'
import {
  DEV_FILE,
  datasetPath,
  loadExtraRows,
  loadPersonaRows,
  loadRows,
  type Row,
  TRAIN_FILE,
} from './dataset.js'
import {
  DEFAULT_DENSE_OPTIONS,
  type DenseData,
  type DenseOptions,
  denseExamplesOf,
  outOfGroupDenseLogits,
} from './dense.js'
import { clusterVectors, EMBEDDINGS_URL } from './extract-embeddings.js'
import { CLUSTER_FEATURES, CUE_SET, DEFAULT_TRAIN_OPTIONS, rowLogit, type TrainOptions } from './logistic.js'
import { metricsOf, metricsTable } from './metrics.js'
import { HELD_OUT_SHARE, isHeldOut, SPLIT_SEED } from './split.js'
import { WordVectors } from './word-vectors.js'

const MODEL_DIR = new URL('../../model/', import.meta.url)
/** The step's default thresholds (settings.ts); the combiners are calibrated for them. */
const THRESHOLD = 0.7
/**
 * False-positive rates the calibration allows at the default threshold (the
 * targets: 3 % on prompts, 5 % on tool output), measured on rows scored by
 * models that never saw their source. That is pessimistic for the shipped
 * model, which saw every training source, and realistic for benign text
 * unlike any of them.
 */
const MAX_FPR: Record<Channel, number> = { direct: 0.03, tool: 0.05 }
/**
 * The cap on the ordinary benign rows alone, outside the hard groups
 * (cross-validate.ts `HARD_BENIGN_GROUPS`: NotInject, WildGuard benign):
 * ordinary prompts are what users send, and at most 1 % of them may be
 * blocked. Direct only; the tool channel has no hard group (1 = no cap).
 * With the 0.5.0 model the 3 % cap over all benign rows binds first
 * (ordinary benign 0.26 %, leave-one-source-out F1 0.718); 4 % all and 1 %
 * ordinary reach F1 0.745, but blocked 0.71 % of the held-out benign prompts
 * and 2.3 % of the dev file's (role prompts, "I want you to act as …"),
 * against 0.39 % and 1.4 % (measured 2026-11-24; README, Quality).
 */
const MAX_ORDINARY_FPR: Record<Channel, number> = { direct: 0.01, tool: 1 }

function maxFprOf(argv: readonly string[], channel: Channel): number {
  const i = argv.indexOf(`--max-fpr-${channel}`)
  return i >= 0 ? Number(argv[i + 1]) : MAX_FPR[channel]
}

function maxOrdinaryFprOf(argv: readonly string[], channel: Channel): number {
  const i = argv.indexOf(`--max-ordinary-fpr-${channel}`)
  return i >= 0 ? Number(argv[i + 1]) : MAX_ORDINARY_FPR[channel]
}
const CHANNELS: readonly Channel[] = ['direct', 'tool']

/**
 * Default of --encoding: how the model file stores each weight. int8 since
 * 0.5.5 (256 KB per channel at 18 bits, against 512 KB of int16): the model
 * reads ~3,500 scattered weights per KB of text, and a smaller table misses
 * the cache less. The leave-one-source-out fold models are rounded the same
 * way before they score their group, so the calibration sees the model as it
 * ships (README, Performance and Quality, 0.5.5).
 */
const ENCODING: WeightEncoding = 'int8'

function encodingOf(argv: readonly string[]): WeightEncoding {
  const i = argv.indexOf('--encoding')
  if (i < 0) return ENCODING
  const value = argv[i + 1]
  if (value === 'int8' || value === 'int16') return value
  throw new Error(`--encoding takes int8 or int16, not ${value}`)
}
/** k-means rounds for `--clusters`. */
const CLUSTER_ITERATIONS = 10

/** Default of --balance: a source's rows of one label count as at most this many rows. */
const BALANCE_CAP = 400
/**
 * Default of --l2-direct. Leave-one-source-out direct F1 at 3 % FPR, with the
 * cue features (0.5.0): 0.668 with 1e-4, 0.682 with 3e-4, 0.704 with 1e-3,
 * 0.701 with 3e-3 (0.4.0 without cues: 0.493 / 0.509 / 0.500 for the first
 * three). The tool model stays at 1e-4 (0.912, against 0.895 with 3e-4).
 * Measured 2026-11-24.
 */
const L2_DIRECT = 1e-3
/**
 * The direct model's training weights and features for sources it has not seen (0.5.7;
 * leave-one-source-out direct F1 at 3 % FPR, training orders seed 13 / 7 / 21): defaults of
 * `--source-cap` (GPTeacher's benign role-play prompts count in full, not as 400 rows),
 * `--balance-up` (a small source's rows count up to 8 times, so each source's rows of one
 * label weigh 400 rows) and `--sign-stable` (an n-gram feature whose weight has not one sign
 * in two models trained on complementary halves of the source groups gets 10× the L2).
 * Together 0.704 / 0.704 / 0.710 → 0.724 / 0.732 / 0.733; the first two alone gave
 * 0.725 / 0.716 / 0.724, the last alone 0.710 / 0.724 / 0.718. The tool model keeps
 * 0.5.6's weights (README, Quality, 0.5.7; measured 2026-11-25).
 */
const DIRECT_SOURCE_CAPS: ReadonlyMap<string, number> = new Map([['gpteacher:roleplay', 2000]])
const BALANCE_UP_DIRECT = 8
const SIGN_STABLE_DIRECT = 10
/** Default of --augment: augmented tool rows per kind and label (0 turns augmentation off). */
const AUGMENT_PER_KIND = 300

/**
 * Default of --cues: the channels whose model learns cue features. Direct:
 * leave-one-source-out F1 at 3 % FPR 0.508 → 0.682 (with L2 3e-4). Tool: 0.915
 * → 0.790 at 5 %, so the tool model has none (measured 2026-11-24).
 */
const CUE_CHANNELS: readonly Channel[] = ['direct']

/**
 * `--harm-cues base|goal|categories` (a trial, 0.5.8; default base): which cue set the models
 * that learn cues score (src/cues.ts `CUE_SETS`): the 14 cues of 0.5.0, those and the union
 * of the harmful-goal categories of src/harm-lexicon.ts (paired with the other cues), or
 * those and each category as well.
 */
function harmCueCount(argv: readonly string[]): number {
  const i = argv.indexOf('--harm-cues')
  if (i < 0) return BASE_CUE_COUNT
  const value = argv[i + 1] as keyof typeof CUE_SETS
  if (!(value in CUE_SETS)) throw new Error(`--harm-cues takes base, goal or categories, not ${value}`)
  return CUE_SETS[value]
}

function cueChannels(argv: readonly string[]): readonly Channel[] {
  const i = argv.indexOf('--cues')
  if (i < 0) return CUE_CHANNELS
  const value = argv[i + 1]
  if (value === 'none') return []
  if (value === 'both') return CHANNELS
  if (value === 'direct' || value === 'tool') return [value]
  throw new Error(`--cues takes direct, tool, both or none, not ${value}`)
}

/**
 * Default of --dense: the channels that get a dense model over word vectors
 * (train/embeddings.bin, made by train/extract-embeddings.ts). A trial, for
 * --dry-run only: leave-one-source-out it did not help (direct F1 0.705 →
 * 0.686 / 0.687 / 0.690 with the three networks tried, tool 0.914 → 0.915),
 * so the detector has no code to run one (README, Quality, 0.5.4).
 */
const DENSE_CHANNELS: readonly Channel[] = []

function denseChannels(argv: readonly string[]): readonly Channel[] {
  const i = argv.indexOf('--dense')
  if (i < 0) return DENSE_CHANNELS
  const value = argv[i + 1]
  if (value === 'none') return []
  if (value === 'both') return CHANNELS
  if (value === 'direct' || value === 'tool') return [value]
  throw new Error(`--dense takes direct, tool, both or none, not ${value}`)
}

function parseArgs(argv: readonly string[]): {
  options: TrainOptions
  /** L2 of the direct model (prompts), which transfers better to unseen sources with more. */
  l2Direct: number
  dryRun: boolean
  balance: number
  dev: boolean
  augmentPerKind: number
  /** Channels whose model also learns cue features (src/cues.ts). */
  cues: readonly Channel[]
  /** Channels with a dense model over word vectors (train/dense.ts). */
  dense: readonly Channel[]
  denseOptions: DenseOptions
} {
  const get = (name: string) => {
    const i = argv.indexOf(name)
    return i >= 0 ? Number(argv[i + 1]) : undefined
  }
  return {
    options: {
      ...DEFAULT_TRAIN_OPTIONS,
      bits: get('--bits') ?? DEFAULT_TRAIN_OPTIONS.bits,
      epochs: get('--epochs') ?? DEFAULT_TRAIN_OPTIONS.epochs,
      learningRate: get('--lr') ?? DEFAULT_TRAIN_OPTIONS.learningRate,
      l2: get('--l2') ?? DEFAULT_TRAIN_OPTIONS.l2,
      positiveWeight: get('--positive-weight') ?? DEFAULT_TRAIN_OPTIONS.positiveWeight,
      // --seed N: the order of the examples (a trial: how much the order alone moves a result).
      seed: get('--seed') ?? DEFAULT_TRAIN_OPTIONS.seed,
    },
    l2Direct: get('--l2-direct') ?? get('--l2') ?? L2_DIRECT,
    dryRun: argv.includes('--dry-run'),
    balance: get('--balance') ?? BALANCE_CAP,
    dev: argv.includes('--dev'),
    augmentPerKind: get('--augment') ?? AUGMENT_PER_KIND,
    cues: cueChannels(argv),
    dense: denseChannels(argv),
    denseOptions: {
      hidden: get('--dense-hidden') ?? DEFAULT_DENSE_OPTIONS.hidden,
      epochs: get('--dense-epochs') ?? DEFAULT_DENSE_OPTIONS.epochs,
      learningRate: get('--dense-lr') ?? DEFAULT_DENSE_OPTIONS.learningRate,
      l2: get('--dense-l2') ?? DEFAULT_DENSE_OPTIONS.l2,
      seed: DEFAULT_DENSE_OPTIONS.seed,
    },
  }
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z))

/** Per source group and channel: rows scored by models trained without their group. */
function groupTable(rows: readonly Row[], score: (i: number) => number, threshold: number): string {
  const groups = new Map<string, number[]>()
  rows.forEach((row, i) => {
    if (Number.isNaN(score(i))) return
    for (const key of [`${sourceGroup(row.source)} (${row.channel})`, `all ${row.channel}`]) {
      const list = groups.get(key)
      if (list) list.push(i)
      else groups.set(key, [i])
    }
  })
  return metricsTable(
    [...groups.keys()]
      .sort((a, b) => (a.startsWith('all') ? 1 : 0) - (b.startsWith('all') ? 1 : 0) || a.localeCompare(b))
      .map((name) => {
        const idx = groups.get(name) ?? []
        return {
          name,
          metrics: metricsOf(
            idx.map((i) => rows[i].label),
            idx.map((i) => score(i) >= threshold),
          ),
        }
      }),
  )
}

/**
 * `--logits-cache FILE` keeps the out-of-group logits (the slow part) in a
 * file outside the repository, so the calibration can be re-run alone; the
 * file is only valid for the same data and options.
 */
function cachedLogits(channel: Channel, compute: () => Float64Array, unrounded?: Float64Array): Float64Array {
  const i = process.argv.indexOf('--logits-cache')
  if (i < 0) return compute()
  const path = `${process.argv[i + 1]}.${channel}.json`
  const read = (file: string) =>
    Float64Array.from(JSON.parse(readFileSync(file, 'utf8')) as (number | null)[], (x) => x ?? Number.NaN)
  const write = (file: string, xs: Float64Array) =>
    writeFileSync(file, JSON.stringify(Array.from(xs, (x) => (Number.isNaN(x) ? null : x))))
  // The logits of the unrounded fold weights (--encoding) are kept next to them.
  const unroundedPath = `${process.argv[i + 1]}.${channel}.unrounded.json`
  if (existsSync(path)) {
    if (unrounded && existsSync(unroundedPath)) unrounded.set(read(unroundedPath))
    return read(path)
  }
  const logits = compute()
  write(path, logits)
  if (unrounded) write(unroundedPath, unrounded)
  return logits
}

function main(): void {
  const all = loadRows(TRAIN_FILE)
  if (!all) {
    console.error(`dataset not found at ${datasetPath(TRAIN_FILE)}; nothing to train on`)
    process.exit(1)
  }
  const {
    options: shared,
    l2Direct,
    dryRun,
    balance,
    dev,
    augmentPerKind,
    cues,
    dense,
    denseOptions,
  } = parseArgs(process.argv.slice(2))
  const options = shared
  const encoding = encodingOf(process.argv)
  const optionsOf = (channel: Channel): TrainOptions => ({
    ...shared,
    ...(channel === 'direct' ? { l2: l2Direct } : {}),
    // --l2-cues X (a trial): the cue features' own L2, for the channels that learn them.
    ...(process.argv.includes('--l2-cues')
      ? { l2Cues: Number(process.argv[process.argv.indexOf('--l2-cues') + 1]) }
      : {}),
    cues: cues.includes(channel),
  })
  TRAIN_FLAGS.directLearnsToolAttacks = !process.argv.includes('--direct-only')
  // Trials (README, Quality, 0.5.7): source-diversity L2 and group bagging; off by default.
  const flag = (name: string) =>
    process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : undefined
  TRAIN_FLAGS.stableGroups = flag('--stable-groups') ?? TRAIN_FLAGS.stableGroups
  TRAIN_FLAGS.stableL2 = flag('--stable-l2') ?? TRAIN_FLAGS.stableL2
  TRAIN_FLAGS.groupBags = flag('--group-bags') ?? TRAIN_FLAGS.groupBags
  TRAIN_FLAGS.bagShare = flag('--bag-share') ?? TRAIN_FLAGS.bagShare
  TRAIN_FLAGS.hardWeight = flag('--hard-weight') ?? TRAIN_FLAGS.hardWeight
  TRAIN_FLAGS.signStable = flag('--sign-stable') ?? SIGN_STABLE_DIRECT
  TRAIN_FLAGS.signSplits = flag('--sign-splits') ?? TRAIN_FLAGS.signSplits
  if (process.argv.includes('--hard-mode')) {
    const mode = process.argv[process.argv.indexOf('--hard-mode') + 1]
    if (mode !== 'both' && mode !== 'neg' && mode !== 'pos')
      throw new Error(`--hard-mode takes both, neg or pos, not ${mode}`)
    TRAIN_FLAGS.hardMode = mode
  }
  if (
    TRAIN_FLAGS.stableGroups > 0 ||
    TRAIN_FLAGS.groupBags > 1 ||
    TRAIN_FLAGS.hardWeight > 0 ||
    TRAIN_FLAGS.signStable > 0
  )
    console.log(
      `trial: stable groups ${TRAIN_FLAGS.stableGroups} (L2 ×${TRAIN_FLAGS.stableL2}), group bags ${TRAIN_FLAGS.groupBags} (share ${TRAIN_FLAGS.bagShare}), hard weight ${TRAIN_FLAGS.hardWeight} (${TRAIN_FLAGS.hardMode}), sign-stable L2 ×${TRAIN_FLAGS.signStable} (${TRAIN_FLAGS.signSplits} splits)`,
    )
  const started = Date.now()
  // The hand-written benign persona prompts join the training part as a source
  // group of their own (left out, calibrated and reported like the others). On
  // by default since 0.5.1 (--no-persona-rows leaves them out): leave-one-source-out
  // direct F1 0.718 -> 0.683 (inside the ~0.016 training-order noise plus a
  // little), but dev benign prompts blocked 1.41 % -> 0.35 % and
  // awesome-chatgpt-prompts 3.6 % -> 0.9 %; held-out benign unchanged (11 of
  // 2,805). README, Quality; measured 2026-11-24.
  const personaRows = process.argv.includes('--no-persona-rows') ? [] : loadPersonaRows()
  const rows = all.filter((row) => !isHeldOut(row)).concat(personaRows)
  console.log(
    `# detect_injection training: ${rows.length - personaRows.length} of ${all.length} rows (${all.length - rows.length + personaRows.length} held out, seed ${SPLIT_SEED}), balance ${balance}, ${JSON.stringify(options)}, direct l2 ${l2Direct}, cues ${cues.join('+') || 'none'}, ${personaRows.length} persona rows\n`,
  )
  if ((dense.length || process.argv.includes('--clusters')) && !dryRun)
    throw new Error('--dense and --clusters are trials: the detector cannot run them, so only with --dry-run')
  const clusterK = Number(process.argv[process.argv.indexOf('--clusters') + 1] ?? 0)
  if (process.argv.includes('--clusters') && clusterK > 0) {
    const vectors = WordVectors.fromBytes(readFileSync(EMBEDDINGS_URL))
    const clusters = clusterVectors(vectors, clusterK, CLUSTER_ITERATIONS)
    CLUSTER_FEATURES.current = { vectors, clusters, k: clusterK }
    console.log(`word-cluster n-grams: ${clusterK} clusters of ${vectors.count} words`)
  }
  CUE_SET.count = harmCueCount(process.argv)
  if (CUE_SET.count !== BASE_CUE_COUNT) console.log(`trial: ${CUE_SET.count} cues (--harm-cues)`)
  const examples = examplesOfRows(rows, options.bits)
  const extra = extraExamples(options.bits)
  const ruleWeights = ruleWeightsOf(rows)
  // --source-cap SOURCE=N (repeatable): the rows of SOURCE count as at most N rows per label
  // in the direct model (default: DIRECT_SOURCE_CAPS).
  const sourceCaps = new Map<string, number>([
    ...DIRECT_SOURCE_CAPS,
    ...process.argv.flatMap((a, i) => {
      if (process.argv[i - 1] !== '--source-cap') return []
      const [source, n] = a.split('=')
      return [[source!, Number(n)] as const]
    }),
  ])
  // --balance-up N: small sources' rows count up to N times in the direct model (default BALANCE_UP_DIRECT).
  const balanceUp = process.argv.includes('--balance-up')
    ? Number(process.argv[process.argv.indexOf('--balance-up') + 1])
    : BALANCE_UP_DIRECT
  console.log(`direct model: source caps ${JSON.stringify([...sourceCaps])}, balance up to ${balanceUp}×`)
  // The tool model keeps the plain weights (a source's rows of one label count as at most `balance` rows).
  const rowWeightsOf: Record<Channel, Float64Array> = {
    direct: balanceWeights(rows, balance, sourceCaps, balanceUp),
    tool: balanceWeights(rows, balance),
  }
  const augmentedRows =
    augmentPerKind > 0 ? augmentToolRows(rows, (r) => sourceGroup(r.source), augmentPerKind) : []
  const augmented: AugmentedExamples = {
    examples: examplesOfRows(augmentedRows, options.bits),
    groups: augmentedRows.map((r) => r.groups),
    weights: balanceWeights(augmentedRows, balance),
  }
  console.log(`${augmentedRows.length} augmented tool rows (${augmentPerKind} per kind and label)`)
  const vectors = dense.length ? WordVectors.fromBytes(readFileSync(EMBEDDINGS_URL)) : undefined
  const denseData: DenseData | undefined = vectors
    ? {
        rows: rows.map((r) => denseExamplesOf(vectors, r.text, r.label)),
        extra: loadExtraRows().map((r) => denseExamplesOf(vectors, r.text, r.label)),
        augmented: augmentedRows.map((r) => denseExamplesOf(vectors, r.text, r.label)),
      }
    : undefined
  if (vectors)
    console.log(
      `dense model on ${dense.join('+')}: ${vectors.count} word vectors, ${JSON.stringify(denseOptions)}`,
    )
  console.log(`features and rules in ${((Date.now() - started) / 1000).toFixed(1)} s`)

  const combine = {} as Record<Channel, Combiner>
  const calibration: Record<string, unknown> = {}
  const scores = new Float64Array(rows.length).fill(Number.NaN)
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined
  for (const channel of CHANNELS.filter((c) => only === undefined || c === only)) {
    const unrounded = new Float64Array(rows.length).fill(Number.NaN)
    const logits = cachedLogits(
      channel,
      () =>
        outOfGroupLogits(
          rows,
          channel,
          examples,
          optionsOf(channel),
          extra,
          rowWeightsOf[channel],
          (g) => console.error(`${channel}: left out ${g}`),
          augmented,
          encoding,
          unrounded,
        ),
      unrounded,
    )
    const maxFpr = maxFprOf(process.argv, channel)
    const maxOrdinaryFpr = maxOrdinaryFprOf(process.argv, channel)
    if (unrounded.some((x) => !Number.isNaN(x))) {
      // The same fold models before their weights were rounded to the file's encoding: what rounding costs.
      const r = fitCombiner(rows, channel, unrounded, ruleWeights, THRESHOLD, maxFpr, maxOrdinaryFpr)
      console.log(
        `${channel} with unrounded fold weights: combiner ${JSON.stringify(r.combiner)}; F1 ${r.f1.toFixed(3)}, recall ${r.recall.toFixed(3)}, FPR ${r.fpr.toFixed(4)} (ordinary benign ${r.ordinaryFpr.toFixed(4)})`,
      )
    }
    const denseLogits =
      denseData && dense.includes(channel)
        ? outOfGroupDenseLogits(
            rows,
            channel,
            denseData,
            denseOptions,
            rowWeightsOf[channel],
            augmented,
            (g) => console.error(`${channel} dense: left out ${g}`),
          )
        : undefined
    if (denseLogits) {
      const alone = fitCombiner(rows, channel, logits, ruleWeights, THRESHOLD, maxFpr, maxOrdinaryFpr)
      console.log(
        `${channel} without the dense model: F1 ${alone.f1.toFixed(3)}, recall ${alone.recall.toFixed(3)}, FPR ${alone.fpr.toFixed(4)}\n  ${alone.curve}`,
      )
    }
    const fit = fitCombiner(
      rows,
      channel,
      logits,
      ruleWeights,
      THRESHOLD,
      maxFpr,
      maxOrdinaryFpr,
      denseLogits,
    )
    combine[channel] = fit.combiner
    calibration[channel] = {
      maxFpr,
      ...(maxOrdinaryFpr < 1 ? { maxOrdinaryFpr, ordinaryFpr: fit.ordinaryFpr } : {}),
      fpr: fit.fpr,
      recall: fit.recall,
      f1: fit.f1,
    }
    const c = fit.combiner
    rows.forEach((row, i) => {
      if (row.channel === channel && !Number.isNaN(logits[i]))
        scores[i] = sigmoid(
          c.bias +
            c.alpha * logits[i] +
            (denseLogits ? (fit.gamma ?? 0) * denseLogits[i] : 0) +
            c.beta * ruleWeights[i],
        )
    })
    console.log(
      `${channel}: combiner ${JSON.stringify(c)}; leave-one-source-out at ${THRESHOLD}: F1 ${fit.f1.toFixed(3)}, recall ${fit.recall.toFixed(3)}, FPR ${fit.fpr.toFixed(4)} (ordinary benign ${fit.ordinaryFpr.toFixed(4)})\n  ${fit.curve}`,
    )
  }
  console.log('\n## leave one source group out (each group scored by models trained without it)\n')
  console.log(groupTable(rows, (i) => scores[i], THRESHOLD))
  if (dryRun && only !== undefined) return

  const trained = Object.fromEntries(
    CHANNELS.map((c) => [
      c,
      trainChannel(rows, c, examples, () => true, optionsOf(c), extra, rowWeightsOf[c], augmented),
    ]),
  ) as Record<Channel, { weights: Float32Array; bias: number }>
  console.log(`\ntrained in ${((Date.now() - started) / 1000).toFixed(1)} s`)

  if (dev) {
    // A glance at other sources while developing; eval/eval.ts is the report.
    const devRows = loadRows(DEV_FILE) ?? []
    const devExamples = examplesOfRows(devRows, options.bits)
    const devRules = ruleWeightsOf(devRows)
    const devScore = (i: number) => {
      const ch = devRows[i].channel
      const c = combine[ch]
      const logit = rowLogit(trained[ch].weights, trained[ch].bias, devExamples[i], cues.includes(ch))
      return sigmoid(c.bias + c.alpha * logit + c.beta * devRules[i])
    }
    console.log('\n## dev file (glance)\n')
    console.log(groupTable(devRows, devScore, THRESHOLD))
  }
  if (dryRun) return

  const encoded = Object.fromEntries(
    CHANNELS.map((c) => [c, LinearModel.encodeWeights(trained[c].weights, encoding)]),
  ) as Record<Channel, ReturnType<typeof LinearModel.encodeWeights>>
  // int16 files keep 0.5.4's entries (no `encoding` field), so `--encoding int16` rewrites them byte for byte.
  const encodingEntry = encoding === 'int8' ? { encoding } : {}
  const file: ModelFile = {
    format: 2,
    bits: options.bits,
    channels: {
      direct: {
        bias: trained.direct.bias,
        scale: encoded.direct.scale,
        weights: 'direct.bin',
        ...encodingEntry,
        ...(cues.includes('direct') ? { cues: true } : {}),
        ...(cues.includes('direct') && CUE_SET.count !== BASE_CUE_COUNT ? { cueCount: CUE_SET.count } : {}),
      },
      tool: {
        bias: trained.tool.bias,
        scale: encoded.tool.scale,
        weights: 'tool.bin',
        ...encodingEntry,
        ...(cues.includes('tool') ? { cues: true } : {}),
        ...(cues.includes('tool') && CUE_SET.count !== BASE_CUE_COUNT ? { cueCount: CUE_SET.count } : {}),
      },
    },
    combine,
    trained: {
      date: new Date().toISOString().slice(0, 10),
      dataset: TRAIN_FILE,
      rows: rows.length - personaRows.length,
      heldOut: {
        seed: SPLIT_SEED,
        share: HELD_OUT_SHARE,
        rows: all.length - rows.length + personaRows.length,
      },
      extraRows: 'train/extra-rows.jsonl',
      ...(personaRows.length
        ? { personaRows: { file: 'train/persona-rows.jsonl', rows: personaRows.length } }
        : {}),
      threshold: THRESHOLD,
      calibration,
      balance,
      augmentPerKind,
      directLearnsToolAttacks: TRAIN_FLAGS.directLearnsToolAttacks,
      options,
      l2Direct,
      cues: cues.join('+') || 'none',
      encoding,
      direct: {
        sourceCaps: Object.fromEntries(sourceCaps),
        balanceUp,
        signStable: TRAIN_FLAGS.signStable,
        signSplits: TRAIN_FLAGS.signSplits,
      },
    },
  }
  // --out DIR writes a trial model elsewhere (to compare it with eval/model-ab.js or eval.js --model).
  const outIndex = process.argv.indexOf('--out')
  const dir = outIndex >= 0 ? pathToFileURL(`${resolve(process.argv[outIndex + 1] ?? '.')}/`) : MODEL_DIR
  mkdirSync(dir, { recursive: true })
  for (const c of CHANNELS) writeFileSync(new URL(`${c}.bin`, dir), encoded[c].bytes)
  writeFileSync(new URL('model.json', dir), `${JSON.stringify(file, null, 2)}\n`)
  console.log(`wrote ${fileURLToPath(dir)}{model.json,direct.bin,tool.bin}`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
