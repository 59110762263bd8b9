// dedupe's request key on a 1-turn call and on the 50th turn of a conversation
// (each turn adds a ~1 KB user and a ~850 B assistant message), as it is and as
// 0.1.0 computed it (SHA-256 of the RFC 8785 canonical body). Bodies are parsed
// from JSON text each call, as gov parses a request. Run after building
// plugins/dedupe: node plugins/dedupe/bench/request-key.mjs [calls]
import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { bodyDigest } from '../dist/src/request-key.js'

const calls = Number(process.argv[2] ?? 2000)
const sentence = 'The quarterly report lists revenue, costs and the outlook for the next year. '
const messages = [{ role: 'system', content: 'You are a careful assistant. '.repeat(8) }]
for (let turn = 0; turn < 50; turn++) {
  messages.push({ role: 'user', content: `Question ${turn}: ${sentence.repeat(13)}` })
  messages.push({ role: 'assistant', content: `Answer ${turn}: ${sentence.repeat(11)}` })
}
const bodies = {
  '1-turn call': JSON.stringify({ model: 'gpt-4o-mini', messages: messages.slice(0, 2), temperature: 0 }),
  'turn 50 of a conversation': JSON.stringify({
    model: 'gpt-4o-mini',
    messages: messages.slice(0, 100),
    temperature: 0,
  }),
}
const keys = {
  'canonical JSON (0.1.0)': (body) => createHash('sha256').update(canonicalize(body)).digest('base64url'),
  'one-pass encoding (0.1.1)': (body) => bodyDigest(body),
}

console.log(`${calls} keys each after 300 warm-up; µs per key (mean)\n`)
console.log('| key | body | KB | µs per key |\n|---|---|---:|---:|')
for (const [name, key] of Object.entries(keys)) {
  for (const [label, text] of Object.entries(bodies)) {
    for (let i = 0; i < 300; i++) key(JSON.parse(text))
    const parsed = Array.from({ length: calls }, () => JSON.parse(text))
    const start = performance.now()
    for (const body of parsed) key(body)
    const us = ((performance.now() - start) / calls) * 1000
    console.log(`| ${name} | ${label} | ${(text.length / 1024).toFixed(1)} | ${us.toFixed(1)} |`)
  }
}
