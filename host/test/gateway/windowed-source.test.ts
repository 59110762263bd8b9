/**
 * Windowed release's pieces on recorded streams: the incremental reader keeps
 * the first text exactly as the whole-stream reassembly does (whatever the
 * chunk boundaries, UTF-8 split included) and stops at anything else; and the
 * opening + released deltas + resumed rest reassemble to the same answer.
 */
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { anthropicEvent, renderAnthropicSse } from '../../src/adapters/anthropic-sse.js'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'
import { renderOpenAiChunk, renderOpenAiSse } from '../../src/adapters/openai-sse.js'
import {
  reassembleResponsesStream,
  renderResponsesSse,
  responsesEvent,
} from '../../src/adapters/responses-stream.js'
import { WindowSource } from '../../src/gateway/windowed-source.js'
import { loadTranscripts, type Transcript } from '../../src/testing/transcripts.js'

let transcripts: ReadonlyMap<string, Transcript>
before(async () => {
  transcripts = await loadTranscripts()
})

function sse(name: string): string {
  const text = transcripts.get(name)?.sse
  assert.ok(text, `transcript ${name}`)
  return text
}

/** Feed `text` in chunks of `size` bytes (cutting through multi-byte characters). */
function feed(source: WindowSource, text: string, size: number): void {
  const bytes = Buffer.from(text, 'utf8')
  for (let i = 0; i < bytes.length; i += size) source.feed(bytes.subarray(i, i + size))
}

describe('WindowSource', () => {
  it('keeps the first text of an OpenAI stream as the reassembly does, at any chunk size', () => {
    const whole = new OpenAiAdapter().reassembleStream(sse('openai/text')) as {
      choices: { message: { content: string } }[]
    }
    for (const size of [1, 3, 7, 64, 100_000]) {
      const source = new WindowSource('openai')
      feed(source, sse('openai/text'), size)
      assert.equal(source.text, whole.choices[0]?.message.content)
      assert.ok(source.windowable)
      assert.equal(source.head?.id, (whole as unknown as { id: string }).id)
    }
  })

  it('keeps multi-byte characters cut between chunks', () => {
    const text = 'héllo wörld — 😀 done'
    const chunk = `data: ${JSON.stringify({ id: 'c', created: 1, model: 'm', choices: [{ index: 0, delta: { content: text } }] })}\n\n`
    const source = new WindowSource('openai')
    feed(source, chunk, 5)
    assert.equal(source.text, text)
  })

  it('keeps the first text of an Anthropic stream', () => {
    const whole = new AnthropicAdapter().reassembleStream(sse('anthropic/text')) as {
      content: { text: string }[]
    }
    const source = new WindowSource('anthropic')
    feed(source, sse('anthropic/text'), 11)
    assert.equal(source.text, whole.content[0]?.text)
    assert.ok(source.windowable)
  })

  it('stops at a tool call, a second choice and an in-stream error', () => {
    for (const name of ['openai/tool_call', 'anthropic/tool_call']) {
      const source = new WindowSource(name.startsWith('openai') ? 'openai' : 'anthropic')
      feed(source, sse(name), 13)
      assert.ok(!source.windowable, name)
    }
    const second = new WindowSource('openai')
    second.feed(
      Buffer.from(`data: ${JSON.stringify({ choices: [{ index: 1, delta: { content: 'x' } }] })}\n\n`),
    )
    assert.equal(second.stopped, 'more than one choice')
    const error = new WindowSource('anthropic')
    error.feed(Buffer.from(sse('anthropic/stream_error')))
    assert.ok(error.stopped)
  })
})

describe('resumed rendering', () => {
  const released = 'The first part of the answer, '
  const text = `${released}and the rest of it.`

  it('OpenAI: opening + released delta + resumed rest reassemble to the answer', () => {
    const body = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [
        { index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 },
    }
    const options = { includeUsage: true }
    const stream =
      renderOpenAiChunk(body, options, { role: 'assistant', content: '', refusal: null }) +
      renderOpenAiChunk(body, options, { content: released }) +
      renderOpenAiSse(body, options, { text: released, sequence: 0 })
    const back = new OpenAiAdapter().reassembleStream(stream) as typeof body
    assert.equal(back.choices[0]?.message.content, text)
    assert.equal(back.choices[0]?.finish_reason, 'stop')
    assert.deepEqual(back.usage, body.usage)
    assert.equal(stream.match(/"role":"assistant"/g)?.length, 1)
  })

  it('Anthropic: one message_start, one start of block 0, the text whole', () => {
    const body = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 9 },
    }
    const { content: _content, ...head } = body
    const stream =
      anthropicEvent('message_start', { message: { ...head, content: [], stop_reason: null } }) +
      anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: released } }) +
      renderAnthropicSse(body, { text: released, sequence: 0 })
    const back = new AnthropicAdapter().reassembleStream(stream) as typeof body
    assert.equal(back.content[0]?.text, text)
    assert.equal(back.stop_reason, 'end_turn')
    assert.equal(stream.match(/event: message_start/g)?.length, 1)
    assert.equal(stream.match(/event: content_block_start/g)?.length, 1)
  })

  it('Responses: sequence numbers continue without a gap after the released events', () => {
    const item = {
      id: 'msg_1',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [] }],
    }
    const body = {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: 'gpt-4o-mini',
      output: [item],
    }
    const at = { item_id: 'msg_1', output_index: 0, content_index: 0 }
    const stream =
      responsesEvent('response.created', 0, { response: { ...body, status: 'in_progress', output: [] } }) +
      responsesEvent('response.output_text.delta', 1, { ...at, delta: released, logprobs: [] }) +
      renderResponsesSse(body, { text: released, sequence: 2 })
    const sequence = [...stream.matchAll(/"sequence_number":(\d+)/g)].map((m) => Number(m[1]))
    assert.deepEqual(
      sequence,
      sequence.map((_, i) => i),
    )
    const deltas = [...stream.matchAll(/"type":"response\.output_text\.delta".*?"delta":"([^"]*)"/g)].map(
      (m) => m[1],
    )
    assert.equal(deltas.join(''), text)
    assert.deepEqual(reassembleResponsesStream(stream), body)
  })
})
