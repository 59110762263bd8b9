import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import OpenAI from 'openai'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'
import { type MockProvider, startMockProvider } from '../../src/testing/mock-provider.js'
import { loadTranscripts, type Transcript } from '../../src/testing/transcripts.js'

const openAiAdapter = new OpenAiAdapter()
const anthropicAdapter = new AnthropicAdapter()
let mock: MockProvider
let transcripts: ReadonlyMap<string, Transcript>

before(async () => {
  transcripts = await loadTranscripts()
  mock = await startMockProvider()
})

after(() => mock.close())

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'earlier question' },
    { role: 'assistant', content: 'earlier answer' },
    { role: 'user', content: [{ type: 'text', text: content }] },
  ],
  ...extra,
})
const messages = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 64,
  messages: [{ role: 'user', content }],
  ...extra,
})

type Completion = {
  model: string
  usage: { prompt_tokens: number; completion_tokens: number }
  choices: {
    message: { content: string | null; tool_calls?: { function: { name: string; arguments: string } }[] }
  }[]
}
type AnthropicMessage = {
  model: string
  usage: { input_tokens: number; output_tokens: number }
  content: { type: string; text?: string; name?: string; input?: unknown }[]
}

describe('mock provider echo', () => {
  const text = 'Hello  there, this is  a longer message to echo back verbatim. ✓ '

  it('echoes the last user text as an OpenAI completion and records the request', async () => {
    const before = mock.requests.length
    const res = await post(`${mock.openaiBaseUrl}/chat/completions`, chat(text), {
      authorization: 'Bearer sk-x',
    })
    assert.equal(res.status, 200)
    const body = JSON.parse(res.text) as Completion
    assert.equal(body.choices[0].message.content, text)
    assert.equal(body.model, 'gpt-4o-mini')
    assert.ok(body.usage.prompt_tokens > 0 && body.usage.completion_tokens > 0)
    const recorded = mock.requests[before]
    assert.equal(recorded.path, '/v1/chat/completions')
    assert.equal(recorded.headers.authorization, 'Bearer sk-x')
    assert.deepEqual(recorded.body, chat(text))
  })

  it('streams the OpenAI echo, with the usage chunk when asked', async () => {
    for (const includeUsage of [false, true]) {
      const res = await post(
        `${mock.openaiBaseUrl}/chat/completions`,
        chat(text, { stream: true, stream_options: { include_usage: includeUsage } }),
      )
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
      assert.ok(res.text.split('data: ').length > 4)
      const body = openAiAdapter.reassembleStream(res.text) as unknown as Completion
      assert.equal(body.choices[0].message.content, text)
      assert.equal('usage' in body, includeUsage)
    }
  })

  it('echoes as an Anthropic message, plain and streamed', async () => {
    const plain = await post(`${mock.anthropicBaseUrl}/v1/messages`, messages(text))
    assert.equal(plain.status, 200)
    const body = JSON.parse(plain.text) as AnthropicMessage
    assert.deepEqual(body.content, [{ type: 'text', text }])
    assert.ok(body.usage.input_tokens > 0)
    const streamed = await post(`${mock.anthropicBaseUrl}/v1/messages`, messages(text, { stream: true }))
    assert.match(streamed.text, /^event: message_start\n/)
    const rebuilt = anthropicAdapter.reassembleStream(streamed.text) as unknown as AnthropicMessage
    assert.deepEqual(rebuilt.content, [{ type: 'text', text }])
    assert.equal(rebuilt.usage.output_tokens, body.usage.output_tokens)
  })

  it('echoes the tool results of an Anthropic turn made only of tool results', async () => {
    const res = await post(`${mock.anthropicBaseUrl}/v1/messages`, {
      model: 'claude-x',
      max_tokens: 8,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'tool said hi' }] },
          ],
        },
      ],
    })
    assert.deepEqual((JSON.parse(res.text) as AnthropicMessage).content, [
      { type: 'text', text: 'tool said hi' },
    ])
  })

  it('answers [mock:tool_echo] with a send_message call carrying the text, in both vendors, streamed or not', async () => {
    const prompt = 'send this [mock:tool_echo] please'
    const plain = JSON.parse(
      (await post(`${mock.openaiBaseUrl}/chat/completions`, chat(prompt))).text,
    ) as Completion
    const streamed = openAiAdapter.reassembleStream(
      (await post(`${mock.openaiBaseUrl}/chat/completions`, chat(prompt, { stream: true }))).text,
    ) as unknown as Completion
    for (const body of [plain, streamed]) {
      const [call] = body.choices[0].message.tool_calls!
      assert.equal(call.function.name, 'send_message')
      assert.deepEqual(JSON.parse(call.function.arguments), { text: prompt })
      assert.equal(body.choices[0].message.content, null)
    }
    const aPlain = JSON.parse((await post(`${mock.anthropicBaseUrl}/v1/messages`, messages(prompt))).text)
    const aStreamed = anthropicAdapter.reassembleStream(
      (await post(`${mock.anthropicBaseUrl}/v1/messages`, messages(prompt, { stream: true }))).text,
    )
    for (const body of [aPlain, aStreamed] as AnthropicMessage[]) {
      assert.equal(body.content.length, 1)
      assert.deepEqual(
        [body.content[0].type, body.content[0].name, body.content[0].input],
        ['tool_use', 'send_message', { text: prompt }],
      )
    }
  })

  it('serves the official OpenAI SDK', async () => {
    const client = new OpenAI({ apiKey: 'sk-x', baseURL: mock.openaiBaseUrl, maxRetries: 0 })
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'ping from the sdk' }],
    })
    assert.equal(completion.choices[0].message.content, 'ping from the sdk')
  })
})

describe('mock provider directives', () => {
  it('replays the recorded JSON answer, or the recorded stream when the request streams', async () => {
    const plain = await post(`${mock.openaiBaseUrl}/chat/completions`, chat('[mock:tool_call]'))
    assert.deepEqual(JSON.parse(plain.text), transcripts.get('openai/tool_call')!.json!.body)
    assert.equal(
      plain.headers.get('x-request-id'),
      transcripts.get('openai/tool_call')!.json!.headers['x-request-id'],
    )
    const streamed = await post(
      `${mock.openaiBaseUrl}/chat/completions`,
      chat('[mock:tool_call]', { stream: true }),
    )
    assert.equal(streamed.text, transcripts.get('openai/tool_call')!.sse)
    const anthropic = await post(
      `${mock.anthropicBaseUrl}/v1/messages`,
      messages('x [mock:text] y', { stream: true }),
    )
    assert.equal(anthropic.text, transcripts.get('anthropic/text')!.sse)
  })

  it('replays recorded errors with their status and headers, streamed request or not', async () => {
    const cases: [string, string, unknown, number][] = [
      [
        `${mock.openaiBaseUrl}/chat/completions`,
        'openai/error_429',
        chat('[mock:error_429]', { stream: true }),
        429,
      ],
      [`${mock.openaiBaseUrl}/chat/completions`, 'openai/error_400', chat('[mock:error_400]'), 400],
      [
        `${mock.anthropicBaseUrl}/v1/messages`,
        'anthropic/error_529',
        messages('[mock:error_529]', { stream: true }),
        529,
      ],
      [`${mock.anthropicBaseUrl}/v1/messages`, 'anthropic/error_429', messages('[mock:error_429]'), 429],
    ]
    for (const [url, name, body, status] of cases) {
      const res = await post(url, body)
      const recorded = transcripts.get(name)!.json!
      assert.equal(res.status, status, name)
      assert.deepEqual(JSON.parse(res.text), recorded.body, name)
      if (recorded.headers['retry-after'])
        assert.equal(res.headers.get('retry-after'), recorded.headers['retry-after'])
    }
  })

  it('answers an unknown directive with a 400 in the vendor format', async () => {
    const res = await post(`${mock.anthropicBaseUrl}/v1/messages`, messages('[mock:no_such_case]'))
    assert.equal(res.status, 400)
    assert.equal(JSON.parse(res.text).type, 'error')
  })
})

describe('mock provider queue', () => {
  it('answers queued responses first, in order: json, sse, transcript', async () => {
    mock.enqueue({ status: 503, json: { error: { message: 'down' } }, headers: { 'x-extra': '1' } })
    mock.enqueue({ sse: 'data: [DONE]\n\n' })
    mock.enqueue({ transcript: 'anthropic/tool_call' })
    const first = await post(`${mock.openaiBaseUrl}/chat/completions`, chat('a'))
    assert.deepEqual(
      [first.status, JSON.parse(first.text), first.headers.get('x-extra')],
      [503, { error: { message: 'down' } }, '1'],
    )
    const second = await post(`${mock.openaiBaseUrl}/chat/completions`, chat('b'))
    assert.equal(second.text, 'data: [DONE]\n\n')
    const third = await post(`${mock.anthropicBaseUrl}/v1/messages`, messages('c', { stream: true }))
    assert.equal(third.text, transcripts.get('anthropic/tool_call')!.sse)
    const fourth = await post(`${mock.anthropicBaseUrl}/v1/messages`, messages('back to echo'))
    assert.equal((JSON.parse(fourth.text) as AnthropicMessage).content[0].text, 'back to echo')
  })

  it('delays a queued answer', async () => {
    mock.enqueue({ json: { ok: true }, delayMs: 120 })
    const started = performance.now()
    const res = await post(`${mock.openaiBaseUrl}/chat/completions`, chat('x'))
    assert.ok(performance.now() - started >= 110)
    assert.deepEqual(JSON.parse(res.text), { ok: true })
  })

  it('destroys the connection, after a partial stream when one is given', async () => {
    mock.enqueue({ destroy: true })
    await assert.rejects(post(`${mock.openaiBaseUrl}/chat/completions`, chat('x')))
    mock.enqueue({ destroy: true, sse: transcripts.get('openai/text')!.sse!.slice(0, 400) })
    await assert.rejects(post(`${mock.openaiBaseUrl}/chat/completions`, chat('x', { stream: true })))
  })

  it('refuses to queue a transcript that does not exist', () => {
    assert.throws(() => mock.enqueue({ transcript: 'openai/nope' }))
  })
})

describe('mock provider key check', () => {
  let keyed: MockProvider
  before(async () => {
    keyed = await startMockProvider({ apiKey: 'sk-right', recordRequests: false })
  })
  after(() => keyed.close())

  it('answers the recorded 401 to a wrong or missing key, and echoes with the right one', async () => {
    const openaiUrl = `${keyed.openaiBaseUrl}/chat/completions`
    const anthropicUrl = `${keyed.anthropicBaseUrl}/v1/messages`
    for (const headers of [{}, { authorization: 'Bearer sk-wrong' }, { 'x-api-key': 'sk-right' }] as Record<
      string,
      string
    >[]) {
      const res = await post(openaiUrl, chat('hi'), headers)
      assert.equal(res.status, 401)
      assert.deepEqual(JSON.parse(res.text), transcripts.get('openai/error_401')!.json!.body)
    }
    for (const headers of [{}, { 'x-api-key': 'sk-wrong' }, { authorization: 'Bearer sk-right' }] as Record<
      string,
      string
    >[]) {
      const res = await post(anthropicUrl, messages('hi'), headers)
      assert.equal(res.status, 401)
      assert.deepEqual(JSON.parse(res.text), transcripts.get('anthropic/error_401')!.json!.body)
    }
    assert.equal((await post(openaiUrl, chat('hi'), { authorization: 'Bearer sk-right' })).status, 200)
    assert.equal((await post(anthropicUrl, messages('hi'), { 'x-api-key': 'sk-right' })).status, 200)
    assert.equal(keyed.requests.length, 0)
  })
})

describe('mock provider routes', () => {
  it('answers 404 to an unknown path and 400 to a body that is not JSON', async () => {
    assert.equal((await post(`${mock.url}/v1/embeddings`, {})).status, 404)
    assert.equal((await post(`${mock.openaiBaseUrl}/chat/completions`, '{not json')).status, 400)
  })
})
