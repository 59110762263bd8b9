/**
 * Quality of `detect_business` on its own small, self-made labelled set
 * (`eval/cases.jsonl`), run through the step's hooks as the host would, plus
 * the alert rate of the default settings on the shared public datasets (text
 * that is not business-confidential, so nearly every alert there is a false one).
 *
 * Run: `node plugins/detect-business/dist/eval/eval.js`
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Finding, StepInstance } from '@gov/core'
import {
  makeAnswer,
  makeExchange,
  makeRequestContext,
  makeResponseContext,
  makeServices,
} from '@gov/core/testing'
import step, { FindingTypes } from '../src/index.js'
import { DEFAULT_SETTINGS, EVAL_SETTINGS } from './eval-settings.js'

interface Case {
  id: string
  category: string
  source: 'user' | 'system' | 'tool' | 'answer'
  text: string
  expect: string[]
  /** `holdout`: written after the rules were frozen and never tuned on. */
  set?: string
}

interface Counts {
  tp: number
  fp: number
  fn: number
  tn: number
}

const CASES_URL = new URL('../../eval/cases.jsonl', import.meta.url)
const DATASETS_URL = new URL('../../../../../shared/datasets/', import.meta.url)

function readJsonl<T>(url: URL): T[] {
  return readFileSync(url, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T)
}

/** Run one text through the hook the host would call for its source; the findings reported. */
async function runCase(instance: StepInstance, source: Case['source'], text: string): Promise<Finding[]> {
  const findings: Finding[] = []
  if (source === 'answer') {
    const exchange = makeExchange([{ source: 'user', text: 'Continue.' }])
    await instance.onBufferedResponse?.(makeResponseContext(exchange, makeAnswer(text), { findings }))
    return findings
  }
  const exchange =
    source === 'tool'
      ? makeExchange([{ source: 'tool', toolResults: [{ toolCallId: 'call_1', text }] }])
      : makeExchange([{ source, text }])
  await instance.onRequest?.(makeRequestContext(exchange, { findings }))
  return findings
}

function add(counts: Counts, expected: boolean, predicted: boolean): void {
  if (expected && predicted) counts.tp++
  else if (!expected && predicted) counts.fp++
  else if (expected) counts.fn++
  else counts.tn++
}

function ratio(a: number, b: number): string {
  return b === 0 ? 'n/a' : (a / b).toFixed(2)
}

function row(name: string, c: Counts): string {
  const precision = ratio(c.tp, c.tp + c.fp)
  const recall = ratio(c.tp, c.tp + c.fn)
  const f1 = ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn)
  const fpr = ratio(c.fp, c.fp + c.tn)
  return `| ${name} | ${c.tp + c.fn} | ${c.fp + c.tn} | ${precision} | ${recall} | ${f1} | ${fpr} |`
}

const HEADER = '| | positives | negatives | precision | recall | F1 | FPR |\n|---|---|---|---|---|---|---|'

interface Tally {
  byType: Map<string, Counts>
  bySource: Map<string, Counts>
  wrong: string[]
}

function emptyTally(): Tally {
  const byType = new Map<string, Counts>(
    Object.values(FindingTypes).map((t) => [t, { tp: 0, fp: 0, fn: 0, tn: 0 }]),
  )
  return { byType, bySource: new Map(), wrong: [] }
}

function tallyCase(tally: Tally, c: Case, found: Set<string>): void {
  for (const [type, counts] of tally.byType) add(counts, c.expect.includes(type), found.has(type))
  const sourceCounts = tally.bySource.get(c.source) ?? { tp: 0, fp: 0, fn: 0, tn: 0 }
  tally.bySource.set(c.source, sourceCounts)
  add(sourceCounts, c.expect.length > 0, found.size > 0)
  const wrong = [...new Set([...c.expect, ...found])].filter((t) => c.expect.includes(t) !== found.has(t))
  if (wrong.length)
    tally.wrong.push(`${c.id} (${wrong.map((t) => (found.has(t) ? `+${t}` : `-${t}`)).join(' ')})`)
}

function printTally(title: string, tally: Tally): void {
  console.log(`### ${title}\n`)
  console.log('Per finding type (a row counts for a type when the step reports that type anywhere in it):\n')
  console.log(HEADER)
  for (const [type, counts] of tally.byType) console.log(row(type, counts))
  console.log('\nPer source (any business finding in the row):\n')
  console.log(HEADER)
  for (const [source, counts] of tally.bySource) console.log(row(source, counts))
  console.log(
    `\nWrong rows (+ reported, not expected; - expected, missed): ${tally.wrong.join(', ') || 'none'}\n`,
  )
}

async function evaluateCases(instance: StepInstance): Promise<void> {
  const cases = readJsonl<Case>(CASES_URL)
  const all = emptyTally()
  const holdout = emptyTally()
  for (const c of cases) {
    const found = new Set((await runCase(instance, c.source, c.text)).map((f) => f.type))
    tallyCase(all, c, found)
    if (c.set === 'holdout') tallyCase(holdout, c, found)
  }
  const held = cases.filter((c) => c.set === 'holdout').length
  console.log(
    `## detect_business — self-made set (${cases.length} rows, ${new Date().toISOString().slice(0, 10)})\n`,
  )
  printTally(`All ${cases.length} rows`, all)
  printTally(`The ${held} held-out rows (written after the rules were frozen)`, holdout)
}

interface PublicRow {
  text: string
  source?: string
  channel?: string
}

/** Default settings (no declared terms): how often built-in markings and financial figures fire on public text. */
async function evaluatePublicText(): Promise<void> {
  const dir = fileURLToPath(DATASETS_URL)
  if (!existsSync(dir)) {
    console.log(`Shared datasets not found at ${dir}; skipping the public-text alert rate.`)
    return
  }
  const defaults = step.create(DEFAULT_SETTINGS, makeServices('detect_business')) as StepInstance
  console.log('## Alert rate of the default settings on public, non-business text\n')
  console.log('Rows are not labelled for business data: an alert here is almost always a false positive.\n')
  console.log(
    '| dataset / source | rows | marking alerts | financial alerts | blocked |\n|---|---|---|---|---|',
  )
  for (const file of ['injection-dev.jsonl', 'pii-dev.jsonl', 'secrets-dev.jsonl']) {
    const url = new URL(file, DATASETS_URL)
    if (!existsSync(url)) continue
    const groups = new Map<string, { rows: number; marking: number; financial: number; blocked: number }>()
    for (const r of readJsonl<PublicRow>(url)) {
      if (typeof r.text !== 'string') continue
      const source = r.channel === 'tool_result' ? 'tool' : 'user'
      const findings = await runCase(defaults, source, r.text)
      const key = `${file.replace('.jsonl', '')} / ${(r.source ?? 'all').split(':')[0]}`
      const g = groups.get(key) ?? { rows: 0, marking: 0, financial: 0, blocked: 0 }
      groups.set(key, g)
      g.rows++
      if (findings.some((f) => f.type === FindingTypes.MARKING)) g.marking++
      if (findings.some((f) => f.type === FindingTypes.FINANCIAL)) g.financial++
      if (findings.some((f) => f.level === 'restricted')) g.blocked++
    }
    for (const [key, g] of groups) {
      const pct = (n: number) => `${n} (${((100 * n) / g.rows).toFixed(1)}%)`
      console.log(`| ${key} | ${g.rows} | ${pct(g.marking)} | ${pct(g.financial)} | ${pct(g.blocked)} |`)
    }
  }
}

if (!existsSync(CASES_URL)) {
  console.log(`No eval set at ${fileURLToPath(CASES_URL)}; nothing to evaluate.`)
} else {
  await evaluateCases(step.create(EVAL_SETTINGS, makeServices('detect_business')) as StepInstance)
}
await evaluatePublicText()
