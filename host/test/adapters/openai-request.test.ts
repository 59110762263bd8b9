import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'
import { assertGovError } from './assert-gov-error.js'

const adapter = new OpenAiAdapter()

/** The fields of {@link request} the write-through test edits. */
interface EditedBody {
  messages: [
    unknown,
    unknown,
    { content: { text: string }[] },
    { tool_calls: { function: { arguments: string } }[] },
    { content: string },
  ]
}

function request(): Record<string, unknown> {
  return {
    model: 'gpt-4o-mini',
    temperature: 0.2,
    x_vendor_extension: { keep: true },
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
      {
        role: 'user',
        name: 'alice',
        content: [
          { type: 'text', text: 'Weather in Paris? My mail is alice@example.com' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
      { role: 'function', name: 'get_time', content: '12:00' },
    ],
    tools: [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } },
      },
    ],
    stream: true,
    stream_options: { include_usage: true },
  }
}

describe('OpenAiAdapter.parseRequest', () => {
  it('builds messages with sources, text parts, tool calls and tool results', () => {
    const exchange = adapter.parseRequest(request())
    assert.equal(exchange.vendor, 'openai')
    assert.equal(exchange.model, 'gpt-4o-mini')
    assert.equal(exchange.stream, true)
    assert.deepEqual(
      exchange.messages.map((m) => [m.index, m.role, m.source]),
      [
        [0, 'system', 'system'],
        [1, 'developer', 'system'],
        [2, 'user', 'user'],
        [3, 'assistant', 'assistant'],
        [4, 'tool', 'tool'],
        [5, 'function', 'tool'],
      ],
    )
    assert.deepEqual(
      exchange.messages.map((m) => m.parts.map((p) => [p.id, p.kind, p.source, p.text])),
      [
        [['messages[0].content', 'text', 'system', 'You are terse.']],
        [['messages[1].content[0].text', 'text', 'system', 'Answer in French.']],
        [['messages[2].content[0].text', 'text', 'user', 'Weather in Paris? My mail is alice@example.com']],
        [['messages[3].tool_calls[0].function.arguments', 'tool_arguments', 'assistant', '{"city":"Paris"}']],
        [['messages[4].content', 'tool_result', 'tool', '{"temp":21}']],
        [['messages[5].content', 'tool_result', 'tool', '12:00']],
      ],
    )
    const [call] = exchange.messages[3].toolCalls
    assert.equal(call.id, 'call_1')
    assert.equal(call.name, 'get_weather')
    assert.deepEqual(
      exchange.messages[4].toolResults.map((r) => [r.toolCallId, r.isError, r.parts.length]),
      [['call_1', false, 1]],
    )
    assert.equal(exchange.messages[5].toolResults[0].toolCallId, 'get_time')
    assert.deepEqual(exchange.tools, [
      { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } },
    ])
    assert.deepEqual(adapter.sseOptions(exchange), { includeUsage: true })
  })

  it('writes edits through to the body and keeps every unknown field', () => {
    const body = request()
    const before = structuredClone(body)
    const exchange = adapter.parseRequest(body)
    assert.equal(exchange.body, body)
    const userPart = exchange.messages[2].parts[0]
    userPart.text = 'Weather in Paris? My mail is [EMAIL]'
    exchange.messages[3].toolCalls[0].arguments.text = '{"city":"Lyon"}'
    exchange.messages[4].parts[0].text = '{"temp":"[REDACTED]"}'
    assert.equal(userPart.edited, true)
    assert.equal(exchange.messages[0].parts[0].edited, false)

    const expected = structuredClone(before) as unknown as EditedBody
    expected.messages[2].content[0].text = 'Weather in Paris? My mail is [EMAIL]'
    expected.messages[3].tool_calls[0].function.arguments = '{"city":"Lyon"}'
    expected.messages[4].content = '{"temp":"[REDACTED]"}'
    assert.deepEqual(body, expected)
  })

  it('accepts the smallest request, custom tools and the legacy functions list', () => {
    const exchange = adapter.parseRequest({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'custom', custom: { name: 'run_sql', description: 'SQL' } }],
      functions: [{ name: 'legacy_fn' }],
      stream_options: null,
    })
    assert.equal(exchange.stream, false)
    assert.deepEqual(
      exchange.tools.map((t) => t.name),
      ['run_sql', 'legacy_fn'],
    )
    assert.deepEqual(adapter.sseOptions(exchange), { includeUsage: false })
  })

  it('binds refusal parts, custom tool calls and the legacy function_call of assistant turns', () => {
    const exchange = adapter.parseRequest({
      model: 'gpt-4o',
      messages: [
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot help.' }] },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c2', type: 'custom', custom: { name: 'sh', input: 'ls' } }],
        },
        { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
        { role: 'user', content: 'ok' },
      ],
    })
    assert.deepEqual(
      exchange.messages.flatMap((m) => m.parts.map((p) => p.id)),
      [
        'messages[0].content[0].refusal',
        'messages[1].content',
        'messages[1].tool_calls[0].custom.input',
        'messages[2].function_call.arguments',
        'messages[3].content',
      ],
    )
    assert.deepEqual(
      exchange.messages.flatMap((m) => m.toolCalls.map((c) => [c.id, c.name, c.arguments.text])),
      [
        ['c2', 'sh', 'ls'],
        ['f', 'f', '{}'],
      ],
    )
  })

  const user = { role: 'user', content: 'hi' }
  const malformed: [string, unknown, string][] = [
    ['an array body', [], 'body'],
    ['a null body', null, 'body'],
    ['a missing model', { messages: [user] }, 'model'],
    ['an empty model', { model: '', messages: [user] }, 'model'],
    ['missing messages', { model: 'm' }, 'messages'],
    ['empty messages', { model: 'm', messages: [] }, 'messages'],
    ['a message that is a string', { model: 'm', messages: ['hi'] }, 'messages[0]'],
    ['an unknown role', { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
    [
      'a role inherited from Object',
      { model: 'm', messages: [{ role: 'toString', content: 'x' }] },
      'messages[0].role',
    ],
    ['numeric content', { model: 'm', messages: [{ role: 'user', content: 3 }] }, 'messages[0].content'],
    ['user content missing', { model: 'm', messages: [{ role: 'user' }] }, 'messages[0].content'],
    [
      'a part without type',
      { model: 'm', messages: [{ role: 'user', content: [{ text: 'x' }] }] },
      'messages[0].content[0]',
    ],
    [
      'a text part without text',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 1 }] }] },
      'messages[0].content[0].text',
    ],
    [
      'a tool message without tool_call_id',
      { model: 'm', messages: [user, { role: 'tool', content: 'x' }] },
      'messages[1].tool_call_id',
    ],
    [
      'a function message without name',
      { model: 'm', messages: [user, { role: 'function', content: 'x' }] },
      'messages[1].name',
    ],
    [
      'tool_calls that is not an array',
      { model: 'm', messages: [user, { role: 'assistant', content: null, tool_calls: {} }] },
      'messages[1].tool_calls',
    ],
    [
      'tool call arguments that are an object',
      {
        model: 'm',
        messages: [
          user,
          {
            role: 'assistant',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: {} } }],
          },
        ],
      },
      'messages[1].tool_calls[0].function.arguments',
    ],
    ['tools that is an object', { model: 'm', messages: [user], tools: {} }, 'tools'],
    [
      'a tool of unknown type',
      { model: 'm', messages: [user], tools: [{ type: 'retrieval' }] },
      'tools[0].type',
    ],
    [
      'a function tool without name',
      { model: 'm', messages: [user], tools: [{ type: 'function', function: { description: 'x' } }] },
      'tools[0].function.name',
    ],
    [
      'parameters that are a string',
      {
        model: 'm',
        messages: [user],
        tools: [{ type: 'function', function: { name: 'f', parameters: '{}' } }],
      },
      'tools[0].function.parameters',
    ],
    ['stream as a string', { model: 'm', messages: [user], stream: 'yes' }, 'stream'],
  ]
  for (const [name, body, field] of malformed) {
    it(`rejects ${name} with invalid_request naming ${field}`, () => {
      assertGovError(() => adapter.parseRequest(body), 'invalid_request', 400, field)
    })
  }
})
