import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'
import { loadTranscripts, type Transcript } from '../../src/testing/transcripts.js'
import { assertGovError } from './assert-gov-error.js'

const adapter = new OpenAiAdapter()
const exchange = adapter.parseRequest({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
let transcripts: ReadonlyMap<string, Transcript>

before(async () => {
  transcripts = await loadTranscripts()
})

function recordedBody(name: string): Record<string, unknown> {
  return structuredClone(transcripts.get(name)!.json!.body)
}

describe('OpenAiAdapter.parseAnswer', () => {
  it('reads text, finish reason and usage of the recorded text answer', () => {
    const body = recordedBody('openai/text')
    const answer = adapter.parseAnswer(body, exchange)
    assert.equal(answer.vendor, 'openai')
    assert.equal(answer.model, 'gpt-4o-mini-2024-07-18')
    assert.equal(answer.finishReason, 'stop')
    assert.deepEqual(answer.usage, { inputTokens: 24, outputTokens: 21, cachedInputTokens: 0 })
    assert.deepEqual(
      answer.message.parts.map((p) => [p.id, p.source, p.kind]),
      [['choices[0].message.content', 'assistant', 'text']],
    )
    answer.message.parts[0].text = 'masked'
    assert.equal((body.choices as { message: { content: string } }[])[0].message.content, 'masked')
  })

  it('binds both parallel tool calls of the recorded tool answer, editable in place', () => {
    const body = recordedBody('openai/tool_call')
    const answer = adapter.parseAnswer(body, exchange)
    assert.equal(answer.finishReason, 'tool_calls')
    assert.deepEqual(
      answer.message.toolCalls.map((c) => [c.id, c.name, JSON.parse(c.arguments.text).location]),
      [
        ['call_Kx7Wd2bQ9mZr4TfYp1LsNvE3', 'get_weather', 'Paris, France'],
        ['call_8HnR2cVqT5yLm0XwZ3bJdK6s', 'get_weather', 'Tokyo, Japan'],
      ],
    )
    assert.deepEqual(
      answer.message.parts.map((p) => p.kind),
      ['tool_arguments', 'tool_arguments'],
    )
    answer.message.toolCalls[1].arguments.text = '{"location":"Osaka, Japan"}'
    const calls = (body.choices as { message: { tool_calls: { function: { arguments: string } }[] } }[])[0]
      .message.tool_calls
    assert.equal(calls[1].function.arguments, '{"location":"Osaka, Japan"}')
    assert.equal(calls[0].function.arguments, '{"location":"Paris, France","unit":"celsius"}')
  })

  it('puts the parts and tool calls of every choice into the answer message', () => {
    const body = {
      id: 'chatcmpl-x',
      object: 'chat.completion',
      model: 'gpt-4o',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'first' }, finish_reason: 'stop' },
        { index: 1, message: { role: 'assistant', content: null, refusal: 'no' }, finish_reason: 'stop' },
        {
          index: 2,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    }
    const answer = adapter.parseAnswer(body, exchange)
    assert.deepEqual(
      answer.message.parts.map((p) => p.id),
      [
        'choices[0].message.content',
        'choices[1].message.refusal',
        'choices[2].message.tool_calls[0].function.arguments',
      ],
    )
    assert.equal(answer.message.toolCalls.length, 1)
    assert.equal(answer.finishReason, 'stop')
    assert.equal(answer.usage, undefined)
  })

  it('rejects an answer without choices as upstream_invalid_answer', () => {
    assertGovError(
      () => adapter.parseAnswer({ error: {} }, exchange),
      'upstream_invalid_answer',
      502,
      'choices',
    )
  })
})

describe('OpenAiAdapter.buildTextAnswer', () => {
  it('builds a chat.completion that parses back to the text, with the request model', () => {
    const body = adapter.buildTextAnswer('Blocked by policy.', exchange)
    assert.equal(body.object, 'chat.completion')
    assert.match(String(body.id), /^chatcmpl-[A-Za-z0-9]{29}$/)
    const answer = adapter.parseAnswer(body, exchange)
    assert.equal(answer.model, 'gpt-4o-mini')
    assert.equal(answer.finishReason, 'stop')
    assert.deepEqual(
      answer.message.parts.map((p) => p.text),
      ['Blocked by policy.'],
    )
    assert.notEqual(adapter.buildTextAnswer('x', exchange).id, body.id)
  })
})

describe('OpenAiAdapter.errorBody', () => {
  const cases: [number, string][] = [
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [409, 'conflict_error'],
    [422, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [504, 'api_error'],
  ]
  for (const [status, type] of cases) {
    it(`answers ${status} with type ${type}`, () => {
      assert.deepEqual(adapter.errorBody(status, 'GOV_ERR_X', 'why'), {
        error: { message: 'why', type, param: null, code: 'GOV_ERR_X' },
      })
    })
  }
})

describe('OpenAiAdapter.upstreamHeaders', () => {
  it('sends the provider key, passes OpenAI headers and never the caller credentials', () => {
    const headers = adapter.upstreamHeaders(
      {
        authorization: 'Bearer gov-agent-key',
        'x-api-key': 'caller-key',
        'openai-organization': 'org-1',
        'openai-project': 'proj-1',
        'openai-beta': 'assistants=v2',
        'user-agent': 'OpenAI/JS 6.0',
        'x-gov-session': 's1',
        cookie: 'a=b',
      },
      'sk-upstream',
    )
    assert.deepEqual(headers, {
      authorization: 'Bearer sk-upstream',
      'content-type': 'application/json',
      'openai-organization': 'org-1',
      'openai-project': 'proj-1',
      'openai-beta': 'assistants=v2',
    })
    assert.equal(adapter.upstreamPath, '/chat/completions')
  })
})
