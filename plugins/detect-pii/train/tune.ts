/**
 * The numbers rule and threshold changes are chosen on — never the held-out
 * ones: entity precision and recall on the calibration documents of
 * pii-train.jsonl (overlap match, as `eval/eval.ts` scores), and the share of
 * benign prompts changed in the tuning (not held-out) part of
 * injection-train.jsonl, with the most frequent findings there. Run by hand:
 *
 *   node plugins/detect-pii/dist/train/tune.js [--min 0.5] [--show PERSON]
 */
import { readFileSync } from 'node:fs'
import { analyzerOptions, plainOptions } from '../src/analysis-options.js'
import { analyzeChunk } from '../src/analyze-text.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'
import { withDefaults } from '../src/settings.js'
import { DATASETS, isCalibration, isHeldOut } from './split.js'

interface Row {
  id: string
  text: string
  spans: { type: string; start: number; end: number }[]
  annotated_types?: string[]
  label?: number
  channel?: string
}
const at = process.argv.indexOf('--min')
const min = at > 0 ? Number(process.argv[at + 1]) : 0.5
const show = process.argv.includes('--show') ? process.argv[process.argv.indexOf('--show') + 1] : undefined
const read = (name: string): Row[] =>
  readFileSync(new URL(name, DATASETS), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row)
const gazetteer = await sharedGazetteer()
const options = analyzerOptions(plainOptions(withDefaults({ min_score: min })), gazetteer)
const calibration = read('pii-train.jsonl').filter((r) => isCalibration(r.id))
const line: string[] = []
for (const type of ['PERSON', 'ORGANIZATION']) {
  let gold = 0
  let found = 0
  let predicted = 0
  let correct = 0
  for (const row of calibration) {
    if (!row.annotated_types?.includes(type)) continue
    const preds = analyzeChunk(row.text, options).filter((d) => d.type === type)
    const spans = row.spans.filter((s) => s.type === type)
    gold += spans.length
    for (const s of spans) {
      if (preds.some((p) => p.start < s.end && s.start < p.end)) found++
      else if (show === `MISS-${type}`)
        console.log(
          `MISS ${type} ${(row as { source?: string }).source} ${JSON.stringify(row.text.slice(s.start, s.end))} | ${JSON.stringify(row.text.slice(Math.max(0, s.start - 40), s.end + 40))}`,
        )
    }
    predicted += preds.length
    for (const p of preds) {
      const ok = spans.some((s) => p.start < s.end && s.start < p.end)
      if (ok) correct++
      else if (show === type) console.log(`FP ${type} ${JSON.stringify(row.text.slice(p.start, p.end))}`)
    }
  }
  const p = correct / predicted
  const r = found / gold
  line.push(`${type} P ${p.toFixed(3)} R ${r.toFixed(3)} F1 ${((2 * p * r) / (p + r)).toFixed(3)}`)
}
const benign = read('injection-train.jsonl').filter(
  (r) => r.label === 0 && r.channel === 'user' && !isHeldOut(r.text),
)
let changed = 0
const byType = new Map<string, number>()
for (const row of benign) {
  const found = analyzeChunk(row.text, options)
  if (found.length) changed++
  for (const t of new Set(found.map((d) => d.type))) byType.set(t, (byType.get(t) ?? 0) + 1)
  if (show === 'BENIGN')
    for (const d of found) console.log(`BENIGN ${d.type} ${JSON.stringify(row.text.slice(d.start, d.end))}`)
}
console.log(
  `min_score ${min}: calibration ${line.join(' | ')} | benign tuning part ${((100 * changed) / benign.length).toFixed(2)} % changed (${[...byType].map(([t, n]) => `${t} ${n}`).join(', ')})`,
)
