import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { assertGovError } from './assert-gov-error.js'

const adapter = new AnthropicAdapter()

function request(): Record<string, unknown> {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    metadata: { user_id: 'u-1' },
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather in Paris? Call me at +33 6 12 34 56 78' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Quarterly numbers' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The user wants weather.', signature: 'EqQBCkYIBRgCKkA=' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '21°C, sunny' }] },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'timeout', is_error: true },
        ],
      },
      { role: 'user', content: 'Thanks' },
    ],
    tools: [
      { name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object' } },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      { type: 'bash_20250124', name: 'bash' },
    ],
    stream: false,
  }
}

describe('AnthropicAdapter.parseRequest', () => {
  it('puts the system prompt first and binds text, tool input, tool results and plain-text documents', () => {
    const exchange = adapter.parseRequest(request())
    assert.equal(exchange.vendor, 'anthropic')
    assert.equal(exchange.model, 'claude-sonnet-4-5')
    assert.equal(exchange.stream, false)
    assert.deepEqual(
      exchange.messages.map((m) => [m.index, m.role, m.source]),
      [
        [0, 'system', 'system'],
        [1, 'user', 'user'],
        [2, 'assistant', 'assistant'],
        [3, 'user', 'tool'],
        [4, 'user', 'user'],
      ],
    )
    assert.deepEqual(
      exchange.messages.map((m) => m.parts.map((p) => [p.id, p.messageIndex, p.source, p.kind, p.text])),
      [
        [['system[0].text', 0, 'system', 'text', 'You are terse.']],
        [
          [
            'messages[0].content[0].text',
            1,
            'user',
            'text',
            'Weather in Paris? Call me at +33 6 12 34 56 78',
          ],
          ['messages[0].content[2].source.data', 1, 'user', 'text', 'Quarterly numbers'],
        ],
        [
          ['messages[1].content[2].text', 2, 'assistant', 'text', 'Let me check.'],
          ['messages[1].content[3].input', 2, 'assistant', 'tool_arguments', '{"city":"Paris"}'],
        ],
        [
          ['messages[2].content[0].content[0].text', 3, 'tool', 'tool_result', '21°C, sunny'],
          ['messages[2].content[1].content', 3, 'tool', 'tool_result', 'timeout'],
        ],
        [['messages[3].content', 4, 'user', 'text', 'Thanks']],
      ],
    )
    assert.deepEqual(
      exchange.messages[2].toolCalls.map((c) => [c.id, c.name]),
      [['toolu_1', 'get_weather']],
    )
    assert.deepEqual(
      exchange.messages[3].toolResults.map((r) => [r.toolCallId, r.isError, r.parts.map((p) => p.text)]),
      [
        ['toolu_1', false, ['21°C, sunny']],
        ['toolu_2', true, ['timeout']],
      ],
    )
    assert.deepEqual(exchange.tools, [
      { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object' } },
      { name: 'web_search' },
      { name: 'bash' },
    ])
    assert.deepEqual(adapter.sseOptions(exchange), { includeUsage: false })
  })

  it('writes edits through (tool input as JSON) and keeps thinking, images and unknown fields intact', () => {
    const body = request()
    const before = structuredClone(body)
    const exchange = adapter.parseRequest(body)
    exchange.messages[1].parts[0].text = 'Weather in Paris? Call me at [PHONE]'
    exchange.messages[2].toolCalls[0].arguments.text = '{"city":"Lyon","unit":"c"}'
    exchange.messages[3].parts[0].text = '[REDACTED]'
    exchange.messages[0].parts[0].text = 'You are brief.'

    const expected = structuredClone(before) as unknown as EditedBody
    expected.system[0].text = 'You are brief.'
    expected.messages[0].content[0].text = 'Weather in Paris? Call me at [PHONE]'
    expected.messages[1].content[3].input = { city: 'Lyon', unit: 'c' }
    expected.messages[2].content[0].content[0].text = '[REDACTED]'
    assert.deepEqual(body, expected)
  })

  it('binds a string system prompt and string content to their body keys', () => {
    const body = {
      model: 'm',
      max_tokens: 1,
      system: 'Be kind.',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    }
    const exchange = adapter.parseRequest(body)
    assert.equal(exchange.stream, true)
    assert.deepEqual(
      exchange.messages.map((m) => m.parts.map((p) => p.id)),
      [['system'], ['messages[0].content']],
    )
    exchange.messages[0].parts[0].text = 'Be nice.'
    exchange.messages[1].parts[0].text = 'hello'
    assert.deepEqual(body, {
      model: 'm',
      max_tokens: 1,
      system: 'Be nice.',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
    })
  })

  const user = { role: 'user', content: 'hi' }
  const valid = { model: 'm', max_tokens: 16 }
  const malformed: [string, unknown, string][] = [
    ['a string body', 'hi', 'body'],
    ['a missing model', { max_tokens: 1, messages: [user] }, 'model'],
    ['a missing max_tokens', { model: 'm', messages: [user] }, 'max_tokens'],
    ['a zero max_tokens', { model: 'm', max_tokens: 0, messages: [user] }, 'max_tokens'],
    ['a fractional max_tokens', { model: 'm', max_tokens: 1.5, messages: [user] }, 'max_tokens'],
    ['max_tokens as a string', { model: 'm', max_tokens: '10', messages: [user] }, 'max_tokens'],
    ['empty messages', { ...valid, messages: [] }, 'messages'],
    [
      'a system role inside messages',
      { ...valid, messages: [{ role: 'system', content: 'x' }] },
      'messages[0].role',
    ],
    [
      'content that is an object',
      { ...valid, messages: [{ role: 'user', content: {} }] },
      'messages[0].content',
    ],
    [
      'a block without type',
      { ...valid, messages: [{ role: 'user', content: [{ text: 'x' }] }] },
      'messages[0].content[0]',
    ],
    [
      'a text block without text',
      { ...valid, messages: [{ role: 'user', content: [{ type: 'text' }] }] },
      'messages[0].content[0].text',
    ],
    [
      'a tool_use without input',
      {
        ...valid,
        messages: [user, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n' }] }],
      },
      'messages[1].content[0].input',
    ],
    [
      'a tool_use without id',
      {
        ...valid,
        messages: [user, { role: 'assistant', content: [{ type: 'tool_use', name: 'n', input: {} }] }],
      },
      'messages[1].content[0].id',
    ],
    [
      'a tool_result without tool_use_id',
      { ...valid, messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] },
      'messages[0].content[0].tool_use_id',
    ],
    [
      'a tool_result with numeric content',
      {
        ...valid,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 5 }] }],
      },
      'messages[0].content[0].content',
    ],
    [
      'a tool_result with is_error as a string',
      {
        ...valid,
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 't', content: 'x', is_error: 'yes' }],
          },
        ],
      },
      'messages[0].content[0].is_error',
    ],
    ['a system that is a number', { ...valid, system: 1, messages: [user] }, 'system'],
    [
      'a system block that is not text',
      { ...valid, system: [{ type: 'image' }], messages: [user] },
      'system[0]',
    ],
    [
      'a tool without input_schema',
      { ...valid, messages: [user], tools: [{ name: 't' }] },
      'tools[0].input_schema',
    ],
    ['a tool without name', { ...valid, messages: [user], tools: [{ input_schema: {} }] }, 'tools[0].name'],
    ['stream as a number', { ...valid, messages: [user], stream: 1 }, 'stream'],
  ]
  for (const [name, body, field] of malformed) {
    it(`rejects ${name} with invalid_request naming ${field}`, () => {
      assertGovError(() => adapter.parseRequest(body), 'invalid_request', 400, field)
    })
  }
})

/** The fields of {@link request} the write-through test edits. */
interface EditedBody {
  system: { text: string }[]
  messages: [
    { content: { text: string }[] },
    { content: [unknown, unknown, unknown, { input: unknown }] },
    { content: { content: { text: string }[] }[] },
  ]
}
