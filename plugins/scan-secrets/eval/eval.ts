/**
 * Quality of scan_secrets on ../shared/datasets/secrets-dev.jsonl (gitleaks rule
 * test vectors: label 1 = a real-looking secret, 0 = a look-alike). Each row is
 * run through the step's onRequest hook as a user message, as the host would.
 * A positive counts as detected when the step reports any finding; on a
 * negative any finding is a false positive. "Right kind" is the share of
 * detected positives whose finding kind matches the row's provider family.
 * secretlint's recommended preset runs on the same rows as a cross-check.
 *
 *   node plugins/scan-secrets/dist/eval/eval.js [--by-rule] [--misses] [--no-secretlint]
 *     [--settings '{"min_score":0.8}']
 */
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import plugin, { resolveSettings, type ScanSecretsSettings } from '../src/index.js'
import { loadRows, type SecretRow } from './dataset.js'
import { familyOf } from './families.js'
import { secretlintScan } from './secretlint-check.js'

interface Tally {
  tp: number
  fn: number
  fp: number
  tn: number
  rightKind: number
  kindJudged: number
}

const newTally = (): Tally => ({ tp: 0, fn: 0, fp: 0, tn: 0, rightKind: 0, kindJudged: 0 })

const args = process.argv.slice(2)
const settingsArg = args.indexOf('--settings')
const overrides: Partial<ScanSecretsSettings> = settingsArg >= 0 ? JSON.parse(args[settingsArg + 1]) : {}

const data = loadRows('secrets-dev.jsonl')
if ('missing' in data) {
  console.log(`scan_secrets eval skipped: dataset not found at ${data.missing}`)
  process.exit(0)
}

const settings = resolveSettings(overrides)
const step = await plugin.create(settings, makeServices('scan_secrets'))
if (!step.onRequest) throw new Error('scan_secrets has no onRequest hook')

const overall = newTally()
const byGroup = new Map<string, Tally>()
const misses: string[] = []
const started = performance.now()

for (const row of data.rows) {
  const ctx = makeRequestContext(makeExchange([{ source: 'user', text: row.text }]), { step: 'scan_secrets' })
  await step.onRequest(ctx)
  const kinds = ctx.findings.map((f) => f.type)
  const { family, kinds: expected } = familyOf(row.rule_id)
  const group = args.includes('--by-rule') ? row.rule_id : family
  const tally = byGroup.get(group) ?? newTally()
  byGroup.set(group, tally)
  for (const t of [overall, tally]) count(t, row, kinds, expected)
  if (args.includes('--misses') && (row.label === 1) !== kinds.length > 0) {
    misses.push(
      `${row.label ? 'FN' : 'FP'} ${row.rule_id} [${kinds.join(',')}] ${JSON.stringify(row.text.slice(0, 160))}`,
    )
  }
}
const elapsed = performance.now() - started

function count(t: Tally, row: SecretRow, kinds: string[], expected: ReturnType<typeof familyOf>['kinds']) {
  const found = kinds.length > 0
  if (row.label === 1) {
    if (!found) {
      t.fn++
      return
    }
    t.tp++
    if (expected) {
      t.kindJudged++
      if (expected === 'any' || kinds.some((k) => (expected as readonly string[]).includes(k))) t.rightKind++
    }
  } else if (found) t.fp++
  else t.tn++
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '–')
const f1 = (t: Tally) => {
  const p = t.tp / (t.tp + t.fp)
  const r = t.tp / (t.tp + t.fn)
  return p + r > 0 ? ((2 * p * r) / (p + r)).toFixed(3) : '–'
}
const line = (name: string, t: Tally) =>
  `| ${name} | ${t.tp + t.fn} | ${t.fp + t.tn} | ${t.tp} | ${t.fn} | ${t.fp} | ${pct(t.tp, t.tp + t.fp)} | ${pct(t.tp, t.tp + t.fn)} | ${t.tp + t.fp && t.tp + t.fn ? f1(t) : '–'} | ${pct(t.fp, t.fp + t.tn)} | ${pct(t.rightKind, t.kindJudged)} |`

console.log(`## scan_secrets on secrets-dev.jsonl (${new Date().toISOString().slice(0, 10)})\n`)
console.log(
  `settings: ${JSON.stringify({ ...overrides, min_score: settings.min_score, entropy_threshold: settings.entropy_threshold })}`,
)
console.log(
  `rows: ${data.rows.length}, ${(elapsed / data.rows.length).toFixed(3)} ms/row through onRequest\n`,
)
console.log('| family | positives | negatives | TP | FN | FP | precision | recall | F1 | FPR | right kind |')
console.log('|---|---|---|---|---|---|---|---|---|---|---|')
for (const [name, t] of [...byGroup].sort(([a], [b]) => a.localeCompare(b))) console.log(line(name, t))
console.log(line('**all**', overall))

if (!args.includes('--no-secretlint')) {
  const lint = newTally()
  let onlyLint = 0
  const lintStarted = performance.now()
  for (const row of data.rows) {
    const hits = await secretlintScan(row.text)
    count(
      lint,
      row,
      hits.map((h) => h.ruleId),
      undefined,
    )
    if (row.label === 1 && hits.length) {
      const ctx = makeRequestContext(makeExchange([{ source: 'user', text: row.text }]))
      await step.onRequest(ctx)
      if (!ctx.findings.length) onlyLint++
    }
  }
  const lintMs = (performance.now() - lintStarted) / data.rows.length
  console.log('\n### cross-check: secretlint preset-recommend 12 (AWS id scan on), same rows\n')
  console.log('| scanner | TP | FN | FP | precision | recall | F1 | FPR | ms/row |')
  console.log('|---|---|---|---|---|---|---|---|---|')
  const row = (name: string, t: Tally, ms: number) =>
    `| ${name} | ${t.tp} | ${t.fn} | ${t.fp} | ${pct(t.tp, t.tp + t.fp)} | ${pct(t.tp, t.tp + t.fn)} | ${f1(t)} | ${pct(t.fp, t.fp + t.tn)} | ${ms.toFixed(3)} |`
  console.log(row('scan_secrets', overall, elapsed / data.rows.length))
  console.log(row('secretlint', lint, lintMs))
  console.log(`\npositives secretlint finds that scan_secrets misses: ${onlyLint}`)
}

if (misses.length) console.log(`\n### misses\n\n${misses.join('\n')}`)
