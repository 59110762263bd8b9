/**
 * Quality of `detect_injection` on `../shared/datasets/injection-dev.jsonl`,
 * run the way the host runs it: each row goes through `onRequest` of a step
 * instance with the default settings, as a user message (direct rows) or as a
 * tool result after a tool call (tool rows). Prints markdown tables: the
 * shipped model (which was trained on these rows, so optimistic), then grouped
 * 5-fold cross-validation (model trained without the held-out fold).
 *
 *   npx tsc -b plugins/detect-injection && node plugins/detect-injection/dist/eval/eval.js
 */
import type { FakeMessage } from '@gov/core/testing'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import step from '../src/index.js'
import type { InjectionSettings } from '../src/settings.js'
import { crossValidate } from '../train/cross-validate.js'
import { datasetPath, loadRows, type Row, sourceFamily } from '../train/dataset.js'
import { metricsOf, metricsTable } from '../train/metrics.js'

/** The schema's defaults, as the host fills them for `{}`. */
function defaultSettings(): InjectionSettings {
  const properties = step.settings.properties as unknown as Record<string, { default: unknown }>
  return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v.default])) as InjectionSettings
}

/** The conversation a row arrives in. */
function messagesOf(row: Row): FakeMessage[] {
  if (row.channel === 'direct') return [{ source: 'user', text: row.text }]
  return [
    { source: 'user', text: 'Summarize my latest email.' },
    {
      source: 'assistant',
      toolCalls: [{ id: 'call_1', name: 'read_email', arguments: '{"folder":"inbox"}' }],
    },
    { source: 'tool', toolResults: [{ toolCallId: 'call_1', text: row.text }] },
  ]
}

function table(rows: readonly Row[], predicted: readonly boolean[], subtypes: boolean): string {
  const groups = new Map<string, number[]>()
  const add = (key: string, i: number) => {
    const list = groups.get(key)
    if (list) list.push(i)
    else groups.set(key, [i])
  }
  rows.forEach((row, i) => {
    add(`${sourceFamily(row.source)} (${row.channel})`, i)
    if (subtypes && row.source.includes(':')) add(`  ${row.source}`, i)
    add(`all ${row.channel}`, i)
    add('all', i)
  })
  // Sources first, subtypes under their source, totals last.
  const order = (name: string) => (name.startsWith('all') ? `~${name}` : name.trim())
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

async function main(): Promise<void> {
  const rows = loadRows()
  if (!rows) {
    console.log(
      `skipped: dataset not found at ${datasetPath()} (it lives in ../shared/datasets/, outside the repo)`,
    )
    return
  }
  const settings = defaultSettings()
  const instance = await step.create(settings, makeServices('detect_injection'))
  const started = performance.now()
  const predicted = await Promise.all(
    rows.map(async (row) => {
      const verdict = await instance.onRequest?.(makeRequestContext(makeExchange(messagesOf(row))))
      return verdict?.kind === 'block'
    }),
  )
  const elapsed = performance.now() - started
  console.log(`# detect_injection eval — ${new Date().toISOString().slice(0, 10)}\n`)
  console.log(
    `${rows.length} rows; threshold ${settings.threshold} (direct), ${settings.tool_result_threshold} (tool results); ${(elapsed / rows.length).toFixed(2)} ms per row\n`,
  )
  console.log('## shipped model (trained on these rows: optimistic)\n')
  console.log(table(rows, predicted, true))

  const cv = crossValidate(rows)
  const cvPredicted = rows.map(
    (row, i) => cv.score[i] >= (row.channel === 'tool' ? settings.tool_result_threshold : settings.threshold),
  )
  console.log('\n## grouped 5-fold cross-validation (held-out folds, same thresholds)\n')
  console.log(table(rows, cvPredicted, false))
  console.log(
    '\nTool rules were written after reading the BIPIA rows; treat the tool-channel numbers as in-sample for the rules.',
  )
}

await main()
