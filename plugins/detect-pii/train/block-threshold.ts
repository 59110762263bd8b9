/**
 * Chooses strict's `block_min_score` on data the held-out eval never reads:
 * the calibration documents of pii-train.jsonl and the tuning (not held-out)
 * part of the benign prompts of injection-train.jsonl. For each candidate
 * value it prints, at the default `min_score`:
 *
 * - per name type, the share of gold spans a finding of that type would still
 *   refuse (score ≥ value) against the share found at all (refused or masked);
 * - the share of calibration documents with a gold name whose call would
 *   still be refused (some finding ≥ value, or any structured finding);
 * - the share of wrong name findings (overlapping no gold span of any type, in
 *   documents that annotate all three name types) that would still refuse;
 * - calibration documents that annotate every name type and have no gold span
 *   (text without names) that would still be refused;
 * - the share of benign tuning prompts refused.
 *
 * Run by hand: node plugins/detect-pii/dist/train/block-threshold.js [--mask-only ORGANIZATION]
 */
import { readFileSync } from 'node:fs'
import { analyzerOptions, plainOptions } from '../src/analysis-options.js'
import { analyzeChunk } from '../src/analyze-text.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'
import type { Detection } from '../src/pii-types.js'
import { ENTITY_TYPES } from '../src/pii-types.js'
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
const read = (name: string): Row[] =>
  readFileSync(new URL(name, DATASETS), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row)
const gazetteer = await sharedGazetteer()
const options = analyzerOptions(plainOptions(withDefaults()), gazetteer)
const names = new Set<string>(ENTITY_TYPES)
const CANDIDATES = [0.5, 0.6, 0.65, 0.7, 0.75, 0.78, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.9]
/** Types that never refuse (`--mask-only ORGANIZATION`), to see what refusing them costs. */
const maskOnly = new Set(
  process.argv.includes('--mask-only')
    ? process.argv[process.argv.indexOf('--mask-only') + 1].split(',')
    : [],
)
/** The highest score that refuses a call: any structured finding refuses whatever the value. */
const refusingScore = (found: readonly Detection[]) =>
  found.reduce((max, d) => Math.max(max, maskOnly.has(d.type) ? 0 : names.has(d.type) ? d.score : 2), 0)

const calibration = read('pii-train.jsonl').filter((r) => isCalibration(r.id))
const gold = new Map<string, number>()
const goldScores = new Map<string, number[]>() // best same-type score over each found gold span
const wrongScores: number[] = []
const docScores: number[] = []
const emptyScores: number[] = [] // documents annotating every type with no gold span at all, that have a finding
let empty = 0
for (const row of calibration) {
  const found = analyzeChunk(row.text, options)
  const annotated = new Set(row.annotated_types ?? [])
  for (const type of ENTITY_TYPES) {
    if (!annotated.has(type)) continue
    for (const s of row.spans.filter((g) => g.type === type)) {
      gold.set(type, (gold.get(type) ?? 0) + 1)
      const best = found
        .filter((d) => d.type === type && d.start < s.end && s.start < d.end)
        .reduce((m, d) => Math.max(m, d.score), -1)
      if (best >= 0) goldScores.set(type, [...(goldScores.get(type) ?? []), best])
    }
  }
  if (ENTITY_TYPES.every((t) => annotated.has(t)))
    for (const d of found)
      if (names.has(d.type) && !row.spans.some((g) => d.start < g.end && g.start < d.end))
        wrongScores.push(d.score)
  if (row.spans.some((g) => g.type === 'PERSON') && annotated.has('PERSON'))
    docScores.push(refusingScore(found))
  if (ENTITY_TYPES.every((t) => annotated.has(t)) && row.spans.length === 0) {
    empty++
    if (found.length > 0) emptyScores.push(refusingScore(found))
  }
}
const benign = read('injection-train.jsonl')
  .filter((r) => r.label === 0 && r.channel === 'user' && !isHeldOut(r.text))
  .map((r) => analyzeChunk(r.text, options))
const changed = benign.filter((f) => f.length > 0).length
const pct = (n: number, d: number) => `${((100 * n) / Math.max(d, 1)).toFixed(1)} %`
console.log(
  `calibration: ${calibration.length} documents; benign tuning prompts: ${benign.length}, changed ${pct(changed, benign.length)}; wrong name findings ${wrongScores.length}; documents with a person ${docScores.length}; documents without any gold span ${empty}, with a finding ${emptyScores.length}\n`,
)
console.log(
  `| block_min_score | ${ENTITY_TYPES.map((t) => `${t} refused / found`).join(' | ')} | docs with a person refused | wrong name findings refusing | docs without a gold span refused | benign tuning refused |`,
)
console.log(`|---:|${ENTITY_TYPES.map(() => '---:').join('|')}|---:|---:|---:|---:|`)
for (const t of CANDIDATES) {
  const cells = ENTITY_TYPES.map((type) => {
    const scores = goldScores.get(type) ?? []
    const n = gold.get(type) ?? 0
    return `${(scores.filter((s) => s >= t).length / n).toFixed(3)} / ${(scores.length / n).toFixed(3)}`
  })
  console.log(
    `| ${t} | ${cells.join(' | ')} | ${pct(docScores.filter((s) => s >= t).length, docScores.length)} | ${pct(wrongScores.filter((s) => s >= t).length, wrongScores.length)} | ${emptyScores.filter((s) => s >= t).length} of ${empty} | ${pct(benign.filter((f) => refusingScore(f) >= t).length, benign.length)} |`,
  )
}
