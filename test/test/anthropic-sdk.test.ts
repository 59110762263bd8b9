import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'

describe('official @anthropic-ai/sdk through gov', () => {
  let t: TestGateway
  let client: Anthropic
  let key: string
  before(async () => {
    t = await startTestGateway()
    await t.createPipeline(
      'sdk',
      'standard',
      onlySteps('standard', { fx_pass: {}, fx_block: {}, fx_edit: {} }),
    )
    key = await t.createAgent('anthropic-sdk', 'sdk')
    client = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
  })
  after(() => t.close())

  it('creates a message (x-api-key) and with a bearer auth token', async () => {
    const { data, response } = await client.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 64,
        system: 'be brief',
        messages: [{ role: 'user', content: 'hello claude' }],
      })
      .withResponse()
    assert.equal(data.content[0].type, 'text')
    assert.equal(data.content[0].type === 'text' && data.content[0].text, 'hello claude')
    assert.equal(response.headers.get('x-gov-pipeline-steps'), '3')
    const bearer = new Anthropic({ authToken: key, apiKey: null, baseURL: t.url, maxRetries: 0 })
    const msg = await bearer.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'bearer' }],
    })
    assert.equal(msg.content[0].type === 'text' && msg.content[0].text, 'bearer')
  })

  it('streams raw events and the stream helper, with the masked word restored', async () => {
    const raw = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'my secret stream' }],
      stream: true,
    })
    const types: string[] = []
    let text = ''
    for await (const event of raw) {
      types.push(event.type)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text
    }
    assert.equal(text, 'my secret stream')
    assert.equal(types[0], 'message_start')
    assert.equal(types.at(-1), 'message_stop')
    const sent = t.mock.requests.at(-1)?.body as { messages: { content: string }[] }
    assert.equal(sent.messages[0].content, 'my [HIDDEN] stream')

    const final = await client.messages
      .stream({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'helper' }] })
      .finalMessage()
    assert.equal(final.content[0].type === 'text' && final.content[0].text, 'helper')
  })

  it('receives tool_use blocks, streamed and not, and feeds tool_result back', async () => {
    const tools: Anthropic.Tool[] = [
      {
        name: 'send_message',
        description: 'send',
        input_schema: { type: 'object', properties: { text: { type: 'string' } } },
      },
    ]
    const res = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      tools,
      messages: [{ role: 'user', content: '[mock:tool_echo] hi' }],
    })
    const use = res.content.find((b) => b.type === 'tool_use')
    assert.ok(use && use.type === 'tool_use')
    assert.deepEqual(use.input, { text: '[mock:tool_echo] hi' })

    const streamed = await client.messages
      .stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 64,
        tools,
        messages: [{ role: 'user', content: '[mock:tool_call] weather' }],
      })
      .finalMessage()
    assert.ok(streamed.content.some((b) => b.type === 'tool_use'))

    const followUp = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      tools,
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'send_message', input: { text: 'hi' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'delivered' }] },
      ],
    })
    assert.equal(followUp.content[0].type === 'text' && followUp.content[0].text, 'delivered')
  })

  it('raises the SDK error classes for blocks, bad keys, bad bodies and provider errors', async () => {
    await assert.rejects(
      client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'forbidden' }],
      }),
      Anthropic.PermissionDeniedError,
    )
    const bad = new Anthropic({ apiKey: 'gov_wrong', baseURL: t.url, maxRetries: 0 })
    await assert.rejects(
      bad.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'x' }],
      }),
      Anthropic.AuthenticationError,
    )
    await assert.rejects(
      client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 8,
        messages: [{ role: 'system' as 'user', content: 'x' }],
      }),
      Anthropic.BadRequestError,
    )
    t.mock.enqueue({ transcript: 'anthropic/error_529' })
    await assert.rejects(
      client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'x' }],
      }),
      (err: unknown) => err instanceof Anthropic.APIError && err.status === 529,
    )
  })
})
