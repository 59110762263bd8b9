/**
 * The official SDKs in the compatibility table, with their own loop helpers:
 * openai's `chat.completions.runTools`, `responses.create`/`stream`, and the
 * Anthropic SDK's `beta.messages.toolRunner`. Deeper per-SDK cases live in
 * openai-sdk, anthropic-sdk and responses tests.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod'
import OpenAI from 'openai'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import { z } from 'zod'
import {
  assertMaskedUpstream,
  type CompatGateway,
  FEATURE,
  PII_PROMPT,
  queueChatAnswer,
  startCompatGateway,
  TOOL_RESULT,
} from './helpers/compat.js'

const PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
}

let g: CompatGateway
before(async () => {
  g = await startCompatGateway('official')
})
after(() => g.close())

const openaiFor = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${g.t.url}/v1`, maxRetries: 0 })
const anthropicFor = (apiKey: string) => new Anthropic({ apiKey, baseURL: g.t.url, maxRetries: 0 })

describe('openai SDK chat.completions (runTools)', () => {
  const model = 'gpt-4o-mini'
  const tools = (stream: boolean, seen: string[]) => [
    {
      type: 'function' as const,
      function: {
        name: 'send_message',
        description: 'send a message',
        parameters: PARAMETERS,
        parse: (raw: string) => JSON.parse(raw) as { text: string },
        function: (args: { text: string }) => {
          seen.push(args.text)
          queueChatAnswer(g.t, TOOL_RESULT, stream)
          return TOOL_RESULT
        },
      },
    },
  ]
  const messages = (prompt: string) => [{ role: 'user' as const, content: prompt }]

  it(FEATURE.plain, async () => {
    const res = await openaiFor(g.key).chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hello there' }],
    })
    assert.equal(res.choices[0].message.content, 'Hello there')
  })

  it(FEATURE.streaming, async () => {
    const stream = await openaiFor(g.key).chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Hello streaming world' }],
    })
    let deltas = ''
    for await (const chunk of stream) deltas += chunk.choices[0]?.delta?.content ?? ''
    assert.equal(deltas, 'Hello streaming world')
  })

  it(FEATURE.toolLoop, async () => {
    const seen: string[] = []
    assert.equal(
      await openaiFor(g.key)
        .chat.completions.runTools({
          model,
          messages: messages('[mock:tool_echo] tell Bob hi'),
          tools: tools(false, seen),
        })
        .finalContent(),
      TOOL_RESULT,
    )
    assert.equal(seen.length, 1)
    assert.match(seen[0], /tell Bob hi/)
  })

  it(FEATURE.streamedToolLoop, async () => {
    const seen: string[] = []
    const runner = openaiFor(g.key).chat.completions.runTools({
      model,
      stream: true,
      messages: messages('[mock:tool_echo] tell Ann hi'),
      tools: tools(true, seen),
    })
    let deltas = ''
    runner.on('content', (delta) => {
      deltas += delta
    })
    assert.equal(await runner.finalContent(), TOOL_RESULT)
    assert.equal(deltas, TOOL_RESULT)
    assert.equal(seen.length, 1)
  })

  it(FEATURE.badKey, async () => {
    await assert.rejects(
      openaiFor('gov_wrong').chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }),
      OpenAI.AuthenticationError,
    )
  })

  it(FEATURE.pii, async () => {
    const res = await openaiFor(g.key).chat.completions.create({
      model,
      messages: [{ role: 'user', content: PII_PROMPT }],
    })
    assertMaskedUpstream(g.t)
    assert.equal(res.choices[0].message.content, PII_PROMPT)
  })
})

describe('openai SDK responses', () => {
  const model = 'gpt-4o-mini'
  const tools = [
    {
      type: 'function' as const,
      name: 'send_message',
      description: 'send a message',
      parameters: PARAMETERS,
      strict: true,
    },
  ]

  /** Ask, run the function the model called, send its output back; returns the final text. */
  async function toolLoop(prompt: string, stream: boolean): Promise<string> {
    const client = openaiFor(g.key)
    const ask = (input: ResponseInputItem[]) =>
      stream
        ? client.responses.stream({ model, tools, input }).finalResponse()
        : client.responses.create({ model, tools, input })
    const input: ResponseInputItem[] = [{ role: 'user', content: prompt }]
    const first = await ask(input)
    const call = first.output.find((item) => item.type === 'function_call')
    assert.ok(call && call.type === 'function_call', 'the model called no function')
    assert.match(JSON.parse(call.arguments).text, /tell \w+ hi/)
    input.push(
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: TOOL_RESULT },
    )
    return (await ask(input)).output_text
  }

  it(FEATURE.plain, async () => {
    const res = await openaiFor(g.key).responses.create({ model, input: 'Hello there' })
    assert.equal(res.output_text, 'Hello there')
  })

  it(FEATURE.streaming, async () => {
    const stream = openaiFor(g.key).responses.stream({ model, input: 'Hello streaming world' })
    let deltas = ''
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas += event.delta
    assert.equal(deltas, 'Hello streaming world')
  })

  it(FEATURE.toolLoop, async () => {
    assert.equal(await toolLoop('[mock:tool_echo] tell Bob hi', false), TOOL_RESULT)
  })

  it(FEATURE.streamedToolLoop, async () => {
    assert.equal(await toolLoop('[mock:tool_echo] tell Ann hi', true), TOOL_RESULT)
  })

  it(FEATURE.badKey, async () => {
    await assert.rejects(
      openaiFor('gov_wrong').responses.create({ model, input: 'hi' }),
      OpenAI.AuthenticationError,
    )
  })

  it(FEATURE.pii, async () => {
    const res = await openaiFor(g.key).responses.create({ model, input: PII_PROMPT })
    assertMaskedUpstream(g.t)
    assert.equal(res.output_text, PII_PROMPT)
  })
})

describe('@anthropic-ai/sdk messages (toolRunner)', () => {
  const model = 'claude-sonnet-4-6'
  const sendMessage = (seen: string[]) =>
    betaZodTool({
      name: 'send_message',
      description: 'send a message',
      inputSchema: z.object({ text: z.string() }),
      run: ({ text }) => {
        seen.push(text)
        return TOOL_RESULT
      },
    })

  const textOf = (content: { type: string; text?: string }[]) =>
    content.map((block) => (block.type === 'text' ? block.text : '')).join('')

  it(FEATURE.plain, async () => {
    const msg = await anthropicFor(g.key).messages.create({
      model,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello there' }],
    })
    assert.equal(textOf(msg.content), 'Hello there')
  })

  it(FEATURE.streaming, async () => {
    const stream = anthropicFor(g.key).messages.stream({
      model,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello streaming world' }],
    })
    let deltas = ''
    stream.on('text', (delta) => {
      deltas += delta
    })
    await stream.finalMessage()
    assert.equal(deltas, 'Hello streaming world')
  })

  it(FEATURE.toolLoop, async () => {
    const seen: string[] = []
    const final = await anthropicFor(g.key).beta.messages.toolRunner({
      model,
      max_tokens: 64,
      messages: [{ role: 'user', content: '[mock:tool_echo] tell Bob hi' }],
      tools: [sendMessage(seen)],
    })
    assert.equal(seen.length, 1)
    assert.match(seen[0], /tell Bob hi/)
    assert.equal(textOf(final.content), TOOL_RESULT)
  })

  it(FEATURE.streamedToolLoop, async () => {
    const seen: string[] = []
    const runner = anthropicFor(g.key).beta.messages.toolRunner({
      model,
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: '[mock:tool_echo] tell Ann hi' }],
      tools: [sendMessage(seen)],
    })
    let deltas = ''
    for await (const stream of runner) {
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
          deltas += event.delta.text
      }
    }
    assert.equal(seen.length, 1)
    assert.equal(deltas, TOOL_RESULT)
  })

  it(FEATURE.badKey, async () => {
    await assert.rejects(
      anthropicFor('gov_wrong').messages.create({
        model,
        max_tokens: 8,
        messages: [{ role: 'user', content: 'hi' }],
      }),
      Anthropic.AuthenticationError,
    )
  })

  it(FEATURE.pii, async () => {
    const msg = await anthropicFor(g.key).messages.create({
      model,
      max_tokens: 64,
      messages: [{ role: 'user', content: PII_PROMPT }],
    })
    assertMaskedUpstream(g.t)
    assert.equal(textOf(msg.content), PII_PROMPT)
  })
})
