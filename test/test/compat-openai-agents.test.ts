/**
 * The OpenAI Agents SDK for JS through gov on its default settings: the default
 * model on the Responses API, `run` plain and streamed, a function tool run in
 * the agent loop, a bad key, PII masked upstream and restored. Only the
 * provider's key and base URL point at gov; tracing export is off because it
 * would post to OpenAI, not to the model endpoint.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Agent, getDefaultModel, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents'
import { z } from 'zod'
import {
  assertMaskedUpstream,
  type CompatGateway,
  FEATURE,
  PII_PROMPT,
  startCompatGateway,
  TOOL_RESULT,
} from './helpers/compat.js'

setTracingDisabled(true)

describe('OpenAI Agents SDK (@openai/agents)', () => {
  let g: CompatGateway
  let runner: Runner
  const runnerFor = (apiKey: string) =>
    new Runner({ modelProvider: new OpenAIProvider({ apiKey, baseURL: `${g.t.url}/v1` }) })
  before(async () => {
    g = await startCompatGateway('agents')
    runner = runnerFor(g.key)
  })
  after(() => g.close())

  const plainAgent = new Agent({ name: 'echo', instructions: 'Be brief.' })
  const seen: string[] = []
  const toolAgent = new Agent({
    name: 'messenger',
    instructions: 'Send messages when asked.',
    tools: [
      tool({
        name: 'send_message',
        description: 'send a message',
        parameters: z.object({ text: z.string() }),
        execute: async ({ text }) => {
          seen.push(text)
          return TOOL_RESULT
        },
      }),
    ],
  })

  async function streamedRun(agent: Agent, input: string) {
    const result = await runner.run(agent, input, { stream: true })
    let deltas = ''
    for await (const delta of result.toTextStream()) deltas += delta
    await result.completed
    return { deltas, finalOutput: result.finalOutput }
  }

  it(FEATURE.plain, async () => {
    const result = await runner.run(plainAgent, 'Hello there')
    assert.equal(result.finalOutput, 'Hello there')
    const sent = g.t.mock.requests.at(-1)
    assert.ok(sent)
    assert.equal(sent.path, '/v1/responses', 'the default is the Responses API')
    assert.equal((sent.body as { model?: string }).model, getDefaultModel())
  })

  it(FEATURE.streaming, async () => {
    const { deltas, finalOutput } = await streamedRun(plainAgent, 'Hello streaming world')
    assert.equal(deltas, 'Hello streaming world')
    assert.equal(finalOutput, 'Hello streaming world')
  })

  it(FEATURE.toolLoop, async () => {
    seen.length = 0
    const result = await runner.run(toolAgent, '[mock:tool_echo] tell Bob hi')
    assert.equal(seen.length, 1)
    assert.match(seen[0], /tell Bob hi/)
    assert.equal(result.finalOutput, TOOL_RESULT)
  })

  it(FEATURE.streamedToolLoop, async () => {
    seen.length = 0
    const { deltas, finalOutput } = await streamedRun(toolAgent, '[mock:tool_echo] tell Ann hi')
    assert.equal(seen.length, 1)
    assert.match(seen[0], /tell Ann hi/)
    assert.equal(deltas, TOOL_RESULT)
    assert.equal(finalOutput, TOOL_RESULT)
  })

  it(FEATURE.badKey, async () => {
    await assert.rejects(
      runnerFor('gov_wrong').run(plainAgent, 'hi'),
      (err: unknown) => (err as { status?: number }).status === 401,
    )
  })

  it(FEATURE.pii, async () => {
    const result = await runner.run(plainAgent, PII_PROMPT)
    assertMaskedUpstream(g.t)
    assert.equal(result.finalOutput, PII_PROMPT)
    const { deltas } = await streamedRun(plainAgent, PII_PROMPT)
    assertMaskedUpstream(g.t)
    assert.equal(deltas, PII_PROMPT)
  })
})
