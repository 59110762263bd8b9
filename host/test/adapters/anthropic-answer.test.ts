import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { loadTranscripts, type Transcript } from '../../src/testing/transcripts.js'
import { assertGovError } from './assert-gov-error.js'

const adapter = new AnthropicAdapter()
const exchange = adapter.parseRequest({
  model: 'claude-x',
  max_tokens: 8,
  messages: [{ role: 'user', content: 'hi' }],
})
let transcripts: ReadonlyMap<string, Transcript>

before(async () => {
  transcripts = await loadTranscripts()
})

describe('AnthropicAdapter.parseAnswer', () => {
  it('binds the text and the tool_use input of the recorded tool answer', () => {
    const body = structuredClone(transcripts.get('anthropic/tool_call')!.json!.body)
    const answer = adapter.parseAnswer(body, exchange)
    assert.equal(answer.vendor, 'anthropic')
    assert.equal(answer.model, 'claude-sonnet-4-5-20250929')
    assert.equal(answer.finishReason, 'tool_use')
    assert.deepEqual(answer.usage, {
      inputTokens: 412,
      outputTokens: 74,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      // The recorded answer's cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }.
      cacheWrite1hInputTokens: 0,
    })
    assert.deepEqual(
      answer.message.parts.map((p) => [p.id, p.kind]),
      [
        ['content[0].text', 'text'],
        ['content[1].input', 'tool_arguments'],
      ],
    )
    const [call] = answer.message.toolCalls
    assert.deepEqual(
      [call.id, call.name, JSON.parse(call.arguments.text)],
      ['toolu_01A09q90qw90lq917835lq9Z', 'get_weather', { location: 'Paris, France', unit: 'celsius' }],
    )
    call.arguments.text = '{"location":"Lyon"}'
    assert.deepEqual((body.content as { input?: unknown }[])[1].input, { location: 'Lyon' })
  })

  it('leaves thinking and server tool blocks out of the parts', () => {
    const body = {
      type: 'message',
      model: 'claude-x',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
        { type: 'text', text: 'done' },
      ],
      stop_reason: 'end_turn',
    }
    const answer = adapter.parseAnswer(body, exchange)
    assert.deepEqual(
      answer.message.parts.map((p) => p.id),
      ['content[3].text'],
    )
    assert.equal(answer.usage, undefined)
  })

  it('rejects an answer without content as upstream_invalid_answer', () => {
    assertGovError(
      () => adapter.parseAnswer({ type: 'message' }, exchange),
      'upstream_invalid_answer',
      502,
      'content',
    )
  })
})

describe('AnthropicAdapter.buildTextAnswer', () => {
  it('builds a message that parses back to the text', () => {
    const body = adapter.buildTextAnswer('Blocked by policy.', exchange)
    assert.match(String(body.id), /^msg_gov[A-Za-z0-9]{20}$/)
    const answer = adapter.parseAnswer(body, exchange)
    assert.equal(answer.model, 'claude-x')
    assert.equal(answer.finishReason, 'end_turn')
    assert.deepEqual(
      answer.message.parts.map((p) => p.text),
      ['Blocked by policy.'],
    )
  })
})

describe('AnthropicAdapter.errorBody', () => {
  const cases: [number, string][] = [
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [413, 'request_too_large'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [504, 'api_error'],
    [529, 'overloaded_error'],
  ]
  for (const [status, type] of cases) {
    it(`answers ${status} with type ${type}`, () => {
      assert.deepEqual(adapter.errorBody(status, 'GOV_ERR_X', 'why'), {
        type: 'error',
        error: { type, message: 'why', code: 'GOV_ERR_X' },
      })
    })
  }
})

describe('AnthropicAdapter.upstreamHeaders', () => {
  it('sends x-api-key and the caller version and betas, never the caller credentials', () => {
    const headers = adapter.upstreamHeaders(
      {
        authorization: 'Bearer gov-agent-key',
        'x-api-key': 'gov-agent-key',
        'anthropic-version': '2023-01-01',
        'anthropic-beta': 'prompt-caching-2024-07-31,token-efficient-tools-2025-02-19',
        'x-stainless-lang': 'js',
      },
      'sk-ant-upstream',
    )
    assert.deepEqual(headers, {
      'x-api-key': 'sk-ant-upstream',
      'anthropic-version': '2023-01-01',
      'anthropic-beta': 'prompt-caching-2024-07-31,token-efficient-tools-2025-02-19',
      'content-type': 'application/json',
    })
  })

  it('defaults anthropic-version to 2023-06-01', () => {
    assert.deepEqual(adapter.upstreamHeaders({}, 'k'), {
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    })
    assert.equal(adapter.upstreamPath, '/v1/messages')
  })
})
