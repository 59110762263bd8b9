/**
 * Cost of `detect_business` per KB on realistic 1 KB texts (cache misses: every
 * text is new), through `onRequest` as the host calls it. Run by hand:
 * `node plugins/detect-business/dist/eval/speed.js`. Not a test: numbers depend on the machine.
 */
import { existsSync, readFileSync } from 'node:fs'
import type { StepInstance } from '@gov/core'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import step from '../src/index.js'
import { settingsWith } from '../test/settings-helper.js'
import { DEFAULT_SETTINGS, EVAL_SETTINGS } from './eval-settings.js'

const CASES_URL = new URL('../../eval/cases.jsonl', import.meta.url)
const PUBLIC_URL = new URL('../../../../../shared/datasets/injection-dev.jsonl', import.meta.url)
const RUNS = 2000
const WARMUP = 300

/** 1 KB texts glued from the rows of a JSONL file, each made unique so no run hits the cache. */
function kilobyteTexts(url: URL, count: number): string[] {
  const rows = readFileSync(url, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { text: string }).text)
  const texts: string[] = []
  for (let i = 0; texts.length < count; i++) {
    let text = `Note ${i}: `
    for (let k = 0; text.length < 1024; k++) text += `${rows[(i * 7 + k * 13) % rows.length]}\n`
    texts.push(text.slice(0, 1024))
  }
  return texts
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
}

function measure(
  corpus: string,
  name: string,
  settings: Parameters<typeof step.create>[0],
  texts: string[],
): void {
  const instance = step.create(
    { ...settings, cache_size: 0 },
    makeServices('detect_business'),
  ) as StepInstance
  const times: number[] = []
  texts.forEach((text, i) => {
    const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]))
    const started = process.hrtime.bigint()
    instance.onRequest?.(ctx)
    const micros = Number(process.hrtime.bigint() - started) / 1000
    if (i >= WARMUP) times.push(micros)
  })
  times.sort((a, b) => a - b)
  const kb = texts[0].length / 1024
  console.log(
    `| ${corpus} | ${name} | ${(percentile(times, 0.5) / kb).toFixed(1)} µs | ${(percentile(times, 0.99) / kb).toFixed(1)} µs |`,
  )
}

const manyTerms = Array.from({ length: 5000 }, (_, i) => ({
  term: `Codename ${i.toString(36)} ${['Alpha', 'Bravo', 'Delta', 'Ökonom', '星'][i % 5]}`,
}))
const corpora: [string, URL][] = [['dense business text (eval rows)', CASES_URL]]
if (existsSync(PUBLIC_URL)) corpora.push(['ordinary prompts (shared injection-dev rows)', PUBLIC_URL])
console.log('| texts | configuration | median per KB | p99 per KB |\n|---|---|---|---|')
for (const [label, url] of corpora) {
  const texts = kilobyteTexts(url, RUNS + WARMUP)
  measure(label, 'defaults (markings + financial)', DEFAULT_SETTINGS, texts)
  measure(label, 'eval settings (7 terms, 3 patterns)', EVAL_SETTINGS, texts)
  measure(label, '5,000 terms + eval patterns', settingsWith({ ...EVAL_SETTINGS, terms: manyTerms }), texts)
}
