/**
 * Two models' verdicts on every text the package's data holds: the whole of
 * `injection-train.jsonl` (training and held-out parts), `injection-dev.jsonl`,
 * `train/extra-rows.jsonl` and `train/persona-rows.jsonl`, each row on its own
 * channel, analysed whole (rules, payloads, model) at the default thresholds.
 * Prints how many verdicts differ (per file and channel), the largest change
 * of a score's logit, and the rows whose verdict changed (source, label,
 * both scores; never the text). A change of speed alone must print 0 changes.
 *
 *   node plugins/detect-injection/dist/eval/verdict-diff.js A/model.json B/model.json [--list N]
 */
import { fileURLToPath, pathToFileURL } from 'node:url'
import { InjectionDetector } from '../src/detector.js'
import type { Channel } from '../src/match-rules.js'
import { loadModel } from '../src/model-file.js'
import { DEV_FILE, loadExtraRows, loadPersonaRows, loadRows, type Row, TRAIN_FILE } from '../train/dataset.js'
import { isHeldOut } from '../train/split.js'
import { compareArgs } from './compare-args.js'

/** The step's default thresholds (settings.ts). */
const THRESHOLD: Record<Channel, number> = { direct: 0.7, tool: 0.7 }

const logitOf = (p: number) => Math.log(p / (1 - p))

export interface VerdictDiff {
  readonly part: string
  readonly rows: number
  readonly changed: number
  /** Changed verdicts that became blocks. */
  readonly toBlock: number
  readonly maxLogitChange: number
}

/** The parts compared: name and rows. */
export function partsOfData(): { name: string; rows: readonly Row[] }[] {
  const train = loadRows(TRAIN_FILE) ?? []
  return [
    { name: 'train (training part)', rows: train.filter((r) => !isHeldOut(r)) },
    { name: 'train (held-out part)', rows: train.filter((r) => isHeldOut(r)) },
    { name: 'dev', rows: loadRows(DEV_FILE) ?? [] },
    { name: 'extra-rows', rows: loadExtraRows() },
    { name: 'persona-rows', rows: loadPersonaRows() },
  ]
}

function main(): void {
  const args = compareArgs(2, 'verdict-diff.js A/model.json B/model.json [--list N]')
  const paths = args.paths
  const list = args.number('--list', 40)
  const [a, b] = paths.map((p) => new InjectionDetector(loadModel(pathToFileURL(p))))
  const table: VerdictDiff[] = []
  const changes: string[] = []
  for (const { name, rows } of partsOfData()) {
    for (const channel of ['direct', 'tool'] as const) {
      const own = rows.filter((r) => r.channel === channel)
      if (own.length === 0) continue
      let changed = 0
      let toBlock = 0
      let maxLogitChange = 0
      for (const row of own) {
        const sa = a!.analyze(row.text, channel).score
        const sb = b!.analyze(row.text, channel).score
        const clamp = (p: number) => Math.min(1 - 1e-12, Math.max(1e-12, p))
        maxLogitChange = Math.max(maxLogitChange, Math.abs(logitOf(clamp(sa)) - logitOf(clamp(sb))))
        const va = sa >= THRESHOLD[channel]
        const vb = sb >= THRESHOLD[channel]
        if (va === vb) continue
        changed++
        if (vb) toBlock++
        changes.push(
          `${name}, ${channel}: ${row.source} label ${row.label}: ${sa.toFixed(4)} -> ${sb.toFixed(4)} (${vb ? 'now blocked' : 'now passes'})`,
        )
      }
      table.push({ part: `${name}, ${channel}`, rows: own.length, changed, toBlock, maxLogitChange })
    }
  }
  console.log(`A = ${paths[0]}\nB = ${paths[1]}\n`)
  console.log('| part | rows | verdicts changed | of them now blocked | largest logit change |')
  console.log('|---|---:|---:|---:|---:|')
  for (const t of table)
    console.log(`| ${t.part} | ${t.rows} | ${t.changed} | ${t.toBlock} | ${t.maxLogitChange.toFixed(4)} |`)
  const total = table.reduce((s, t) => s + t.changed, 0)
  const rows = table.reduce((s, t) => s + t.rows, 0)
  console.log(`| **all** | ${rows} | ${total} | ${table.reduce((s, t) => s + t.toBlock, 0)} | |`)
  if (changes.length) console.log(`\n${changes.slice(0, list).join('\n')}`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
