/**
 * Per-call cost of filter_tools on the embedded stores: narrowing 20 offered
 * tools with pinning on, and checking a tool call against an argument rule.
 * Includes the fake context of @gov/core/testing (building the exchange, findings).
 * Run: npx tsc -b plugins/filter-tools && node plugins/filter-tools/dist/bench/speed.js
 */
import {
  makeAnswer,
  makeExchange,
  makeRequestContext,
  makeServices,
  makeToolCallContext,
} from '@gov/core/testing'
import { FilterToolsStep, resolveSettings } from '../src/index.js'

const tools = Array.from({ length: 20 }, (_, i) => ({
  name: i % 5 === 0 ? `delete_thing_${i}` : `tool_${i}`,
  description: `Tool number ${i} does something useful with its arguments`,
  parameters: {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'integer' } },
    required: ['a'],
  },
}))
const step = new FilterToolsStep(
  resolveSettings({
    deny: ['delete_*'],
    pin: true,
    argument_rules: { 'tool_*': { type: 'object', properties: { a: { type: 'string', maxLength: 100 } } } },
  }),
  makeServices('filter_tools'),
)

/** CPU time (user + system) per call: wall time on a shared, loaded machine mostly measures the other processes. */
async function time(label: string, n: number, run: () => unknown) {
  for (let i = 0; i < 200; i++) await run()
  const started = process.cpuUsage()
  for (let i = 0; i < n; i++) await run()
  const used = process.cpuUsage(started)
  console.log(`${label}: ${((used.user + used.system) / n).toFixed(1)} µs CPU/call`)
}

await time('onRequest, 20 tools offered, 4 denied, pin on (definitions confirmed)', 5000, () =>
  step.onRequest(makeRequestContext(makeExchange([{ source: 'user', text: 'hi' }], { tools }))),
)
const answer = makeAnswer(undefined, [{ id: 'c', name: 'tool_1', arguments: '{"a":"hello","b":2}' }])
const exchange = makeExchange([{ source: 'user', text: 'hi' }])
await time('onToolCall with one argument rule', 50_000, () =>
  step.onToolCall(makeToolCallContext(exchange, answer, answer.message.toolCalls[0])),
)
