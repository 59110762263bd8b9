/**
 * Quality of `detect_injection` on data no part of it was fitted or tuned on,
 * run the way the host runs it: each row goes through `onRequest` of a step
 * instance with the default settings, as a user message (prompts) or as a
 * tool result after a tool call (tool output). Two held-out sets:
 *
 * - the held-out part of `injection-train.jsonl` (train/split.ts: a fifth of
 *   the groups, fixed by a seed; never trained on, never used to calibrate);
 * - `injection-dev.jsonl`, other sources entirely (never trained on; the
 *   rules were written while reading it, see README).
 *
 * Prints markdown tables per source and channel, the real-attack sources and
 * the templated ones apart, a threshold sweep and the benign-prompt block
 * rate.
 *
 *   npx tsc -b plugins/detect-injection && node plugins/detect-injection/dist/eval/eval.js
 */

import { pathToFileURL } from 'node:url'
import type { FakeMessage } from '@gov/core/testing'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import { createInstance } from '../src/instance.js'
import { loadDetector } from '../src/model-file.js'
import { type InjectionSettings, InjectionSettingsSchema } from '../src/settings.js'
import { DEV_FILE, datasetPath, loadRows, type Row, sourceFamily, TRAIN_FILE } from '../train/dataset.js'
import { metricsOf, metricsTable } from '../train/metrics.js'
import { isHeldOut, isRealAttackSource, isTemplatedSource, SPLIT_SEED } from '../train/split.js'
import { toolOutputKind } from './tool-kind.js'

/** The schema's defaults, as the host fills them for `{}`. */
function defaultSettings(): InjectionSettings {
  const properties = InjectionSettingsSchema.properties as unknown as Record<string, { default: unknown }>
  return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v.default])) as InjectionSettings
}

/** The conversation a row arrives in. */
function messagesOf(row: Row): FakeMessage[] {
  if (row.channel === 'direct') return [{ source: 'user', text: row.text }]
  return [
    { source: 'user', text: 'Summarize what the tool returned.' },
    { source: 'assistant', toolCalls: [{ id: 'call_1', name: 'fetch', arguments: '{}' }] },
    { source: 'tool', toolResults: [{ toolCallId: 'call_1', text: row.text }] },
  ]
}

type Grouping = (row: Row) => readonly string[]

function table(
  rows: readonly Row[],
  predicted: readonly boolean[],
  keys: Grouping,
  positivesOnly = false,
): string {
  const groups = new Map<string, number[]>()
  rows.forEach((row, i) => {
    for (const key of keys(row)) {
      const list = groups.get(key)
      if (list) list.push(i)
      else groups.set(key, [i])
    }
  })
  const order = (name: string) => (name.startsWith('all') ? `~${name}` : name)
  if (positivesOnly) {
    for (const [name, idx] of groups) if (!idx.some((i) => rows[i].label === 1)) groups.delete(name)
  }
  return metricsTable(
    [...groups.keys()]
      .sort((a, b) => (order(a) < order(b) ? -1 : 1))
      .map((name) => {
        const idx = groups.get(name) ?? []
        return {
          name,
          metrics: metricsOf(
            idx.map((i) => rows[i].label),
            idx.map((i) => predicted[i]),
          ),
        }
      }),
  )
}

const bySource: Grouping = (row) => [`${row.source} (${row.channel})`, `all ${row.channel}`]
const byFamily: Grouping = (row) => [`${sourceFamily(row.source)} (${row.channel})`, `all ${row.channel}`]
/** Real attacks and templated ones apart, each against every benign row of its channel. */
const byKind: Grouping = (row) => {
  const kinds = ['real attacks', 'templated attacks', 'other attacks']
  if (row.label === 0) return kinds.map((k) => `${k} (${row.channel})`)
  if (isRealAttackSource(row.source)) return [`real attacks (${row.channel})`]
  if (isTemplatedSource(row.source)) return [`templated attacks (${row.channel})`]
  return [`other attacks (${row.channel})`]
}

/** Tool results by the kind of output they are (guessed from the text), each kind against its own benign rows. */
const byToolKind: Grouping = (row) =>
  row.channel === 'tool' ? [`${toolOutputKind(row.text)} (tool)`, 'all tool'] : []

function sweep(rows: readonly Row[], scores: readonly number[]): string {
  const lines = ['| threshold | direct P / R / F1 / FPR | tool P / R / F1 / FPR |', '|---:|---|---|']
  for (const t of [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]) {
    const cells = (['direct', 'tool'] as const).map((channel) => {
      const idx = rows.map((_, i) => i).filter((i) => rows[i].channel === channel)
      const m = metricsOf(
        idx.map((i) => rows[i].label),
        idx.map((i) => scores[i] >= t),
      )
      return [m.precision, m.recall, m.f1, m.fpr].map((x) => x.toFixed(3)).join(' / ')
    })
    lines.push(`| ${t.toFixed(1)} | ${cells[0]} | ${cells[1]} |`)
  }
  return lines.join('\n')
}

async function evaluate(
  name: string,
  rows: readonly Row[],
  settings: InjectionSettings,
  run: (row: Row) => Promise<{ blocked: boolean; score: number }>,
  detailed: boolean,
): Promise<void> {
  const started = performance.now()
  const results = []
  for (const row of rows) results.push(await run(row))
  const predicted = results.map((r) => r.blocked)
  const ms = (performance.now() - started) / rows.length
  const benign = rows.map((_, i) => i).filter((i) => rows[i].label === 0 && rows[i].channel === 'direct')
  const blocked = benign.filter((i) => predicted[i]).length
  console.log(`\n## ${name}\n`)
  console.log(
    `${rows.length} rows, default thresholds (${settings.threshold} direct, ${settings.tool_result_threshold} tool results), ${ms.toFixed(2)} ms per row. ` +
      `Benign prompts blocked: ${blocked} of ${benign.length} (${((100 * blocked) / Math.max(1, benign.length)).toFixed(2)} %).\n`,
  )
  console.log(table(rows, predicted, byFamily))
  if (detailed) {
    console.log(`\n### ${name}: per source\n`)
    console.log(table(rows, predicted, bySource))
  }
  if (rows.some((row) => row.channel === 'tool')) {
    console.log(`\n### ${name}: tool results by kind of output\n`)
    console.log(table(rows, predicted, byToolKind))
  }
  console.log(`\n### ${name}: real, templated and other attacks\n`)
  console.log(table(rows, predicted, byKind, true))
  console.log(`\n### ${name}: threshold sweep (precision / recall / F1 / FPR)\n`)
  console.log(
    sweep(
      rows,
      results.map((r) => r.score),
    ),
  )
}

async function main(): Promise<void> {
  const train = loadRows(TRAIN_FILE)
  const dev = loadRows(DEV_FILE)
  if (!train && !dev) {
    console.log(
      `skipped: datasets not found at ${datasetPath(TRAIN_FILE)} (they live in ../shared/datasets/, outside the repo)`,
    )
    return
  }
  const settings = defaultSettings()
  // --model PATH/model.json scores with a trial model (train.js --out) instead of the shipped one.
  const modelIndex = process.argv.indexOf('--model')
  const detector =
    modelIndex >= 0 ? loadDetector(pathToFileURL(process.argv[modelIndex + 1] ?? '')) : loadDetector()
  const instance = createInstance({ ...settings, cache_size: 0 }, makeServices('detect_injection'), detector)
  const run = async (row: Row) => {
    const ctx = makeRequestContext(makeExchange(messagesOf(row)), { step: 'detect_injection' })
    const verdict = await instance.onRequest?.(ctx)
    // The sweep needs the score below the threshold too, which no finding carries.
    const score = detector.analyze(row.text, row.channel).score
    return { blocked: verdict?.kind === 'block', score }
  }
  console.log(`# detect_injection eval — ${new Date().toISOString().slice(0, 10)}`)
  try {
    if (train) {
      const heldOut = train.filter((row) => isHeldOut(row))
      await evaluate(`held-out part of ${TRAIN_FILE} (seed ${SPLIT_SEED})`, heldOut, settings, run, true)
    }
    if (dev) await evaluate(DEV_FILE, dev, settings, run, false)
  } finally {
    await instance.close()
  }
}

await main()
