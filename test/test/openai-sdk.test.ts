import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

describe('official openai SDK through gov', () => {
  let t: TestGateway
  let client: OpenAI
  before(async () => {
    t = await startTestGateway()
    await t.createPipeline(
      'sdk',
      'standard',
      onlySteps('standard', { fx_pass: {}, fx_block: {}, fx_edit: {} }),
    )
    client = new OpenAI({
      apiKey: await t.createAgent('openai-sdk', 'sdk'),
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
    })
  })
  after(() => t.close())

  it('creates a chat completion and exposes the gov headers', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hello from the SDK' }],
        temperature: 0.1,
        max_tokens: 50,
      })
      .withResponse()
    assert.equal(data.choices[0].message.content, 'hello from the SDK')
    assert.equal(response.headers.get('x-gov-classification'), 'public')
    assert.equal(response.headers.get('x-gov-pipeline-steps'), '3')
  })

  it('streams raw chunks and the stream helper, with the masked word restored', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'a secret stream' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    let usage: unknown
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? ''
      if (chunk.usage) usage = chunk.usage
    }
    assert.equal(text, 'a secret stream')
    assert.ok(usage)
    const runner = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'helper stream' }],
    })
    const final = await runner.finalChatCompletion()
    assert.equal(final.choices[0].message.content, 'helper stream')
  })

  it('receives tool calls, streamed and not, and feeds tool results back', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'send_message',
          description: 'send',
          parameters: { type: 'object', properties: { text: { type: 'string' } } },
        },
      },
    ]
    const res = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: '[mock:tool_echo] ping' }],
      tools,
    })
    const call = res.choices[0].message.tool_calls?.[0]
    assert.ok(call && call.type === 'function')
    assert.equal(call.function.name, 'send_message')
    assert.deepEqual(JSON.parse(call.function.arguments), { text: '[mock:tool_echo] ping' })

    const runner = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: '[mock:tool_call] weather?' }],
      tools,
    })
    const final = await runner.finalChatCompletion()
    assert.ok((final.choices[0].message.tool_calls?.length ?? 0) >= 1)

    const followUp = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      tools,
      messages: [
        { role: 'user', content: 'ping' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'send_message', arguments: '{"text":"ping"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'delivered' },
        { role: 'user', content: 'did it work?' },
      ],
    })
    assert.equal(followUp.choices[0].message.content, 'did it work?')
    const sent = t.mock.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] }
    assert.equal(sent.messages[2].content, 'delivered', 'tool results reach the provider')
  })

  it('raises the SDK error classes for blocks, bad keys, bad bodies and provider errors', async () => {
    await assert.rejects(
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'forbidden' }],
      }),
      (err: unknown) =>
        err instanceof OpenAI.PermissionDeniedError &&
        (err.error as { code?: string }).code === 'fx_word_found',
    )
    const bad = new OpenAI({ apiKey: 'gov_not_a_key', baseURL: `${t.url}/v1`, maxRetries: 0 })
    await assert.rejects(
      bad.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.AuthenticationError,
    )
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [] }),
      (err: unknown) => err instanceof OpenAI.BadRequestError,
    )
    t.mock.enqueue({ transcript: 'openai/error_429' })
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.RateLimitError,
    )
  })
})
