/**
 * Windowed stream release (`content.stream_release: windowed`), through the
 * official SDKs against a provider that streams slowly: text leaves in
 * windows before the provider finished, once every check passed on it; a
 * secret or a placeholder split over windows never leaves half-judged; a
 * block mid-stream is the vendor's in-stream error; a step that judges the
 * whole answer keeps the call held back.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { defineStep, Type, Verdicts } from '@gov/core'
import { onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

const GAP_MS = 40

/** A provider that writes each event of a scripted stream `GAP_MS` apart and notes when it finished. */
class SlowProvider {
  readonly #plans: ((requestBody: string) => string[])[] = []
  server: Server
  /** performance.now() when the last answer's last event was written. */
  endedAt = 0
  constructor() {
    this.server = createServer((req, res) => {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (c) => {
        body += c
      })
      req.on('end', async () => {
        const plan = this.#plans.shift()
        if (!plan) {
          res.writeHead(500).end('{"error":{"message":"no scripted answer"}}')
          return
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        for (const event of plan(body)) {
          res.write(event)
          await new Promise((r) => setTimeout(r, GAP_MS))
        }
        this.endedAt = performance.now()
        res.end()
      })
    })
  }
  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }
  enqueue(plan: (requestBody: string) => string[]): void {
    this.#plans.push(plan)
  }
}

/** Cut text into pieces of `size` characters, as a provider streams tokens. */
function pieces(text: string, size = 5): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

function openaiEvents(text: string): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-w1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
  return [
    chunk({ role: 'assistant', content: '' }),
    ...pieces(text).map((p) => chunk({ content: p })),
    chunk({}, 'stop'),
    'data: [DONE]\n\n',
  ]
}

function anthropicEvents(text: string): string[] {
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  return [
    ev('message_start', {
      message: {
        id: 'msg_w1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...pieces(text).map((p) =>
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: p } }),
    ),
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 9 },
    }),
    ev('message_stop', {}),
  ]
}

function responsesEvents(text: string): string[] {
  let seq = 0
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`
  const base = { id: 'resp_w1', object: 'response', created_at: 1, model: 'gpt-4o-mini' }
  const at = { item_id: 'msg_w1', output_index: 0, content_index: 0 }
  const part = { type: 'output_text', text, annotations: [] }
  const item = { id: 'msg_w1', type: 'message', status: 'completed', role: 'assistant', content: [part] }
  return [
    ev('response.created', { response: { ...base, status: 'in_progress', output: [] } }),
    ev('response.output_item.added', {
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    }),
    ev('response.content_part.added', { ...at, part: { ...part, text: '' } }),
    ...pieces(text).map((p) => ev('response.output_text.delta', { ...at, delta: p, logprobs: [] })),
    ev('response.output_text.done', { ...at, text, logprobs: [] }),
    ev('response.content_part.done', { ...at, part }),
    ev('response.output_item.done', { output_index: 0, item }),
    ev('response.completed', {
      response: {
        ...base,
        status: 'completed',
        output: [item],
        usage: { input_tokens: 3, output_tokens: 9, total_tokens: 12 },
      },
    }),
  ]
}

const LONG =
  'Here is a plain answer that goes on for a while, long enough for several windows to be checked and released before the provider is done writing it.'

describe('windowed stream release', () => {
  let t: TestGateway
  const provider = new SlowProvider()
  let key: string
  let heldKey: string
  let pipelineId: string
  let openai: OpenAI
  before(async () => {
    const url = await provider.listen()
    // Keep-alives every 30 ms: they interleave with the windows, and open streams no window filled.
    t = await startTestGateway({
      plugins: [],
      env: { OPENAI_BASE_URL: `${url}/v1`, ANTHROPIC_BASE_URL: url, GOV_STREAM_KEEPALIVE_MS: '30' },
    })
    const suffix = randomBytes(4).toString('hex')
    const content = { stream_release: 'windowed', stream_window_chars: 16, stream_hold_chars: 8 }
    let res = await t.admin('POST', '/pipelines', {
      pipeline_id: `win-${suffix}`,
      preset: 'standard',
      content,
    })
    assert.equal(res.status, 201, res.text)
    key = await t.createAgent(`win-agent-${suffix}`, `win-${suffix}`)
    pipelineId = `win-${suffix}`
    res = await t.admin('POST', '/pipelines', {
      pipeline_id: `win-whole-${suffix}`,
      preset: 'standard',
      overrides: { constrain_output: { max_chars: 100000 } },
      content,
    })
    assert.equal(res.status, 201, res.text)
    heldKey = await t.createAgent(`win-held-${suffix}`, `win-whole-${suffix}`)
    openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
  })
  after(async () => {
    await t.close()
    provider.server.close()
  })

  it('validates the setting and shows it on the pipeline', async () => {
    const bad = await t.admin('POST', '/pipelines', {
      pipeline_id: `win-bad-${randomBytes(4).toString('hex')}`,
      preset: 'standard',
      content: { stream_release: 'sometimes' },
    })
    assert.equal(bad.status, 400, bad.text)
    assert.match(bad.text, /stream_release/)
    const small = await t.admin('POST', '/pipelines', {
      pipeline_id: `win-bad-${randomBytes(4).toString('hex')}`,
      preset: 'standard',
      content: { stream_release: 'windowed', stream_window_chars: 2 },
    })
    assert.equal(small.status, 400, small.text)
    const view = await t.admin('GET', `/pipelines/${pipelineId}`)
    assert.equal(view.body.content.stream_release, 'windowed')
    assert.equal(view.body.content.stream_window_chars, 16)
  })

  it('OpenAI chat: the first text arrives before the provider finished, and the whole text is intact', async () => {
    provider.enqueue(() => openaiEvents(LONG))
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    })
    let text = ''
    let firstAt = 0
    let finish: string | null = null
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta?.content
      if (content && !firstAt) firstAt = performance.now()
      text += content ?? ''
      finish = chunk.choices[0]?.finish_reason ?? finish
    }
    assert.equal(text, LONG)
    assert.equal(finish, 'stop')
    assert.ok(
      firstAt > 0 && firstAt < provider.endedAt - 5 * GAP_MS,
      `first ${firstAt}, end ${provider.endedAt}`,
    )
  })

  it('Anthropic messages: windows before the end, and the SDK assembles the whole message', async () => {
    provider.enqueue(() => anthropicEvents(LONG))
    const anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'hi' }],
    })
    let firstAt = 0
    stream.on('text', () => {
      firstAt ||= performance.now()
    })
    const message = await stream.finalMessage()
    assert.equal(message.content[0]?.type === 'text' && message.content[0].text, LONG)
    assert.equal(message.stop_reason, 'end_turn')
    assert.equal(message.usage.output_tokens, 9)
    assert.ok(
      firstAt > 0 && firstAt < provider.endedAt - 5 * GAP_MS,
      `first ${firstAt}, end ${provider.endedAt}`,
    )
  })

  it('Responses: windows before the end, with sequence numbers the SDK accepts', async () => {
    provider.enqueue(() => responsesEvents(LONG))
    const stream = openai.responses.stream({ model: 'gpt-4o-mini', input: 'hi' })
    let firstAt = 0
    let text = ''
    const sequence: number[] = []
    for await (const event of stream) {
      sequence.push(event.sequence_number)
      if (event.type === 'response.output_text.delta') {
        firstAt ||= performance.now()
        text += event.delta
      }
    }
    const final = await stream.finalResponse()
    assert.equal(text, LONG)
    assert.equal(final.output_text, LONG)
    assert.deepEqual(
      sequence,
      sequence.map((_, i) => i),
    )
    assert.ok(
      firstAt > 0 && firstAt < provider.endedAt - 5 * GAP_MS,
      `first ${firstAt}, end ${provider.endedAt}`,
    )
  })

  it('a secret split over windows never leaves unmasked', async () => {
    const base32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
    const aws = `AKIA${[...randomBytes(16)].map((b) => base32[b % 32]).join('')}`
    const answer = `To deploy, set aws_access_key_id=${aws} in the environment of the job and run it again later today.`
    provider.enqueue(() => openaiEvents(answer))
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'how do I deploy?' }],
    })
    const deltas: string[] = []
    for await (const chunk of stream) deltas.push(chunk.choices[0]?.delta?.content ?? '')
    const text = deltas.join('')
    assert.ok(!text.includes(aws.slice(0, 8)), text)
    assert.match(text, /\[REDACTED:aws_access_key_id\]/)
    assert.ok(text.startsWith('To deploy,'), text)
  })

  it('a placeholder split over windows is released restored, never half', async () => {
    provider.enqueue((body) => {
      const placeholder = /<[A-Z_]+_\d+>/.exec(body)?.[0] ?? '<MISSING>'
      return anthropicEvents(
        `Sure, I will write to ${placeholder} right away and tell you once the message to ${placeholder} has been sent.`,
      )
    })
    const anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Please email jane.doe@example.com about the meeting.' }],
    })
    const deltas: string[] = []
    stream.on('text', (delta) => deltas.push(delta))
    const text = await stream.finalText()
    assert.equal(
      text,
      'Sure, I will write to jane.doe@example.com right away and tell you once the message to jane.doe@example.com has been sent.',
    )
    assert.ok(deltas.length > 1, 'released in more than one delta')
    assert.ok(!deltas.join('').includes('<'), deltas.join('|'))
  })

  it('a block mid-stream ends the stream with the vendor error event after the released text', async () => {
    const answer = `${LONG} You can reach the author at jane.doe@example.com if needed.`
    provider.enqueue(() => openaiEvents(answer))
    const stream = await openai.chat.completions.create(
      { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'X-Gov-Flags': 'pii=block' } },
    )
    let text = ''
    await assert.rejects(async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    }, OpenAI.APIError)
    assert.ok(text.length > 0 && answer.startsWith(text), text)
    assert.ok(!text.includes('jane'), text)

    provider.enqueue(() => anthropicEvents(answer))
    const anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    let released = ''
    await assert.rejects(async () => {
      const s = anthropic.messages.stream(
        { model: 'claude-sonnet-4-6', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'X-Gov-Flags': 'pii=block' } },
      )
      s.on('text', (d) => {
        released += d
      })
      await s.finalMessage()
    }, Anthropic.APIError)
    assert.ok(released.length > 0 && answer.startsWith(released), released)
    assert.ok(!released.includes('jane'), released)

    provider.enqueue(() => responsesEvents(answer))
    let responded = ''
    const s = openai.responses.stream(
      { model: 'gpt-4o-mini', input: 'hi' },
      { headers: { 'X-Gov-Flags': 'pii=block' } },
    )
    const sequence: number[] = []
    // The in-stream error event carries the vendor error object, so the SDK raises it as an APIError
    // with gov's code, as it does for Chat Completions.
    await assert.rejects(
      async () => {
        for await (const event of s) {
          sequence.push(event.sequence_number)
          if (event.type === 'response.output_text.delta') responded += event.delta
        }
      },
      (err: unknown) => err instanceof OpenAI.APIError && err.code === 'pii_detected',
    )
    await assert.rejects(s.finalResponse())
    assert.deepEqual(
      sequence,
      sequence.map((_, i) => i),
    )
    assert.ok(responded.length > 0 && answer.startsWith(responded), responded)
    assert.ok(!responded.includes('jane'), responded)
  })

  it('sends the x-gov headers as trailers after the released windows', async () => {
    provider.enqueue(() => openaiEvents(LONG))
    const res = await fetch(`${t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    })
    assert.equal(res.status, 200)
    assert.equal(
      res.headers.get('trailer'),
      'x-gov-classification, x-gov-pipeline-steps, x-gov-token, x-gov-dedupe',
    )
    const text = await res.text()
    const deltas = [...text.matchAll(/^data: (\{.*\})$/gm)].map((m) => JSON.parse(m[1] as string))
    assert.equal(deltas.map((d) => d.choices[0]?.delta?.content ?? '').join(''), LONG)
    assert.ok(text.endsWith('data: [DONE]\n\n'))
  })

  it('text then a tool call: windows stop at the tool call, the rest follows checked whole', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ]
    provider.enqueue(() => {
      const events = openaiEvents(LONG).slice(0, -2)
      const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-w1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
      return [
        ...events,
        chunk({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ]
    })
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      tools,
      messages: [{ role: 'user', content: 'weather in Oslo?' }],
    })
    let text = ''
    let firstAt = 0
    let args = ''
    let name = ''
    let finish: string | null = null
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta
      if (delta?.content && !firstAt) firstAt = performance.now()
      text += delta?.content ?? ''
      for (const call of delta?.tool_calls ?? []) {
        name ||= call.function?.name ?? ''
        args += call.function?.arguments ?? ''
      }
      finish = chunk.choices[0]?.finish_reason ?? finish
    }
    assert.equal(text, LONG)
    assert.equal(name, 'get_weather')
    assert.deepEqual(JSON.parse(args), { city: 'Oslo' })
    assert.equal(finish, 'tool_calls')
    assert.ok(
      firstAt > 0 && firstAt < provider.endedAt - 3 * GAP_MS,
      `first ${firstAt}, end ${provider.endedAt}`,
    )

    provider.enqueue(() => {
      const events = anthropicEvents(LONG)
      const ev = (type: string, data: Record<string, unknown>) =>
        `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
      return [
        ...events.slice(0, -2),
        ev('content_block_start', {
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
        }),
        ev('content_block_delta', {
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '{"city":"Oslo"}' },
        }),
        ev('content_block_stop', { index: 1 }),
        ev('message_delta', {
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 20 },
        }),
        ev('message_stop', {}),
      ]
    })
    const anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    const message = await anthropic.messages
      .stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 256,
        tools: [
          {
            name: 'get_weather',
            description: 'Weather of a city',
            input_schema: { type: 'object', properties: { city: { type: 'string' } } },
          },
        ],
        messages: [{ role: 'user', content: 'weather in Oslo?' }],
      })
      .finalMessage()
    assert.equal(message.content.length, 2)
    assert.equal(message.content[0]?.type === 'text' && message.content[0].text, LONG)
    const use = message.content[1]
    assert.ok(use?.type === 'tool_use' && use.name === 'get_weather', JSON.stringify(use))
    assert.deepEqual(use.input, { city: 'Oslo' })
    assert.equal(message.stop_reason, 'tool_use')
  })

  it('a short answer no window filled follows the keep-alives whole, in every format', async () => {
    const short = 'Short one.'
    provider.enqueue(() => openaiEvents(short))
    let text = ''
    for await (const chunk of await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }))
      text += chunk.choices[0]?.delta?.content ?? ''
    assert.equal(text, short)
    provider.enqueue(() => anthropicEvents(short))
    const anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    const final = await anthropic.messages
      .stream({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalText()
    assert.equal(final, short)
    provider.enqueue(() => responsesEvents(short))
    const response = await openai.responses.stream({ model: 'gpt-4o-mini', input: 'hi' }).finalResponse()
    assert.equal(response.output_text, short)
  })

  it('a step that judges the whole answer keeps the call held back', async () => {
    provider.enqueue(() => openaiEvents(LONG))
    const held = new OpenAI({ apiKey: heldKey, baseURL: `${t.url}/v1`, maxRetries: 0 })
    const stream = await held.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    })
    let text = ''
    let firstAt = 0
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta?.content
      if (content && !firstAt) firstAt = performance.now()
      text += content ?? ''
    }
    assert.equal(text, LONG)
    assert.ok(firstAt >= provider.endedAt, `first ${firstAt}, end ${provider.endedAt}`)
  })
})

/** A step that says it judges prefixes but edits early text once it sees the end: windows must not send the change. */
const changer = defineStep({
  name: 'late_changer',
  packageName: 'late-changer',
  version: '1.0.0',
  core: '>=0.2.0 <0.4.0',
  description: 'Test step: upper-cases "alpha" once the answer says "omega".',
  answerScope: 'prefix',
  settings: Type.Object({}),
  create: () => ({
    onBufferedResponse(ctx) {
      const whole = ctx.answer.message.parts.map((p) => p.text).join('')
      if (whole.includes('omega'))
        for (const part of ctx.answer.message.parts) part.text = part.text.replaceAll('alpha', 'ALPHA')
      return Verdicts.continue()
    },
  }),
})

describe('windowed stream release with a step that changes released text', () => {
  let t: TestGateway
  const provider = new SlowProvider()
  let key: string
  before(async () => {
    const url = await provider.listen()
    t = await startTestGateway({
      plugins: [changer],
      env: { OPENAI_BASE_URL: `${url}/v1`, ANTHROPIC_BASE_URL: url },
    })
    const suffix = randomBytes(4).toString('hex')
    const res = await t.admin('POST', '/pipelines', {
      pipeline_id: `win-change-${suffix}`,
      preset: 'standard',
      overrides: onlySteps('standard', { late_changer: {} }),
      content: { stream_release: 'windowed', stream_window_chars: 16, stream_hold_chars: 8 },
    })
    assert.equal(res.status, 201, res.text)
    key = await t.createAgent(`win-change-agent-${suffix}`, `win-change-${suffix}`)
  })
  after(async () => {
    await t.close()
    provider.server.close()
  })

  it('ends the stream with stream_window_changed instead of sending the change', async () => {
    const answer = `alpha is how this answer starts, and it keeps going for a good while before the end, which says omega.`
    provider.enqueue(() => anthropicEvents(answer))
    const anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    let released = ''
    await assert.rejects(
      async () => {
        const s = anthropic.messages.stream({
          model: 'claude-sonnet-4-6',
          max_tokens: 256,
          messages: [{ role: 'user', content: 'hi' }],
        })
        s.on('text', (d) => {
          released += d
        })
        await s.finalMessage()
      },
      (err: unknown) =>
        err instanceof Anthropic.APIError && /stream_window_changed/.test(String(err.message)),
    )
    assert.ok(released.startsWith('alpha is how'), released)
    assert.ok(!released.includes('ALPHA'), released)
    // Recorded as it ended for the client, not as an allowed answer.
    const audit = await t.admin('GET', '/audit?kind=call&limit=1')
    assert.equal(audit.body.records[0].outcome, 'error')
    assert.equal(audit.body.records[0].status, 500)
  })
})
