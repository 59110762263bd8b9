/**
 * `POST /v1/messages/count_tokens` through gov with the official Anthropic SDK
 * (`messages.countTokens`): counted by gov's own token counter, authenticated,
 * and refused in Anthropic's error format; nothing reaches the provider.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { startTestGateway, type TestGateway } from '@gov/host/testing'

describe('POST /v1/messages/count_tokens (@anthropic-ai/sdk)', () => {
  let t: TestGateway
  let client: Anthropic
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    await t.createPipeline('count', 'standard')
    const key = await t.createAgent('count-agent', 'count')
    client = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
  })
  after(() => t.close())

  it('counts input tokens, more for a longer prompt and for tools, without calling the provider', async () => {
    const before = t.mock.requests.length
    const short = await client.messages.countTokens({
      model: 'claude-sonnet-4-6',
      messages: [{ role: 'user', content: 'Hello there' }],
    })
    assert.equal(typeof short.input_tokens, 'number')
    assert.ok(short.input_tokens > 0)
    const long = await client.messages.countTokens({
      model: 'claude-sonnet-4-6',
      system: 'You are a careful assistant.',
      messages: [{ role: 'user', content: 'Hello there, '.repeat(50) }],
    })
    assert.ok(long.input_tokens > short.input_tokens + 50, `${long.input_tokens} vs ${short.input_tokens}`)
    const withTools = await client.messages.countTokens({
      model: 'claude-sonnet-4-6',
      messages: [{ role: 'user', content: 'Hello there' }],
      tools: [
        {
          name: 'send_message',
          description: 'send a message to a colleague',
          input_schema: { type: 'object', properties: { text: { type: 'string' } } },
        },
      ],
    })
    assert.ok(withTools.input_tokens > short.input_tokens)
    assert.equal(t.mock.requests.length, before, 'counting never calls the provider')
  })

  it('refuses a bad key (401) and a malformed request (400) in the Anthropic error format', async () => {
    const bad = new Anthropic({ apiKey: 'gov_wrong', baseURL: t.url, maxRetries: 0 })
    await assert.rejects(
      bad.messages.countTokens({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'hi' }] }),
      (err: unknown) =>
        err instanceof Anthropic.AuthenticationError &&
        (err.error as { error?: { type?: string } }).error?.type === 'authentication_error',
    )
    await assert.rejects(
      client.messages.countTokens({
        model: 'claude-sonnet-4-6',
        messages: 'not a list' as unknown as Anthropic.MessageParam[],
      }),
      (err: unknown) =>
        err instanceof Anthropic.BadRequestError &&
        (err.error as { error?: { code?: string } }).error?.code === 'invalid_request',
    )
  })
})
