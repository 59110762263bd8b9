import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { tokenUsage } from '../../src/adapters/json-values.js'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'
import { ResponsesAdapter } from '../../src/adapters/responses-adapter.js'

const sse = (events: [string | undefined, unknown][]) =>
  events.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`).join('')

describe('tokenUsage with cache counts', () => {
  it('keeps each cache count only when it is a number', () => {
    assert.deepEqual(tokenUsage(10, 2, 4, 3), {
      inputTokens: 10,
      outputTokens: 2,
      cachedInputTokens: 4,
      cacheWriteInputTokens: 3,
    })
    assert.deepEqual(tokenUsage(10, 2, 0), { inputTokens: 10, outputTokens: 2, cachedInputTokens: 0 })
    const none = tokenUsage(10, 2, null, '3')
    assert.deepEqual(none, { inputTokens: 10, outputTokens: 2 })
    assert.ok(!('cachedInputTokens' in none) && !('cacheWriteInputTokens' in none))
  })

  it('keeps the one-hour write count only when it is a part of the writes', () => {
    assert.deepEqual(tokenUsage(10, 2, 4, 3, 2), {
      inputTokens: 10,
      outputTokens: 2,
      cachedInputTokens: 4,
      cacheWriteInputTokens: 3,
      cacheWrite1hInputTokens: 2,
    })
    assert.equal(tokenUsage(10, 2, 4, 3, 3).cacheWrite1hInputTokens, 3)
    assert.equal(tokenUsage(10, 2, 4, 3, 0).cacheWrite1hInputTokens, 0)
    for (const odd of [4, -1, '2', null, Number.NaN])
      assert.ok(!('cacheWrite1hInputTokens' in tokenUsage(10, 2, 4, 3, odd)), String(odd))
    // No writes reported: no one-hour part either.
    assert.ok(!('cacheWrite1hInputTokens' in tokenUsage(10, 2, 4, undefined, 2)))
  })
})

describe('OpenAI chat completions: cached tokens', () => {
  const adapter = new OpenAiAdapter()
  const exchange = adapter.parseRequest({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
  const usage = {
    prompt_tokens: 2_006,
    completion_tokens: 300,
    total_tokens: 2_306,
    prompt_tokens_details: { cached_tokens: 1_920, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  }

  it('JSON: prompt_tokens is the total, cached_tokens a part of it', () => {
    const body = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-4o-2024-08-06',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage,
    }
    assert.deepEqual(adapter.parseAnswer(body, exchange).usage, {
      inputTokens: 2_006,
      outputTokens: 300,
      cachedInputTokens: 1_920,
    })
  })

  it('JSON: no details, or details without cached_tokens, means no cached count', () => {
    const body = (u: unknown) => ({
      model: 'gpt-4o',
      choices: [{ message: { role: 'assistant', content: 'ok' } }],
      usage: u,
    })
    assert.deepEqual(adapter.parseAnswer(body({ prompt_tokens: 5, completion_tokens: 1 }), exchange).usage, {
      inputTokens: 5,
      outputTokens: 1,
    })
    assert.deepEqual(
      adapter.parseAnswer(
        body({ prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: null }),
        exchange,
      ).usage,
      { inputTokens: 5, outputTokens: 1 },
    )
  })

  it('stream: the usage chunk carries the cached count', () => {
    const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-2024-08-06' }
    const text = `${sse([
      [
        undefined,
        { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'o' } }], usage: null },
      ],
      [
        undefined,
        { ...head, choices: [{ index: 0, delta: { content: 'k' }, finish_reason: 'stop' }], usage: null },
      ],
      [undefined, { ...head, choices: [], usage }],
    ])}data: [DONE]\n\n`
    const answer = adapter.parseAnswer(adapter.reassembleStream(text), exchange)
    assert.deepEqual(answer.usage, { inputTokens: 2_006, outputTokens: 300, cachedInputTokens: 1_920 })
  })
})

describe('OpenAI responses: cached tokens', () => {
  const adapter = new ResponsesAdapter()
  const exchange = adapter.parseRequest({ model: 'gpt-4o', input: 'hi' })
  const response = {
    id: 'resp_1',
    object: 'response',
    status: 'completed',
    model: 'gpt-4o-2024-08-06',
    output: [
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'ok', annotations: [] }],
      },
    ],
    usage: {
      input_tokens: 1_500,
      input_tokens_details: { cached_tokens: 1_280 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 1_520,
    },
  }

  it('JSON: input_tokens is the total, cached_tokens a part of it', () => {
    assert.deepEqual(adapter.parseAnswer(structuredClone(response), exchange).usage, {
      inputTokens: 1_500,
      outputTokens: 20,
      cachedInputTokens: 1_280,
    })
  })

  it('stream: response.completed carries the cached count', () => {
    const text = sse([
      [
        'response.created',
        {
          type: 'response.created',
          sequence_number: 0,
          response: { ...response, status: 'in_progress', output: [], usage: null },
        },
      ],
      ['response.completed', { type: 'response.completed', sequence_number: 1, response }],
    ])
    assert.deepEqual(adapter.parseAnswer(adapter.reassembleStream(text), exchange).usage, {
      inputTokens: 1_500,
      outputTokens: 20,
      cachedInputTokens: 1_280,
    })
  })
})

describe('Anthropic messages: cache reads and writes', () => {
  const adapter = new AnthropicAdapter()
  const exchange = adapter.parseRequest({
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'hi' }],
  })
  const message = (usage: unknown) => ({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage,
  })

  it('JSON: input is input_tokens + cache_read_input_tokens + cache_creation_input_tokens', () => {
    const usage = {
      input_tokens: 21,
      cache_creation_input_tokens: 188,
      cache_read_input_tokens: 3_000,
      output_tokens: 393,
    }
    assert.deepEqual(adapter.parseAnswer(message(usage), exchange).usage, {
      inputTokens: 3_209,
      outputTokens: 393,
      cachedInputTokens: 3_000,
      cacheWriteInputTokens: 188,
    })
  })

  it('JSON: cache_creation.ephemeral_1h_input_tokens is the one-hour part of the writes', () => {
    const usage = {
      input_tokens: 21,
      cache_creation_input_tokens: 188,
      cache_read_input_tokens: 3_000,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 88 },
      output_tokens: 393,
    }
    assert.deepEqual(adapter.parseAnswer(message(usage), exchange).usage, {
      inputTokens: 3_209,
      outputTokens: 393,
      cachedInputTokens: 3_000,
      cacheWriteInputTokens: 188,
      cacheWrite1hInputTokens: 88,
    })
    // A cache_creation that is not an object, or one-hour writes beyond the total, are left out.
    for (const creation of [null, 88, [88], { ephemeral_1h_input_tokens: 189 }]) {
      const parsed = adapter.parseAnswer(message({ ...usage, cache_creation: creation }), exchange).usage
      assert.equal(parsed?.cacheWriteInputTokens, 188)
      assert.ok(parsed && !('cacheWrite1hInputTokens' in parsed), JSON.stringify(creation))
    }
  })

  it('JSON: no cache fields (or null ones) leaves input_tokens as it is', () => {
    assert.deepEqual(adapter.parseAnswer(message({ input_tokens: 21, output_tokens: 3 }), exchange).usage, {
      inputTokens: 21,
      outputTokens: 3,
    })
    assert.deepEqual(
      adapter.parseAnswer(
        message({
          input_tokens: 21,
          output_tokens: 3,
          cache_read_input_tokens: null,
          cache_creation_input_tokens: 0,
        }),
        exchange,
      ).usage,
      { inputTokens: 21, outputTokens: 3, cacheWriteInputTokens: 0 },
    )
  })

  it('stream: cache counts of message_start, output of message_delta (later counts win)', () => {
    const start = message({
      input_tokens: 21,
      cache_creation_input_tokens: 188,
      cache_read_input_tokens: 3_000,
      output_tokens: 1,
    })
    const text = sse([
      ['message_start', { type: 'message_start', message: { ...start, content: [], stop_reason: null } }],
      [
        'content_block_start',
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 393, cache_read_input_tokens: 3_100, input_tokens: null },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ])
    assert.deepEqual(adapter.parseAnswer(adapter.reassembleStream(text), exchange).usage, {
      inputTokens: 21 + 188 + 3_100,
      outputTokens: 393,
      cachedInputTokens: 3_100,
      cacheWriteInputTokens: 188,
    })
  })

  it("stream: message_start's cache_creation gives the one-hour part", () => {
    const start = message({
      input_tokens: 21,
      cache_creation_input_tokens: 188,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 188 },
      output_tokens: 1,
    })
    const text = sse([
      ['message_start', { type: 'message_start', message: { ...start, content: [], stop_reason: null } }],
      [
        'message_delta',
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } },
      ],
      ['message_stop', { type: 'message_stop' }],
    ])
    assert.deepEqual(adapter.parseAnswer(adapter.reassembleStream(text), exchange).usage, {
      inputTokens: 21 + 188,
      outputTokens: 7,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 188,
      cacheWrite1hInputTokens: 188,
    })
  })
})
