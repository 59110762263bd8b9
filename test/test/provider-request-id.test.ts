/**
 * The provider's request id through gov, as the official SDKs show it. The
 * Anthropic SDK's `_request_id`, `withResponse().request_id` and
 * `APIError.requestID` read `request-id`, which gov passes on under its own
 * name: they show the provider's id. The openai SDK reads `x-request-id`,
 * which is gov's own id of the call (logs, audit `request_id`); the provider's
 * id is in `x-gov-provider-request-id` (from `withResponse().response`).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import {
  type MockProvider,
  onlySteps,
  startMockProvider,
  startTestGateway,
  type TestGateway,
} from '@gov/host/testing'
import OpenAI from 'openai'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const PROVIDER_ID = 'x-gov-provider-request-id'

describe('provider request ids through gov with the official SDKs', () => {
  let t: TestGateway
  let openai: OpenAI
  let anthropic: Anthropic
  let mock: MockProvider
  const lastProviderId = () => t.mock.requests.at(-1)?.requestId

  before(async () => {
    mock = await startMockProvider({ requestIds: true })
    t = await startTestGateway({ mock })
    await t.createPipeline('reqid-sdk', 'standard', onlySteps('standard', { fx_pass: {} }))
    const key = await t.createAgent('reqid-sdk-agent', 'reqid-sdk')
    openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
  })
  after(async () => {
    await t.close()
    await mock.close()
  })

  it('anthropic: message._request_id and withResponse().request_id are the provider id', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 32,
      messages: [{ role: 'user', content: 'hello' }],
    })
    assert.match(lastProviderId() ?? '', /^req_mock_\d+$/)
    assert.equal(message._request_id, lastProviderId())
    const { data, request_id, response } = await anthropic.messages
      .create({ model: 'claude-sonnet-4-5', max_tokens: 32, messages: [{ role: 'user', content: 'again' }] })
      .withResponse()
    assert.equal(data.content[0]?.type === 'text' && data.content[0].text, 'again')
    assert.equal(request_id, lastProviderId())
    assert.equal(response.headers.get(PROVIDER_ID), lastProviderId())
    assert.match(response.headers.get('x-request-id') ?? '', UUID)
  })

  it('anthropic: a streamed message carries the provider id', async () => {
    const { data: stream, request_id } = await anthropic.messages
      .create({
        model: 'claude-sonnet-4-5',
        max_tokens: 32,
        stream: true,
        messages: [{ role: 'user', content: 'streamed hello' }],
      })
      .withResponse()
    let text = ''
    for await (const event of stream)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text
    assert.equal(text, 'streamed hello')
    assert.equal(request_id, lastProviderId())
  })

  it('anthropic: APIError.requestID of a provider error is the provider id', async () => {
    t.mock.enqueue({
      status: 400,
      json: { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } },
      headers: { 'request-id': 'req_011CErrorFromAnthropic' },
    })
    const err = await anthropic.messages
      .create({ model: 'claude-sonnet-4-5', max_tokens: 32, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)
    assert.ok(err instanceof Anthropic.APIError, String(err))
    assert.equal(err.status, 400)
    assert.equal(err.requestID, 'req_011CErrorFromAnthropic')
  })

  it('openai chat: _request_id is gov id, the provider id is in x-gov-provider-request-id', async () => {
    const { data, response, request_id } = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse()
    assert.equal(data.choices[0]?.message.content, 'hello')
    assert.match(request_id ?? '', UUID)
    assert.match(lastProviderId() ?? '', /^req_mock_\d+$/)
    assert.equal(response.headers.get(PROVIDER_ID), lastProviderId())
    const plain = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'plain' }],
    })
    assert.match(plain._request_id ?? '', UUID)
    assert.notEqual(plain._request_id, request_id)
  })

  it('openai chat streamed and responses (JSON and streamed) carry the provider id', async () => {
    const chat = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'streamed' }] })
      .withResponse()
    let text = ''
    for await (const chunk of chat.data) text += chunk.choices[0]?.delta?.content ?? ''
    assert.equal(text, 'streamed')
    assert.equal(chat.response.headers.get(PROVIDER_ID), lastProviderId())

    const json = await openai.responses
      .create({ model: 'gpt-4o-mini', input: 'responses hello' })
      .withResponse()
    assert.equal(json.data.output_text, 'responses hello')
    assert.equal(json.response.headers.get(PROVIDER_ID), lastProviderId())

    const streamed = await openai.responses
      .create({ model: 'gpt-4o-mini', input: 'responses streamed', stream: true })
      .withResponse()
    let out = ''
    for await (const event of streamed.data)
      if (event.type === 'response.output_text.delta') out += event.delta
    assert.equal(out, 'responses streamed')
    assert.equal(streamed.response.headers.get(PROVIDER_ID), lastProviderId())
  })

  it('openai: a provider error keeps the provider id, drops rate-limit headers', async () => {
    t.mock.enqueue({
      status: 429,
      json: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
      headers: { 'x-request-id': 'req_openai_429', 'x-ratelimit-remaining-requests': '0' },
    })
    const err = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)
    assert.ok(err instanceof OpenAI.APIError, String(err))
    assert.equal(err.status, 429)
    assert.match(err.requestID ?? '', UUID)
    assert.equal(err.headers?.get(PROVIDER_ID), 'req_openai_429')
    assert.equal(err.headers?.get('x-ratelimit-remaining-requests'), null)
  })
})
