/**
 * Train the linear model on `../shared/datasets/injection-dev.jsonl`, report
 * grouped 5-fold cross-validated quality, and write `model/weights.json`.
 *
 *   npx tsc -b plugins/detect-injection && node plugins/detect-injection/dist/train/train.js [--dry-run]
 *
 * Options: --bits N --epochs N --lr X --l2 X --positive-weight X --dry-run (report only).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { LinearModel, type WeightsFile } from '../src/linear-model.js'
import { crossValidate, examplesOfRows, extraExamples, trainsModel } from './cross-validate.js'
import { datasetPath, loadRows, type Row, sourceFamily } from './dataset.js'
import { DEFAULT_TRAIN_OPTIONS, type Example, type TrainOptions, trainLogistic } from './logistic.js'
import { metricsOf, metricsTable } from './metrics.js'

const WEIGHTS_URL = new URL('../../model/weights.json', import.meta.url)

function parseArgs(argv: readonly string[]): { options: TrainOptions; dryRun: boolean } {
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
    },
    dryRun: argv.includes('--dry-run'),
  }
}

function sweep(rows: readonly Row[], score: ArrayLike<number>, channel: Row['channel']): string {
  const lines = ['| threshold | precision | recall | F1 | FPR |', '|---:|---:|---:|---:|---:|']
  const idx = rows.map((_, i) => i).filter((i) => rows[i].channel === channel)
  for (let t = 0.3; t < 0.96; t += 0.05) {
    const m = metricsOf(
      idx.map((i) => rows[i].label),
      idx.map((i) => score[i] >= t),
    )
    lines.push(
      `| ${t.toFixed(2)} | ${m.precision.toFixed(3)} | ${m.recall.toFixed(3)} | ${m.f1.toFixed(3)} | ${m.fpr.toFixed(3)} |`,
    )
  }
  return lines.join('\n')
}

/** Per source family and channel, at a threshold per channel. */
export function tableBySource(
  rows: readonly Row[],
  predicted: (i: number) => boolean,
): ReturnType<typeof metricsTable> {
  const groups = new Map<string, number[]>()
  rows.forEach((row, i) => {
    for (const key of [`${sourceFamily(row.source)} (${row.channel})`, `all ${row.channel}`, 'all']) {
      const list = groups.get(key)
      if (list) list.push(i)
      else groups.set(key, [i])
    }
  })
  const names = [...groups.keys()].sort(
    (a, b) => (a.startsWith('all') ? 1 : 0) - (b.startsWith('all') ? 1 : 0) || a.localeCompare(b),
  )
  return metricsTable(
    names.map((name) => {
      const idx = groups.get(name) ?? []
      return {
        name,
        metrics: metricsOf(
          idx.map((i) => rows[i].label),
          idx.map(predicted),
        ),
      }
    }),
  )
}

function main(): void {
  const rows = loadRows()
  if (!rows) {
    console.error(`dataset not found at ${datasetPath()}; nothing to train on`)
    process.exit(1)
  }
  const { options, dryRun } = parseArgs(process.argv.slice(2))
  const started = Date.now()
  const examples = examplesOfRows(rows, options.bits)
  const cv = crossValidate(rows, options, 5, examples)
  console.log(`# detect_injection training (${rows.length} rows, ${JSON.stringify(options)})\n`)
  console.log('combiners fitted on out-of-fold logits:', JSON.stringify(cv.combine))
  for (const channel of ['direct', 'tool'] as const) {
    console.log(`\n## cross-validated combined score, ${channel} channel\n`)
    console.log(sweep(rows, cv.score, channel))
  }
  const sigmoid = (z: number) => 1 / (1 + Math.exp(-z))
  console.log('\n## cross-validated, model alone (logit ≥ 0)\n')
  console.log(tableBySource(rows, (i) => sigmoid(cv.modelLogit[i]) >= 0.5))
  console.log('\n## rules alone (rule weight ≥ 3)\n')
  console.log(tableBySource(rows, (i) => cv.ruleWeight[i] >= 3))

  const train: Example[] = extraExamples(options.bits)
  rows.forEach((row, i) => {
    if (trainsModel(row)) train.push(...examples[i])
  })
  const { weights, bias } = trainLogistic(train, options)
  const encoded = LinearModel.encodeWeights(weights)
  const file: WeightsFile = {
    format: 1,
    bits: options.bits,
    bias,
    scale: encoded.scale,
    weights: encoded.weights,
    combine: cv.combine,
    trained: {
      date: new Date().toISOString().slice(0, 10),
      dataset: 'injection-dev.jsonl',
      rows: rows.length,
      modelRows: rows.filter(trainsModel).length,
      extraRows: 'train/extra-rows.jsonl',
      options,
    },
  }
  console.log(`\ntrained in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  if (dryRun) return
  mkdirSync(new URL('.', WEIGHTS_URL), { recursive: true })
  writeFileSync(WEIGHTS_URL, `${JSON.stringify(file, null, 2)}\n`)
  console.log(
    `wrote ${fileURLToPath(WEIGHTS_URL)} (run \`npx biome format --write\` on it before committing)`,
  )
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
