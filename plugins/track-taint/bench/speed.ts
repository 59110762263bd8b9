/**
 * Per-call cost of track_taint on the embedded session store: a 40-message
 * conversation with tool results and 12 findings, then a sink check.
 * Run: npx tsc -b plugins/track-taint && node plugins/track-taint/dist/bench/speed.js
 */
import type { Finding } from '@gov/core'
import {
  type FakeMessage,
  makeAnswer,
  makeExchange,
  makeRequestContext,
  makeServices,
  makeToolCallContext,
} from '@gov/core/testing'
import { resolveSettings, TrackTaintStep } from '../src/index.js'

const messages: FakeMessage[] = []
for (let i = 0; i < 10; i++) {
  messages.push({ source: 'user', text: `question ${i}` })
  messages.push({
    source: 'assistant',
    toolCalls: [{ id: `c${i}`, name: i % 3 ? 'read_file' : 'web_fetch', arguments: '{}' }],
  })
  messages.push({ source: 'tool', toolResults: [{ toolCallId: `c${i}`, text: 'result' }] })
  messages.push({ source: 'assistant', text: `answer ${i}` })
}
const findings: Finding[] = Array.from({ length: 12 }, (_, i) => ({
  step: i % 2 ? 'detect_pii' : 'scan_secrets',
  phase: 'request',
  type: 'X',
  score: 1,
  level: i % 4 ? 'confidential' : 'internal',
}))
const step = new TrackTaintStep(
  resolveSettings({ sinks: { 'send_*': ['pii', 'untrusted'] }, untrusted_tools: ['web_*'] }),
  makeServices('track_taint'),
)
const exchange = makeExchange(messages)
const answer = makeAnswer(undefined, [{ id: 'x', name: 'read_file', arguments: '{}' }])

const n = 20_000
/** CPU time (user + system) per call: wall time on a shared, loaded machine mostly measures the other processes. */
const cpuPerCall = (started: NodeJS.CpuUsage, calls: number) => {
  const used = process.cpuUsage(started)
  return ((used.user + used.system) / calls).toFixed(1)
}
for (let i = 0; i < 500; i++)
  await step.onRequest(makeRequestContext(exchange, { findings, call: { sessionId: 's' } }))
let started = process.cpuUsage()
for (let i = 0; i < n; i++)
  await step.onRequest(makeRequestContext(exchange, { findings, call: { sessionId: 's' } }))
console.log(`onRequest, 40 messages, 12 findings, session: ${cpuPerCall(started, n)} µs CPU/call`)
started = process.cpuUsage()
for (let i = 0; i < n; i++)
  await step.onToolCall(
    makeToolCallContext(exchange, answer, answer.message.toolCalls[0], { call: { sessionId: 's' } }),
  )
console.log(`onToolCall to a tool that is no sink: ${cpuPerCall(started, n)} µs CPU/call`)
