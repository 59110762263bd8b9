/**
 * Quality of `detect_pii` on ../shared/datasets/pii-dev.jsonl: runs every row
 * through the step's onRequest hook (action `allow`, default settings
 * otherwise), as the host would, and prints precision, recall, F1 and
 * false-positive rate per type as a markdown table.
 *
 * Match rule: a gold span counts as found when a finding of the mapped type
 * overlaps it by at least one character; a finding counts as correct when it
 * overlaps a gold span of its type. Gold types the step does not detect are
 * listed with "not detected". FPR is the share of rows without any gold span
 * that get at least one finding (of that type, or of any type on the total line).
 *
 *   node plugins/detect-pii/dist/eval/eval.js [--errors TYPE]
 */
import { existsSync, readFileSync } from 'node:fs'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import plugin from '../src/index.js'
import { PII_TYPES, type PiiType } from '../src/pii-types.js'
import { withDefaults } from '../src/settings.js'

interface Row {
  id: string
  text: string
  source: string
  spans: { type: string; start: number; end: number; value: string }[]
}
interface Span {
  type: string
  start: number
  end: number
}

/** Dataset type → step type. DATE_TIME is any date; the step looks for dates of birth only. */
const TYPE_MAP: Record<string, PiiType> = {
  PERSON: 'PERSON',
  LOCATION: 'LOCATION',
  ORGANIZATION: 'ORGANIZATION',
  ADDRESS: 'STREET_ADDRESS',
  STREET_ADDRESS: 'STREET_ADDRESS',
  EMAIL_ADDRESS: 'EMAIL_ADDRESS',
  PHONE_NUMBER: 'PHONE_NUMBER',
  CREDIT_CARD: 'CREDIT_CARD',
  IBAN_CODE: 'IBAN_CODE',
  US_SSN: 'US_SSN',
  IP_ADDRESS: 'IP_ADDRESS',
  DATE_TIME: 'DATE_OF_BIRTH',
}

const datasets = new URL('../../../../../shared/datasets/', import.meta.url)
const file = new URL('pii-dev.jsonl', datasets)
if (!existsSync(file)) {
  console.log(
    `eval skipped: ${file.pathname} not found (the datasets live in ../shared/datasets/ beside the repo)`,
  )
  process.exit(0)
}
const errorsFor = process.argv.includes('--errors')
  ? process.argv[process.argv.indexOf('--errors') + 1]
  : undefined
const rows: Row[] = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l))

const settings = withDefaults({ action: 'allow' })
const step = await plugin.create(settings, makeServices('detect_pii'))
await step.ready?.()

const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end
type Counts = { gold: number; found: number; foundAny: number; pred: number; correct: number; fpRows: number }
const zero = (): Counts => ({ gold: 0, found: 0, foundAny: 0, pred: 0, correct: 0, fpRows: 0 })
const bySource = new Map<string, Map<string, Counts>>()
const emptyRows = new Map<string, number>()
const unmapped = new Map<string, number>()

for (const row of rows) {
  const ctx = makeRequestContext(makeExchange([{ source: 'user', text: row.text }]))
  await step.onRequest?.(ctx)
  const preds: Span[] = ctx.findings.map((f) => ({ type: f.type, start: f.span!.start, end: f.span!.end }))
  const gold: Span[] = row.spans.map((s) => ({
    type: TYPE_MAP[s.type] ?? `-${s.type}`,
    start: s.start,
    end: s.end,
  }))
  const table = bySource.get(row.source) ?? new Map<string, Counts>()
  bySource.set(row.source, table)
  const get = (t: string) => table.get(t) ?? (table.set(t, zero()).get(t) as Counts)
  if (gold.length === 0) emptyRows.set(row.source, (emptyRows.get(row.source) ?? 0) + 1)
  for (const g of gold) {
    if (g.type.startsWith('-')) unmapped.set(g.type.slice(1), (unmapped.get(g.type.slice(1)) ?? 0) + 1)
    const c = get(g.type)
    c.gold++
    const hit = preds.some((p) => p.type === g.type && overlaps(p, g))
    if (hit) c.found++
    const covered = preds.some((p) => overlaps(p, g))
    if (covered) c.foundAny++
    const any = get('ALL (any type)')
    any.gold++
    if (covered) {
      any.found++
      any.foundAny++
    }
    if (!hit && errorsFor === g.type)
      console.log(
        `MISS ${g.type}: ${JSON.stringify(row.text.slice(g.start, g.end))} | ${JSON.stringify(row.text.slice(0, 160))}`,
      )
  }
  for (const p of preds) {
    const c = get(p.type)
    c.pred++
    const ok = gold.some((g) => g.type === p.type && overlaps(p, g))
    if (ok) c.correct++
    const any = get('ALL (any type)')
    any.pred++
    if (gold.some((g) => overlaps(p, g))) any.correct++
    if (!ok && errorsFor === p.type) {
      const near = gold.filter((g) => overlaps(p, g)).map((g) => g.type)
      console.log(
        `FP   ${p.type}: ${JSON.stringify(row.text.slice(p.start, p.end))} (gold ${near.join('/') || 'none'}) | ${JSON.stringify(row.text.slice(0, 160))}`,
      )
    }
  }
  if (gold.length === 0) {
    for (const t of new Set(preds.map((p) => p.type))) get(t).fpRows++
    if (preds.length) get('ALL (any type)').fpRows++
  }
}

const pct = (n: number, d: number) => (d === 0 ? '–' : (n / d).toFixed(3))
console.log(
  `# detect_pii eval — ${new Date().toISOString().slice(0, 10)}, pii-dev.jsonl (${rows.length} rows)\n`,
)
console.log(
  'Match rule: overlap of at least one character, same (mapped) type; FPR over rows without gold spans.\n',
)
for (const [source, table] of bySource) {
  const empty = emptyRows.get(source) ?? 0
  console.log(`## ${source} (${empty} rows without spans)\n`)
  console.log('| type | gold | predicted | precision | recall | F1 | FPR | recall, any type |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  const order = [...PII_TYPES, 'ALL (any type)']
  for (const type of order) {
    const c = table.get(type)
    if (!c) continue
    const p = c.pred ? c.correct / c.pred : 0
    const r = c.gold ? c.found / c.gold : 0
    const f1 = p + r ? (2 * p * r) / (p + r) : 0
    console.log(
      `| ${type} | ${c.gold} | ${c.pred} | ${pct(c.correct, c.pred)} | ${pct(c.found, c.gold)} | ${c.gold && c.pred ? f1.toFixed(3) : '–'} | ${pct(c.fpRows, empty)} | ${pct(c.foundAny, c.gold)} |`,
    )
  }
  for (const [type, n] of unmapped) console.log(`| ${type} | ${n} | – | – | not detected | – | – | – |`)
  console.log('')
}
console.log(
  'DATE_TIME gold spans are any date or time; the step reports only dates of birth, so its recall there is a floor.',
)
console.log(
  '"recall, any type": share of gold spans covered by a finding of any type (the dataset labels a city inside an address LOCATION in some rows, ADDRESS in others).',
)
