import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { loadTranscripts, type Transcript } from '../../src/testing/transcripts.js'
import { assertGovError } from './assert-gov-error.js'

const adapter = new AnthropicAdapter()
let transcripts: ReadonlyMap<string, Transcript>

before(async () => {
  transcripts = await loadTranscripts()
})

const sseOf = (name: string) => transcripts.get(name)!.sse!
const bodyOf = (name: string) => structuredClone(transcripts.get(name)!.json!.body)

/** `[event name, parsed data]` of each event of an SSE text. */
function eventsOf(sse: string): [string, Record<string, unknown>][] {
  return sse
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const [eventLine, dataLine] = block.split('\n')
      assert.match(eventLine, /^event: /)
      assert.match(dataLine, /^data: /)
      return [eventLine.slice('event: '.length), JSON.parse(dataLine.slice('data: '.length))]
    })
}

const thinkingAnswer = {
  id: 'msg_01Mixed',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [
    {
      type: 'thinking',
      thinking: 'The user asks about Paris; search first.',
      signature: 'EqQBCkYIBRgCKkAx==',
    },
    { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
    {
      type: 'server_tool_use',
      id: 'srvtoolu_01',
      name: 'web_search',
      input: { query: 'Paris population 2025' },
    },
    {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_01',
      content: [
        {
          type: 'web_search_result',
          url: 'https://example.org',
          title: 'Paris',
          encrypted_content: 'Eq0K',
          page_age: null,
        },
      ],
    },
    {
      type: 'text',
      text: 'About 2.1 million people live in Paris proper.',
      citations: [
        {
          type: 'web_search_result_location',
          url: 'https://example.org',
          title: 'Paris',
          encrypted_index: 'Eo8B',
          cited_text: '2.1 million',
        },
      ],
    },
    { type: 'tool_use', id: 'toolu_02', name: 'save_note', input: {} },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  container: null,
  usage: {
    input_tokens: 2048,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1024,
    output_tokens: 190,
    server_tool_use: { web_search_requests: 1 },
  },
}

describe('AnthropicAdapter.reassembleStream on recorded streams', () => {
  it('rebuilds the text answer: exactly the recorded JSON answer except its id', () => {
    const json = bodyOf('anthropic/text')
    const rebuilt = adapter.reassembleStream(sseOf('anthropic/text'))
    assert.equal(rebuilt.id, 'msg_01Xb7RkLq2VnT9sYw4ZcHd3F')
    assert.deepEqual({ ...rebuilt, id: json.id }, json)
  })

  it('rebuilds the tool answer: text block, tool_use input from JSON fragments, stop reason and usage', () => {
    const json = bodyOf('anthropic/tool_call') as { content: Record<string, unknown>[] }
    const rebuilt = adapter.reassembleStream(sseOf('anthropic/tool_call')) as typeof json
    assert.equal(rebuilt.content[1].id, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6')
    const withIds = (body: typeof json) => ({
      ...body,
      id: '',
      content: body.content.map((b) => (b.type === 'tool_use' ? { ...b, id: '' } : b)),
    })
    assert.deepEqual(withIds(rebuilt), withIds(json))
  })

  it('turns an error event into upstream_error carrying the vendor error', () => {
    assert.throws(
      () => adapter.reassembleStream(sseOf('anthropic/stream_error')),
      (error: { code: string; status: number; message: string; details: { upstream: { type: string } } }) => {
        assert.equal(error.code, 'upstream_error')
        assert.equal(error.status, 502)
        assert.equal(error.details.upstream.type, 'overloaded_error')
        assert.equal(error.message, 'Overloaded')
        return true
      },
    )
  })

  const start =
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{}}}\n\n'
  const broken: [string, () => string][] = [
    ['an empty stream', () => ''],
    ['a stream of only pings', () => 'event: ping\ndata: {"type":"ping"}\n\n'],
    ['a stream cut before message_stop', () => sseOf('anthropic/text').split('event: message_delta')[0]],
    [
      'a delta before message_start',
      () =>
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}\n\n',
    ],
    [
      'a delta for a block that never started',
      () =>
        `${start}event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}\n\n`,
    ],
    [
      'tool input fragments that are not JSON',
      () =>
        `${start}event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}\n\n` +
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}\n\n' +
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
    ],
    ['data that is not JSON', () => `${start}event: message_stop\ndata: {nope\n\n`],
  ]
  for (const [name, sse] of broken) {
    it(`rejects ${name} as upstream_invalid_stream`, () => {
      assertGovError(() => adapter.reassembleStream(sse()), 'upstream_invalid_stream', 502)
    })
  }

  it('skips unknown event types', () => {
    const sse = sseOf('anthropic/text').replace(
      'event: message_stop',
      'event: future_event\ndata: {"type":"future_event","x":1}\n\nevent: message_stop',
    )
    assert.deepEqual(adapter.reassembleStream(sse), adapter.reassembleStream(sseOf('anthropic/text')))
  })
})

describe('AnthropicAdapter.toSse', () => {
  it('round-trips the recorded answers and one with thinking, citations and server tools', () => {
    for (const body of [
      bodyOf('anthropic/text'),
      bodyOf('anthropic/tool_call'),
      structuredClone(thinkingAnswer),
    ]) {
      assert.deepEqual(adapter.reassembleStream(adapter.toSse(body, { includeUsage: false })), body)
    }
  })

  it('emits the event sequence Anthropic sends, event names matching data types', () => {
    const body = bodyOf('anthropic/tool_call')
    const events = eventsOf(adapter.toSse(body, { includeUsage: false }))
    for (const [name, data] of events) assert.equal(data.type, name)
    const names = events.map(([name]) => name)
    const collapsed = names.filter(
      (name, i) => name !== 'content_block_delta' || names[i - 1] !== 'content_block_delta',
    )
    assert.deepEqual(collapsed, [
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    const message = events[0][1].message as Record<string, unknown>
    assert.deepEqual(message.content, [])
    assert.equal(message.stop_reason, null)
    assert.equal((message.usage as { input_tokens: number }).input_tokens, 412)
    assert.ok((message.usage as { output_tokens: number }).output_tokens <= 1)
    const toolDeltas = events.filter(([, d]) => d.index === 1 && d.type === 'content_block_delta')
    assert.ok(toolDeltas.length >= 2, 'tool input should arrive in several fragments')
    for (const [, d] of toolDeltas) assert.equal((d.delta as { type: string }).type, 'input_json_delta')
    const toolStart = events.find(([name, d]) => name === 'content_block_start' && d.index === 1)!
    assert.deepEqual(toolStart[1].content_block, {
      type: 'tool_use',
      id: 'toolu_01A09q90qw90lq917835lq9Z',
      name: 'get_weather',
      input: {},
    })
    const [, messageDelta] = events.at(-2)!
    assert.deepEqual(messageDelta.delta, { stop_reason: 'tool_use', stop_sequence: null })
    assert.deepEqual(messageDelta.usage, { output_tokens: 74 })
  })

  it('streams thinking as thinking_delta then signature_delta, and citations as citations_delta', () => {
    const events = eventsOf(adapter.toSse(structuredClone(thinkingAnswer), { includeUsage: false }))
    const deltaTypes = (index: number) =>
      events
        .filter(([name, d]) => name === 'content_block_delta' && d.index === index)
        .map(([, d]) => (d.delta as { type: string }).type)
    assert.deepEqual([...new Set(deltaTypes(0))], ['thinking_delta', 'signature_delta'])
    assert.equal(deltaTypes(0).at(-1), 'signature_delta')
    assert.deepEqual(deltaTypes(1), [])
    assert.deepEqual([...new Set(deltaTypes(4))], ['text_delta', 'citations_delta'])
  })

  it('streams an answer without content blocks', () => {
    const body = { ...bodyOf('anthropic/text'), content: [] }
    const events = eventsOf(adapter.toSse(body, { includeUsage: false }))
    assert.deepEqual(
      events.map(([name]) => name),
      ['message_start', 'ping', 'message_delta', 'message_stop'],
    )
    assert.deepEqual(adapter.reassembleStream(adapter.toSse(body, { includeUsage: false })), body)
  })
})
