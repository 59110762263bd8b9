/**
 * Cost of scan_secrets per KB, measured by hand (not a test): realistic 1 KB
 * texts (prose, code, JSON tool results, some with a secret) run through the
 * onRequest hook as the host would, each text new so the cache never helps;
 * then the same texts again (cache hits); then secretlint on the same texts
 * for comparison.
 *
 *   node plugins/scan-secrets/dist/eval/speed.js [rounds]
 *   node plugins/scan-secrets/dist/eval/speed.js --hostile [size]
 *
 * `--hostile` instead times the step on texts built to make the rules work
 * hard (test/fixtures.ts hostileTexts, 200 KB by default): CPU time of
 * onRequest with redaction, median of 5 fresh texts each.
 */
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import plugin, { resolveSettings } from '../src/index.js'
import { hostileTexts } from '../test/fixtures.js'
import { loadRows } from './dataset.js'
import { secretlintScan } from './secretlint-check.js'

if (process.argv[2] === '--hostile') {
  const size = Number(process.argv[3] ?? 200_000)
  const step = await plugin.create(resolveSettings({ action: 'redact' }), makeServices('scan_secrets'))
  console.log(
    `hostile texts of ${size} characters, CPU ms of onRequest (redact), median of 5, node ${process.version}`,
  )
  let worst = 0
  for (const name of Object.keys(hostileTexts(size))) {
    const samples: number[] = []
    for (let i = 0; i < 5; i++) {
      // A fresh text each time, so the cache never answers.
      const text = `${i} ${hostileTexts(size)[name]}`
      const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]))
      const before = process.cpuUsage()
      await step.onRequest?.(ctx)
      const used = process.cpuUsage(before)
      samples.push((used.user + used.system) / 1000)
    }
    const median = samples.sort((a, b) => a - b)[2]
    worst = Math.max(worst, median)
    console.log(`${name.padEnd(26)} ${median.toFixed(1)} ms`)
  }
  console.log(`worst median: ${worst.toFixed(1)} ms`)
  process.exit(0)
}

const rounds = Number(process.argv[2] ?? 5)

/** 1 KB slices of dataset texts when present, else of built-in samples; each made unique so none is a cache hit. */
function oneKbTexts(): string[] {
  const sources: string[] = []
  for (const file of ['injection-dev.jsonl', 'pii-dev.jsonl', 'secrets-dev.jsonl']) {
    const data = loadRows(file)
    if ('rows' in data) sources.push(...data.rows.map((r) => r.text))
  }
  if (!sources.length) {
    sources.push(
      'Please summarise the attached incident report and list follow-ups for the on-call engineer. ',
      'const client = new Client({ baseURL: process.env.API_URL, timeout: 30_000 })\nexport async function run() {}\n',
      '{"status":"ok","items":[{"id":42,"name":"widget","price":9.99,"tags":["a","b"]}],"next":null}\n',
    )
  }
  const texts: string[] = []
  let buffer = ''
  for (let i = 0; texts.length < 2000 && i < sources.length * 40; i++) {
    buffer += `${sources[i % sources.length]}\n`
    if (buffer.length >= 1024) {
      const tag = `#${texts.length} `
      texts.push(tag + buffer.slice(0, 1024 - tag.length))
      buffer = ''
    }
  }
  return texts
}

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return `median ${(at(0.5) * 1000).toFixed(1)} µs, p99 ${(at(0.99) * 1000).toFixed(1)} µs, mean ${((sorted.reduce((a, b) => a + b, 0) / sorted.length) * 1000).toFixed(1)} µs`
}

const texts = oneKbTexts()
console.log(`${texts.length} texts of 1 KB, ${rounds} rounds, node ${process.version}`)

for (let round = 0; round < rounds; round++) {
  // A fresh instance per round: an empty cache, so every text is scanned.
  const step = await plugin.create(resolveSettings(), makeServices('scan_secrets'))
  const cold: number[] = []
  const warm: number[] = []
  for (const text of texts) {
    const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]))
    const started = performance.now()
    await step.onRequest?.(ctx)
    cold.push(performance.now() - started)
  }
  for (const text of texts) {
    const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]))
    const started = performance.now()
    await step.onRequest?.(ctx)
    warm.push(performance.now() - started)
  }
  console.log(`round ${round + 1}: scan ${stats(cold)} | cache hit ${stats(warm)}`)
}

const lint: number[] = []
for (const text of texts.slice(0, 300)) {
  const started = performance.now()
  await secretlintScan(text)
  lint.push(performance.now() - started)
}
console.log(`secretlint preset-recommend (marks cleared after each call): ${stats(lint)}`)
