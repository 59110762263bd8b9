/**
 * Precision and recall of the entity types on the calibration documents of
 * pii-train (never the held-out ones) at several `min_score` values, to see
 * where the default sits. Development aid, run by hand:
 *
 *   node plugins/detect-pii/dist/train/thresholds.js
 */
import { readFileSync } from 'node:fs'
import { analyzerOptions, plainOptions } from '../src/analysis-options.js'
import { analyzeChunk } from '../src/analyze-text.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'
import { withDefaults } from '../src/settings.js'
import { DATASETS, isCalibration } from './split.js'

interface Row {
  id: string
  text: string
  spans: { type: string; start: number; end: number }[]
  annotated_types?: string[]
}
const rows: Row[] = readFileSync(new URL('pii-train.jsonl', DATASETS), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Row)
  .filter((r) => isCalibration(r.id) && r.annotated_types?.includes('PERSON'))
const gazetteer = await sharedGazetteer()
for (const min of [0.3, 0.4, 0.5, 0.6, 0.7]) {
  const options = analyzerOptions(plainOptions(withDefaults({ min_score: min, locations: 'all' })), gazetteer)
  const line: string[] = []
  for (const type of ['PERSON', 'ORGANIZATION', 'LOCATION']) {
    let gold = 0
    let found = 0
    let predicted = 0
    let correct = 0
    for (const row of rows) {
      const preds = analyzeChunk(row.text, options).filter((d) => d.type === type)
      const spans = row.spans.filter((s) => s.type === type)
      gold += spans.length
      found += spans.filter((s) => preds.some((p) => p.start < s.end && s.start < p.end)).length
      predicted += preds.length
      correct += preds.filter((p) => spans.some((s) => p.start < s.end && s.start < p.end)).length
    }
    line.push(`${type} P ${(correct / predicted).toFixed(3)} R ${(found / gold).toFixed(3)}`)
  }
  console.log(`min_score ${min}: ${line.join(' | ')}`)
}
