import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'
import { loadTranscripts, type Transcript } from '../../src/testing/transcripts.js'
import { assertGovError } from './assert-gov-error.js'

const adapter = new OpenAiAdapter()
let transcripts: ReadonlyMap<string, Transcript>

before(async () => {
  transcripts = await loadTranscripts()
})

const sseOf = (name: string) => transcripts.get(name)!.sse!
const bodyOf = (name: string) => structuredClone(transcripts.get(name)!.json!.body)

interface Completion {
  id: string
  created: number
  usage?: unknown
  choices: {
    message: {
      content: string | null
      tool_calls?: { id: string; function: { name: string; arguments: string } }[]
    }
    finish_reason: string
  }[]
}

/** The data payloads of an SSE text, `[DONE]` kept as a string. */
function dataOf(sse: string): unknown[] {
  return sse
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => {
      const data = block.slice('data: '.length)
      return data === '[DONE]' ? data : JSON.parse(data)
    })
}

describe('OpenAiAdapter.reassembleStream on recorded streams', () => {
  it('rebuilds the text answer: the recorded JSON answer except ids and the absent usage', () => {
    const json = bodyOf('openai/text')
    const rebuilt = adapter.reassembleStream(sseOf('openai/text'))
    assert.equal(rebuilt.id, 'chatcmpl-CAbY1fG8wPz2NcVxR5tKmQ0sLhD9e')
    const { usage: _usage, ...jsonWithoutUsage } = json
    assert.deepEqual({ ...rebuilt, id: json.id, created: json.created }, jsonWithoutUsage)
  })

  it('rebuilds the include_usage stream into exactly the recorded JSON answer, usage included', () => {
    const json = bodyOf('openai/text')
    const rebuilt = adapter.reassembleStream(sseOf('openai/text_usage'))
    assert.deepEqual({ ...rebuilt, id: json.id, created: json.created }, json)
  })

  it('assembles both parallel tool calls from their fragments', () => {
    const json = bodyOf('openai/tool_call') as unknown as Completion
    const rebuilt = adapter.reassembleStream(sseOf('openai/tool_call')) as unknown as Completion
    const [choice] = rebuilt.choices
    assert.equal(choice.message.content, null)
    assert.equal(choice.finish_reason, 'tool_calls')
    assert.deepEqual(
      choice.message.tool_calls!.map((c) => c.id),
      ['call_Qm3Lx9TzW1vB7rNcY5kH2pDs', 'call_Ve6Jt0GdS4nXq8RwA2mZ9bLc'],
    )
    assert.deepEqual(
      choice.message.tool_calls!.map((c) => ({ ...c, id: '' })),
      json.choices[0].message.tool_calls!.map((c) => ({ ...c, id: '' })),
    )
  })

  it('turns an error inside the stream into upstream_error with the vendor message', () => {
    assert.throws(
      () => adapter.reassembleStream(sseOf('openai/stream_error')),
      (error: { code: string; status: number; message: string; details: { upstream: { type: string } } }) => {
        assert.equal(error.code, 'upstream_error')
        assert.equal(error.status, 502)
        assert.equal(error.details.upstream.type, 'server_error')
        assert.equal(
          error.message,
          'The server had an error while processing your request. Sorry about that!',
        )
        return true
      },
    )
  })

  const broken: [string, () => string][] = [
    ['an empty stream', () => ''],
    ['a stream of only [DONE]', () => 'data: [DONE]\n\n'],
    ['a stream of only comments', () => ': keep-alive\n\n: keep-alive\n\n'],
    [
      'a stream cut before its final chunk',
      () => sseOf('openai/text').split('\n\n').slice(0, 6).join('\n\n'),
    ],
    ['a chunk that is not JSON', () => 'data: {"id":"x","choices":[\n\ndata: [DONE]\n\n'],
    ['a chunk that is an array', () => 'data: [1,2]\n\ndata: [DONE]\n\n'],
  ]
  for (const [name, sse] of broken) {
    it(`rejects ${name} as upstream_invalid_stream`, () => {
      assertGovError(() => adapter.reassembleStream(sse()), 'upstream_invalid_stream', 502)
    })
  }

  it('keeps a last event that lacks its blank line (connection closed right after it)', () => {
    const sse = sseOf('openai/text_usage').replace('data: [DONE]', '').trimEnd()
    const rebuilt = adapter.reassembleStream(sse)
    assert.deepEqual(rebuilt.usage, bodyOf('openai/text').usage)
  })
})

describe('OpenAiAdapter.toSse', () => {
  it('round-trips the recorded answers through toSse and reassembleStream', () => {
    for (const name of ['openai/text', 'openai/tool_call']) {
      const body = bodyOf(name)
      assert.deepEqual(adapter.reassembleStream(adapter.toSse(body, { includeUsage: true })), body, name)
      const { usage: _usage, ...withoutUsage } = body
      assert.deepEqual(
        adapter.reassembleStream(adapter.toSse(body, { includeUsage: false })),
        withoutUsage,
        name,
      )
    }
  })

  it('round-trips several choices, refusals, logprobs, annotations, custom and legacy calls', () => {
    const body = {
      id: 'chatcmpl-many',
      object: 'chat.completion',
      created: 1756215000,
      model: 'gpt-4o-2024-08-06',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Paris — according to the source. 🇫🇷 Ünïcödé text follows here.',
            refusal: null,
            annotations: [
              {
                type: 'url_citation',
                url_citation: { start_index: 0, end_index: 5, url: 'https://a.b', title: 'A' },
              },
            ],
          },
          logprobs: {
            content: [{ token: 'Paris', logprob: -0.1, bytes: [80], top_logprobs: [] }],
            refusal: null,
          },
          finish_reason: 'stop',
        },
        {
          index: 1,
          message: {
            role: 'assistant',
            content: null,
            refusal: "I'm sorry, I can't help with that.",
            annotations: [],
          },
          logprobs: null,
          finish_reason: 'stop',
        },
        {
          index: 2,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              { id: 'call_c', type: 'custom', custom: { name: 'sh', input: 'ls -la /tmp && echo done' } },
            ],
            function_call: { name: 'legacy', arguments: '{"a":1}' },
            annotations: [],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 },
      system_fingerprint: null,
    }
    assert.deepEqual(adapter.reassembleStream(adapter.toSse(body, { includeUsage: true })), body)
  })

  it('sends usage: null on every chunk, then one usage chunk without choices, then [DONE]', () => {
    const body = bodyOf('openai/text')
    const events = dataOf(adapter.toSse(body, { includeUsage: true }))
    assert.equal(events.at(-1), '[DONE]')
    const chunks = events.slice(0, -1) as Record<string, unknown>[]
    const last = chunks.at(-1)!
    assert.deepEqual(last.choices, [])
    assert.deepEqual(last.usage, body.usage)
    for (const chunk of chunks.slice(0, -1)) {
      assert.equal(chunk.usage, null)
      assert.equal((chunk.choices as unknown[]).length, 1)
    }
    for (const chunk of chunks) {
      assert.deepEqual(
        [chunk.id, chunk.object, chunk.created, chunk.model, chunk.system_fingerprint, chunk.service_tier],
        [
          body.id,
          'chat.completion.chunk',
          body.created,
          body.model,
          body.system_fingerprint,
          body.service_tier,
        ],
      )
    }
  })

  it('streams a role delta, several word-aligned content deltas and a finish chunk, without usage unless asked', () => {
    const body = bodyOf('openai/text')
    const chunks = dataOf(adapter.toSse(body, { includeUsage: false })).slice(0, -1) as {
      usage?: unknown
      choices: { delta: Record<string, unknown>; finish_reason: string | null }[]
    }[]
    for (const chunk of chunks) assert.equal('usage' in chunk, false)
    assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '', refusal: null })
    const pieces = chunks.slice(1, -1).map((c) => c.choices[0].delta.content as string)
    assert.ok(pieces.length >= 3, `expected several content deltas, got ${pieces.length}`)
    assert.equal(pieces.join(''), (body.choices as Completion['choices'])[0].message.content)
    for (const piece of pieces.slice(1)) assert.match(piece, /^\s/)
    assert.deepEqual(chunks.at(-1)!.choices[0], {
      index: 0,
      delta: {},
      logprobs: null,
      finish_reason: 'stop',
    })
  })

  it('streams each tool call as a named first fragment followed by argument fragments', () => {
    const body = bodyOf('openai/tool_call')
    const chunks = dataOf(adapter.toSse(body, { includeUsage: false })).slice(0, -1) as {
      choices: { delta: { tool_calls?: Record<string, unknown>[] } }[]
    }[]
    const fragments = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? [])
    const firsts = fragments.filter((f) => 'id' in f)
    assert.deepEqual(firsts, [
      {
        index: 0,
        id: 'call_Kx7Wd2bQ9mZr4TfYp1LsNvE3',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
      {
        index: 1,
        id: 'call_8HnR2cVqT5yLm0XwZ3bJdK6s',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
    ])
    const rest = fragments.filter((f) => !('id' in f))
    assert.ok(rest.length >= 4)
    for (const fragment of rest) assert.deepEqual(Object.keys(fragment), ['index', 'function'])
    assert.equal(chunks[0].choices[0].delta.tool_calls, undefined)
  })

  it('keeps a long answer to a bounded number of chunks', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `word${i}`).join(' ')
    const body = {
      id: 'chatcmpl-long',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'length',
        },
      ],
    }
    const sse = adapter.toSse(body, { includeUsage: false })
    assert.ok(dataOf(sse).length < 450)
    assert.deepEqual(adapter.reassembleStream(sse), body)
  })
})
