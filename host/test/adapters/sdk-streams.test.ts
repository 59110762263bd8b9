import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'
import { type MockProvider, startMockProvider } from '../../src/testing/mock-provider.js'
import { loadTranscripts, type Transcript } from '../../src/testing/transcripts.js'

// The official SDKs' own stream parsers and accumulators read what the adapters re-chunk:
// the re-chunked streams are what real clients accept, not only what our reassembler accepts.

const openAiAdapter = new OpenAiAdapter()
const anthropicAdapter = new AnthropicAdapter()
let mock: MockProvider
let transcripts: ReadonlyMap<string, Transcript>
let openai: OpenAI
let anthropic: Anthropic

before(async () => {
  transcripts = await loadTranscripts()
  mock = await startMockProvider()
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: mock.openaiBaseUrl, maxRetries: 0 })
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: mock.anthropicBaseUrl, maxRetries: 0 })
})

after(() => mock.close())

const bodyOf = (name: string) => structuredClone(transcripts.get(name)!.json!.body)

describe('openai SDK reading OpenAiAdapter.toSse', () => {
  for (const name of ['openai/text', 'openai/tool_call']) {
    it(`accumulates the re-chunked ${name} into the same completion`, async () => {
      const body = bodyOf(name) as unknown as OpenAI.ChatCompletion
      mock.enqueue({
        sse: openAiAdapter.toSse(body as unknown as Record<string, unknown>, { includeUsage: true }),
      })
      const stream = openai.chat.completions.stream({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        stream_options: { include_usage: true },
      })
      const completion = await stream.finalChatCompletion()
      assert.equal(completion.id, body.id)
      assert.equal(completion.model, body.model)
      assert.deepEqual(completion.usage, body.usage)
      const [got] = completion.choices
      const [want] = body.choices
      assert.equal(got.finish_reason, want.finish_reason)
      assert.equal(got.message.content, want.message.content)
      assert.deepEqual(
        (got.message.tool_calls ?? []).map((c) =>
          c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : [],
        ),
        (want.message.tool_calls ?? []).map((c) =>
          c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : [],
        ),
      )
    })
  }

  it('yields the re-chunked text as several chunks to a raw stream reader', async () => {
    const body = bodyOf('openai/text') as unknown as OpenAI.ChatCompletion
    mock.enqueue({
      sse: openAiAdapter.toSse(body as unknown as Record<string, unknown>, { includeUsage: false }),
    })
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    })
    let text = ''
    let chunks = 0
    for await (const chunk of stream) {
      chunks++
      text += chunk.choices[0]?.delta.content ?? ''
    }
    assert.ok(chunks >= 4)
    assert.equal(text, body.choices[0].message.content)
  })
})

describe('@anthropic-ai/sdk reading AnthropicAdapter.toSse', () => {
  const mixed = {
    id: 'msg_01Mixed',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [
      { type: 'thinking', thinking: 'Check the weather tool first.', signature: 'EqQBCkYIBRgCKkAx==' },
      { type: 'text', text: 'Checking the weather in Paris and Tokyo for you now.' },
      {
        type: 'tool_use',
        id: 'toolu_01',
        name: 'get_weather',
        input: { location: 'Paris, France', days: [1, 2] },
      },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 300, output_tokens: 88 },
  }

  for (const [name, source] of [
    ['anthropic/text', () => bodyOf('anthropic/text')],
    ['anthropic/tool_call', () => bodyOf('anthropic/tool_call')],
    ['a thinking + tool answer', () => structuredClone(mixed) as Record<string, unknown>],
  ] as const) {
    it(`accumulates the re-chunked ${name} into the same message`, async () => {
      const body = source()
      mock.enqueue({ sse: anthropicAdapter.toSse(body, { includeUsage: false }) })
      const message = await anthropic.messages
        .stream({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage()
      assert.equal(message.id, body.id)
      assert.equal(message.stop_reason, body.stop_reason)
      assert.deepEqual(message.content, body.content)
      assert.deepEqual(message.usage, body.usage)
    })
  }
})
