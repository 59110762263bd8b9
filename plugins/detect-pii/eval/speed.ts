/**
 * Cost of `detect_pii` analysis per 1 KB of text on one core, without the
 * verdict cache: median and p99 over realistic 1 KB texts (dataset rows joined
 * into ~1 KB prompts when ../shared/datasets is present, else a built-in
 * sample). Run by hand: node plugins/detect-pii/dist/eval/speed.js
 */
import { existsSync, readFileSync } from 'node:fs'
import { type AnalyzerOptions, analyzeChunk, analyzeTextNow } from '../src/analyze-text.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'
import { ENTITY_TYPES, PII_TYPES } from '../src/pii-types.js'
import { DEFAULT_PHONE_REGIONS } from '../src/settings.js'

const SAMPLE =
  'Hi team, following up on yesterday’s call with Maria Gonzalez from Acme Logistics Ltd. She asked us to ' +
  'send the signed contract to maria.gonzalez@acme-logistics.com and to call her back on +44 20 7946 0958 ' +
  'before Friday. The invoice should go to 221B Baker Street, London NW1 6XE. Our account manager, Tom, ' +
  'mentioned that the payment of the last order failed, so please double-check the card ending in 4242 and ' +
  'the IBAN on file before we retry. Can you summarise the open points for the meeting in Berlin next week, ' +
  'list the risks, and draft a short, polite reply that confirms the delivery date of the 14th? '

function texts(): string[] {
  const file = new URL('../../../../../shared/datasets/pii-dev.jsonl', import.meta.url)
  if (!existsSync(file)) return [SAMPLE.repeat(2).slice(0, 1024)]
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { text: string }).text)
  const out: string[] = []
  let current = ''
  for (const row of rows) {
    current += `${row}\n`
    if (current.length >= 1024) {
      out.push(current.slice(0, 1024))
      current = ''
    }
  }
  return out
}

function measure(label: string, inputs: string[], options: AnalyzerOptions): void {
  // Warm-up: the JIT needs a few hundred calls before the cost settles (the step warms up in ready()).
  for (let i = 0; i < 10; i++) for (const t of inputs) analyzeChunk(t, options)
  const times: number[] = []
  for (let round = 0; round < 3; round++) {
    for (const t of inputs) {
      const start = process.hrtime.bigint()
      analyzeChunk(t, options)
      times.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(3)
  console.log(`| ${label} | ${times.length} | ${at(0.5)} | ${at(0.99)} |`)
}

const gazetteer = await sharedGazetteer()
const inputs = texts()
const base = {
  minScore: 0.5,
  allowList: new Set<string>(),
  allowPatterns: [],
  locations: 'personal' as const,
  organizations: 'personal' as const,
  phoneRegions: DEFAULT_PHONE_REGIONS,
}
const structured = new Set(PII_TYPES.filter((t) => !ENTITY_TYPES.includes(t)))
console.log(`detect_pii cost per 1 KB text (${inputs.length} texts), ms\n`)
console.log('| analysis | runs | median | p99 |')
console.log('|---|---:|---:|---:|')
measure('all types', inputs, { ...base, types: new Set(PII_TYPES), gazetteer })
measure('structured only', inputs, { ...base, types: structured, gazetteer: undefined })
measure('named entities only', inputs, { ...base, types: new Set(ENTITY_TYPES), gazetteer })
measure('all types, built-in prose sample', [SAMPLE.repeat(2).slice(0, 1024)], {
  ...base,
  types: new Set(PII_TYPES),
  gazetteer,
})

// Hostile and long inputs: the cost must grow linearly with the text (issue 12). CPU time, so a busy
// machine inflates it less than wall time.
const HOSTILE: Record<string, (n: number) => string> = {
  'one word': (n) => 'a'.repeat(n),
  'base64-like': (n) =>
    Buffer.from(Array.from({ length: Math.ceil((n * 3) / 4) }, (_, i) => (i * 7919 + (i >> 7)) % 256))
      .toString('base64')
      .slice(0, n),
  'capitalised names': (n) => 'Anna Berg '.repeat(n / 10),
  '"a." runs': (n) => 'a.'.repeat(n / 2),
  'backtick runs': (n) => '`a'.repeat(n / 2),
}
console.log('\nCPU ms for hostile texts of 250 KB / 500 KB / 1 MB (analyzeTextNow, all types)\n')
console.log('| input | 250 KB | 500 KB | 1 MB |')
console.log('|---|---:|---:|---:|')
const all = { ...base, types: new Set(PII_TYPES), gazetteer }
analyzeTextNow('Anna Berg '.repeat(10_000), all)
for (const [label, make] of Object.entries(HOSTILE)) {
  const cells: string[] = []
  for (const size of [250_000, 500_000, 1_000_000]) {
    const text = make(size)
    const before = process.cpuUsage()
    analyzeTextNow(text, all)
    const used = process.cpuUsage(before)
    cells.push(((used.user + used.system) / 1000).toFixed(0))
  }
  console.log(`| ${label} | ${cells.join(' | ')} |`)
}
