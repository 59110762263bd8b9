/**
 * Cost of constrain_output on answers of several sizes: a JSON Schema check
 * and five deny patterns; and a pattern that backtracks cubically in a
 * backtracking engine, on a 1 MB answer.
 * Run: npx tsc -b plugins/constrain-output && node plugins/constrain-output/dist/bench/speed.js
 */
import { makeAnswer, makeExchange, makeResponseContext, makeServices } from '@gov/core/testing'
import { ConstrainOutputStep, DenyPatterns, resolveSettings } from '../src/index.js'

const step = new ConstrainOutputStep(
  resolveSettings({
    json_schema: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } },
    deny_patterns: [
      'internal-only',
      '/project\\s+falcon/i',
      '\\b\\d{3}-\\d{2}-\\d{4}\\b',
      'BEGIN [A-Z ]*KEY',
      '(?:password|passwd)\\s*[:=]',
    ],
  }),
  makeServices('constrain_output'),
)
/** CPU microseconds (user + system) since `started`: wall time on a loaded machine measures the other processes. */
function cpuUs(started: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(started)
  return used.user + used.system
}
const exchange = makeExchange([{ source: 'user', text: 'q' }])
for (const kb of [1, 10, 100]) {
  const items: string[] = []
  while (JSON.stringify({ items }).length < kb * 1024) items.push('a plain sentence about the weather today')
  const answer = makeAnswer(JSON.stringify({ items }))
  const n = Math.max(20, 2000 / kb)
  for (let i = 0; i < 10; i++) step.onBufferedResponse(makeResponseContext(exchange, answer))
  const started = process.cpuUsage()
  for (let i = 0; i < n; i++) step.onBufferedResponse(makeResponseContext(exchange, answer))
  console.log(`${kb} KB JSON answer, schema + 5 patterns: ${(cpuUs(started) / n).toFixed(0)} µs CPU`)
}
// Natively this pattern backtracks cubically on a long run of spaces; on RE2 it is linear.
const slow = new DenyPatterns(['\\s*\\s*x'])
const text = ' '.repeat(1024 * 1024)
const started = process.cpuUsage()
slow.firstMatch(text)
console.log(`pattern that is cubic natively, on 1 MB of spaces: ${(cpuUs(started) / 1000).toFixed(0)} ms CPU`)
